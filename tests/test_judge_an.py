"""Wrong calls found on the fresh games AN (fifteenth session): a touch that laid a card judged taken for the
touch of a card found later. Each test is named after the rule it checks."""

from __future__ import annotations

from test_judge import LAYOUT, _of, _opened

from referee.events import Event
from referee.observations import HandSeen


def _a_card_laid_over_the_rival_s_within_the_race_window_of_the_own_last_play() -> tuple[list[Event], float, float, float]:
    """A plays 9♥ from A2 on L's 8♦ (its contact dated a frame before its hand is first seen over L); B plays 8♠ from B3 on it five frames later; B's hand comes back over L;
    then A lifts 10♠ from A4 and lays it on the 8♠ with its hand over L, no contact seen. The times of A's
    contact, B's contact and A's hand over L."""
    film = _opened(layout=dict(LAYOUT, A4="10S"))  # L shows 8♦
    film.touch("A", "A2", 2, then="back")
    film.still(4)
    ta = round(film.t - 1 / 30, 6)  # its contact dated a frame before the hand is first seen over L
    for _ in range(3):
        film.frame((HandSeen("A", ("L",), {"L": ta}),))
    film.zones["L"] = "9H"
    film.touch("B", "B3", 2, then="back")
    tb = film.touch("B", "L", 3, then="8S")
    film.still(20)
    film.over("B", "L", 3)  # B's hand back over L, laying nothing
    film.still(6)
    film.touch("A", "A4", 2, then="back")
    film.still(4)
    laid = film.t
    film.over("A", "L", 3)
    film.zones["L"] = "10S"
    film.still(40)
    return film.judge(), ta, tb, laid


def test_a_touch_that_laid_a_card_judged_laid_no_card_found_on_the_pile_later() -> None:
    events, ta, tb, laid = _a_card_laid_over_the_rival_s_within_the_race_window_of_the_own_last_play()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("A", "9H", ta), ("B", "8S", tb)]
    assert [(e["player"], e["card"], e["reason"]) for e in _of(events, "illegal_play")] == \
        [("A", "10S", "10♠ is not next to 8♠")]
