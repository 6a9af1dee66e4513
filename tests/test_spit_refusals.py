"""Every refused move names the broken rule in a player's words; the move lists of each phase."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from referee.cards import full_deck, parse_card
from referee.rules.spit import (
    PRESETS,
    ChoosePile,
    Deal,
    Draw,
    HandPlay,
    Layout,
    MoveToSpace,
    Play,
    Refill,
    Reshuffle,
    Spit,
    SpitState,
    StackEqual,
)

CLASSIC = PRESETS["classic"]
FIVE = PRESETS["five-card-hand"]
THREE = PRESETS["three-players"]


def c(code: str):  # type: ignore[no-untyped-def]
    return parse_card(code)


def classic_play() -> SpitState:
    return SpitState.position(CLASSIC, {"A": ["7C", "2S 9H |", "3C", "4D", "5H"], "B": ["QD"]},
                              {"A": "KH", "B": "KC"}, {"L": "JD", "R": "8S"})


def stacking_start() -> SpitState:
    return SpitState.position(PRESETS["stack-equal"], {"A": ["9C", "9H"], "B": ["QD"]}, {"A": "KH"}, phase="start")


def refill_start() -> SpitState:
    return SpitState.position(PRESETS["refilled-singles"], {"A": ["7C", ""], "B": ["QD"]}, {"A": "KH QS"},
                              phase="start")


def three_after_a_is_out() -> SpitState:
    s = SpitState.position(THREE, {"A": ["3D"], "B": ["QD", "KH"], "C": ["JS", "4C"]}, {"B": "7H", "C": "8C"},
                           {"S1": "2D", "S2": "10C 6S", "S3": "AC"})
    return s.apply(Play("A", c("3D"), "A1", "S1"))


def five_play() -> SpitState:
    return SpitState.position(FIVE, {"A": [""], "B": ["2C 3C |"]}, None, {"L": "8H", "R": "8D"},
                              hands={"A": "7C 9C 9S", "B": "KH KD"})


CASES = [
    (classic_play, "spit", "'spit' is not a move of Spit"),
    (classic_play, MoveToSpace("A", c("9H"), "A2", "A1"), "the top of A2 is face down"),
    (three_after_a_is_out, MoveToSpace("A", c("3D"), "A1", "A2"), "A has played out their stock and sits out this deal"),
    (stacking_start, StackEqual("A", c("9H"), "A2", "A1"), "play starts with Spit!"),
    (lambda: stacking_start().apply(Spit((("L", c("KH")),))), StackEqual("A", c("9H"), "A3", "A1"), "A3 is empty"),
    (lambda: stacking_start().apply(Spit((("L", c("KH")),))), StackEqual("A", c("9H"), "A2", "B1"),
     "B1 is B's stock pile"),
    (refill_start, Refill("A", "A2"), "play starts with Spit!"),
    (lambda: refill_start().apply(Spit((("L", c("KH")),))), Refill("A", "A9"), "only four stock piles"),
    (lambda: SpitState.position(CLASSIC, {"A": ["3D"], "B": ["QD", "2S 9C"]}, {"A": "KS", "B": "AH 6C"},
                                {"L": "5H 2D", "R": "2C"}).apply(Play("A", c("3D"), "A1", "L")),
     Spit((("L", c("KS")),)), "the deal is over: the spit piles are being taken"),
    (lambda: SpitState.position(CLASSIC, {"A": ["QH"]}, {"A": "KS"}, {"L": "5H"}),
     Spit((("L", c("KS")), ("L", c("KS")))), "only one card is spat onto L"),
    (lambda: SpitState.position(CLASSIC, {"A": ["QH"]}, {}, {"L": "5H"}), Spit((("L", None),)),
     "nobody has spit cards left"),
    (lambda: SpitState.position(THREE, {"A": ["QH"], "B": ["QS"], "C": ["QC"]}, {"A": "2C", "B": "2D", "C": "2H"},
                                {"S1": "5H", "S2": "5D", "S3": "5C"}),
     Spit((("S1", c("2C")), ("S2", c("2D")), ("S3", c("2H")), ("S3", c("2H")))), "only one card is spat onto S3"),
    (lambda: SpitState.position(THREE, {"A": ["QH"], "B": ["QS"], "C": ["QC"]}, {"A": "2C", "B": "2D"},
                                {"S1": "5H", "S2": "5D", "S3": "5C"}),
     Spit((("S1", c("2C")), ("S3", c("2D")))), "nobody spits onto S3: each spits onto the pile they started"),
    (lambda: _three_with_a_out(), Spit((("S1", c("2H")),)), "S1 is not in use"),
    (lambda: FIVE.new_game(random.Random(1)), Reshuffle((c("2C"),), ()), "play starts with Spit!"),
    (five_play, HandPlay("Z", c("7C"), "L"), "'Z' is not a player of this game"),
    (lambda: five_play().apply(HandPlay("A", c("9C"), "L")), Draw("A"), "A's stock is empty"),
    (lambda: five_play().apply(HandPlay("A", c("9C"), "L")), HandPlay("A", c("9S"), "L"), "9♠ is not next to 9♣"),
    (lambda: FIVE.new_game(random.Random(1)), Deal(tuple(full_deck())), "play starts with Spit!"),
    (classic_play, ChoosePile("Z", "L"), "'Z' is not a player of this game"),
    (lambda: _five_between_deals(), Layout(((), ())),
     "the five-card hand is dealt from the whole deck: that is a Deal"),
]


def _three_with_a_out() -> SpitState:
    """Three players, A out of the game; C alone has spit cards."""
    s = SpitState.position(THREE, {}, held={"B": "QS 2D", "C": " ".join(x.code for x in full_deck()[:20])},
                           phase="layout")
    s = s.apply(Layout(((), (c("QS"), c("2D")), tuple(full_deck()[:20]))))
    return s


def _five_between_deals() -> SpitState:
    s = SpitState.position(FIVE, {"A": [""], "B": ["2C 3C |"]}, None, {"L": "8H", "R": "8D"},
                           hands={"A": "7C", "B": "KH KD"})
    return s.apply(HandPlay("A", c("7C"), "L"))


@pytest.mark.parametrize(("state", "move", "reason"), CASES)
def test_a_refused_move_names_the_rule_it_breaks(state, move, reason) -> None:  # type: ignore[no-untyped-def]
    assert state().check(move) == reason


def test_a_drawn_card_of_an_unknown_stock_must_be_one_the_game_lacks() -> None:
    s = SpitState.observed(FIVE, {"A": [(10, None)], "B": [(10, None)]}, {}, hands={"A": 4, "B": 5},
                           reserves=(11, 11), piles={"L": "8H"})
    assert s.check(Draw("A", c("8H"))) == "8♥ is already elsewhere on the table"


def test_queries_name_unknown_players_and_piles() -> None:
    s = classic_play()
    with pytest.raises(KeyError, match="'Z' is not a player of this game"):
        s.stock_count("Z")
    with pytest.raises(KeyError, match="'A9' is not a pile of this game"):
        s.pile("A9")
    assert s != "a state" and s.top("R") == c("8S") and s.top("A2") is None


def test_move_lists_of_a_player_out_of_stock_hold_only_their_pile_choice() -> None:
    s = three_after_a_is_out()
    assert [m.describe() for m in s.legal_moves("A")] == ["A takes S1", "A takes S2", "A takes S3"]
    assert next(s.legal_moves("C")) == Play("C", c("4C"), "C2", "S1")
    s = s.apply(ChoosePile("A", "S2"))
    assert list(s.useful_moves("A")) == []


def test_in_the_layout_phase_the_move_list_is_a_layout_of_the_cards_as_held() -> None:
    s = SpitState.position(CLASSIC, {}, held={"A": "7C 8C", "B": "9C 10C"}, phase="layout")
    assert list(s.legal_moves()) == [Layout(((c("7C"), c("8C")), (c("9C"), c("10C"))))]
    assert list(s.table_moves()) == list(s.legal_moves())


def test_five_card_hand_move_lists() -> None:
    s = five_play()
    assert [m.describe() for m in s.legal_moves("A")] == [
        f"A plays {card} from the hand onto {pile}" for card in ("7♣", "9♣", "9♠") for pile in ("L", "R")]
    b = list(s.legal_moves("B"))
    assert b == [Draw("B", c("3C"))]
    assert set(s.legal_moves()) == set(s.legal_moves("A")) | set(b)


def test_five_card_hand_a_new_deal_keeps_the_scores() -> None:
    s = _five_between_deals()
    deal = s.shuffled_layout(random.Random(3))
    after = s.apply(deal)
    assert after.phase == "start" and after.scores == {"A": 4, "B": 0}
    assert Counter(after.cards()) == Counter(deal.cards)


def test_a_rule_set_deals_a_given_deck() -> None:
    deck = list(full_deck())
    assert CLASSIC.deal(deck) == SpitState.deal(CLASSIC, deck)
