"""Bad input to the commands: one line on stderr naming what is wrong, a non-zero exit, no traceback, and nothing already logged lost."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

import referee.pipeline.cli as pipeline_cli
from referee.cli import main
from referee.events import read_events
from referee.pipeline import CapturedFrame, Pipeline, VideoFile
from referee.render.truth import TruthReader
from referee.vision.calibrate import calibrate_manual
from referee.vision.detector import DETECTOR_MODEL, INDEX_MODEL, MODELS_DIR, CardDetector, ModelMissing
from test_pipeline_clip import SEED, Clip, clip  # noqa: F401  (the shared clip fixture)

HAVE_MODELS = (MODELS_DIR / DETECTOR_MODEL).is_file() and (MODELS_DIR / INDEX_MODEL).is_file()
needs_models = pytest.mark.skipif(not HAVE_MODELS, reason="the card detector's models are not in models/")


def _cli(capfd: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    """Exit code, the lines on stderr (OpenCV's and FFmpeg's own included) and stdout of `referee ARGS`."""
    code = main([str(a) for a in args])
    out, err = capfd.readouterr()
    return code, err.strip().splitlines(), out


def _one_line_error(code: int, err: list[str], *words: str) -> None:
    assert code == 2, err
    assert len(err) == 1, err
    assert "Traceback" not in err[0] and err[0].startswith("referee ") and ": error: " in err[0]
    for word in words:
        assert word in err[0]


@pytest.fixture
def text_file(tmp_path: Path) -> Path:
    path = tmp_path / "notes.txt"
    path.write_text("not a picture of a card table\n")
    return path


@pytest.fixture
def truth_cards(monkeypatch: pytest.MonkeyPatch, clip: Clip) -> None:  # noqa: F811
    """`referee run` reads the clip's true cards instead of running the card detector."""
    reader = TruthReader(clip.truth, SEED)

    class Watched(Pipeline):
        def feed(self, frame: CapturedFrame) -> list:  # type: ignore[type-arg]
            reader.at(frame.t)
            return super().feed(frame)

    monkeypatch.setattr(pipeline_cli, "CardDetector", lambda *args, **kwargs: None)
    monkeypatch.setattr(pipeline_cli, "DetectorReader", lambda detector: reader)
    monkeypatch.setattr(pipeline_cli, "Pipeline", Watched)


def test_a_video_corrupt_midway_keeps_every_event_logged_before_the_break(
        clip: Clip, truth_cards: None, tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    data = bytearray(clip.video.read_bytes())
    start, end = int(len(data) * 0.6), int(len(data) * 0.9)  # the frame index at the end stays readable
    data[start:end] = bytes(end - start)
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(bytes(data))
    log = tmp_path / "events.jsonl"
    code, err, out = _cli(capfd, "run", broken, "--events", log)
    _one_line_error(code, err, "broken.mp4", "corrupt")
    logged = list(read_events(log))
    assert len(logged) >= 3
    assert len(out.splitlines()) == len(logged)  # every call made before the break was written


def test_a_video_cut_to_half_its_bytes_is_one_line_and_exit_2(clip: Clip, tmp_path: Path,  # noqa: F811
                                                               capfd: pytest.CaptureFixture[str]) -> None:
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(clip.video.read_bytes()[: clip.video.stat().st_size // 2])
    code, err, _ = _cli(capfd, "run", cut, "--events", tmp_path / "events.jsonl")
    _one_line_error(code, err, "cut.mp4", "corrupt")


def test_a_text_file_given_as_a_video_is_one_line_and_exit_2(text_file: Path, tmp_path: Path,
                                                               capfd: pytest.CaptureFixture[str]) -> None:
    code, err, _ = _cli(capfd, "run", text_file, "--events", tmp_path / "events.jsonl")
    _one_line_error(code, err, "notes.txt", "not a video")
    code, err, _ = _cli(capfd, "calibrate", text_file, "--out", tmp_path / "table.json")
    _one_line_error(code, err, "notes.txt")
    code, err, _ = _cli(capfd, "serve", "--source", text_file)
    _one_line_error(code, err, "notes.txt", "not a video")


def test_a_text_file_given_as_an_image_is_one_line_and_exit_2(text_file: Path, capfd: pytest.CaptureFixture[str]) -> None:
    code, err, _ = _cli(capfd, "detect", text_file)
    _one_line_error(code, err, "notes.txt", "not an image")


def test_a_missing_model_file_is_one_line_naming_it(text_file: Path, tmp_path: Path,
                                                    capfd: pytest.CaptureFixture[str]) -> None:
    code, err, _ = _cli(capfd, "detect", text_file, "--models", tmp_path)
    _one_line_error(code, err, str(tmp_path / DETECTOR_MODEL), "missing")


@needs_models
def test_a_corrupt_model_file_is_a_typed_error_naming_it(clip: Clip, tmp_path: Path,  # noqa: F811
                                                          capfd: pytest.CaptureFixture[str]) -> None:
    models = tmp_path / "models"
    models.mkdir()
    (models / DETECTOR_MODEL).write_bytes(bytes(range(256)) * 40)
    (models / INDEX_MODEL).write_bytes((MODELS_DIR / INDEX_MODEL).read_bytes())
    with pytest.raises(ModelMissing, match=str(models / DETECTOR_MODEL)):
        CardDetector(models)
    code, err, _ = _cli(capfd, "run", clip.video, "--events", tmp_path / "events.jsonl", "--models", models)
    _one_line_error(code, err, str(models / DETECTOR_MODEL), "cannot be loaded")
    (models / DETECTOR_MODEL).write_bytes(b"")
    code, err, _ = _cli(capfd, "detect", clip.video, "--models", models)
    _one_line_error(code, err, str(models / DETECTOR_MODEL), "cannot be loaded")


@needs_models
def test_a_model_of_the_wrong_kind_is_one_line_naming_it(clip: Clip, tmp_path: Path,  # noqa: F811
                                                          capfd: pytest.CaptureFixture[str]) -> None:
    models = tmp_path / "models"
    models.mkdir()
    for name in (DETECTOR_MODEL, INDEX_MODEL):  # the index reader where the card finder belongs
        (models / name).write_bytes((MODELS_DIR / INDEX_MODEL).read_bytes())
    code, err, _ = _cli(capfd, "run", clip.video, "--events", tmp_path / "events.jsonl", "--models", models)
    _one_line_error(code, err, str(models / DETECTOR_MODEL), "not an oriented-box model")
    for name, model in ((DETECTOR_MODEL, DETECTOR_MODEL), (INDEX_MODEL, DETECTOR_MODEL)):  # and the other way round
        (models / name).write_bytes((MODELS_DIR / model).read_bytes())
    code, err, _ = _cli(capfd, "detect", clip.video, "--models", models)
    _one_line_error(code, err, str(models / INDEX_MODEL), "not a card-index model")


def _calibration_file(clip: Clip, tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> dict:  # type: ignore[type-arg]  # noqa: F811
    path = tmp_path / "table.json"
    code, _, _ = _cli(capfd, "calibrate", clip.video, "--frame", "3", "--out", path)
    assert code == 0
    return json.loads(path.read_text())


def test_a_calibration_of_another_schema_version_is_one_line_and_exit_2(
        clip: Clip, tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    data = _calibration_file(clip, tmp_path, capfd)
    data["schema_version"] = 2
    other = tmp_path / "other.json"
    other.write_text(json.dumps(data))
    code, err, _ = _cli(capfd, "run", clip.video, "--events", tmp_path / "events.jsonl", "--calibration", other)
    _one_line_error(code, err, "other.json", "schema_version 2")


def test_a_corrupt_calibration_file_is_one_line_and_exit_2(clip: Clip, tmp_path: Path,  # noqa: F811
                                                            capfd: pytest.CaptureFixture[str]) -> None:
    data = _calibration_file(clip, tmp_path, capfd)
    cut = tmp_path / "cut.json"
    cut.write_text(json.dumps(data)[:200])
    code, err, _ = _cli(capfd, "run", clip.video, "--events", tmp_path / "events.jsonl", "--calibration", cut)
    _one_line_error(code, err, "cut.json", "not JSON")
    data["homography"] = [[1, 0], [0, 1]]
    bent = tmp_path / "bent.json"
    bent.write_text(json.dumps(data))
    code, err, _ = _cli(capfd, "run", clip.video, "--events", tmp_path / "events.jsonl", "--calibration", bent)
    _one_line_error(code, err, "bent.json", "homography")


def _write_video(path: Path, frames: list[np.ndarray]) -> Path:
    height, width = frames[0].shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 30.0, (width, height))
    for frame in frames:
        writer.write(frame)
    writer.release()
    return path


@needs_models
def test_no_markers_in_a_short_video_is_one_line_and_exit_2(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    blank = _write_video(tmp_path / "blank.mp4", [np.full((360, 640, 3), 128, np.uint8)] * 10)
    log = tmp_path / "events.jsonl"
    code, err, _ = _cli(capfd, "run", blank, "--events", log)
    _one_line_error(code, err, "no table markers", "--calibration")
    assert not log.exists() or log.read_text() == ""


def test_no_markers_in_an_image_to_calibrate_is_one_line_and_exit_2(tmp_path: Path,
                                                                     capfd: pytest.CaptureFixture[str]) -> None:
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((360, 640, 3), 128, np.uint8))
    code, err, _ = _cli(capfd, "calibrate", blank, "--out", tmp_path / "table.json")
    _one_line_error(code, err, "markers")


def _resized_midway(video: Path, scale: float) -> Iterator[CapturedFrame]:
    frames = list(VideoFile(video))
    for frame in frames:
        if frame.index >= len(frames) // 2:
            frame = CapturedFrame(frame.index, frame.t, cv2.resize(frame.image, None, fx=scale, fy=scale,
                                                                   interpolation=cv2.INTER_AREA))
        yield frame


def test_frames_that_change_size_midway_recalibrate_from_the_markers(clip: Clip) -> None:  # noqa: F811
    calls = {}
    for scale in (1.0, 1.5):
        reader = TruthReader(clip.truth, SEED)
        pipeline = Pipeline(reader, fps=30.0)
        made = []
        for frame in _resized_midway(clip.video, scale):
            reader.at(frame.t)
            made.extend(pipeline.feed(frame))
        assert pipeline.observer is not None
        assert pipeline.observer.calibration.image_size == (round(640 * scale), round(360 * scale))
        calls[scale] = [(e.type, e.get("card")) for e in made]
    assert calls[1.5] == calls[1.0]


class _Source:
    """A frame source whose frames change size halfway through."""

    def __init__(self, video: Path) -> None:
        self.name, self.fps = "resizing camera", 30.0
        self._video = video

    def __iter__(self) -> Iterator[CapturedFrame]:
        return _resized_midway(self._video, 0.5)

    def close(self) -> None:
        pass


def test_frames_that_change_size_under_a_hand_made_calibration_are_one_line_and_exit_2(
        clip: Clip, truth_cards: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,  # noqa: F811
        capfd: pytest.CaptureFixture[str]) -> None:
    table = tmp_path / "table.json"
    calibrate_manual((640, 360), [(60, 20), (580, 20), (620, 340), (20, 340)], 80, 60).save(table)
    monkeypatch.setattr(pipeline_cli, "open_source", lambda spec: _Source(clip.video))
    log = tmp_path / "events.jsonl"
    code, err, _ = _cli(capfd, "run", "0", "--events", log, "--calibration", table, "--quiet")
    _one_line_error(code, err, "320x180", "640x360", "calibrate")


def test_an_unknown_rule_set_is_one_line_and_exit_2(clip: Clip, tmp_path: Path,  # noqa: F811
                                                     capfd: pytest.CaptureFixture[str]) -> None:
    stream = tmp_path / "obs.jsonl"
    stream.write_text('{"t": 0, "frame": 0, "zones": {}}\n')
    for args in (("run", clip.video, "--events", tmp_path / "events.jsonl", "--rules", "snap"),
                 ("judge", stream, "--rules", "snap"), ("serve", "--rules", "snap")):
        code, err, _ = _cli(capfd, *args)
        _one_line_error(code, err, "unknown rule set 'snap'")


def test_an_event_log_in_a_missing_folder_is_one_line_and_exit_2(clip: Clip, tmp_path: Path,  # noqa: F811
                                                                  capfd: pytest.CaptureFixture[str]) -> None:
    code, err, _ = _cli(capfd, "run", clip.video, "--events", tmp_path / "nowhere" / "events.jsonl")
    _one_line_error(code, err, "nowhere")
