"""Hidden cards: states built from what a camera sees, where face-down and spit cards are unknown."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from referee.cards import full_deck, parse_card
from referee.rules.spit import (
    PRESETS,
    ChoosePile,
    Draw,
    HandPlay,
    ImpossiblePosition,
    Layout,
    Play,
    Refill,
    Slap,
    Spit,
    SpitState,
    TurnUp,
)

CLASSIC = PRESETS["classic"]
FIVE = PRESETS["five-card-hand"]


def c(code: str):  # type: ignore[no-untyped-def]
    return parse_card(code)


def seen_start() -> SpitState:
    return SpitState.observed(
        CLASSIC,
        {"A": [(1, "7C"), (2, "9H"), (3, "KD"), (4, "2S"), (5, "5H")],
         "B": [(1, "QS"), (2, "4D"), (3, "8S"), (4, "JD"), (5, "AC")]},
        spit_cards={"A": 11, "B": 11},
    )


def test_a_camera_state_knows_counts_and_face_up_tops_only() -> None:
    s = seen_start()
    assert s.phase == "start" and s.counts() == {"A": 26, "B": 26}
    assert s.cards()[None] == 42 and s.card_count() == 52
    assert s.pile("A3") == (None, None, c("KD")) and s.spit_cards("A") == (None,) * 11


def test_spit_with_unknown_spit_cards_names_the_cards_turned() -> None:
    s = seen_start()
    (template,) = s.legal_moves()
    assert template == Spit((("L", None), ("R", None)))
    assert s.check(template) == "say which card A spat"
    assert s.check(Spit((("L", c("7C")), ("R", c("3D"))))) == "7♣ is already elsewhere on the table"
    after = s.apply(Spit((("L", c("10H")), ("R", c("3D")))))
    assert after.top("L") == c("10H") and after.cards()[None] == 40


def test_turn_up_of_an_unknown_card_carries_the_card_revealed() -> None:
    s = seen_start().apply(Spit((("L", c("10H")), ("R", c("6C")))))
    s = s.apply(Play("A", c("5H"), "A5", "R"))
    assert s.top("A5") is None and s.face_up("A5") == 0
    assert s.check(TurnUp("A", "A5")) == "say which card was turned up on A5"
    assert s.check(TurnUp("A", "A5", c("KD"))) == "K♦ is already elsewhere on the table"
    after = s.apply(TurnUp("A", "A5", c("3H")))
    assert after.top("A5") == c("3H") and after.pile("A5") == (None, None, None, c("3H"))


def test_a_camera_state_mid_deal_takes_spit_pile_tops_and_counts() -> None:
    s = SpitState.observed(
        CLASSIC,
        {"A": [(0, None), (2, None), (3, "KD"), (4, "2S"), (5, "5H")],
         "B": [(1, "QS"), (2, "4D"), (3, "8S"), (4, "JD"), (5, "AC")]},
        spit_cards={"A": 5, "B": 11},
        piles={"L": (6, "7C"), "R": "9D"},
    )
    assert s.phase == "play" and s.pile("L") == (None,) * 5 + (c("7C"),)
    assert s.can_move("A")  # the face-down top of A2 can be turned
    assert next(s.legal_moves("A")) == TurnUp("A", "A2")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"spit_cards": {"A": 11, "B": 10}}, "the table shows 51 cards; this game has 52"),
        ({"spit_cards": {"A": 11, "B": -1}}, "B cannot hold -1 cards"),
        ({"piles": {"X": "7D"}, "spit_cards": {"A": 11, "B": 10}}, "X is not a spit pile"),
        ({"piles": {"L": "back"}, "spit_cards": {"A": 11, "B": 10}}, "shows its top: name it"),
    ],
)
def test_impossible_camera_states_are_refused(kwargs: dict, message: str) -> None:  # type: ignore[type-arg]
    stocks = {"A": [(1, "7C"), (2, "9H"), (3, "KD"), (4, "2S"), (5, "5H")],
              "B": [(1, "QS"), (2, "4D"), (3, "8S"), (4, "JD"), (5, "AC")]}
    with pytest.raises(ImpossiblePosition, match=message):
        SpitState.observed(CLASSIC, stocks, **kwargs)


def test_a_camera_state_needs_sensible_stock_places() -> None:
    with pytest.raises(ImpossiblePosition, match="6 stock places; this game has 5"):
        SpitState.observed(CLASSIC, {"A": [(1, "7C")] * 6}, {})
    with pytest.raises(ImpossiblePosition, match="a stock place of 0 cards showing 7♣"):
        SpitState.observed(CLASSIC, {"A": [(0, "7C")]}, {})
    with pytest.raises(ImpossiblePosition, match="7♣ is 2 times"):
        SpitState.observed(CLASSIC, {"A": [(1, "7C"), (1, "7C")], "B": [(5, None)]}, {"A": 25, "B": 20})


def test_a_written_position_refuses_what_cannot_be() -> None:
    with pytest.raises(ImpossiblePosition, match="has 6 stock piles"):
        SpitState.position(CLASSIC, {"A": ["7C"] * 6})
    with pytest.raises(ImpossiblePosition, match="must be named"):
        SpitState.position(CLASSIC, {"A": ["2S | back"]})
    with pytest.raises(ImpossiblePosition, match="is not a spit pile"):
        SpitState.position(CLASSIC, {}, piles={"Q": "7D"})
    with pytest.raises(ImpossiblePosition, match="is face up: name it"):
        SpitState.position(CLASSIC, {}, piles={"L": "7D back"})
    with pytest.raises(ImpossiblePosition, match="in play or between deals"):
        SpitState.position(CLASSIC, {}, phase="over")
    with pytest.raises(ImpossiblePosition, match="give only `held`"):
        SpitState.position(CLASSIC, {"A": ["7C"]}, phase="layout")


def test_unknown_cards_are_counted_out_when_the_deal_ends() -> None:
    s = SpitState.observed(
        CLASSIC,
        {"A": [(1, "3D")], "B": [(1, "QS"), (2, "4D"), (3, "8S"), (4, "JD"), (5, "AC")]},
        spit_cards={"A": 0, "B": 11},
        piles={"L": (19, "2D"), "R": (6, "9C")},
    )
    s = s.apply(Play("A", c("3D"), "A1", "L")).apply(Slap((("A", "R", 1.0), ("B", "L", 1.2))))
    assert s.counts() == {"A": 6, "B": 46} and s.held("A").count(None) == 5


def test_a_camera_state_of_a_player_who_has_emptied_their_stock_is_a_deal_ended_by_them() -> None:
    stocks = {"A": [], "B": [(1, "QS"), (2, "4D"), (3, "8S"), (4, "JD"), (5, "AC")]}
    s = SpitState.observed(CLASSIC, stocks, spit_cards={"A": 1, "B": 11}, piles={"L": (19, "2D"), "R": (6, "9C")},
                           ended_by="A")
    assert s.phase == "settle" and s.slap_due and s.deal_ender() == ("A", "stock emptied")
    s = s.apply(Slap((("A", "R", 1.0), ("B", "L", 1.2))))
    assert s.counts() == {"A": 7, "B": 45}
    with pytest.raises(ImpossiblePosition, match="ends the deal only by emptying their stock"):
        SpitState.observed(CLASSIC, stocks, spit_cards={"A": 1, "B": 11}, piles={"L": (19, "2D"), "R": (6, "9C")},
                           ended_by="B")

def test_a_layout_of_partly_unknown_cards_must_fit_what_the_player_may_hold() -> None:
    s = SpitState.observed(
        CLASSIC,
        {"A": [(1, "3D")], "B": [(1, "QS"), (2, "4D"), (3, "8S"), (4, "JD"), (5, "AC")]},
        spit_cards={"A": 0, "B": 11},
        piles={"L": (19, "2D"), "R": (6, "9C")},
    )
    s = s.apply(Play("A", c("3D"), "A1", "L")).apply(Slap((("A", "R", 1.0), ("B", "L", 1.2))))
    held_a, held_b = s.held("A"), s.held("B")
    assert s.check(Layout(((None,) * 6, held_b))) is None
    assert s.check(Layout(((c("9C"), c("KH")) + (None,) * 4, held_b))) is None
    assert s.check(Layout(((c("9C"), c("9C")) + (None,) * 4, held_b))) == "9♣ is laid out 2 times; the game has it 1 time(s)"
    after = s.apply(Layout(((c("KH"),) + (None,) * 5, held_b)))
    assert after.top("A1") == c("KH") and after.stock_count("A") == 6
    assert held_a.count(None) == 5


def test_a_refill_from_an_unknown_hand_names_the_card() -> None:
    rules = PRESETS["refilled-singles"]
    s = SpitState.observed(rules, {"A": [(1, "7C"), (0, None), (1, "3C"), (1, "4D")],
                                   "B": [(1, "QS"), (1, "4H"), (1, "8S"), (1, "JD")]},
                           spit_cards={"A": 22, "B": 22}, piles={"L": "KD"})
    assert s.check(Refill("A", "A2")) == "say which card A put on A2"
    assert s.apply(Refill("A", "A2", c("9H"))).top("A2") == c("9H")


def test_five_card_hand_with_hidden_hands() -> None:
    s = SpitState.observed(FIVE, {"A": [(10, None)], "B": [(10, None)]}, {}, hands={"A": 5, "B": 5},
                           reserves=(11, 11))
    assert s.phase == "start" and s.cards()[None] == 52
    s = s.apply(Spit((("L", c("8H")), ("R", c("2C")))))
    assert not s.can_anyone_move() and list(s.legal_moves("A")) == []
    s = s.apply(HandPlay("A", c("9S"), "L"))
    assert s.hand("A") == (None,) * 4 and s.top("L") == c("9S")
    assert s.check(HandPlay("A", c("8H"), "L")) == "A has no 8♥ in hand"
    s = s.apply(Draw("A"))
    assert s.hand("A") == (None,) * 5 and s.stock_count("A") == 9
    s = s.apply(HandPlay("A", c("10S"), "L")).apply(Draw("A", c("QH")))
    assert s.hand("A")[-1] == c("QH")
    assert Draw("A", c("QH")).event() == ("draw", {"player": "A", "card": "QH"})
    assert Draw("A").event() == ("draw", {"player": "A"})


def test_five_card_hand_flips_unknown_reserve_cards() -> None:
    s = SpitState.observed(FIVE, {"A": [(10, None)], "B": [(10, None)]}, {}, hands={"A": 5, "B": 5},
                           reserves=(11, 11))
    assert s.check(Spit((("L", None), ("R", c("2C"))))) == "say which card was turned onto L"


def test_what_a_state_lacks_is_never_invented() -> None:
    s = CLASSIC.new_game(random.Random(3))
    assert s.cards() == Counter(full_deck()) and None not in s.cards()
    assert ChoosePile("A", "L").event() == ("choose_pile", {"player": "A", "pile": "L"})
