"""Wrong calls found on the fresh games AQ (sixteenth session): a spit card laid as its rival turned a card
unseen, that card read in its place before the spit card was taken back. Each test is named after the rule
it checks."""

from __future__ import annotations

from test_judge import _of, _only_a_turn_before_the_spit, _run

from referee.observations import HandSeen


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

