"""`referee run` and its loop on a rendered clip: observations that validate, cards seen landing, calls matching the ground truth, clear errors."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from referee.cli import main
from referee.events import Event, read_events
from referee.judge.score import score
from referee.observations import Observation, ObservationStream, write_observations
from referee.pipeline import CameraNotFound, CapturedFrame, Pipeline, UnreadableVideo, VideoFile, open_source
from referee.vision.calibrate import MarkersNotFound
from referee.vision.detector import MODELS_DIR, DETECTOR_MODEL, INDEX_MODEL
from test_pipeline_clip import HD, SEED, Clip, TruthReader, clip, rendered_clip  # noqa: F401  (the shared clip fixture)

FRAME = 1 / 30
SETTLE_S = 0.7
"""Calls about the last moments of the clip may come after it ends."""


@pytest.fixture(scope="module")
def watched(clip: Clip, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]  # noqa: F811
    """The pipeline over the whole clip with a reader that knows the true cards."""
    reader = TruthReader(clip.truth, SEED)
    observations: list[Observation] = []
    pipeline = Pipeline(reader, evidence_dir=tmp_path_factory.mktemp("evidence"), fps=30.0,
                        on_observation=observations.append)
    calls: list[Event] = []
    for frame in VideoFile(clip.video):
        reader.at(frame.t)
        calls.extend(pipeline.feed(frame))
    return pipeline, observations, calls


def test_frames_come_at_the_video_s_own_times(clip: Clip) -> None:  # noqa: F811
    frames = list(VideoFile(clip.video))
    assert [f.t for f in frames] == pytest.approx(list(clip.times), abs=1e-6)
    assert [f.index for f in frames] == list(range(len(clip.times)))


def test_the_observation_stream_validates(watched) -> None:  # type: ignore[no-untyped-def]
    _, observations, _ = watched
    out = io.StringIO()
    write_observations(out, observations)
    again = list(ObservationStream(out.getvalue().splitlines()))
    assert again == observations and len(again) >= 150
    assert any(obs.hands for obs in observations)


def test_a_card_landing_on_a_pile_is_observed_there_once_it_settles(clip: Clip, watched) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    _, observations, _ = watched
    play = next(e for e in clip.truth if e.type == "play")
    seen = [obs.t for obs in observations if obs.zones.get(play["to"]) is not None
            and obs.zones[play["to"]].seen == play["card"]]
    assert seen and play.t < seen[0] < play.t + 0.6


def test_calls_match_the_ground_truth_of_the_clip(clip: Clip, watched) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    _, _, calls = watched
    end = clip.times[-1] - SETTLE_S
    truth = [e for e in clip.truth if e.t <= end]
    result = score(truth, [e for e in calls if e.t <= end])
    for kind in ("play", "spit", "spit_call"):
        assert result.truth.get(kind, 0) >= 1
        assert result.recall(kind) == 1.0, kind
    # every turn-up is called with its card (a turn-up is dated by the hand on the pile, which
    # the render moves before and after the card turns: docs/pipeline.md)
    turn_ups = {(e["player"], e["pile"], e["card"]) for e in truth if e.type == "turn_up"}
    assert turn_ups and turn_ups <= {(e["player"], e["pile"], e["card"]) for e in calls if e.type == "turn_up"}
    assert result.recall("play") == result.precision("play") == 1.0
    assert all(e <= FRAME + 0.002 for kind in ("play", "spit") for e in result.time_errors[kind])
    assert all(call.get("called_at", call.t) <= clip.times[-1] for call in calls)


def test_a_slap_call_gets_its_evidence_strip(watched) -> None:  # type: ignore[no-untyped-def]
    pipeline, observations, _ = watched
    last = observations[-1].frame
    slap = Event.make("slap", 1.0, pile="L", contact={"A": 1.0, "B": 1.05}, winner="A", margin_ms=50.0,
                      evidence="", frames={"A": last - 3, "B": last - 1})
    kept = pipeline.with_evidence(slap)
    path = Path(kept["evidence"])
    assert path.is_file() and path.suffix == ".png"
    assert {k: v for k, v in kept.fields.items() if k != "evidence"} == \
        {k: v for k, v in slap.fields.items() if k != "evidence"}


def test_no_markers_in_sight_is_an_error_after_the_first_frames(clip: Clip) -> None:  # noqa: F811
    pipeline = Pipeline(TruthReader(clip.truth, SEED))
    blank = np.full((360, 640, 3), 128, np.uint8)
    with pytest.raises(MarkersNotFound, match="no table markers"):
        for i in range(40):
            pipeline.feed(CapturedFrame(i, i / 30, blank))


def test_a_truncated_video_is_one_line_and_exit_2_and_the_log_keeps_its_lines(clip: Clip, tmp_path: Path,
                                                                               capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(clip.video.read_bytes()[: clip.video.stat().st_size // 2])
    log = tmp_path / "events.jsonl"
    earlier = Event.make("spit_call", 0.5).to_json() + "\n"
    log.write_text(earlier)
    assert main(["run", str(broken), "--events", str(log)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "broken.mp4" in err[0] and "corrupt" in err[0]
    assert log.read_text() == earlier
    with pytest.raises(UnreadableVideo):
        open_source(str(tmp_path / "missing.mp4"))


def test_a_missing_camera_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "9", "--events", str(tmp_path / "e.jsonl")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "camera 9" in err[0]
    with pytest.raises(CameraNotFound):
        open_source("9")


@pytest.mark.skipif(not (MODELS_DIR / DETECTOR_MODEL).is_file() or not (MODELS_DIR / INDEX_MODEL).is_file(),
                    reason="the card detector's models are not in models/")
def test_referee_run_reads_the_dealt_cards_and_calls_nothing_false(pytestconfig: pytest.Config, tmp_path: Path) -> None:
    assert pytestconfig.cache is not None
    hd = rendered_clip(pytestconfig.cache, HD)  # full size: what the detector is made for
    log, stream = tmp_path / "events.jsonl", tmp_path / "obs.jsonl"
    assert main(["run", str(hd.video), "--events", str(log), "--observations", str(stream), "--quiet"]) == 0
    observations = list(ObservationStream(str(stream)))
    assert len(observations) == len(hd.times)
    deal = hd.truth[0]
    tops = {zone: cards[-1] for zone, cards in deal["stock"].items()}
    read = {}
    for obs in observations[:8]:
        read.update({z: r.seen for z, r in obs.zones.items() if r.is_card and r.confidence >= 0.3})
    assert sum(read.get(zone) == card for zone, card in tops.items()) >= len(tops) // 2
    calls = list(read_events(log))
    end = hd.times[-1] - SETTLE_S  # truth after it may not be called yet; calls after it are not scored
    result = score(hd.truth, [e for e in calls if e.t <= end + 0.25], until=end)
    assert result.precision("play") == 1.0 and result.false_flags == 0
