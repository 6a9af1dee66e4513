"""Wrong calls found on the fresh games AL (fifteenth session): two cards laid on one spit pile within a
frame of each other, one of them turned unseen; a card read under the top, laid by a hand that came over
the pile in the frame the top's contact began; of two contacts in one frame, the card taken away was laid by
the hand that took it. Each test is named after the rule it checks."""

from __future__ import annotations

from test_judge import LAYOUT, _of, _opened
from test_judge_covered import _over

from referee.events import Event
from referee.observations import HandSeen, Observation, ZoneReading


def _turned_unseen_and_lifted_in_one_frame(lag: int) -> tuple[list[Event], float, float]:
    """A plays 9♥ from A2 on L's 8♦, turns 10♠ in A2 under its arm (never read there) while B lifts 8♠
    from B3 (B3 seen face down); B's hand touches L, A's `lag` frames later (0 or 1: within a frame),
    and L shows the 10♠ on top, nothing read under it: B's 8♠ lies under it. The times of B's and A's
    contacts."""
    film = _opened()  # L shows 8♦, R 3♣; A2 9♥ on a face-down card, B3 8♠
    film.play("A", "A2", "back", "L")  # 9♥ on 8♦
    film.still(10)
    arm = HandSeen("A", ("A2",), {"A2": film.t})
    _over(film, 4, arm, HandSeen("B", ("B3",), {"B3": film.t}))  # A turns 10♠, B lifts 8♠
    film.zones["B3"] = "back"
    _over(film, 2, arm)
    tb = film.t
    for _ in range(lag):
        film.frame((HandSeen("A", ("A2",)), HandSeen("B", ("L",), {"L": tb})))
    ta = film.t
    _over(film, 3, HandSeen("A", ("A2", "L"), {"L": ta}), HandSeen("B", ("L",), {"L": tb}))
    film.zones["L"] = "10S"
    _over(film, 10, arm)  # A's hand back over A2: L read with no hand over it
    film.still(40)
    return film.judge(), tb, ta


def test_a_card_turned_unseen_read_on_top_after_a_rival_card_touched_within_a_frame_came_second() -> None:
    for lag in (0, 1):
        events, tb, ta = _turned_unseen_and_lifted_in_one_frame(lag)
        plays = [(e["player"], e["card"], e.t) for e in _of(events, "play")]
        assert ("B", "8S", tb) in plays and ("A", "10S", ta) not in plays, lag
        assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("A", "10S", ta)], lag
        assert [(e["first"], e["second"]) for e in _of(events, "race")] == [("B", "A")], lag


def _under_a_contact_of_the_same_frame(cover_first: bool) -> tuple[list[Event], float]:
    """A lifts 9♥ from A2, B 7♠ from B3 (both fit L's 8♦); A's hand touches L in the frame B's hand comes
    over it (where `cover_first`; else B's hand comes with its contact, in that frame too), B's contact
    seen a frame later; L then shows the 9♥ with the 7♠ read under it. The time of A's contact."""
    film = _opened(layout=dict(LAYOUT, B3="7S"))  # L shows 8♦
    film.still(10)
    _over(film, 3, HandSeen("A", ("A2",), {"A2": film.t}), HandSeen("B", ("B3",), {"B3": film.t}))
    film.zones["A2"] = "back"
    film.zones["B3"] = "back"
    film.still(4)
    ta = film.t
    a = HandSeen("A", ("L",), {"L": ta})
    film.frame((a, HandSeen("B", ("L",), {} if cover_first else {"L": ta})))
    _over(film, 3, a, HandSeen("B", ("L",), {"L": film.t if cover_first else ta}))
    film.zones["L"] = "9H"
    first = len(film.frames)
    film.still(40)
    for i in range(first, len(film.frames)):
        obs = film.frames[i]
        if obs.zones.get("L") is not None and obs.zones["L"].seen == "9H":
            film.frames[i] = Observation(obs.t, obs.frame, dict(obs.zones, L=ZoneReading("9H", under="7S")), obs.hands)
    return film.judge(), ta


def test_a_card_read_under_the_top_was_laid_by_the_hand_that_came_over_the_pile_as_the_tops_contact_began() -> None:
    for cover_first in (True, False):
        events, ta = _under_a_contact_of_the_same_frame(cover_first)
        assert [(e["player"], e["card"], e.t) for e in _of(events, "play")][-1] == ("B", "7S", ta), cover_first
        assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("A", "9H", ta)], cover_first
        assert [(e["first"], e["second"]) for e in _of(events, "race")] == [("B", "A")], cover_first


def _both_turned_one_taken_back() -> tuple[list[Event], float]:
    """A plays 9♥ from A2 on L's 8♦, B 4♦ from B2 on R's 3♣; each turns the card under (A 5♣, B 10♠)
    under its arm, never read there; both hands touch L in one frame; L shows the 5♣ on top, then A's
    hand comes over L (no contact seen) and takes it away, L showing the 10♠, and A's 5♣ is read back in
    A2, B2 empty. The time of the two contacts."""
    film = _opened()  # L shows 8♦, R 3♣
    film.play("A", "A2", "back", "L")  # 9♥ on 8♦
    film.play("B", "B2", "back", "R")  # 4♦ on 3♣
    film.still(10)
    arms = (HandSeen("A", ("A2",), {"A2": film.t}), HandSeen("B", ("B2",), {"B2": film.t}))
    _over(film, 4, *arms)  # both turn their card and take it
    t = film.t
    _over(film, 3, HandSeen("A", ("L",), {"L": t}), HandSeen("B", ("L",), {"L": t}))
    film.zones["L"] = "5C"
    _over(film, 8, HandSeen("A", ("A2",)), HandSeen("B", ("B2",)))  # L read 5♣, no hand over it
    _over(film, 3, HandSeen("A", ("L",)), HandSeen("B", ("B2",)))  # A takes its 5♣ back
    film.zones["L"] = "10S"
    _over(film, 6, HandSeen("A", ("A2",)), HandSeen("B", ("B2",)))
    film.zones["A2"] = "5C"
    film.zones["B2"] = "empty"
    film.still(40)
    return film.judge(), t


def test_of_two_contacts_in_one_frame_the_card_taken_away_was_laid_by_the_hand_that_took_it() -> None:
    events, t = _both_turned_one_taken_back()
    assert [(e["player"], e["card"], e["from"], e.t) for e in _of(events, "play")][-1] == ("B", "10S", "B2", t)
    assert [(e["player"], e["pile"], e["card"]) for e in _of(events, "turn_up")][-2:] in (
        [("A", "A2", "5C"), ("B", "B2", "10S")], [("B", "B2", "10S"), ("A", "A2", "5C")])
    assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("A", "5C", t)]
