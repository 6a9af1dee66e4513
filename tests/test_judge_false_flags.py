"""False flags and plays found on the fresh games AE/AF (fourteenth session): a card gone from its place
longer than a hand carries one is not laid at a later touch of that hand, a card that landed unseen is not
refused at another touch of its hand that its guessed landing time comes after, and a card turned unseen
is not laid by a hand that carried a card seen lifted to that touch; and on AG/AH, a card turned unseen is
laid at the first spit pile its hand touches after turning it, not at a later touch on the other pile; and on
AP, a card put on a stock top its hand may have played unseen is called stacked only once that pile is read. Each
test is named after the rule it checks."""

from __future__ import annotations

from test_judge import LAYOUT, Film, _of, _opened
from test_judge_covered import _over

from referee.events import Event
from referee.observations import HandSeen, Observation, ZoneReading


def _gone_long_then_touched() -> tuple[Film, float]:
    """B lifts 4♦ from B2, which then shows a face-down card and never 4♦ again (put down unseen, or
    B2 misread), plays 9♠ from B3 on L's 8♦ a second later, touches L again laying nothing seen, more
    than `TOUCH_REACH_S` after B2 first showed without 4♦, and A plays 10♥ on the 9♠. The time of A's touch."""
    film = _opened(layout=dict(LAYOUT, B3="9S", A3="10H"))  # L shows 8♦
    film.still(30)
    _over(film, 2, HandSeen("B", ("B2",), {"B2": film.t}))
    film.zones["B2"] = "back"
    film.still(30)
    film.play("B", "B3", "back", "L")
    film.still(4)
    film.touch("B", "L", 2)
    film.still(1)
    ta = film.play("A", "A3", "back", "L")
    film.still(40)  # (A's card waits for one B's touch may have laid under it)
    return film, ta


def test_a_card_gone_from_its_place_longer_than_a_hand_carries_one_is_not_refused_at_a_later_touch_of_that_hand() -> None:
    film, ta = _gone_long_then_touched()
    events = film.judge()
    plays = _of(events, "play")
    assert not _of(events, "illegal_play")
    assert [(e["player"], e["card"]) for e in plays] == [("B", "9S"), ("A", "10H")] and plays[-1].t == ta


def _turned_and_laid_under_a_rival_card(lift_first: bool) -> tuple[list[Event], float, float]:
    """B plays 9♠ from B3 on L (where `lift_first`, more than `TOUCH_REACH_S` after lifting 4♦ from B2,
    never seen back), turns 10♠ in B3 under its arm and lays it on L, its hand still over L when A lays
    2♠ on it; A takes the 2♠ back and the 10♠ shows, B3 under B's arm throughout. The times of B's and
    A's touches on L."""
    film = _opened(layout=dict(LAYOUT, B3="9S"))  # L shows 8♦
    film.still(30)
    if lift_first:
        _over(film, 2, HandSeen("B", ("B2",), {"B2": film.t}))
        film.zones["B2"] = "back"
        film.still(40)
    film.play("B", "B3", "back", "L")
    _over(film, 4, HandSeen("B", ("B3",), {"B3": film.t}))  # turns 10♠ there and takes it
    tb = film.t
    _over(film, 1, HandSeen("B", ("B3", "L"), {"L": tb}))
    film.zones["L"] = "10S"
    _over(film, 2, HandSeen("B", ("B3", "L"), {"L": tb}), HandSeen("A", ("A4",), {"A4": film.t}))  # A lifts 2♠
    film.zones["A4"] = "back"
    ta = film.t
    _over(film, 3, HandSeen("B", ("B3", "L"), {"L": tb}), HandSeen("A", ("L",), {"L": ta}))
    film.zones["L"] = "2S"
    arm = HandSeen("B", ("B3",), {})
    _over(film, 8, arm)
    _over(film, 3, arm, HandSeen("A", ("L",), {"L": film.t}))  # A takes it back: the 10♠ shows
    film.zones["L"] = "10S"
    _over(film, 6, arm)
    film.zones["A4"] = "2S"
    _over(film, 20, arm)
    return film.judge(), tb, ta


def test_a_card_laid_just_after_the_touch_of_a_hand_that_carries_its_lifted_card_no_longer_waits_for_that_hand_s_card() -> None:
    for lift_first in (True, False):  # the 4♦ gone from B2 long before changes nothing
        events, tb, ta = _turned_and_laid_under_a_rival_card(lift_first)
        assert [(e["player"], e["card"], e.t) for e in _of(events, "play")][-1] == ("B", "10S", tb)
        assert [(e["player"], e["card"], e.t, e["reason"]) for e in _of(events, "illegal_play")] == \
            [("A", "2S", ta, "2♠ is not next to 10♠")]
        assert [(e["first"], e["second"]) for e in _of(events, "race")] == [("B", "A")]


def test_a_card_that_landed_unseen_is_not_refused_at_a_touch_of_its_hand_before_its_guessed_landing() -> None:
    """B lifts 4♦ and its hand brushes L (a contact reported there, 4♦ would be refused on the 8♦); the
    4♦ goes onto R's 3♣ under A's arm, unseen; A's 2♠ lands on it and is taken back, showing the 4♦:
    the 4♦ is played at a guessed time after that contact, whose order with the landing is not known."""
    film = _opened()  # L shows 8♦, R 3♣
    film.still(60)
    _over(film, 2, HandSeen("B", ("B2",), {"B2": film.t}))
    film.zones["B2"] = "back"
    _over(film, 1, HandSeen("B", ("B2", "L"), {"L": film.t}))
    film.still(1)
    _over(film, 2, HandSeen("A", ("A4",), {"A4": film.t}))
    film.zones["A4"] = "back"
    ta = film.t
    _over(film, 3, HandSeen("A", ("R",), {"R": ta}))
    film.zones["R"] = "2S"
    film.still(6)
    film.touch("A", "R", 3, then="4D")
    film.still(6)
    film.zones["A4"] = "2S"
    film.still(20)
    events = film.judge()
    assert [(e["player"], e["card"], e["to"]) for e in _of(events, "play")][-1] == ("B", "4D", "R")
    assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("A", "2S", ta)]


def test_a_card_turned_unseen_is_not_laid_by_a_hand_that_carried_a_card_seen_lifted_to_that_touch() -> None:
    """A turns 10♠ in A2 under its arm while B's hand is on B2 (face-down there too) and then lifts 8♠
    from B3; both hands touch L in one frame and L shows the 10♠, the 8♠ read under it: B's hand carried
    the 8♠ (one hand, one card), so the 10♠ is A's, turned in A2 (and refused on the 8♠ laid under it)."""
    film = _opened()  # L shows 8♦, R 3♣
    film.play("A", "A2", "back", "L")  # 9♥ on 8♦
    film.play("B", "B2", "back", "R")  # 4♦ on 3♣
    film.still(10)
    arm = HandSeen("A", ("A2",), {"A2": film.t})
    _over(film, 4, arm, HandSeen("B", ("B2",), {"B2": film.t}))
    _over(film, 3, arm, HandSeen("B", ("B3",), {"B3": film.t}))
    film.zones["B3"] = "back"
    _over(film, 2, arm)
    t = film.t
    _over(film, 3, HandSeen("A", ("A2", "L"), {"L": t}), HandSeen("B", ("L",), {"L": t}))
    film.zones["L"] = "10S"
    first = len(film.frames)
    _over(film, 10, arm)
    for i in range(first, len(film.frames)):
        obs = film.frames[i]
        if "L" in obs.zones and obs.zones["L"].seen == "10S":
            film.frames[i] = Observation(obs.t, obs.frame, dict(obs.zones, L=ZoneReading("10S", under="8S")), obs.hands)
    film.still(40)
    events = film.judge()
    assert [(e["player"], e["pile"], e["card"]) for e in _of(events, "turn_up")] == [("A", "A2", "10S")]
    assert [(e["player"], e["card"], e["from"], e.t) for e in _of(events, "play")][-1] == ("B", "8S", "B3", t)
    assert [(e["player"], e["card"], e["from"], e.t) for e in _of(events, "illegal_play")] == [("A", "10S", "A2", t)]


def test_a_card_turned_unseen_goes_to_the_first_spit_pile_its_hand_touches_not_to_a_later_one() -> None:
    """A turns 2♣ in A2 under its arm and touches R with it (3♣ there: it fits); B's 4♦ lands on it at
    once and hides it; A's hand goes back over A2 and then lays J♥ on L's 9♥, and B takes the 4♦ back,
    showing the 2♣. A's hand took the card it turned to R, its first touch of a spit pile since: the J♥
    (a card A never turned) is not that card, so it is not refused as turned in A2."""
    film = _opened(layout=dict(LAYOUT, A1="KS", A4="QC", B3="6S", B5="7C"))  # L shows 8♦, R 3♣
    film.play("A", "A2", "back", "L")  # 9♥ on 8♦
    film.still(10)
    _over(film, 4, HandSeen("A", ("A2",), {"A2": film.t}))  # turns 2♣, never read
    film.zones["A2"] = "back"
    _over(film, 3, HandSeen("A", ("A2",)))
    ta = film.t
    _over(film, 3, HandSeen("A", ("R",), {"R": ta}))
    tb = film.t
    _over(film, 2, HandSeen("A", ("R",), {"R": ta}), HandSeen("B", ("B2",), {"B2": tb}))  # B lifts 4♦
    film.zones["B2"] = "back"
    tb = film.t
    _over(film, 3, HandSeen("A", ("A2",)), HandSeen("B", ("R",), {"R": tb}))
    film.zones["R"] = "4D"
    _over(film, 6, HandSeen("A", ("A2",)))
    tl = film.t
    _over(film, 3, HandSeen("A", ("L",), {"L": tl}))
    film.zones["L"] = "JH"
    film.still(6)
    film.touch("B", "R", 3, then="2C")
    film.still(6)
    film.zones["B2"] = "4D"
    film.still(30)
    events = film.judge()
    assert not [e for e in _of(events, "turn_up") if e["card"] == "JH"]
    assert not _of(events, "illegal_play") and not _of(events, "premature_spit")


def test_a_card_laid_by_a_hand_that_hid_its_face_down_place_since_the_last_move_there_is_no_premature_spit() -> None:
    """A lifts 2♠ from A4 and lays it on R, its hand staying over A4 (A4 never read since), turns 10♠ there
    under its arm and lays it on L's 9♥ (A2 face down too: the engine cannot tell where it was turned);
    B's A♣ would play on the 2♠. The card may be the one turned in A4, so it is no premature spit card."""
    film = _opened()  # L shows 8♦, R 3♣
    film.play("A", "A2", "back", "L")  # 9♥ on 8♦
    film.still(10)
    _over(film, 3, HandSeen("A", ("A4",), {"A4": film.t}))  # lifts 2♠
    tr = film.t
    _over(film, 3, HandSeen("A", ("A4", "R"), {"R": tr}))
    film.zones["R"] = "2S"
    _over(film, 12, HandSeen("A", ("A4",)))  # turns 10♠ under its arm and takes it
    film.zones["A4"] = "back"
    _over(film, 3, HandSeen("A", ("A4", "L"), {"L": film.t}))
    film.zones["L"] = "10S"
    _over(film, 3, HandSeen("A", ("A4",)))
    film.still(40)
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")][-1] == ("A", "2S", tr)
    assert not _of(events, "premature_spit") and not _of(events, "illegal_play")


def test_a_card_on_a_stock_top_its_hand_may_have_played_unseen_is_called_stacked_once_that_pile_is_read() -> None:
    film = _opened()  # A4 shows 2S, L 8D
    t = film.t
    for _ in range(3):  # A's hand touches L, its arm over A4 (the 2S may have gone to L unseen)
        film.frame((HandSeen("A", ("A4", "L"), {"L": t}),))
    for zone, then in (("A1", "empty"), ("A4", "7C")):  # then A's 7C from A1 onto A4, L not read all along
        touched = film.t  # (A4 under the arm until the 7C lies there)
        for _ in range(3):
            film.frame((HandSeen("A", (zone, "A4"), {zone: touched}),), unread=("L",))
        film.zones[zone] = then
        for _ in range(4):
            film.frame((HandSeen("A", ("A4",)),) if zone == "A1" else (), unread=("L",))
    read = film.t
    film.still(6)  # L read: the 8D still on top, nothing was played there
    events = film.judge()
    assert [(e["card"], e["to"]) for e in _of(events, "illegal_play")] == [("7C", "A4")]
    assert _of(events, "illegal_play")[0]["called_at"] >= read
