"""Scoring a referee's calls: "Spit!" right when made during a true stalemate, wrong when a move existed; a clip's cut."""

from __future__ import annotations

from referee.events import Event
from referee.judge.score import score

STALEMATE = [
    Event.make("turn_up", 11.748, player="A", pile="A5", card="QS"),
    Event.make("spit_call", 11.748),
    Event.make("spit", 12.384, cards={"L": "QD", "R": "JD"}, contact={"A": 12.384, "B": 12.289}),
]


def _call(t: float, called_at: float) -> Event:
    return Event.make("spit_call", t, called_at=called_at)


def test_a_spit_called_during_the_stalemate_is_right_however_its_last_move_was_dated() -> None:
    result = score(STALEMATE, [_call(12.05, 12.1)])  # the turn-up dated 0.3 s late, the call 352 ms after
    assert result.recall("spit_call") == 1.0 and result.spits_while_move == 0
    assert round(result.latencies["spit_call"][0], 3) == 0.352


def test_a_spit_called_before_the_last_move_was_made_while_a_move_existed() -> None:
    result = score(STALEMATE, [_call(11.3, 11.3)])
    assert result.recall("spit_call") == 0.0 and result.spits_while_move == 1


def test_a_spit_called_after_a_spit_card_was_laid_was_made_while_a_move_existed() -> None:
    result = score(STALEMATE, [_call(11.748, 12.33)])  # B's spit card landed at 12.289
    assert result.recall("spit_call") == 0.0 and result.spits_while_move == 1


def test_a_spit_called_more_than_500_ms_into_the_stalemate_is_matched_but_not_in_time() -> None:
    result = score(STALEMATE, [_call(11.748, 12.281)])  # 533 ms after, before B's spit card (12.289)
    assert result.recall("spit_call") == 1.0 and result.spits_while_move == 0
    assert result.spits_in_time() == 0 and result.spits_in_time(0.6) == 1


def test_a_second_call_in_the_same_stalemate_is_extra_but_not_while_a_move_existed() -> None:
    result = score(STALEMATE, [_call(11.748, 11.9), _call(11.748, 12.0)])
    assert result.matched["spit_call"] == 1 and result.unmatched("spit_call") == 1 and result.spits_while_move == 0


PLAY_AFTER_CUT = Event.make("play", 29.1, player="A", card="7C", **{"from": "A3", "to": "L"})


def test_a_play_made_after_the_cut_and_called_is_neither_counted_nor_extra() -> None:
    result = score([PLAY_AFTER_CUT], [PLAY_AFTER_CUT], until=29.0)
    assert result.truth.get("play", 0) == 0 and result.judged.get("play", 0) == 0 and result.unmatched("play") == 0


def test_a_play_made_after_the_cut_and_not_called_is_not_missed() -> None:
    result = score([PLAY_AFTER_CUT], [], until=29.0)
    assert result.recall("play") == 1.0 and result.truth.get("play", 0) == 0


def test_a_call_after_the_cut_matching_nothing_is_still_extra() -> None:
    wrong = Event.make("illegal_play", 29.1, player="B", card="9H", to="R", reason="not adjacent")
    assert score([PLAY_AFTER_CUT], [wrong], until=29.0).false_flags == 1


def test_a_stalemate_after_the_cut_is_optional() -> None:
    result = score(STALEMATE, [_call(11.748, 11.9)], until=11.0)
    assert result.truth.get("spit_call", 0) == 0 and result.spits_while_move == 0 and result.judged["spit_call"] == 0


def test_a_play_the_referee_withdrew_is_counted_as_called_and_as_withdrawn() -> None:
    truth = [Event.make("play", 5.0, player="A", card="7C", to="L", **{"from": "A1"})]
    judged = [Event.make("play", 5.0, player="A", card="7C", to="L", **{"from": "A1"}),
              Event.make("play", 5.1, player="B", card="KD", to="L", **{"from": "B4"}),
              Event.make("withdraw", 5.1, call="play", player="B", card="KD", to="L", reason="7♣ was laid on L before it",
                         **{"from": "B4"})]
    result = score(truth, judged)
    assert result.withdrawn == 1 and result.recall("play") == 1.0 and result.precision("play") == 0.5
