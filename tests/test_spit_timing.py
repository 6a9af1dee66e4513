"""Simultaneous play judged by touch time, same-pile races, the one-hand rule, and the events of each move."""

from __future__ import annotations

import random

import pytest

from referee.cards import parse_card
from referee.events import REQUIRED_FIELDS, Event
from referee.rules.spit import (
    NEW_EVENT_TYPES,
    PRESETS,
    ChoosePile,
    Deal,
    Draw,
    HandPlay,
    Layout,
    MoveToSpace,
    Play,
    Race,
    Refill,
    Reshuffle,
    Slap,
    Spit,
    SpitState,
    StackEqual,
    TurnUp,
    resolve_simultaneous,
    transition_events,
)

CLASSIC = PRESETS["classic"]


def c(code: str):  # type: ignore[no-untyped-def]
    return parse_card(code)


def table() -> SpitState:
    return SpitState.position(CLASSIC, {"A": ["8C", "QH", "2S 9H |"], "B": ["8D", "6H", "KC"]},
                              {"A": "3C", "B": "4C"}, {"L": "7S", "R": "KD"})


def test_the_first_touch_counts_and_the_second_card_is_judged_against_the_new_top() -> None:
    s = table()
    result = resolve_simultaneous(s, [(5.02, Play("B", c("8D"), "B1", "L")), (5.00, Play("A", c("8C"), "A1", "L"))])
    first, second = result.outcomes
    assert first.legal and first.move.player == "A" and first.race is None
    assert not second.legal and second.reason == "8♦ is not next to 8♣"
    assert second.race == Race("L", "A", "B", 20.0)
    assert result.state.top("L") == c("8C") and result.state.top("B1") == c("8D")


def test_a_second_card_that_fits_the_new_top_is_legal_and_still_a_race() -> None:
    s = table()
    result = resolve_simultaneous(s, [(1.0, Play("A", c("8C"), "A1", "L")), (1.3, Play("A", c("QH"), "A2", "R"))])
    assert all(o.legal for o in result.outcomes) and all(o.race is None for o in result.outcomes)
    s2 = SpitState.position(CLASSIC, {"A": ["8C", "QH"], "B": ["9D", "6H"]}, piles={"L": "7S", "R": "KD"})
    result = resolve_simultaneous(s2, [(1.0, Play("A", c("8C"), "A1", "L")), (1.1, Play("B", c("9D"), "B1", "L"))])
    assert [o.legal for o in result.outcomes] == [True, True]
    assert result.outcomes[1].race == Race("L", "A", "B", 100.0)
    assert result.outcomes[1].race.event() == ("race", {"pile": "L", "first": "A", "second": "B", "margin_ms": 100.0})


def test_cards_further_apart_than_the_race_window_are_no_race() -> None:
    s2 = SpitState.position(CLASSIC, {"A": ["8C", "QH"], "B": ["9D", "6H"]}, piles={"L": "7S", "R": "KD"})
    result = resolve_simultaneous(s2, [(1.0, Play("A", c("8C"), "A1", "L")), (1.6, Play("B", c("9D"), "B1", "L"))],
                                  race_window_s=0.5)
    assert result.outcomes[1].race is None


def test_an_illegal_card_does_not_land_and_starts_no_race() -> None:
    s = table()
    result = resolve_simultaneous(s, [(1.0, Play("A", c("QH"), "A2", "L")), (1.1, Play("B", c("8D"), "B1", "L"))])
    assert [o.legal for o in result.outcomes] == [False, True]
    assert result.outcomes[1].race is None


def test_one_hand_one_card_at_a_time() -> None:
    s = table()
    moves = [(2.00, Play("A", c("8C"), "A1", "L")), (2.05, TurnUp("A", "A3"))]
    result = resolve_simultaneous(s, moves)
    assert result.outcomes[1].reason == "one hand, one card at a time"
    assert result.state.top("A3") is None
    assert resolve_simultaneous(s, moves, motion_s=0.04).outcomes[1].legal


def test_two_hands_may_move_two_cards_at_once_but_not_three() -> None:
    s = SpitState.position(PRESETS["two-hands"], {"A": ["8C", "4D QH", "2S 9H |"], "B": ["KC"]},
                           {"A": "3C"}, {"L": "7S", "R": "KD"})
    moves = [(2.00, Play("A", c("8C"), "A1", "L")), (2.05, Play("A", c("QH"), "A2", "R")), (2.06, TurnUp("A", "A3"))]
    result = resolve_simultaneous(s, moves)
    assert [o.reason for o in result.outcomes] == [None, None, "two hands at most, one card in each"]


def test_table_moves_in_a_simultaneous_batch_are_judged_in_time_order() -> None:
    s = SpitState.position(CLASSIC, {"A": ["QH"], "B": ["KC"]}, {"A": "3C", "B": "4C"}, {"L": "7S", "R": "9D"})
    result = resolve_simultaneous(s, [(3.0, Spit((("L", c("3C")), ("R", c("4C"))))), (3.2, Play("A", c("QH"), "A1", "R"))])
    assert [o.legal for o in result.outcomes] == [True, False]


# --- events ---------------------------------------------------------------------------------------


def test_every_move_gives_a_valid_event_of_its_type() -> None:
    moves = [
        Play("A", c("7C"), "A3", "L"),
        TurnUp("A", "A2", c("9H")),
        TurnUp("B", "B2"),
        MoveToSpace("A", c("9H"), "A2", "A4"),
        StackEqual("A", c("9H"), "A2", "A1"),
        Refill("A", "A2", c("4S")),
        Refill("A", "A2"),
        HandPlay("B", c("8D"), "R"),
        Draw("A"),
        Spit((("L", c("2C")), ("R", None))),
        Reshuffle((c("2C"),), ()),
        Slap((("A", "L", 1.5), ("B", "R", 1.6))),
        ChoosePile("A", "L"),
        Layout(((c("2C"),), (c("3C"), c("4C")))),
        Deal((c("2C"), c("3C"))),
    ]
    for move in moves:
        kind, fields = move.event()
        Event.make(kind, 1.0, **fields)
        assert isinstance(move.describe(), str) and move.describe()
    assert set(NEW_EVENT_TYPES) <= set(REQUIRED_FIELDS)
    assert Layout(((c("2C"),), (c("3C"), c("4C")))).event() == ("layout", {"counts": {"A": 1, "B": 2}})


def test_a_slap_event_says_who_won_the_pile_and_by_how_much() -> None:
    kind, fields = Slap((("A", "L", 10.30), ("B", "L", 10.25)), evidence="frames/slap-1").event()
    assert kind == "slap" and fields["pile"] == "L" and fields["winner"] == "B"
    assert fields["margin_ms"] == 50.0 and fields["contact"] == {"A": 10.30, "B": 10.25}
    assert fields["evidence"] == "frames/slap-1"
    tie = Slap((("A", "R", 2.0), ("B", "R", 2.0)), underneath="B").event()[1]
    assert tie["winner"] == "B" and tie["margin_ms"] == 0.0
    apart = Slap((("A", "L", 2.0), ("B", "R", 2.1))).event()[1]
    assert apart["margin_ms"] is None and apart["piles"] == {"A": "L", "B": "R"}
    assert Slap((("A", "L", 2.0), ("B", "R", 2.1))).describe() == "A slaps L at 2.00 s, B slaps R at 2.10 s"


def test_transition_events_call_spit_end_the_deal_and_the_game() -> None:
    s = SpitState.position(CLASSIC, {"A": ["3D"], "B": ["QD", "KH"]}, {"B": "7S"}, {"L": "2D"})
    play = Play("B", c("KH"), "B2", "L")
    assert s.check(play) == "K♥ is not next to 2♦"
    move = Play("A", c("3D"), "A1", "L")
    after = s.apply(move)
    events = transition_events(s, move, after)
    assert [k for k, _ in events] == ["play", "deal_end", "game_end"]
    assert events[1][1] == {"player": "A", "counts": {"A": 0, "B": 5}, "reason": "stock emptied"}
    assert events[2][1] == {"winner": "A"}
    for kind, fields in events:
        Event.make(kind, 3.0, **fields)


def test_transition_events_call_spit_when_play_gets_stuck() -> None:
    s = SpitState.position(CLASSIC, {"A": ["8C", "QH", "JC", "JD", "JH"], "B": ["3H", "KC"]},
                           {"A": "3C", "B": "4C"}, {"L": "7S", "R": "9D"})
    move = Play("A", c("8C"), "A1", "R")
    after = s.apply(move)
    assert [k for k, _ in transition_events(s, move, after)] == ["play", "spit_call"]
    spit = next(after.table_moves())
    again = after.apply(spit)
    assert [k for k, _ in transition_events(after, spit, again)] == ["spit"], "B can play 3♥ on 4♣"


def test_transition_events_of_the_five_card_hand_carry_the_scores() -> None:
    s = SpitState.position(PRESETS["five-card-hand"], {"A": [""], "B": ["2C 3C |"]}, None, {"L": "8H", "R": "8D"},
                           hands={"A": "7C", "B": "KH KD"})
    move = HandPlay("A", c("7C"), "L")
    events = transition_events(s, move, s.apply(move))
    assert events[1][0] == "deal_end" and events[1][1]["scores"] == {"A": 4, "B": 0}


def test_a_new_layout_is_announced_with_a_spit_call() -> None:
    s = SpitState.position(CLASSIC, {"A": ["3D"], "B": ["QD", "2S 9C"]}, {"A": "KS", "B": "AH 6C"},
                           {"L": "5H 2D", "R": "2C"})
    s = s.apply(Play("A", c("3D"), "A1", "L")).apply(Slap((("A", "R", 1.0), ("B", "L", 1.1))))
    layout = s.shuffled_layout(random.Random(2))
    assert [k for k, _ in transition_events(s, layout, s.apply(layout))] == ["layout", "spit_call"]
    with pytest.raises(Exception, match="a new layout comes after a deal"):
        s.apply(layout).shuffled_layout(random.Random(2))
