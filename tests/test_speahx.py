"""Speahx's rules, one test per rule, the pile judge, and property tests over random games."""

from __future__ import annotations

import doctest
import random
from collections import Counter
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.cards import parse_card
from referee.errors import ContradictoryOptions, IllegalMove
from referee.events import REQUIRED_FIELDS, Event
from referee.rules import _FACTORIES, speahx, speahx_judge
from referee.rules.base import Game
from referee.rules.speahx import (
    DrawChance,
    PickUp,
    Play,
    PlayChance,
    PlayTable,
    SpeahxRules,
    SpeahxState,
    new_game,
    recommended_packs,
)
from referee.rules.speahx_judge import Effect, judge_lay, parse_cards

C = parse_cards
TWO_PLAYERS = SpeahxRules(players=2)
THREE = SpeahxRules()
JOKERS = SpeahxRules(name="speahx-jokers", jokers=2)


def codes(cards: object) -> list[str]:
    return [c.code for c in cards]  # type: ignore[attr-defined]


def illegal(state: SpeahxState, move: object) -> str:
    with pytest.raises(IllegalMove) as info:
        state.apply(move)  # type: ignore[arg-type]
    assert state.check(move) == str(info.value)  # type: ignore[arg-type]
    return str(info.value)


def kinds(state: SpeahxState) -> list[str]:
    return [kind for kind, _ in state.last_events]


# --- the rule set ------------------------------------------------------------------------------


def test_rule_sets_are_registered_with_their_defaults() -> None:
    assert _FACTORIES["speahx"]() == SpeahxRules(name="speahx", players=3, jokers=0, packs=1)
    jokers = _FACTORIES["speahx-jokers"]()
    assert (jokers.name, jokers.jokers, jokers.terminator) == ("speahx-jokers", 2, False)
    assert THREE.terminator and len(THREE.deck()) == 52 and len(jokers.deck()) == 54


@pytest.mark.parametrize(("players", "packs"), [(2, 1), (4, 1), (5, 2), (9, 2), (10, 3), (14, 3)])
def test_one_more_pack_for_every_fifth_player(players: int, packs: int) -> None:
    assert recommended_packs(players) == packs
    assert SpeahxRules(players=players).packs == packs
    assert len(SpeahxRules(players=players).deck()) == 52 * packs


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"players": 1}, "2 to 14 players"),
        ({"players": 15}, "2 to 14 players"),
        ({"players": True}, "whole number"),
        ({"jokers": 3}, "at most two jokers"),
        ({"jokers": -1}, "at most two jokers"),
        ({"packs": -1}, "at least 1"),
        ({"players": 6, "packs": 1}, "cannot deal"),
    ],
)
def test_contradictory_options_are_refused(options: dict[str, int], words: str) -> None:
    with pytest.raises(ContradictoryOptions, match=words):
        SpeahxRules(**options)


def test_more_packs_than_recommended_may_be_chosen() -> None:
    assert len(SpeahxRules(players=2, packs=2, jokers=1).deck()) == 105


def test_deal_gives_five_table_cards_and_five_hand_cards_and_the_rest_is_stock() -> None:
    state = new_game(random.Random(7), SpeahxRules(players=4, jokers=2))
    assert [len(h) for h in state.hands] == [5] * 4
    assert [sum(c is not None for c in t) for t in state.table] == [5] * 4
    assert len(state.stock) == 54 - 40 and state.pile == () and state.burnt == ()
    assert state.cards() == state.rules.deck_counter()
    assert new_game(random.Random(7)).players == ("A", "B", "C")


def test_player_left_of_the_dealer_starts() -> None:
    assert new_game(random.Random(1)).to_move == "A"


def test_position_refuses_what_the_deck_cannot_hold() -> None:
    with pytest.raises(ValueError, match="more 7♣"):
        TWO_PLAYERS.position({"A": "7C 7C"})
    with pytest.raises(ValueError, match="players are A, B"):
        TWO_PLAYERS.position({"C": "7C"})
    with pytest.raises(ValueError, match="at most 5 table cards"):
        TWO_PLAYERS.position({"A": "7C"}, table={"A": "AS 2S 3S 4S 5S 6S"})


# --- matching --------------------------------------------------------------------------------


def test_a_card_matches_the_top_card_in_suit_or_rank() -> None:
    state = TWO_PLAYERS.position({"A": "7C 9D KS", "B": "5H"}, pile="JD")
    assert illegal(state, Play("A", C("7C"))) == "7♣ matches neither the suit nor the rank of J♦"
    assert state.check(Play("A", C("9D"))) is None
    assert state.apply(Play("A", C("9D"))).pile[-1].code == "9D"
    rank = TWO_PLAYERS.position({"A": "JS", "B": "5H"}, pile="JD")
    assert rank.check(Play("A", C("JS"))) is None


def test_an_empty_pile_takes_any_card() -> None:
    state = TWO_PLAYERS.position({"A": "7C", "B": "5H"})
    assert state.apply(Play("A", C("7C"))).pile == C("7C")


def test_several_cards_of_one_rank_may_be_played_together_if_the_first_matches() -> None:
    state = TWO_PLAYERS.position({"A": "7C 7H 7S", "B": "5H"}, pile="9H")
    after = state.apply(Play("A", C("7H 7S 7C")))
    assert codes(after.pile) == ["9H", "7H", "7S", "7C"]  # the last laid is on top: clubs now
    assert illegal(state, Play("A", C("7C 7H"))) == "7♣ matches neither the suit nor the rank of 9♥"


def test_cards_played_together_must_be_of_one_rank() -> None:
    state = TWO_PLAYERS.position({"A": "7H 8H", "B": "5H"}, pile="9H")
    assert illegal(state, Play("A", C("7H 8H"))) == "cards played together must be of one rank, not 7♥ 8♥"


def test_a_player_plays_only_cards_they_hold() -> None:
    state = TWO_PLAYERS.position({"A": "7H", "B": "5H"}, pile="9H")
    assert illegal(state, Play("A", C("7H 7H"))) == "A does not hold 7♥"
    assert illegal(state, Play("A", ())) == "play at least one card"


# --- special cards ------------------------------------------------------------------------------


def test_two_names_the_next_suit() -> None:
    state = TWO_PLAYERS.position({"A": "2S 8H", "B": "7C 7H 2D"}, pile="KD")
    assert illegal(state, Play("A", C("2S"))) == "a 2 must name the next suit"
    assert illegal(state, Play("A", C("8H"), named_suit="C")) == "only a 2 names a suit"
    after = state.apply(Play("A", C("2S"), named_suit="C"))
    assert after.named_suit == "C" and ("name_suit", {"player": "A", "suit": "C"}) in after.last_events
    assert illegal(after, Play("B", C("7H"))) == "7♥ is not a club, the suit named with the 2"
    assert after.apply(Play("B", C("7C"))).named_suit is None
    assert after.apply(Play("B", C("2D"), named_suit="H")).named_suit == "H"


def test_ten_burns_the_pile_and_the_player_goes_again() -> None:
    state = TWO_PLAYERS.position({"A": "10H 4S", "B": "5C"}, pile="3C 9C", stock="KD")
    after = state.apply(Play("A", C("10H")))
    assert after.pile == () and after.to_move == "A"
    assert Counter(after.burnt) - Counter(state.burnt) == Counter(C("3C 9C 10H"))
    assert codes(after.hands[0]) == ["4S"]  # no drawing before playing again
    assert after.last_events[-1] == ("burn", {"player": "A", "pile": "P", "by": "ten", "count": 3})
    assert codes(after.apply(Play("A", C("4S"))).hands[0]) == ["KD"]


def test_ten_goes_on_anything() -> None:
    state = TWO_PLAYERS.position({"A": "10H 4S", "B": "5C"}, pile="KD 2S", named_suit="C")
    assert state.check(Play("A", C("10H"))) is None


def test_four_of_a_kind_burns_the_pile() -> None:
    state = TWO_PLAYERS.position({"A": "3S 3D 3C 8C", "B": "5C"}, pile="KH 3H")
    after = state.apply(Play("A", C("3S 3D 3C")))
    assert after.pile == () and after.to_move == "A"
    assert after.last_events[-1] == ("burn", {"player": "A", "pile": "P", "by": "four of a kind", "count": 5})


def test_more_than_four_equal_cards_leave_the_rest_on_the_pile() -> None:
    rules = SpeahxRules(players=5)  # two packs
    state = rules.position({"A": "6S 6D 6S 9S", "B": "5C"}, pile="KH 6H 6C 6D")
    after = state.apply(Play("A", C("6S 6D 6S")))
    assert codes(after.pile) == ["6D", "6S"]  # the first four sixes and what lay under them are burnt
    assert after.to_move == "B"
    assert Counter(after.burnt) - Counter(state.burnt) == Counter(C("KH 6H 6C 6D 6S"))
    assert dict(after.last_events)["burn"]["rest"] == 2


def test_more_than_four_twos_keep_the_named_suit() -> None:
    rules = SpeahxRules(players=5)
    state = rules.position({"A": "2S 2D", "B": "5C"}, pile="2H 2C 2D", named_suit="S")
    after = state.apply(Play("A", C("2S 2D"), named_suit="H"))
    assert codes(after.pile) == ["2D"] and after.named_suit == "H"


def test_joker_gives_the_pile_to_a_chosen_player() -> None:
    state = JOKERS.position({"A": "5D", "B": "JK 4S", "C": "9H"}, pile="7H 8H", to_move="B")
    after = state.apply(Play("B", C("JK"), receiver="A"))
    assert codes(after.hands[0]) == ["7H", "8H", "5D"] and after.pile == ()
    assert parse_card("JK") in after.burnt  # the joker leaves the game
    assert after.to_move == "C"  # the player after the one who played the joker
    assert ("give_pile", {"player": "B", "receiver": "A", "count": 2}) in after.last_events


def test_joker_needs_a_receiver_who_still_holds_cards() -> None:
    state = JOKERS.position({"A": "5D", "B": "JK 4S", "C": ""}, pile="7H", to_move="B")
    assert illegal(state, Play("B", C("JK"))) == "a joker gives the pile to a player: name who gets it"
    assert illegal(state, Play("B", C("JK"), receiver="B")) == "the pile must go to another player"
    assert illegal(state, Play("B", C("JK"), receiver="C")).startswith("C has no cards left and is out")
    assert illegal(state, Play("B", C("JK"), receiver="Z")) == "'Z' is not playing; the players are A, B, C"
    assert illegal(state, Play("B", C("4S"), receiver="A")).startswith("only a joker or a Terminator")
    assert {m.receiver for m in state.legal_moves() if isinstance(m, Play) and m.cards == C("JK")} == {"A"}


def test_joker_is_played_on_its_own_even_on_an_empty_pile() -> None:
    rules = SpeahxRules(players=2, jokers=2)
    state = rules.position({"A": "JK JK", "B": "5C"})
    assert illegal(state, Play("A", C("JK JK"), receiver="B")) == "a joker is played on its own"
    assert illegal(state, Play("A", C("JK"), named_suit="S", receiver="B")) == "only a 2 names a suit"
    after = state.apply(Play("A", C("JK"), receiver="B"))
    assert codes(after.hands[1]) == ["5C"] and after.to_move == "B"


def test_four_different_jacks_act_as_a_joker() -> None:
    state = THREE.position({"A": "JS JH JD JC 4S", "B": "5C", "C": "6C"}, pile="9D 8D")
    after = state.apply(Play("A", C("JS JH JD JC"), receiver="C"))
    assert codes(after.hands[2]) == ["8D", "9D", "6C"] and after.to_move == "B"
    assert Counter(after.burnt) - Counter(state.burnt) == Counter(C("JS JH JD JC"))
    assert illegal(state, Play("A", C("JS JH JD JC"), named_suit="S", receiver="C")) == "only a 2 names a suit"
    terminators = [m for m in state.legal_moves() if isinstance(m, Play) and m.receiver]
    assert {m.receiver for m in terminators} == {"B", "C"}


def test_four_jacks_laid_without_a_receiver_are_four_of_a_kind() -> None:
    state = THREE.position({"A": "JS JH JD JC 4S", "B": "5C", "C": "6C"}, pile="9D 8D")
    after = state.apply(Play("A", C("JD JS JH JC")))
    assert after.pile == () and after.to_move == "A" and kinds(after)[-1] == "burn"


def test_four_jacks_are_no_terminator_in_a_game_with_jokers() -> None:
    state = JOKERS.position({"A": "JS JH JD JC", "B": "5C", "C": "6C"}, pile="9D")
    reason = illegal(state, Play("A", C("JS JH JD JC"), receiver="B"))
    assert reason == "four jacks are a Terminator only in a game without jokers"
    assert not any(isinstance(m, Play) and m.receiver for m in state.legal_moves())


# --- picking up and drawing ---------------------------------------------------------------------


def test_a_player_who_cannot_or_will_not_play_picks_up_the_pile() -> None:
    state = TWO_PLAYERS.position({"A": "7C 9H", "B": "5C"}, pile="3H 9D")
    after = state.apply(PickUp("A"))
    assert codes(after.hands[0]) == ["3H", "9H", "9D", "7C"] and after.pile == ()
    assert after.to_move == "B"
    assert after.last_events[0] == ("pick_up", {"player": "A", "pile": "P", "count": 2, "cards": ["3H", "9D"]})


def test_an_empty_pile_cannot_be_picked_up() -> None:
    state = TWO_PLAYERS.position({"A": "7C", "B": "5C"})
    assert illegal(state, PickUp("A")) == "there is no pile to pick up: any card may start it"
    assert not any(isinstance(m, PickUp) for m in state.legal_moves())


def test_the_hand_is_drawn_back_up_to_five_and_drawing_ends_the_turn() -> None:
    state = TWO_PLAYERS.position({"A": "7C 7H 8D", "B": "5C"}, pile="7D", stock="7S 2H 3H 4H")
    after = state.apply(Play("A", C("7C 7H")))
    assert codes(after.hands[0]) == ["7S", "2H", "3H", "4H", "8D"] and after.stock == ()
    assert after.to_move == "B"  # the drawn 7♠ cannot be used at once
    assert after.last_events[-1] == ("draw", {"player": "A", "count": 4})


def test_a_chance_card_may_be_played_if_legal() -> None:
    state = TWO_PLAYERS.position({"A": "4S", "B": "5C"}, pile="9C", stock="6C 8D")
    drawn = state.apply(DrawChance("A"))
    assert codes(drawn.chance) == ["6C"] and drawn.to_move == "A"
    assert drawn.last_events == (("draw_chance", {"player": "A", "card": "6C"}),)
    after = drawn.apply(PlayChance("A", C("6C")))
    assert codes(after.pile) == ["9C", "6C"] and after.to_move == "B"
    assert codes(after.hands[0]) == ["4S", "8D"]


def test_no_hand_card_after_drawing_a_chance_card() -> None:
    state = TWO_PLAYERS.position({"A": "10S 4C", "B": "5C"}, pile="9C", stock="6H 8D")
    drawn = state.apply(DrawChance("A"))
    assert illegal(drawn, Play("A", C("10S"))) == "after drawing a chance card you may not play from your hand"
    assert not any(isinstance(m, Play) for m in drawn.legal_moves())


def test_at_most_three_chance_cards_are_drawn() -> None:
    state = TWO_PLAYERS.position({"A": "4S", "B": "5C"}, pile="9C", stock="6H 8D 3S KD")
    for _ in range(3):
        state = state.apply(DrawChance("A"))
    assert illegal(state, DrawChance("A")) == "you may draw at most 3 chance cards in a turn"
    assert [type(m) for m in state.legal_moves()] == [PickUp]


def test_chance_cards_not_played_join_the_hand() -> None:
    state = TWO_PLAYERS.position({"A": "4S", "B": "5C"}, pile="9C", stock="6H 8C")
    state = state.apply(DrawChance("A")).apply(DrawChance("A"))
    assert state.check(PlayChance("A", C("6H"))) == "6♥ matches neither the suit nor the rank of 9♣"
    after = state.apply(PlayChance("A", C("8C")))
    assert codes(after.hands[0]) == ["4S", "6H"] and after.chance == ()


def test_an_empty_stock_gives_no_chance_card() -> None:
    state = TWO_PLAYERS.position({"A": "4S", "B": "5C"}, pile="9C")
    assert illegal(state, DrawChance("A")) == "the stock is empty: there is no chance card to draw"


def test_chance_card_completes_four_of_a_kind_with_hand_cards() -> None:
    state = TWO_PLAYERS.position({"A": "5H 5S 9D", "B": "6C"}, pile="KC 5D", stock="5C 8D")
    drawn = state.apply(DrawChance("A"))
    after = drawn.apply(PlayChance("A", C("5C 5H 5S"), from_hand=C("5H 5S")))
    assert after.pile == () and after.to_move == "A" and codes(after.hands[0]) == ["9D"]
    assert drawn.check(PlayChance("A", C("5C 5H"), from_hand=C("5H"))) == (
        "after drawing a chance card you may not play from your hand, except to lay four of a kind"
    )
    combos = [m for m in drawn.legal_moves() if isinstance(m, PlayChance) and m.from_hand]
    assert combos and all(len(m.cards) == 3 for m in combos)


def test_after_a_burn_by_a_chance_card_the_player_plays_afresh() -> None:
    state = TWO_PLAYERS.position({"A": "4S", "B": "5C"}, pile="9C", stock="3H 10D KD")
    state = state.apply(DrawChance("A")).apply(DrawChance("A"))
    after = state.apply(PlayChance("A", C("10D")))
    assert after.to_move == "A" and after.chance == () and codes(after.hands[0]) == ["4S", "3H"]
    assert after.check(Play("A", C("3H"))) is None


def test_a_chance_play_must_be_of_chance_cards() -> None:
    state = TWO_PLAYERS.position({"A": "4S 5S 5H", "B": "5C"}, pile="9C", stock="6H")
    assert illegal(state, PlayChance("A", C("6H"))) == "draw a chance card first"
    drawn = state.apply(DrawChance("A"))
    assert illegal(drawn, PlayChance("A", C("7H"))) == "7♥ is not one of your chance cards"
    assert illegal(drawn, PlayChance("A", C("5S"), from_hand=C("5S"))) == "play at least one chance card"
    assert illegal(drawn, PlayChance("A", C("6H"), from_hand=C("6S"))) == "6♠ from hand is not among the cards laid"
    assert illegal(drawn, PlayChance("A", C("6H 6S"), from_hand=C("6S"))) == "A does not hold 6♠"


def test_chance_specials_name_a_suit_or_a_receiver() -> None:
    state = JOKERS.position({"A": "4S", "B": "5C", "C": "6D"}, pile="9C", stock="JK 2D")
    joker = state.apply(DrawChance("A"))
    assert {m.receiver for m in joker.legal_moves() if isinstance(m, PlayChance)} == {"B", "C"}
    given = joker.apply(PlayChance("A", C("JK"), receiver="C"))
    assert codes(given.hands[2]) == ["6D", "9C"] and given.to_move == "B"
    two = joker.apply(DrawChance("A"))
    suits = {m.named_suit for m in two.legal_moves() if isinstance(m, PlayChance) and m.cards == C("2D")}
    assert suits == {"S", "H", "D", "C"}


# --- table cards --------------------------------------------------------------------------------


def test_table_card_is_played_blind() -> None:
    state = TWO_PLAYERS.position({"A": "", "B": "5C"}, table={"A": "3H 9D"}, pile="KH")
    moves = list(state.legal_moves())
    assert PlayTable("A", 1, parse_card("3H")) in moves and PlayTable("A", 2, parse_card("9D")) in moves
    after = state.apply(PlayTable("A", 1, parse_card("3H")))
    assert codes(after.pile) == ["KH", "3H"] and after.table[0] == (None, parse_card("9D"), None, None, None)
    assert kinds(after) == ["turn_up", "play"] and after.last_events[1][1]["from"] == "A1"
    assert illegal(state, PlayTable("A", 3, parse_card("3H"))) == "there is no card in table place 3"
    assert illegal(state, PlayTable("A", 1, parse_card("9D"))) == "the card in table place 1 is not 9♦"


def test_table_cards_wait_until_hand_and_stock_are_empty() -> None:
    hand = TWO_PLAYERS.position({"A": "4C", "B": "5C"}, table={"A": "3H"}, pile="KH")
    assert illegal(hand, PlayTable("A", 1, parse_card("3H"))) == "table cards are played only once your hand is empty"
    stock = TWO_PLAYERS.position({"A": "", "B": "5C"}, table={"A": "3H"}, pile="KH", stock="8S")
    assert illegal(stock, PlayTable("A", 1, parse_card("3H"))) == "table cards are played only once the stock is empty"
    assert list(stock.legal_moves()) == [DrawChance("A"), PickUp("A")]
    chance = TWO_PLAYERS.position({"A": "", "B": "5C"}, table={"A": "3H"}, pile="KH", chance="8S")
    reason = illegal(chance, PlayTable("A", 1, parse_card("3H")))
    assert reason == "after drawing a chance card you may not play a table card"


def test_unplayable_table_card_goes_to_hand_with_the_pile() -> None:
    state = TWO_PLAYERS.position({"A": "", "B": "5C 6C"}, table={"A": "9D 4S"}, pile="8C")
    after = state.apply(PlayTable("A", 1, parse_card("9D")))
    assert codes(after.hands[0]) == ["9D", "8C"] and after.pile == () and after.to_move == "B"
    assert kinds(after) == ["turn_up", "pick_up"]
    assert illegal(state, PlayTable("A", 1, parse_card("9D"), named_suit="S")).startswith("9♦ cannot be played")
    # all these cards must be played before another table card
    assert illegal(after.apply(Play("B", C("5C"))), PlayTable("A", 2, parse_card("4S"))).startswith("table cards")


def test_blind_specials_name_a_suit_or_a_receiver() -> None:
    rules = SpeahxRules(players=3, jokers=1)
    state = rules.position({"A": "", "B": "5C", "C": "6C"}, table={"A": "2S JK"}, pile="8C")
    moves = list(state.legal_moves())
    assert sum(isinstance(m, PlayTable) and m.place == 1 for m in moves) == 4
    assert {m.receiver for m in moves if isinstance(m, PlayTable) and m.place == 2} == {"B", "C"}
    assert illegal(state, PlayTable("A", 1, parse_card("2S"))) == "a 2 must name the next suit"
    assert illegal(state, PlayTable("A", 1, parse_card("2S"), "H", receiver="B")).startswith("only a joker")
    after = state.apply(PlayTable("A", 2, JK := parse_card("JK"), receiver="C"))
    assert codes(after.hands[2]) == ["6C", "8C"] and JK in after.burnt


# --- turns and the end ----------------------------------------------------------------------------


def test_only_the_player_to_move_plays() -> None:
    state = TWO_PLAYERS.position({"A": "7C", "B": "5C"})
    assert illegal(state, Play("B", C("5C"))) == "it is A's turn"
    assert illegal(state, Play("Z", C("5C"))) == "'Z' is not playing; the players are A, B"
    assert list(state.legal_moves("B")) == []
    with pytest.raises(IllegalMove, match="not a Speahx move"):
        state.apply(SimpleNamespace(player="A"))  # type: ignore[arg-type]


def test_player_with_no_cards_is_out_and_the_first_out_wins() -> None:
    state = THREE.position({"A": "7C", "B": "5C 6D", "C": "8H"}, pile="7H")
    after = state.apply(Play("A", C("7C")))
    assert after.winner() == "A" and after.finished == ("A",) and not after.is_over()
    assert after.to_move == "B" and after.loser() is None
    assert ("out", {"player": "A", "place": 1}) in after.last_events


def test_a_burn_with_the_last_card_puts_the_player_out() -> None:
    state = THREE.position({"A": "10C", "B": "5C", "C": "8H"}, pile="7H")
    after = state.apply(Play("A", C("10C")))
    assert after.finished == ("A",) and after.to_move == "B"


def test_last_player_with_cards_loses() -> None:
    state = TWO_PLAYERS.position({"A": "KC", "B": "5C 6D"}, pile="7C")
    after = state.apply(Play("A", C("KC")))
    assert after.is_over() and after.winner() == "A" and after.loser() == "B" and after.to_move is None
    assert after.last_events[-1] == ("game_end", {"winner": "A", "loser": "B"})
    assert illegal(after, Play("B", C("5C"))) == "the game is over"
    assert list(after.legal_moves()) == []


def test_a_player_out_is_skipped() -> None:
    state = THREE.position({"A": "4H 5H", "B": "", "C": "8H 9H"}, pile="7H", to_move="A")
    assert state.apply(Play("A", C("4H"))).to_move == "C"


# --- moves in words and in the log ---------------------------------------------------------------


def test_moves_describe_themselves_and_give_valid_events() -> None:
    moves = [
        Play("A", C("7C 7H")),
        Play("A", C("2S"), named_suit="C"),
        Play("A", C("JK"), receiver="B"),
        PlayChance("A", C("5C 5H"), from_hand=C("5H")),
        PlayTable("A", 3, parse_card("9D")),
        DrawChance("A"),
        PickUp("A"),
    ]
    words = [m.describe() for m in moves]
    assert words == [
        "A plays 7♣ 7♥",
        "A plays 2♠, naming clubs ♣",
        "A plays joker, giving the pile to B",
        "A plays chance card(s) 5♣ 5♥ with 5♥ from hand",
        "A turns up table card 3, 9♦",
        "A draws a chance card",
        "A picks up the pile",
    ]
    for move in moves:
        kind, fields = move.event()
        Event.make(kind, 1.0, **fields)
    assert moves[1].event()[1] == {
        "player": "A", "card": "2S", "cards": ["2S"], "source": "hand", "from": "hand", "to": "P", "suit": "C",
    }
    assert moves[3].event()[1]["from"] == "chance" and moves[3].event()[1]["from_hand"] == ["5H"]
    assert Play("A", C("2S"), named_suit="X").describe() == "A plays 2♠, naming 'X'"


def test_every_event_of_a_game_validates() -> None:
    rng = random.Random(3)
    state = SpeahxRules(players=8, jokers=2).new_game(rng)
    seen = set()
    while not state.is_over():
        state = state.apply(_policy(state, rng))
        for kind, fields in state.last_events:
            Event.make(kind, 0.0, **fields)
            seen.add(kind)
    assert {"play", "draw", "pick_up", "out", "game_end"} <= seen


@pytest.mark.parametrize("module", ["referee.rules.spit_moves", "referee.rules.owndeck"])
def test_event_types_agree_with_the_other_games(module: str) -> None:
    pytest.importorskip(module)  # registering one type twice with other fields would raise
    assert REQUIRED_FIELDS["draw"] == ("player",)


# --- the pile judge -------------------------------------------------------------------------------


def test_pile_judge_works_from_the_pile_alone() -> None:
    assert judge_lay((), C("9D")).effect is Effect.NEXT
    burn = judge_lay(C("3H"), C("3S 3D 3C"))
    assert burn.effect is Effect.BURN_FOUR and burn.again and burn.certain
    ten = judge_lay(C("2S KH"), C("10D"), named_suit="C")
    assert ten.effect is Effect.BURN_TEN and ten.again and codes(ten.discarded) == ["10D", "2S", "KH"]
    assert not judge_lay(C("KH"), C("9D")).legal


def test_pile_judge_says_when_unseen_cards_could_matter() -> None:
    # one 7 visible, cards under it unseen: a fourth 7 could lie there
    partial = judge_lay(C("7H"), C("7S 7C"), unseen=3)
    assert partial.effect is Effect.NEXT and not partial.certain
    assert judge_lay(C("7H 9H"), C("7S 7C"), unseen=3).certain
    assert judge_lay(C("7H"), C("JK"), unseen=2).certain


@pytest.mark.parametrize(
    ("pile", "laid", "kwargs", "words"),
    [
        ("9H", "", {}, "nothing was laid"),
        ("", "9H", {"unseen": 2}, "top card"),
        ("9H", "9D", {"unseen": -1}, "top card"),
        ("2H", "9D", {}, "say the suit"),
        ("9H", "9D", {"named_suit": "C"}, "only while a 2"),
        ("9H", "2D", {"new_suit": "X"}, "not a suit"),
    ],
)
def test_pile_judge_refuses_impossible_descriptions(pile: str, laid: str, kwargs: dict, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        judge_lay(C(pile), C(laid), **kwargs)


def test_the_engine_uses_the_pile_judge() -> None:
    state = TWO_PLAYERS.position({"A": "5D 5S", "B": "5C"}, pile="KH 5H")
    verdict = judge_lay(tuple(reversed(state.pile)), C("5D 5S"))
    after = state.apply(Play("A", C("5D 5S")))
    assert tuple(reversed(after.pile)) == verdict.pile and verdict.effect is Effect.NEXT


# --- the seed's example ---------------------------------------------------------------------------


def test_seed_example_three_threes_burn_on_a_blind_three_then_a_blind_nine_is_picked_up() -> None:
    rules = SpeahxRules(players=3)
    # Alex (A) burns with his last hand card, then turns a table card: 3♥
    state = rules.position(
        {"A": "10H", "B": "3S 3D 3C 8C", "C": ""},
        table={"A": "3H 4D", "C": "9D 5S"},
        pile="6S",
    )
    state = state.apply(Play("A", C("10H")))
    state = state.apply(PlayTable("A", 1, parse_card("3H")))
    # Fredrich (B) plays his three 3s: four of a kind, and plays again: 8♣
    state = state.apply(Play("B", C("3S 3D 3C")))
    assert state.to_move == "B" and state.pile == ()
    state = state.apply(Play("B", C("8C")))
    # Janet (C) turns up 9♦, which cannot go on 8♣: both go to her hand
    state = state.apply(PlayTable("C", 1, parse_card("9D")))
    assert codes(state.hands[2]) == ["9D", "8C"] and state.to_move == "A"


# --- properties over random games --------------------------------------------------------------------


def _policy(state: SpeahxState, rng: random.Random) -> object:
    """Random legal moves, preferring a lay over drawing a chance card over picking up the pile."""
    moves = list(state.legal_moves())
    lays = [m for m in moves if isinstance(m, (Play, PlayChance, PlayTable))]
    draws = [m for m in moves if isinstance(m, DrawChance)]
    return rng.choice(lays or draws or moves)


def _sound(state: SpeahxState, deck: Counter) -> None:
    """What must hold in every state reached."""
    assert state.cards() == deck
    if state.named_suit is not None:
        assert state.pile[-1].rank == 2
    assert not any(c.rank in (0, 10) for c in state.pile)
    assert len(state.chance) <= 3 and all(list(h) == sorted(h) for h in state.hands)
    assert all(not state.holds(p) for p in state.finished)
    if not state.is_over():
        assert state.to_move in state.in_play() and next(state.legal_moves(), None) is not None
        if state.stock:
            assert all(len(state.hands[i]) >= 5 for i in range(len(state.players)) if i != state.turn)
    else:
        assert state.winner() == state.finished[0]


CAP = 5000
games = st.tuples(st.integers(0, 2**32), st.integers(2, 6), st.integers(0, 2))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_every_card_is_accounted_for_and_every_game_ends(game: tuple[int, int, int]) -> None:
    seed, players, jokers = game
    rng = random.Random(seed)
    rules = SpeahxRules(players=players, jokers=jokers)
    state, deck = rules.new_game(rng), rules.deck_counter()
    for _ in range(CAP):
        _sound(state, deck)
        if state.is_over():
            break
        state = state.apply(_policy(state, rng))  # type: ignore[arg-type]
    assert state.is_over(), f"the game did not end within {CAP} moves"
    assert len(state.finished) == players - 1 and state.loser() not in state.finished


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_legal_moves_never_reach_an_illegal_state(game: tuple[int, int, int]) -> None:
    seed, players, jokers = game
    rng = random.Random(seed)
    rules = SpeahxRules(players=players, jokers=jokers)
    state, deck = rules.new_game(rng), rules.deck_counter()
    for _ in range(CAP):
        if state.is_over():
            break
        moves = list(state.legal_moves())
        for move in rng.sample(moves, min(3, len(moves))):
            assert state.check(move) is None, move
            _sound(state.apply(move), deck)
        state = state.apply(_policy(state, rng))  # type: ignore[arg-type]
    assert state.is_over()


def test_game_record_pushes_and_pops_speahx_moves() -> None:
    game = Game(TWO_PLAYERS.position({"A": "7C 8C", "B": "5C"}, pile="9C"))
    game.push(Play("A", C("7C")))
    with pytest.raises(IllegalMove):
        game.push(Play("A", C("8C")))
    assert len(game.moves) == 1 and game.pop() == Play("A", C("7C")) and game.state.pile == C("9C")


def test_docstring_examples_run() -> None:
    for module in (speahx, speahx_judge):
        assert doctest.testmod(module).failed == 0
