"""Slap verdicts from the hands' first contacts (`referee.judge.slap_score`, the scoring of `bench/slaps.py`): one test per rule."""

from __future__ import annotations

from referee.events import Event
from referee.judge.slap_score import (
    CLOSE_CALLED, MISSED, ORDER, WRONG_PILE, WRONG_PILE_SHARED, first_slaps, landing_contact, score_slap,
)
from referee.judge.spit.config import beneath_votes
from referee.observations import HandSeen

FRAME = 1 / 30


def _slap(a: float, b: float, pile_a: str = "L", pile_b: str = "L") -> Event:
    first = "A" if a <= b else "B"
    return Event.make("slap", max(a, b), pile=pile_a if first == "A" else pile_b, contact={"A": a, "B": b},
                      winner=first, margin_ms=round(abs(a - b) * 1000, 3), evidence="",
                      piles={"A": pile_a, "B": pile_b})


def test_first_slap_is_each_sides_first_spit_pile_contact_after_the_deal_end() -> None:
    seen = [("A", "L", 9.9), ("A", "A3", 10.1), ("A", "L", 10.3), ("B", "R", 10.2), ("B", "L", 10.4), ("A", "L", 10.5)]
    assert first_slaps(seen, ("L", "R"), after=10.0) == {"A": ("L", 10.3), "B": ("R", 10.2)}


def test_a_sides_two_contacts_at_one_time_give_its_slap_on_the_first_reported() -> None:
    seen = [("A", "R", 10.3), ("A", "L", 10.3)]  # a contact moved to another zone keeps its time
    assert first_slaps(seen, ("L", "R"), after=10.0) == {"A": ("R", 10.3)}


def test_deal_end_is_the_contact_nearest_the_last_card_landing() -> None:
    seen = [("A", "L", 9.0), ("A", "L", 10.03), ("B", "L", 10.0), ("A", "R", 10.0)]
    assert landing_contact(seen, "A", "L", 10.0) == 10.03
    assert landing_contact(seen, "A", "L", 12.0) == 12.0


def test_earlier_hand_on_one_pile_wins() -> None:
    result = score_slap(_slap(2.0, 2.1), {"A": ("L", 2.01), "B": ("L", 2.09)}, FRAME, ender="B")
    assert result.decidable and result.right and result.cause is None
    assert result.verdict is not None and result.verdict.winner == "A" and not result.verdict.too_close


def test_contacts_dated_in_the_wrong_order_are_wrong() -> None:
    result = score_slap(_slap(2.0, 2.05), {"A": ("L", 2.06), "B": ("L", 2.04)}, FRAME, ender="A")
    assert not result.right and result.cause == ORDER


def test_contacts_under_half_a_frame_apart_are_too_close_and_go_to_the_player_out() -> None:
    result = score_slap(_slap(2.0, 2.1), {"A": ("L", 2.05), "B": ("L", 2.06)}, FRAME, ender="B")
    assert result.verdict is not None and result.verdict.too_close and result.verdict.winner == "B"
    assert not result.right and result.cause == CLOSE_CALLED


def test_contacts_too_close_to_time_go_to_the_hand_seen_underneath() -> None:
    first = {"A": ("L", 10.0), "B": ("L", 10.0)}
    result = score_slap(_slap(10.1, 10.0), first, FRAME, ender="A", under={"B": ("A",), "A": ()})
    assert result.right and result.verdict is not None and result.verdict.underneath and not result.verdict.too_close
    both = score_slap(_slap(10.1, 10.0), first, FRAME, ender="A", under={"B": ("A",), "A": ("B",)})
    assert both.verdict is not None and both.verdict.too_close and both.verdict.winner == "A"  # no telling: the player out


def test_true_margin_under_a_frame_is_not_decidable() -> None:
    result = score_slap(_slap(2.0, 2.02), {"A": ("L", 2.0), "B": ("L", 2.02)}, FRAME, ender="A")
    assert not result.decidable and result.right


def test_different_piles_are_decidable_and_right_when_each_pile_is_found() -> None:
    truth = _slap(2.0, 2.01, "L", "R")
    assert score_slap(truth, {"A": ("L", 2.0), "B": ("R", 2.0)}, FRAME, ender="A").right
    wrong = score_slap(truth, {"A": ("L", 2.0), "B": ("L", 2.1)}, FRAME, ender="A")
    assert wrong.decidable and not wrong.right and wrong.cause == WRONG_PILE


def test_a_hand_given_the_other_pile_where_both_slapped_one_is_wrong_pile_shared() -> None:
    result = score_slap(_slap(2.0, 2.2), {"A": ("L", 2.0), "B": ("R", 2.2)}, FRAME, ender="A")
    assert not result.right and result.cause == WRONG_PILE_SHARED
    assert set(result.errors) == {"A"}


def test_a_hand_never_seen_slapping_is_missed() -> None:
    result = score_slap(_slap(2.0, 2.2), {"A": ("L", 2.0)}, FRAME, ender="A")
    assert not result.right and result.cause == MISSED and result.verdict is None


def test_contact_time_errors_are_in_frames() -> None:
    result = score_slap(_slap(2.0, 2.2), {"A": ("L", 2.0 - FRAME), "B": ("L", 2.2 + 2 * FRAME)}, FRAME, ender="A")
    assert round(result.errors["A"], 6) == -1.0 and round(result.errors["B"], 6) == 2.0


def test_module_example_runs() -> None:
    import doctest

    from referee.judge import slap_score

    assert doctest.testmod(slap_score).failed == 0


def test_the_hand_seen_beneath_the_other_arm_after_both_contacts_takes_one_pile_whatever_the_order() -> None:
    def frame(b_beneath: tuple[str, ...], b_on: str = "L") -> tuple[HandSeen, ...]:
        return HandSeen("A", ("L",), {"L": 2.0}), HandSeen("B", (b_on,), {b_on: 2.02}, beneath=b_beneath)

    seen = [(10, frame(("A",))), (11, frame(())), *[(f, frame(("A",))) for f in range(12, 14)],
            *[(f, frame(())) for f in range(14, 16)], (16, frame((), "R")), (17, frame(("A",)))]
    votes, closed = beneath_votes(seen, "L", ("A", "B"), reported=10)  # from frame 12 until B left L in frame 16
    assert votes == [("B",), ("B",), (), ()] and closed
    result = score_slap(_slap(2.03, 2.0), {"A": ("L", 2.0), "B": ("L", 2.02)}, FRAME, ender="A", votes=votes)
    assert result.right and result.verdict is not None and result.verdict.beneath and result.verdict.winner == "B"
