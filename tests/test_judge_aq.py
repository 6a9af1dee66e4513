"""Wrong calls found on the fresh games AQ (sixteenth session): a spit card laid as its rival turned a card
unseen, that card read in its place before the spit card was taken back; a card turned unseen and laid
while two face-down places lay under its player's hand, one of them read empty afterwards; a card laid on
a rival's card read on the pile for one frame only. Each test is named after the rule it checks."""

from __future__ import annotations

from test_judge import LAYOUT, Film, _a_9h_refused_after_b_won_the_race, _of, _only_a_turn_before_the_spit, _opened, _run
from test_judge_covered import _over

from referee.judge.spit.referee import SpitReferee
from referee.observations import HandSeen
from referee.rules.spit import SpitRules, SpitState


def test_a_spit_card_laid_as_a_card_was_turned_that_plays_is_premature_though_the_turn_was_found_while_it_lay_there() -> None:
    film, referee = _only_a_turn_before_the_spit("back back |")
    ta = film.t
    for _ in range(4):  # A turns up A2's top, 5♣ (it fits on 4♦), not read in its place yet
        film.frame((HandSeen("A", ("A2",), {"A2": ta}),), unread=("A2",))
    tb = film.t
    b_on_r = HandSeen("B", ("R",), {"R": tb})
    for _ in range(4):  # B lays a spit card while A's hand still hides A2
        film.frame((b_on_r, HandSeen("A", ("A2",), {"A2": ta})), unread=("A2",))
    film.zones.update(R="8H", A2="5C")
    film.still(12)  # the spit card and the 5♣ in A2 read, the turn-up found while the spit card lies on R
    tc = film.t
    for _ in range(3):  # B takes the spit card back; A never plays the 5♣
        film.frame((HandSeen("B", ("R",), {"R": tc}),))
    film.zones["R"] = "6D"
    film.still(20)
    events = _run(film, referee)
    assert [(e["player"], e["pile"], e["card"], e.t) for e in _of(events, "turn_up")] == [("A", "A2", "5C", ta)]
    assert [(e["player"], e.t) for e in _of(events, "premature_spit")] == [("B", tb)]


def test_a_card_turned_unseen_came_from_the_face_down_place_its_hand_touched_that_shows_empty_since() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["KS", "back |", "back back |"], "B": ["9C"]},
                               spit={"A": "back", "B": "back"}, piles={"L": "4D", "R": "6D"})
    film = Film({z: "empty" for z in rules.place_names}
                | {"A1": "KS", "A2": "back", "A3": "back", "B1": "9C", "L": "4D", "R": "6D"})
    film.still(4)
    t2 = film.t
    for _ in range(4):  # A's hand over A2 and A3 touches A2 (its one card, face down): turns up 5♣ there
        film.frame((HandSeen("A", ("A2", "A3"), {"A2": t2}),))
    t3 = film.t
    for _ in range(4):  # and touches A3 (face down on another) later, turning nothing
        film.frame((HandSeen("A", ("A2", "A3"), {"A2": t2, "A3": t3}),))
    tl = film.t
    for _ in range(4):  # lays the 5♣ on L's 4♦, its arm still over A2 and A3
        film.frame((HandSeen("A", ("A2", "A3", "L"), {"L": tl}),))
    film.zones.update(L="5C", A2="empty")  # A3 shows its face-down top again, A2 is empty
    film.still(20)
    events = _run(film, SpitReferee(rules, state=state))
    assert [(e["pile"], e["card"], e.t) for e in _of(events, "turn_up")] == [("A2", "5C", t2)]
    assert [(e["card"], e["from"], e["to"], e.t) for e in _of(events, "play")] == [("5C", "A2", "L", tl)]
    assert not _of(events, "resync")


def test_a_card_read_over_a_rival_s_card_glimpsed_on_the_pile_was_laid_on_it() -> None:
    film = _opened(layout=dict(LAYOUT, B3="7S"))  # L shows 8♦
    film.still(10)
    _over(film, 3, HandSeen("A", ("A2",), {"A2": film.t}), HandSeen("B", ("B3",), {"B3": film.t}))
    film.zones.update(A2="back", B3="back")  # A lifts 9♥, B 7♠: both fit on 8♦
    film.still(4)
    tb = film.t
    _over(film, 3, HandSeen("B", ("L",)))  # B's hand over L, no contact seen, lays the 7♠
    film.frame(L="7S")  # read in one frame only
    ta = film.t
    _over(film, 3, HandSeen("A", ("L",), {"L": ta}))  # A's hand lays the 9♥ on it
    film.zones["L"] = "9H"
    film.still(20)
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("B", "7S", tb)]
    _a_9h_refused_after_b_won_the_race(events, ta)
