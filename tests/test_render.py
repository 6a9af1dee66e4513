"""`referee render-game`: a few seconds of a simulated game as mp4, its ground truth and frame times, cards landing on time."""

from __future__ import annotations

import json
import math
import threading
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from referee.cli import main
from referee.errors import RefereeError, UnknownRuleSet
from referee.events import Event
from referee.render import (
    RenderError, RenderOptions, RenderResult, TableGeometry, Timeline, game_events, render_game, scene_at,
)
from referee.render.cache import cached_game, renderer_version
from referee.render.compose import FrameRenderer, Webcam
from referee.render.timeline import Frame
from referee.render.video import frame_times, geometry_for, stage
from referee.simulate import simulate_games
from referee.synth import Annotation, render_scene
from referee.vision.calibrate import calibrate_markers

SEED = 1
SECONDS = 2.4
SMALL = RenderOptions(width=640, height=360, max_seconds=SECONDS)


@pytest.fixture(scope="module")
def events() -> tuple[Event, ...]:
    return game_events("classic", SEED, None)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory, events: tuple[Event, ...]) -> RenderResult:
    out = tmp_path_factory.mktemp("render") / "game.mp4"
    return render_game(events, out, SEED, SMALL, "classic")


def _decoded(path: Path) -> tuple[list[np.ndarray], list[float]]:
    cap = cv2.VideoCapture(str(path))
    frames, msec = [], []
    while True:
        ok, image = cap.read()
        if not ok:
            break
        frames.append(image)
        msec.append(cap.get(cv2.CAP_PROP_POS_MSEC))
    cap.release()
    return frames, msec


def test_video_reads_back_with_its_frame_times(rendered: RenderResult) -> None:
    info = json.loads(rendered.frames.read_text())
    times = info["t"]
    assert len(times) == info["frame_count"] == rendered.frame_count == math.floor(SECONDS * 30) + 1
    assert times[0] == 0.0 and times[-1] == pytest.approx(SECONDS)
    frames, msec = _decoded(rendered.video)
    assert len(frames) == len(times)
    assert frames[0].shape == (360, 640, 3)
    assert np.allclose(msec, np.array(times) * 1000, atol=0.5)
    assert info["table_to_image"] and info["play_size_cm"] == [76.0, 56.0]


def test_the_calibration_finds_the_play_area_in_the_video(rendered: RenderResult) -> None:
    info = json.loads(rendered.frames.read_text())
    frames, _ = _decoded(rendered.video)
    calibration = calibrate_markers(frames[0], info["marker_cm"])
    assert calibration.play_size_cm == pytest.approx(info["play_size_cm"], abs=1.0)
    corners = np.array([[0, 0], [76, 0], [76, 56], [0, 56], [38, 28]], float)
    truth = np.c_[corners, np.ones(len(corners))] @ np.array(info["table_to_image"]).T
    assert np.abs(calibration.to_image(corners) - truth[:, :2] / truth[:, 2:]).max() < 2.0


def test_ground_truth_is_the_simulators_log(rendered: RenderResult, events: tuple[Event, ...]) -> None:
    _, game = simulate_games("classic", 1, SEED, log_first=True)
    assert game is not None and tuple(game.events) == tuple(events)
    written = [json.loads(line) for line in rendered.log.read_text().splitlines()]
    assert written == [e.as_dict() for e in game.events if e.t <= SECONDS]
    assert json.loads(rendered.frames.read_text())["events"] == len(written)


def _on_pile(annotation: Annotation, code: str, pile: str) -> bool:
    return any(c.card == code and c.zone == pile for c in annotation.cards)


def test_a_card_lands_in_the_first_frame_at_or_after_its_play(events: tuple[Event, ...]) -> None:
    geometry = geometry_for(events)
    camera, table, lighting, deck = stage(SEED, geometry, SMALL)
    to_image = camera.homography(0.0)
    times = frame_times(SECONDS, 30)
    plays = [e for e in events if e.type == "play" and e.t <= SECONDS]
    assert plays
    for play in plays:
        i = next(k for k, t in enumerate(times) if t >= play.t)
        timeline = Timeline(events, geometry, SEED)
        before = render_scene(scene_at(timeline, times[i - 1], table, lighting), camera, deck).annotation
        after = render_scene(scene_at(timeline, times[i], table, lighting), camera, deck).annotation
        assert not _on_pile(before, play["card"], play["to"])
        assert _on_pile(after, play["card"], play["to"])
        label = next(c for c in after.cards if c.card == play["card"])
        assert label.z == max(c.z for c in after.cards if c.zone == play["to"])
        # the card's centre lies in the calibration's default zone of its pile
        centre = np.append(np.mean(label.corners, axis=0), 1.0)
        x, y, w = np.linalg.inv(to_image) @ centre
        assert geometry.layout.locate(geometry.to_calibration(x / w, y / w)) == play["to"]


def test_turned_and_spat_cards_show_their_faces(events: tuple[Event, ...]) -> None:
    timeline = Timeline(events, geometry_for(events), SEED)
    spit = next(e for e in events if e.type == "spit")
    frame = timeline.at(spit.t + 0.01)
    for pile, code in spit["cards"].items():
        assert [c.code for c in frame.still if c.zone == pile][-1] == code
    turn = next(e for e in events if e.type == "turn_up")
    for t, shown in ((turn.t - 0.001, "back"), (turn.t + 0.05, "back"), (turn.t + 0.2, turn["card"]),
                     (turn.t + 0.5, turn["card"])):
        top = max((c for c in timeline.at(t).cards if c.zone == turn["pile"]), key=lambda c: c.z)
        assert (top.code if top.code != "back" and math.cos(math.radians(top.tilt)) >= 0 else "back") == shown


def test_a_turn_up_begins_with_the_hand_on_the_card(events: tuple[Event, ...]) -> None:
    """The log's time of a turn-up is the touch that turns it: the hand arrives then, not before."""
    geometry = geometry_for(events)
    timeline = Timeline(events, geometry, SEED)
    turn = next(e for e in events if e.type == "turn_up")
    x, y = geometry.pile(turn["pile"])
    grips = {t: _grip_distance(timeline.at(t), turn["player"], x, y) for t in (turn.t - 0.1, turn.t)}
    assert grips[turn.t] < 0.5 < grips[turn.t - 0.1]


def _grip_distance(frame: Frame, player: str, x: float, y: float) -> float:
    """How far (cm) `player`'s grip (11.5 cm along the hand from its pose) is from (x, y) in a timeline frame."""
    pose = next(h for h in frame.hands if h.side == player)
    a = math.radians(pose.angle)
    return math.hypot(pose.x + 11.5 * math.sin(a) - x, pose.y + 11.5 * math.cos(a) - y)


def _lies_uncovered_until_picked_up(events: tuple[Event, ...], refused: Event) -> None:
    """A refused card (an illegal play or a spit card turned too early) lies on top of its pile
    from its touch to its `pickup`, and its player's hand goes well away from it meanwhile."""
    geometry = geometry_for(events)
    timeline = Timeline(events, geometry, SEED)
    x, y = geometry.pile(refused["to"])
    away = []
    for k in range(1, 10):
        frame = timeline.at(refused.t + (refused["pickup"] - refused.t) * k / 10)
        assert [c.code for c in frame.still if c.zone == refused["to"]][-1] == refused["card"]
        away.append(_grip_distance(frame, refused["player"], x, y))
    assert max(away) > 10.0


def test_an_illegal_card_lies_uncovered_until_it_is_picked_up_again(events: tuple[Event, ...]) -> None:
    """A misplayed card is let go like any card: the hand leaves the pile, so the camera sees it,
    and comes back for it at `pickup`."""
    bad = next(e for e in events if e.type == "illegal_play")
    assert bad.t < bad["pickup"] < bad["back"]
    _lies_uncovered_until_picked_up(events, bad)


def test_a_spit_card_turned_too_early_lies_on_its_pile_until_its_player_takes_it_back(
        events: tuple[Event, ...]) -> None:
    """A premature spit card is let go face up on the spit pile, its hand leaving it, until `pickup`;
    by `back` it is off the pile again, which shows what it covered."""
    timeline = Timeline(events, geometry_for(events), SEED)
    early = next(e for e in events if e.type == "premature_spit")
    under = [c.code for c in timeline.at(early["start"]).still if c.zone == early["to"]][-1]
    _lies_uncovered_until_picked_up(events, early)
    assert [c.code for c in timeline.at(early["back"]).still if c.zone == early["to"]][-1] == under


def test_an_illegal_card_goes_back_to_its_place(events: tuple[Event, ...]) -> None:
    timeline = Timeline(events, geometry_for(events), SEED)
    bad = next(e for e in events if e.type == "illegal_play")
    assert [c.code for c in timeline.at(bad.t).still if c.zone == bad["to"]][-1] == bad["card"]
    mid = timeline.at((bad["pickup"] + bad["back"]) / 2)
    assert [c.code for c in mid.moving] == [bad["card"]]
    assert [c.code for c in timeline.at(bad["back"]).still if c.zone == bad["from"]][-1] == bad["card"]


def test_the_dealt_layout_lies_still_with_both_hands_away_before_the_opening_spit(events: tuple[Event, ...]) -> None:
    """After a deal's last card the hands leave the table and the layout lies still for the camera,
    most of the players' pause, until they reach for their spit cards (every deal of the game)."""
    geometry = geometry_for(events)
    timeline = Timeline(events, geometry, SEED)
    deals = [(layout, spit) for layout, spit in zip(events, events[1:]) if layout.type == "layout"]
    assert len(deals) > 1
    for layout, spit in deals:
        begin, end = layout.t + 0.3, min(spit["contact"].values()) - 0.45  # hands withdrawn; not yet reaching
        assert end - begin > 0.5
        for t in np.arange(begin, end, 1 / 30):
            frame = timeline.at(float(t))
            assert not frame.moving
            for pose in frame.hands:
                rx, ry = geometry.seat(pose.side, "right" if pose.right else "left").rest
                a = math.radians(pose.angle)
                assert math.hypot(pose.x + 11.5 * math.sin(a) - rx, pose.y + 11.5 * math.cos(a) - ry) < 0.5


def test_slaps_put_both_hands_down_the_first_underneath() -> None:
    events = game_events("classic", 7, None)
    timeline = Timeline(events, geometry_for(events), 7)
    slap = next(e for e in events if e.type == "slap")
    contact = slap["contact"]
    first = min(contact, key=contact.get)
    frame = timeline.at(max(contact.values()))
    piles = slap.get("piles") or {p: slap["pile"] for p in contact}
    for pose in frame.hands:
        if pose.side in contact:
            px, py = timeline.geometry.pile(piles[pose.side])
            assert math.hypot(pose.x - px, pose.y - py) < 0.5 and pose.height < 2.0
    assert [h.side for h in frame.hands].index(first) < [h.side for h in frame.hands].index(
        "B" if first == "A" else "A")


def test_the_fast_frames_draw_what_render_scene_draws(events: tuple[Event, ...]) -> None:
    geometry = geometry_for(events)
    camera, table, lighting, deck = stage(SEED, geometry, SMALL)
    clean = Webcam(sharpen=0.0, noise=0.0)
    renderer = FrameRenderer(camera, table, lighting, geometry.markers(), deck, clean, SEED)
    timeline = Timeline(events, geometry, SEED)
    for t in (1.2, 2.0):  # the spit cards in the air, then a play
        for _ in range(3):  # a hand held still is drawn from its cache from the third frame
            fast = renderer.render(timeline.at(t), 0)[..., ::-1].astype(np.float32)
        exact = render_scene(scene_at(timeline, t, table, lighting), camera, deck).image * 255
        assert np.abs(fast - exact).mean() < 1.5


def test_the_same_seed_gives_the_same_video_in_any_number_of_processes(tmp_path: Path,
                                                                       events: tuple[Event, ...]) -> None:
    options = RenderOptions(width=320, height=180, max_seconds=1.1)
    a = render_game(events, tmp_path / "a.mp4", SEED, options)
    b = render_game(events, tmp_path / "b.mp4", SEED, replace(options, jobs=2))
    frames_a, _ = _decoded(a.video)
    frames_b, _ = _decoded(b.video)
    assert len(frames_a) == len(frames_b) == 34
    assert all(np.array_equal(x, y) for x, y in zip(frames_a, frames_b))
    assert a.log.read_text() == b.log.read_text()


def test_geometry_puts_markers_and_piles_where_calibration_expects() -> None:
    geometry = TableGeometry()
    inner = {m.marker_id: (m.x + (m.size / 2 if m.x < 0 else -m.size / 2), m.y + (m.size / 2 if m.y < 0 else -m.size / 2))
             for m in geometry.markers()}
    assert geometry.to_calibration(*inner[3]) == pytest.approx((0.0, 0.0))
    assert geometry.to_calibration(*inner[1]) == pytest.approx((geometry.width_cm, geometry.depth_cm))
    for zone in geometry.layout.piles:
        assert geometry.layout.locate(geometry.to_calibration(*geometry.pile(zone.name))) == zone.name
    assert geometry.to_synth(*geometry.to_calibration(3.0, -4.0)) == pytest.approx((3.0, -4.0))


def test_bad_input_is_a_typed_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(UnknownRuleSet):
        game_events("no-such-rules", 0, None)
    with pytest.raises(RefereeError):
        game_events("classic", 0, tmp_path / "missing.jsonl")
    (tmp_path / "bad.jsonl").write_text("not json\n")
    with pytest.raises(RefereeError):
        game_events("classic", 0, tmp_path / "bad.jsonl")
    with pytest.raises(RenderError, match="cannot draw draw"):
        game_events("full-deck", 0, None)
    with pytest.raises(RenderError, match="two-player"):
        game_events("speahx", 0, None)
    with pytest.raises(RenderError, match="cannot write"):
        render_game(game_events("classic", 0, None), tmp_path / "no" / "dir" / "g.mp4", 0, RenderOptions(max_seconds=0.1))
    assert main(["render-game", "--rules", "no-such-rules", "--out", str(tmp_path / "g.mp4")]) == 2
    (tmp_path / "taken.mp4").mkdir()
    assert main(["render-game", "--out", str(tmp_path / "taken.mp4"), "--max-seconds", "0.1"]) == 2
    assert main(["render-game", "--out", str(tmp_path / "game.avi"), "--max-seconds", "0.1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("referee render-game: error:") for line in err)


def test_a_cached_game_is_rendered_once_and_named_after_the_renderer(tmp_path: Path) -> None:
    options = RenderOptions(width=320, height=180, max_seconds=0.3)
    video = cached_game(tmp_path, 5, options)
    assert video.is_file() and renderer_version()[:8] in video.name
    made = video.stat().st_mtime_ns
    assert cached_game(tmp_path, 5, options) == video and video.stat().st_mtime_ns == made


def test_a_cached_game_whose_render_was_cut_short_is_rendered_again(tmp_path: Path) -> None:
    options = RenderOptions(width=320, height=180, max_seconds=0.3)
    video = cached_game(tmp_path, 5, options)
    frames = video.with_suffix(".frames.json")
    whole = frames.read_text(encoding="utf-8")
    for cut in ("", whole[: len(whole) // 2]):
        frames.write_text(cut, encoding="utf-8")
        assert cached_game(tmp_path, 5, options) == video
        assert frames.read_text(encoding="utf-8") == whole


def test_processes_sharing_a_cache_render_a_game_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import referee.render.cache as cache_module

    renders: list[int] = []

    def slow_render(video: Path, seed: int, rules: str, log: None, options: RenderOptions) -> SimpleNamespace:
        renders.append(seed)
        time.sleep(0.3)  # a second caller arrives while the video is still being written
        video.write_bytes(b"video")
        video.with_suffix(".frames.json").write_text('{"frame_count": 9}', encoding="utf-8")
        return SimpleNamespace(frame_count=9)

    monkeypatch.setattr(cache_module, "simulate_and_render", slow_render)
    options = RenderOptions(width=320, height=180, max_seconds=0.3)
    got: list[Path] = []
    callers = [threading.Thread(target=lambda: got.append(cached_game(tmp_path, 9001, options))) for _ in range(2)]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join(timeout=10)
    assert renders == [9001] and len(got) == 2 and got[0] == got[1]
