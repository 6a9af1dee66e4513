"""The variants of RULES.md as options of one rule set: validation, presets, and what each option changes."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from referee.cards import full_deck, parse_card
from referee.errors import ContradictoryOptions, IllegalMove
from referee.rules import get_rules
from referee.rules.spit import (
    PRESETS,
    ChoosePile,
    Deal,
    Draw,
    HandPlay,
    ImpossiblePosition,
    MoveToSpace,
    Play,
    Refill,
    Reshuffle,
    Slap,
    Spit,
    SpitRules,
    SpitState,
    StackEqual,
    TurnUp,
)

CLASSIC = PRESETS["classic"]


def c(code: str):  # type: ignore[no-untyped-def]
    return parse_card(code)


def at(rules, stocks, spit=None, piles=None, **kw) -> SpitState:  # type: ignore[no-untyped-def]
    return SpitState.position(rules, stocks, spit, piles, **kw)


def spit(**cards: str) -> Spit:
    return Spit(tuple((pile, c(code)) for pile, code in cards.items()))


# --- the configuration ------------------------------------------------------------------------------


def test_every_preset_is_registered_by_name() -> None:
    for name, rules in PRESETS.items():
        assert get_rules(name) is rules and rules.name == name


def test_classic_is_the_default_configuration() -> None:
    assert SpitRules() == CLASSIC and CLASSIC.changed_options() == {}
    assert CLASSIC.layout == (1, 2, 3, 4, 5) and CLASSIC.hands == 1


def test_each_preset_changes_only_its_own_options() -> None:
    assert PRESETS["chinese"].changed_options() == {"stock_piles": 4}
    assert PRESETS["long-middle"].changed_options() == {"long_middle": True}
    assert PRESETS["two-decks"].changed_options() == {"decks": 2, "stock_piles": 6}
    assert PRESETS["free-choice"].changed_options() == {"free_choice": True}
    assert PRESETS["two-hands"].changed_options() == {"two_hands": True}
    assert PRESETS["alternate-colours"].changed_options() == {"alternate_colours": True}
    assert PRESETS["stack-equal"].changed_options() == {"stack_equal": True}
    assert PRESETS["refilled-singles"].changed_options() == {"stock_piles": 4, "refilled_singles": True}
    assert PRESETS["five-card-hand"].changed_options() == {"five_card_hand": True}
    assert PRESETS["three-players"].changed_options() == {"players": 3, "decks": 2, "free_choice": True}
    assert PRESETS["four-players"].changed_options() == {"players": 4, "decks": 2, "free_choice": True}


def test_options_combine_with_dataclasses_replace() -> None:
    rules = replace(PRESETS["chinese"], alternate_colours=True, two_hands=True)
    assert rules.layout == (1, 2, 3, 4) and rules.alternate_colours and rules.hands == 2
    assert rules.options()["stock_piles"] == 4


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"stock_piles": 4, "long_middle": True}, "the long middle pile needs five stock piles"),
        ({"stock_piles": 6}, "six stock piles need two decks"),
        ({"stock_piles": 3}, "four to six stock piles, not 3"),
        ({"refilled_singles": True, "long_middle": True}, "no long middle pile"),
        ({"refilled_singles": True, "stack_equal": True}, "equal ranks cannot be stacked"),
        ({"players": 3, "free_choice": True}, "3 players need 2 decks"),
        ({"players": 3, "decks": 2}, "set free_choice"),
        ({"players": 9, "decks": 4, "free_choice": True}, "2 to 8 players, not 9"),
        ({"decks": 5}, "not 5"),
        ({"five_card_hand": True, "stack_equal": True}, "it cannot take stack_equal"),
        ({"five_card_hand": True, "stock_piles": 4, "free_choice": True}, "free_choice, stock_piles"),
        ({"five_card_hand": True, "reserve_size": 7}, "hold 10 or 5 cards, not 7"),
        ({"five_card_hand": True, "hand_size": 0}, "a hand of 0 cards"),
        ({"five_card_hand": True, "target_score": 0}, "at least one point"),
        ({"reserve_size": 5}, "reserve_size is an option of the five-card hand only"),
        ({"stock_piles": "5"}, "stock_piles must be a whole number"),
        ({"stack_equal": 1}, "stack_equal must be True or False"),
        ({"name": 3}, "name must be text"),
    ],
)
def test_contradictory_options_are_refused_when_built(changes: dict, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ContradictoryOptions, match=message):
        replace(CLASSIC, **changes)


# --- four piles ("Chinese spit"), long middle pile, two decks ----------------------------------------


def test_chinese_spit_has_four_stock_piles_of_one_to_four() -> None:
    rules = PRESETS["chinese"]
    s = rules.new_game(random.Random(1))
    assert [len(s.pile(f"A{k}")) for k in range(1, 5)] == [1, 2, 3, 4]
    assert s.spit_count("A") == 16
    s = at(rules, {"A": ["7C", "2S 9H", "3C", "4D"]}, piles={"L": "KD", "R": "KS"})
    assert s.check(MoveToSpace("A", c("9H"), "A2", "A5")) == "only four stock piles"


def test_long_middle_pile_has_eleven_cards_the_others_one() -> None:
    s = PRESETS["long-middle"].new_game(random.Random(1))
    assert [len(s.pile(f"B{k}")) for k in range(1, 6)] == [1, 1, 11, 1, 1]
    assert s.face_up("B3") == 1 and s.spit_count("B") == 11


def test_two_decks_deal_104_cards_into_six_stock_piles() -> None:
    s = PRESETS["two-decks"].new_game(random.Random(1))
    assert s.counts() == {"A": 52, "B": 52} and s.stock_count("A") == 21
    assert s.cards() == Counter(full_deck() * 2)
    five = replace(PRESETS["two-decks"], stock_piles=5).new_game(random.Random(1))
    assert five.stock_count("A") == 15


def test_two_decks_make_duplicate_cards_legal() -> None:
    rules = PRESETS["two-decks"]
    s = at(rules, {"A": ["7C", "7C"]}, piles={"L": "8D", "R": "6D"})
    s = s.apply(Play("A", c("7C"), "A1", "L")).apply(Play("A", c("7C"), "A2", "R"))
    assert s.top("L") == s.top("R") == c("7C")
    with pytest.raises(ImpossiblePosition, match="3 times"):
        at(rules, {"A": ["7C", "7C", "7C"]})
    with pytest.raises(ImpossiblePosition, match="2 times"):
        at(CLASSIC, {"A": ["7C", "7C"]})


# --- free choice ---------------------------------------------------------------------------------------


def test_free_choice_the_first_player_out_chooses_and_the_other_takes_the_other() -> None:
    rules = PRESETS["free-choice"]
    s = at(rules, {"A": ["3D"], "B": ["QD"]}, {"A": "KS", "B": "AH"}, {"L": "5H 2D", "R": "2C"})
    s = s.apply(Play("A", c("3D"), "A1", "L"))
    assert s.phase == "settle" and not s.slap_due and s.choosers() == ("A",)
    assert [m.describe() for m in s.legal_moves()] == ["A takes L", "A takes R"]
    assert s.check(Slap((("A", "R", 1.0), ("B", "L", 1.1)))) == "no slap now: the spit piles are chosen, not slapped"
    assert s.check(ChoosePile("B", "R")) == "A chooses; B takes what is left"
    assert s.check(ChoosePile("A", "X")) == "X is not a spit pile"
    after = s.apply(ChoosePile("A", "R"))
    assert after.held("A") == (c("2C"), c("KS"))
    assert Counter(after.held("B")) == Counter(map(c, ["5H", "2D", "3D", "QD", "AH"]))


# --- two hands -------------------------------------------------------------------------------------------


def test_two_hands_is_the_number_of_hands_a_player_may_use() -> None:
    assert PRESETS["two-hands"].hands == 2 and CLASSIC.hands == 1
    s = at(CLASSIC, {"A": ["7C", "2S 9H |"]}, piles={"L": "8D", "R": "KS"})
    assert list(s.legal_moves()) == list(at(PRESETS["two-hands"], {"A": ["7C", "2S 9H |"]},
                                            piles={"L": "8D", "R": "KS"}).legal_moves())


# --- alternate colours -------------------------------------------------------------------------------


def test_alternate_colours_a_card_must_be_of_the_other_colour() -> None:
    rules = PRESETS["alternate-colours"]
    s = at(rules, {"A": ["6C", "6H", "QS", "QD", "KC"]}, piles={"L": "5S", "R": "AD"})
    assert s.check(Play("A", c("6C"), "A1", "L")) == "6♣ is the same colour as 5♠: colours alternate"
    assert s.check(Play("A", c("6H"), "A2", "L")) is None
    assert s.check(Play("A", c("KC"), "A5", "R")) is None
    assert [m.card.code for m in s.legal_moves("A")] == ["6H", "KC"]


def test_alternate_colours_same_colour_plays_do_not_prevent_a_stalemate() -> None:
    rules = PRESETS["alternate-colours"]
    s = at(rules, {"A": ["6C", "8S", "QS", "QC", "JS"], "B": ["2H"]}, {"A": "3D"}, {"L": "5S", "R": "9C"})
    assert s.is_stalemate()
    assert at(CLASSIC, {"A": ["6C", "8S", "QS", "QC", "JS"], "B": ["2H"]}, {"A": "3D"},
              {"L": "5S", "R": "9C"}).can_move("A")


# --- stack equal ranks ---------------------------------------------------------------------------------


def test_stack_equal_ranks_moves_a_face_up_card_onto_an_own_pile_of_its_rank() -> None:
    rules = PRESETS["stack-equal"]
    s = at(rules, {"A": ["9C", "2S 9H", "3C", "4D", "5H"]}, piles={"L": "KD", "R": "KS"})
    move = StackEqual("A", c("9H"), "A2", "A1")
    assert move in list(s.useful_moves("A"))
    after = s.apply(move)
    assert after.pile("A1") == (c("9C"), c("9H")) and after.face_up("A1") == 2
    assert after.face_up("A2") == 0 and after.top("A2") is None
    assert at(CLASSIC, {"A": ["9C", "2S 9H"]}, piles={"L": "KD"}).check(move) == (
        "stock cards may not be stacked on each other in this game")
    assert move.event() == ("stack_equal", {"player": "A", "card": "9H", "from": "A2", "to": "A1"})


def test_stack_equal_needs_a_face_up_top_of_the_same_rank() -> None:
    rules = PRESETS["stack-equal"]
    s = at(rules, {"A": ["9C", "2S 9H", "3C |", "4D", ""]}, piles={"L": "KD", "R": "KS"})
    assert s.check(StackEqual("A", c("9H"), "A2", "A4")) == "9♥ is not of the same rank as 4♦"
    assert s.check(StackEqual("A", c("9H"), "A2", "A3")) == "the top of A3 is face down"
    assert s.check(StackEqual("A", c("9H"), "A2", "A5")) == "A5 is empty: that is a move into a space"
    assert s.check(StackEqual("A", c("9H"), "A2", "A2")) == "9♥ is already on A2"


def test_stacking_that_uncovers_a_face_down_card_is_not_a_stalemate() -> None:
    rules = PRESETS["stack-equal"]
    stocks = {"A": ["9C", "2S 9H", "3C", "4D", "5H"], "B": ["JC"]}
    s = at(rules, stocks, {"A": "KH"}, {"L": "KD", "R": "KS"})
    assert s.can_move("A") and not s.is_stalemate()
    assert at(CLASSIC, stocks, {"A": "KH"}, {"L": "KD", "R": "KS"}).is_stalemate()


def test_stacking_that_makes_a_space_for_a_buried_run_is_not_a_stalemate() -> None:
    rules = PRESETS["stack-equal"]
    # A2 holds two face-up 9s over a face-down card; stacking 4♦ on 4♣ makes a space for them
    s = at(rules, {"A": ["4C", "2S | 9H 9D", "3C", "4D", "5H"], "B": ["JC"]}, {"A": "KH"}, {"L": "KD", "R": "KS"})
    assert s.can_move("A")
    assert StackEqual("A", c("4D"), "A4", "A1") in list(s.useful_moves("A"))
    s = s.apply(StackEqual("A", c("4D"), "A4", "A1")).apply(MoveToSpace("A", c("9D"), "A2", "A4"))
    s = s.apply(StackEqual("A", c("9H"), "A2", "A4"))
    assert s.face_up("A2") == 0 and s.can_move("A")


def test_stacked_run_lone_cards_shuffled_between_spaces_do_not_prevent_a_stalemate() -> None:
    rules = PRESETS["stack-equal"]
    s = at(rules, {"A": ["9C", "9H", "3C", "4D", ""], "B": ["JC"]}, {"A": "KH"}, {"L": "KD", "R": "KS"})
    assert s.is_stalemate()
    assert StackEqual("A", c("9H"), "A2", "A1") in list(s.legal_moves("A"))


def test_with_alternate_colours_a_playable_card_under_an_equal_one_is_not_a_stalemate() -> None:
    rules = replace(PRESETS["stack-equal"], alternate_colours=True)
    s = at(rules, {"A": ["3C", "| 6H 6C", "8C", "QS", ""], "B": ["JC"]}, {"A": "KH"}, {"L": "5S", "R": "KS"})
    assert s.can_move("A")
    assert MoveToSpace("A", c("6C"), "A2", "A5") in list(s.useful_moves("A"))


# --- refilled singles ------------------------------------------------------------------------------


def test_refilled_singles_deal_four_single_cards_and_keep_the_rest_in_hand() -> None:
    s = PRESETS["refilled-singles"].new_game(random.Random(1))
    assert [len(s.pile(f"A{k}")) for k in range(1, 5)] == [1, 1, 1, 1]
    assert s.spit_count("A") == 22


def test_refilled_singles_an_empty_place_is_refilled_from_the_hand() -> None:
    rules = PRESETS["refilled-singles"]
    s = at(rules, {"A": ["7C", "", "3C", "4D"], "B": ["JC"]}, {"A": "QH 2S"}, {"L": "KD", "R": "KS"})
    assert s.can_move("A") and Refill("A", "A2", c("QH")) in list(s.useful_moves("A"))
    after = s.apply(Refill("A", "A2"))
    assert after.top("A2") == c("QH") and after.spit_cards("A") == (c("2S"),)
    assert s.check(Refill("A", "A1")) == "A1 is not an empty space"
    assert s.check(Refill("A", "A2", c("2S"))) == "A's next card in hand is Q♥, not 2♠"
    assert at(rules, {"A": ["7C", ""]}, piles={"L": "KD"}).check(Refill("A", "A2")) == "A has no cards left in hand"
    assert at(CLASSIC, {"A": ["7C", ""]}, {"A": "QH"}, {"L": "KD"}).check(Refill("A", "A2")) == (
        "stock piles are not refilled from the hand in this game")


def test_refilled_singles_stock_is_empty_only_with_the_hand() -> None:
    rules = PRESETS["refilled-singles"]
    s = at(rules, {"A": ["7C"], "B": ["JC"]}, {"A": "QH", "B": "2D"}, {"L": "8D", "R": "KS"})
    s = s.apply(Play("A", c("7C"), "A1", "L"))
    assert s.phase == "play" and s.is_active("A")
    s = s.apply(Refill("A", "A1")).apply(Play("A", c("QH"), "A1", "R"))
    assert s.phase == "settle"


# --- five-card hand --------------------------------------------------------------------------------


FIVE = PRESETS["five-card-hand"]


def test_five_card_hand_deal() -> None:
    s = FIVE.new_game(random.Random(4))
    assert s.phase == "start" and len(s.hand("A")) == 5 and s.stock_count("A") == 10
    assert [len(r) for r in s.reserves()] == [11, 11], "ten reserve cards and a starter on top"
    assert s.cards() == Counter(full_deck())
    start = next(s.legal_moves())
    assert start == Spit((("L", s.reserves()[0][0]), ("R", s.reserves()[1][0])))
    five = replace(FIVE, reserve_size=5).new_game(random.Random(4))
    assert five.stock_count("B") == 15 and [len(r) for r in five.reserves()] == [6, 6]


def five(hands: dict[str, str], stocks: dict[str, str], piles: dict[str, str],
         reserves: tuple[str, str] = ("", ""), rules: SpitRules = FIVE) -> SpitState:
    return SpitState.position(rules, {p: [t] for p, t in stocks.items()}, None, piles, hands=hands,
                              reserves=reserves)


def test_five_card_hand_plays_from_the_hand_and_draws_back_to_five() -> None:
    s = five({"A": "7C 9D 2S 3S 4S", "B": "KH"}, {"A": "5D |", "B": "QC |"}, {"L": "8H", "R": "JD"})
    assert s.check(HandPlay("A", c("8C"), "L")) == "A has no 8♣ in hand"
    assert s.check(HandPlay("A", c("9D"), "R")) == "9♦ is not next to J♦"
    assert s.check(Draw("A")) == "A already holds five cards"
    assert s.check(Play("A", c("7C"), "A1", "L")) == "in the five-card hand cards are played from the hand"
    s = s.apply(HandPlay("A", c("7C"), "L"))
    assert s.hand("A") == tuple(map(c, ["9D", "2S", "3S", "4S"]))
    assert s.check(Draw("A", c("KS"))) == "the top of A's stock is 5♦, not K♠"
    s = s.apply(Draw("A"))
    assert s.hand("A")[-1] == c("5D") and s.stock_count("A") == 0
    assert s.check(HandPlay("A", c("2S"), "L")) == "2♠ is not next to 7♣"


def test_five_card_hand_stuck_players_flip_from_the_reserves() -> None:
    s = five({"A": "2C 2D 2H 2S 4C", "B": "KH KD KC KS 4D"}, {"A": "5D |", "B": "QC |"}, {"L": "8H", "R": "8D"},
             ("9S 6C", "10D"))
    assert s.is_stalemate()
    assert list(s.table_moves()) == [spit(L="9S", R="10D")]
    assert s.check(spit(L="9S")) == "a card from the reserve beside R goes onto R"
    assert s.check(spit(L="6C", R="10D")) == "the next card of the reserve beside L is 9♠, not 6♣"
    s = s.apply(spit(L="9S", R="10D"))
    assert s.reserves() == ((c("6C"),), ())
    s = s.apply(HandPlay("B", c("KH"), "R")) if s.check(HandPlay("B", c("KH"), "R")) is None else s
    assert s.check(spit(L="6C", R="9S")) == "the reserve beside R is empty"


def test_five_card_hand_reshuffles_the_centre_piles_when_the_reserves_run_out() -> None:
    s = five({"A": "2C 2D 2H 2S 4C", "B": "KH KD KC KS 4D"}, {"A": "5D |", "B": "QC |"},
             {"L": "AS 9H 8H", "R": "7S 8D"})
    assert s.check(spit(L="9S")) == "the reserves are empty: reshuffle the centre piles first"
    (move,) = s.table_moves()
    assert move == Reshuffle((c("AS"), c("9H")), (c("7S"),))
    assert s.check(Reshuffle((c("AS"),), (c("7S"),))) == "the centre piles holds 3 cards, not 2"
    assert s.check(Reshuffle((), ())) == "a reshuffle makes reserves of the cards under the tops"
    s = s.apply(Reshuffle((c("9H"), c("7S")), (c("AS"),)))
    assert s.pile("L") == (c("8H"),) and s.reserves() == ((c("7S"), c("9H")), (c("AS"),))
    assert s.check(Reshuffle((), ())) == "the reserves still have cards"
    assert CLASSIC.new_game(random.Random(1)).check(Reshuffle((), ())) == (
        "only the five-card hand reshuffles the centre piles")


def test_five_card_hand_no_reshuffle_while_a_player_can_move() -> None:
    s = five({"A": "7C", "B": "KH"}, {"A": "5D |", "B": "QC |"}, {"L": "AS 8H", "R": "7S 8D"})
    assert s.check(Reshuffle((c("AS"),), (c("7S"),))) == "a player can still move: no reshuffle yet"


def test_five_card_hand_deal_is_won_by_emptying_hand_and_stock_scoring_the_opponents_cards() -> None:
    s = five({"A": "7C", "B": "KH KD"}, {"A": "", "B": "2C 3C |"}, {"L": "8H", "R": "8D"})
    after = s.apply(HandPlay("A", c("7C"), "L"))
    assert after.phase == "layout" and after.scores == {"A": 4, "B": 0}
    assert after.deal_ender() == ("A", "hand and stock emptied")
    deal = next(after.legal_moves())
    assert isinstance(deal, Deal) and Counter(deal.cards) == after.cards()
    assert after.check(Deal(deal.cards[1:])) == "the table holds 7 cards, not 6"
    assert after.check(HandPlay("B", c("KH"), "R")) == "the deal is over: a new layout comes next"


def test_five_card_hand_game_goes_to_the_target_score() -> None:
    rules = replace(FIVE, target_score=4)
    s = five({"A": "7C", "B": "KH KD"}, {"A": "", "B": "2C 3C |"}, {"L": "8H", "R": "8D"}, rules=rules)
    after = s.apply(HandPlay("A", c("7C"), "L"))
    assert after.is_over() and after.winner() == "A"
    assert FIVE.new_game(random.Random(1)).winner() is None


def test_five_card_hand_a_new_deal_keeps_the_scores() -> None:
    rng = random.Random(8)
    s = five({"A": "7C", "B": "KH KD"}, {"A": "", "B": "2C 3C |"}, {"L": "8H", "R": "8D"})
    s = s.apply(HandPlay("A", c("7C"), "L"))
    deal = s.shuffled_layout(rng)
    assert isinstance(deal, Deal)
    with pytest.raises(IllegalMove, match="a Layout"):
        CLASSIC.new_game(rng).apply(deal)


def test_stock_moves_are_not_part_of_the_five_card_hand_and_hand_moves_not_of_classic() -> None:
    s = CLASSIC.new_game(random.Random(1))
    assert s.check(HandPlay("A", c("7C"), "L")) == "cards are played from the stock piles, not from the hand"
    assert s.check(Draw("A")) == "only the five-card hand draws cards into a hand"
    f = FIVE.new_game(random.Random(1))
    f = f.apply(next(f.table_moves()))
    assert f.check(TurnUp("A", "A1")) == "in the five-card hand cards are played from the hand"


# --- more than two players ---------------------------------------------------------------------------


THREE = PRESETS["three-players"]


def test_three_players_use_two_decks_and_one_spit_pile_each() -> None:
    s = THREE.new_game(random.Random(1))
    assert s.players == ("A", "B", "C") and THREE.spit_pile_names == ("S1", "S2", "S3")
    assert s.counts() == {"A": 35, "B": 35, "C": 34}
    (start,) = s.legal_moves()
    assert [pile for pile, _ in start.cards] == ["S1", "S2", "S3"]


def test_more_players_the_first_out_chooses_a_pile_and_sits_out_while_the_rest_play_on() -> None:
    s = at(THREE, {"A": ["3D"], "B": ["QD", "KH"], "C": ["JS", "4C"]}, {"A": "9S", "B": "7H", "C": "8C"},
           {"S1": "2D", "S2": "10C 6S", "S3": "AC"})
    s = s.apply(Play("A", c("3D"), "A1", "S1"))
    assert s.phase == "play" and s.choosers() == ("A",) and not s.is_active("A")
    assert s.check(TurnUp("A", "A1")) == "A has played out their stock and sits out this deal"
    assert s.check(ChoosePile("B", "S2")) == "B chooses a pile only once out of stock"
    assert s.check(Play("C", c("4C"), "C2", "S1")) is None, "the others play on"
    s = s.apply(ChoosePile("A", "S3"))
    assert s.held("A") == (c("AC"),) and s.pile("S3") == () and s.choosers() == ()
    assert s.check(ChoosePile("A", "S2")) == "A has already taken a pile"
    assert s.counts() == {"A": 2, "B": 3, "C": 3}


def test_more_players_a_spitter_whose_pile_was_taken_starts_it_again() -> None:
    s = at(THREE, {"A": ["3D"], "B": ["9H"], "C": ["JS"]}, {"B": "7H", "C": "8C"},
           {"S1": "2D", "S2": "5S", "S3": "AC"})
    s = s.apply(Play("A", c("3D"), "A1", "S1")).apply(ChoosePile("A", "S3"))
    assert s.is_stalemate()
    assert list(s.table_moves()) == [spit(S2="7H", S3="8C")]
    s = s.apply(spit(S2="7H", S3="8C"))
    assert s.pile("S3") == (c("8C"),) and s.check(Play("B", c("9H"), "B1", "S3")) is None


def test_more_players_the_hand_ends_when_one_player_is_left_and_that_player_takes_every_pile_left() -> None:
    s = at(THREE, {"A": ["3D"], "B": ["4D"], "C": ["JS", "QC"]}, {"C": "8C"},
           {"S1": "2D", "S2": "10C 6S", "S3": "AC"})
    s = s.apply(Play("A", c("3D"), "A1", "S1")).apply(Play("B", c("4D"), "B1", "S1"))
    assert s.phase == "settle" and set(s.choosers()) == {"A", "B"}
    s = s.apply(ChoosePile("B", "S3")).apply(ChoosePile("A", "S1"))
    assert s.phase == "layout"
    assert Counter(s.held("C")) == Counter(map(c, ["10C", "6S", "JS", "QC", "8C"]))
    assert s.held("B") == (c("AC"),) and s.deal_ender() == ("A", "stock emptied")


def test_more_players_an_empty_pile_may_be_chosen_and_a_player_with_no_cards_wins() -> None:
    s = at(THREE, {"A": ["3D"], "B": ["2C"], "C": ["JS", "QC"]}, {"B": "7H", "C": "8C"},
           {"S2": "2D", "S3": "AC"})
    s = s.apply(Play("A", c("3D"), "A1", "S2")).apply(ChoosePile("A", "S1"))
    assert s.held("A") == ()
    s = s.apply(Play("B", c("2C"), "B1", "S3"))
    assert s.phase == "settle" and s.choosers() == ("B",)
    assert s.check(ChoosePile("B", "S1")) == "S1 has already been taken"
    s = s.apply(ChoosePile("B", "S3"))
    assert s.phase == "layout" and s.ranking() == ("A",) and s.winner() == "A" and not s.is_over()


def test_more_players_the_game_goes_on_for_second_and_third_place() -> None:
    rules = PRESETS["four-players"]
    s = at(rules, {"A": ["3D"], "B": ["4D"], "C": ["JS"], "D": ["QC", "KC"]}, {"D": "8C"},
           {"S2": "2D", "S3": "10C", "S4": "AC"})
    s = s.apply(Play("A", c("3D"), "A1", "S2")).apply(ChoosePile("A", "S1"))
    s = s.apply(Play("B", c("4D"), "B1", "S2")).apply(ChoosePile("B", "S2"))
    s = s.apply(Play("C", c("JS"), "C1", "S3"))
    assert s.phase == "settle" and s.choosers() == ("C",)
    assert s.check(ChoosePile("C", "S1")) == "S1 has already been taken"
    s = s.apply(ChoosePile("C", "S3"))
    assert s.phase == "layout" and s.ranking() == ("A",) and s.winner() == "A"
    assert s.counts() == {"A": 0, "B": 3, "C": 2, "D": 4}
    assert s.check(ChoosePile("A", "S1")) == "the deal is over: a new layout comes next"


def test_more_players_a_player_out_of_the_game_has_no_pile_in_use() -> None:
    rules = PRESETS["four-players"]
    deck = list(full_deck() * 2)
    s = at(rules, {}, held={"A": "", "B": " ".join(x.code for x in deck[:40]),
                            "C": " ".join(x.code for x in deck[40:80]),
                            "D": " ".join(x.code for x in deck[80:])}, phase="layout")
    s = s.apply(s.shuffled_layout(random.Random(1)))
    (start,) = s.table_moves()
    assert [pile for pile, _ in start.cards] == ["S2", "S3", "S4"]
    s = s.apply(start)
    assert not s.is_active("A") and s.check(TurnUp("A", "A1")) == "A is out of the game"
