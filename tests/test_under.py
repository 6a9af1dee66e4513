"""A card read under a spit pile's top: the reading's format, the truth reader's rule, the tracker's
settling and the referee's rule (`TableMoves._laid_under`)."""

from __future__ import annotations


import pytest
from test_judge import LAYOUT, _of, _opened
from test_judge_covered import _over

from referee.observations import BadObservation, HandSeen, Observation, ZoneReading
from referee.render.truth import INDEX_SHOWN, index_shown
from referee.synth import CardPlacement
from referee.tracker import Tracker, TrackerConfig


def test_a_zone_reading_with_a_card_under_its_top_round_trips_and_older_readings_load_unchanged() -> None:
    obs = Observation.from_json('{"t": 0.5, "frame": 15, "zones": {"R": {"seen": "4D", "under": "3H"}, "L": "7C"}}')
    assert obs.zones["R"].under == "3H" and obs.zones["L"].under is None
    assert Observation.from_json(obs.to_json()) == obs
    assert ZoneReading("7C").to_dict() == "7C"
    with pytest.raises(BadObservation):
        ZoneReading("4D", under="3X")
    with pytest.raises(BadObservation):
        ZoneReading("back", under="3H")  # a card under a face-down top is not read


def test_the_truth_reader_reads_a_card_under_the_top_only_where_one_of_its_index_corners_shows() -> None:
    under = CardPlacement("3H", 0.0, 0.0, 0.0, 0, 0.0, "R")
    assert index_shown(under, [CardPlacement("4D", 0.2, 0.1, 3.0, 1, 0.03, "R")]) < INDEX_SHOWN  # squarely covered
    assert index_shown(under, [CardPlacement("4D", 1.2, 0.0, 0.0, 1, 0.03, "R")]) >= INDEX_SHOWN  # shifted: its left index shows
    assert index_shown(under, [CardPlacement("4D", 0.0, 0.0, 90.0, 1, 0.03, "R")]) < INDEX_SHOWN  # across it: the corners hidden
    assert index_shown(under, []) == 1.0


def _track(readings: list[ZoneReading]) -> list[dict[str, str]]:
    tracker = Tracker(TrackerConfig(settle_frames=3))
    return [dict(tracker.update(Observation(i / 30, i, {"R": r})).under) for i, r in enumerate(readings)]


def test_a_card_under_a_top_settles_with_it_and_a_one_frame_misread_of_it_never_settles() -> None:
    under = _track([ZoneReading("4D", under="3H")] * 3 + [ZoneReading("4D", under="9S")] + [ZoneReading("4D", under="3H")] * 2)
    assert under == [{}, {}, {"R": "3H"}, {"R": "3H"}, {"R": "3H"}, {"R": "3H"}]
    misread = _track([ZoneReading("4D")] * 3 + [ZoneReading("4D", under="9S")] + [ZoneReading("4D")] * 3)
    assert all(u == {} for u in misread)
    new_top = _track([ZoneReading("4D", under="3H")] * 3 + [ZoneReading("5C")] * 3)
    assert new_top[-1] == {}  # the card under the old top is no longer read under the new one


def _laid_unseen_then_covered(under: str, frames_read: int, rival_first: bool = False) -> tuple[list, float, float]:
    """A turns 3♥ on A4 under its arm and lays it on R (on 2♠); it is never read there: B's hand
    lays 4♦ from B2 on it at once; R then shows 4♦ with `under` read below it in its first
    `frames_read` frames. With `rival_first`, B's hand touched R before A's (a card may lie under the 3♥ unseen)."""
    film = _opened()  # R shows 3♣
    film.play("A", "A4", "back", "R")  # 2♠ onto 3♣: A4 shows a face-down card
    _over(film, 4, HandSeen("A", ("A4",), {"A4": film.t}))  # A turns 3♥ on A4 (never read there)
    if rival_first:
        _over(film, 2, HandSeen("A", ("A4",), {}), HandSeen("B", ("R",), {"R": film.t}))
    ta = film.t
    _over(film, 3, HandSeen("A", ("A4", "R"), {"R": ta}))  # and lays it on R, its arm over A4 all along
    arm = HandSeen("A", ("A4",), {})
    _over(film, 1, arm, HandSeen("B", ("B2",), {"B2": film.t}))  # B lifts 4♦
    film.zones["B2"] = "back"
    tb = film.t
    _over(film, 3, arm, HandSeen("B", ("B2", "R"), {"R": tb}))  # and lays it on R
    film.zones["R"] = "4D"
    first = len(film.frames)
    _over(film, 6, arm)
    film.still(40)  # the arm leaves: A4 shows the next face-down card
    for i in range(first, first + frames_read):
        obs = film.frames[i]
        film.frames[i] = Observation(obs.t, obs.frame, dict(obs.zones, R=ZoneReading("4D", under=under)), obs.hands)
    return film.judge(), ta, tb


def test_a_card_read_under_a_new_top_that_the_engine_lacks_there_was_laid_before_it() -> None:
    events, ta, tb = _laid_unseen_then_covered("3H", 40)
    assert [(e["pile"], e["card"]) for e in _of(events, "turn_up")] == [("A4", "3H")]
    assert [(e["player"], e["card"], e["from"], e.t) for e in _of(events, "play")][-2:] == \
        [("A", "3H", "A4", ta), ("B", "4D", "B2", tb)]
    assert not _of(events, "illegal_play")


def test_a_card_read_under_a_top_in_one_frame_only_makes_no_event() -> None:
    events, _, _ = _laid_unseen_then_covered("3H", 1)
    assert not [e for e in _of(events, "play") if e["card"] == "3H"]
    assert not _of(events, "turn_up")


def test_a_card_read_under_a_top_that_would_be_refused_on_the_engine_s_top_makes_no_call() -> None:
    events, _, _ = _laid_unseen_then_covered("9H", 40)  # 9♥ is not next to 2♠: no play, and no call against A
    assert not [e for e in events if e.type in ("play", "turn_up", "illegal_play") and e.get("card") == "9H"]


def test_a_card_read_under_a_top_is_not_laid_after_a_contact_with_the_pile_that_nothing_explains() -> None:
    events, _, _ = _laid_unseen_then_covered("3H", 40, rival_first=True)  # the 3♥ may lie on a card of B's unseen
    assert not [e for e in events if e.type in ("play", "turn_up") and e.get("card") == "3H"]


def test_a_card_read_under_a_new_top_after_showing_settled_on_top_is_played_at_its_touch_before_that() -> None:
    film = _opened(layout=dict(LAYOUT, A4="4D", B2="8C"))  # R shows 3♣
    film.touch("A", "A4", 2, then="back")  # A lifts 4♦
    film.still(2)
    ta, _ = film.touch_both(("A", "R"), ("B", "R"), lag=0)  # and lays it on R; B's hand touches R in that frame, laying nothing seen
    film.zones["R"] = "4D"
    film.still(4)  # 4♦ read settled on top: it waits for a card of B's that may lie under it
    film.touch("A", "A5", 2, then="back")  # A lifts 5♥
    _over(film, 2, HandSeen("A", ("R",), {}))  # its hand comes over R
    tb = film.touch("A", "R", 3, then="5H")  # and lays 5♥ on the 4♦
    first = len(film.frames)
    film.still(30)
    for i in range(first, len(film.frames)):  # 4♦ read under it
        obs = film.frames[i]
        film.frames[i] = Observation(obs.t, obs.frame, dict(obs.zones, R=ZoneReading("5H", under="4D")), obs.hands)
    events = film.judge()
    assert [(e["card"], e.t) for e in _of(events, "play")] == [("4D", ta), ("5H", tb)]


def test_a_card_read_under_a_top_whose_contact_was_found_at_the_very_instant_of_the_top_s_is_dated_at_it() -> None:
    """A turns 3♥ on A4 and its hand comes over R three frames before any contact is found there; the hand
    finder then dates A's contact with R and B's (laying 4♦ on the 3♥) to the same frame. The 3♥ read
    under the 4♦ was laid at that contact (`TableMoves._tied_with_top`), not when A's hand came over R."""
    film = _opened()  # R shows 3♣
    film.play("A", "A4", "back", "R")  # 2♠ onto 3♣: A4 shows a face-down card
    _over(film, 4, HandSeen("A", ("A4",), {"A4": film.t}))  # A turns 3♥ on A4 (never read there)
    came = _over(film, 2, HandSeen("A", ("A4", "R"), {}))  # its hand comes over R, no contact found yet
    _over(film, 1, HandSeen("A", ("A4", "R"), {}), HandSeen("B", ("B2",), {"B2": film.t}))  # B lifts 4♦
    film.zones["B2"] = "back"
    t = film.t
    _over(film, 3, HandSeen("A", ("A4", "R"), {"R": t}), HandSeen("B", ("B2", "R"), {"R": t}))  # both dated the same frame
    film.zones["R"] = "4D"
    first = len(film.frames)
    _over(film, 6, HandSeen("A", ("A4",), {}))
    film.still(40)  # the arm leaves: A4 shows the next face-down card
    for i in range(first, len(film.frames)):
        obs = film.frames[i]
        film.frames[i] = Observation(obs.t, obs.frame, dict(obs.zones, R=ZoneReading("4D", under="3H")), obs.hands)
    events = film.judge()
    assert came < t
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")][-2:] == [("A", "3H", t), ("B", "4D", t)]
