"""The tracker's hysteresis: settled changes after k readable frames, held under hands, dated to their first frame."""

from __future__ import annotations

import pytest

from referee.observations import HandSeen, Observation, ZoneReading
from referee.tracker import BadTrackerConfig, Tracker, TrackerConfig

FPS = 30


def _feed(tracker: Tracker, frames: list[tuple[str, tuple[HandSeen, ...]]], start: int = 0) -> list[tuple[int, str | None, str, int]]:
    out = []
    for i, (seen, hands) in enumerate(frames, start):
        snap = tracker.update(Observation(i / FPS, i, {"L": ZoneReading(seen)}, hands))
        out.extend((i, c.before, c.after, c.seen_frame) for c in snap.changes)
    return out


def _plain(*seen: str) -> list[tuple[str, tuple[HandSeen, ...]]]:
    return [(s, ()) for s in seen]


def test_one_frame_misread_is_not_an_event() -> None:
    changes = _feed(Tracker(), _plain("7C", "7C", "7C", "9H", "7C", "7C", "back", "7C", "7C"))
    assert changes == [(2, None, "7C", 0)]


def test_change_settles_after_k_frames_dated_to_the_first() -> None:
    for k in (1, 2, 3, 5):
        changes = _feed(Tracker(TrackerConfig(settle_frames=k)), _plain(*["7C"] * 6 + ["8D"] * 8))
        assert changes[-1] == (6 + k - 1, "7C", "8D", 6)


def test_card_under_a_hand_is_held() -> None:
    hand = (HandSeen("A", ("L",)),)
    frames = _plain("7C", "7C", "7C") + [("empty", hand)] * 10 + [("occluded", ())] * 5 + _plain("7C", "7C", "7C")
    assert _feed(Tracker(), frames) == [(2, None, "7C", 0)]


def test_a_hand_over_a_new_card_makes_it_seen_anew() -> None:
    hand = (HandSeen("B", ("L",)),)
    frames = _plain("7C", "7C", "7C", "8D", "8D") + [("8D", hand)] + _plain("8D", "8D", "8D")
    assert _feed(Tracker(), frames)[-1] == (8, "7C", "8D", 6)


def test_occluded_reading_breaks_the_settling_run() -> None:
    frames = _plain("7C", "7C", "7C", "8D", "8D", "occluded", "8D", "8D", "8D")
    assert _feed(Tracker(), frames)[-1] == (8, "7C", "8D", 3)


def test_low_confidence_reading_is_ignored() -> None:
    tracker = Tracker(TrackerConfig(min_confidence=0.5))
    for i in range(3):
        tracker.update(Observation(i / FPS, i, {"L": ZoneReading("7C")}))
    for i in range(3, 10):
        snap = tracker.update(Observation(i / FPS, i, {"L": ZoneReading("KD", 0.3)}))
        assert not snap.changes and "L" in snap.unsettled
    assert tracker.zones["L"] == "7C"


def test_touch_marks_the_first_contact_frame() -> None:
    tracker = Tracker()
    touches = []
    for i in range(8):
        hands = (HandSeen("A", ("L",), {"L": 4 / FPS}),) if 4 <= i < 7 and i != 5 else ()
        snap = tracker.update(Observation(i / FPS, i, {"L": ZoneReading("7C")}, hands))
        touches.extend((t.zone, t.side, t.frame, t.contact) for t in snap.touches)
    # one touch despite the contact flag missing in frame 5 (a gap of one frame)
    assert touches == [("L", "A", 4, False), ("L", "A", 4, True)]


def test_a_contact_found_again_in_the_same_touch_with_a_later_start_is_redated() -> None:
    tracker = Tracker()
    touches, redated = [], []
    for i in range(10):
        start = 4 / FPS if i < 6 else 6 / FPS  # at rest from frame 4, stirring in frame 6, at rest again
        hands = (HandSeen("A", ("L",), {"L": start} if i != 6 else {}),) if 4 <= i < 9 else ()
        snap = tracker.update(Observation(i / FPS, i, {"L": ZoneReading("7C")}, hands))
        touches.extend((t.side, t.t, t.contact) for t in snap.touches)
        redated.extend((t.side, t.t, t.frame) for t in snap.redated)
    assert touches == [("A", 4 / FPS, False), ("A", 4 / FPS, True)]  # still one touch
    assert redated == [("A", 6 / FPS, 7)]  # dated from the second rest, once


def test_snapshot_zones_are_read_only() -> None:
    tracker = Tracker()
    snap = None
    for i in range(3):
        snap = tracker.update(Observation(i / FPS, i, {"L": ZoneReading("7C")}))
    assert snap is not None and snap.zones == {"L": "7C"}
    with pytest.raises(TypeError):
        snap.zones["L"] = "8C"  # type: ignore[index]


@pytest.mark.parametrize("options", [{"settle_frames": 0}, {"min_confidence": 1.5}, {"touch_gap_frames": -1}])
def test_bad_config_is_refused(options: dict[str, float]) -> None:
    with pytest.raises(BadTrackerConfig):
        TrackerConfig(**options)  # type: ignore[arg-type]
