"""The referee's turn-ups dated on hand-made observation streams: each test is named after the rule it dates by."""

from __future__ import annotations

from test_judge import _of, _run
from test_judge_spits import _one_card_to_turn


def test_a_turn_up_is_dated_by_its_player_s_touch_after_the_place_last_showed_its_face_down_card() -> None:
    film, referee = _one_card_to_turn()
    film.touch("A", "A2", 3)  # A's hand rests on A2 and leaves: the card still lies face down
    film.still(6)  # and is read so
    t = film.touch("A", "A2", 3, then="QH")  # A turns it up now
    film.still(10)
    assert [(e["card"], e.t) for e in _of(_run(film, referee), "turn_up")] == [("QH", t)]

