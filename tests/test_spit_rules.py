"""Classic Spit as RULES.md states it: one test per rule, in the order of the rules."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from referee.cards import full_deck, parse_card
from referee.errors import IllegalMove
from referee.rules.base import Game
from referee.rules.spit import (
    PRESETS,
    ChoosePile,
    Layout,
    MoveToSpace,
    Play,
    PrematureSpit,
    Slap,
    Spit,
    SpitState,
    TurnUp,
)

CLASSIC = PRESETS["classic"]


def c(code: str):  # type: ignore[no-untyped-def]
    return parse_card(code)


def at(stocks, spit=None, piles=None, rules=CLASSIC, **kw) -> SpitState:  # type: ignore[no-untyped-def]
    return SpitState.position(rules, stocks, spit, piles, **kw)


def spit(**cards: str | None) -> Spit:
    return Spit(tuple((pile, None if code is None else c(code)) for pile, code in cards.items()))


# --- cards and the deal -------------------------------------------------------------------------


def test_ace_is_next_to_king_and_two() -> None:
    for top in ("KD", "2C"):
        s = at({"A": ["AS", "9H"]}, piles={"L": top, "R": "7D"})
        assert s.check(Play("A", c("AS"), "A1", "L")) is None
    s = at({"A": ["AS", "9H"]}, piles={"L": "AC", "R": "7D"})
    assert s.check(Play("A", c("AS"), "A1", "L")) == "A♠ is not next to A♣"


def test_suits_do_not_matter_and_equal_ranks_are_never_next() -> None:
    s = at({"A": ["7C", "9H"]}, piles={"L": "8C", "R": "7D"})
    assert s.check(Play("A", c("7C"), "A1", "L")) is None
    assert s.check(Play("A", c("7C"), "A1", "R")) == "7♣ is not next to 7♦"


def test_new_game_deals_26_cards_each_into_five_piles_of_one_to_five() -> None:
    s = CLASSIC.new_game(random.Random(1))
    assert s.phase == "start"
    assert s.counts() == {"A": 26, "B": 26}
    assert [len(s.pile(f"A{k}")) for k in range(1, 6)] == [1, 2, 3, 4, 5]
    assert all(s.face_up(f"B{k}") == 1 for k in range(1, 6))
    assert s.spit_count("A") == s.spit_count("B") == 11
    assert s.cards() == Counter(full_deck())


def test_a_deal_is_every_card_once() -> None:
    deck = list(full_deck())
    with pytest.raises(ValueError, match="exactly 52 cards"):
        SpitState.deal(CLASSIC, deck[:-1])
    s = SpitState.deal(CLASSIC, deck)
    assert s.pile("A1") == (deck[0],)  # one card at a time to each player; A's first card starts A1
    assert s.spit_cards("A")[0] == deck[30]  # the 16th card A was dealt is their next spit card


def test_play_starts_with_spit() -> None:
    s = CLASSIC.new_game(random.Random(2))
    assert s.is_stalemate() and not s.can_anyone_move()
    top = s.top("A1")
    assert s.check(Play("A", top, "A1", "L")) == "play starts with Spit!"
    moves = list(s.legal_moves())
    assert len(moves) == 1 and isinstance(moves[0], Spit)
    a, b = s.spit_cards("A")[0], s.spit_cards("B")[0]
    assert moves[0] == Spit((("L", a), ("R", b)))
    after = s.apply(moves[0])
    assert after.phase == "play" and after.top("L") is a and after.top("R") is b
    assert after.spit_count("A") == 10


# --- the three moves ----------------------------------------------------------------------------


def test_play_a_face_up_stock_top_onto_either_spit_pile() -> None:
    s = at({"A": ["7C", "2S 9H"]}, piles={"L": "8D", "R": "6S"})
    for pile in ("L", "R"):
        after = s.apply(Play("A", c("7C"), "A1", pile))
        assert after.top(pile) == c("7C") and after.pile("A1") == ()
    assert s.pile("A1") == (c("7C"),), "states are immutable"


def test_play_must_be_next_in_sequence() -> None:
    s = at({"A": ["7C"]}, piles={"L": "JD", "R": "KS"})
    with pytest.raises(IllegalMove, match="7♣ is not next to J♦"):
        s.apply(Play("A", c("7C"), "A1", "L"))


def test_only_the_face_up_top_of_an_own_stock_pile_is_played() -> None:
    s = at({"A": ["7C", "2S 9H", "4D |", ""], "B": ["8H"]}, piles={"L": "8D", "R": "10S"})
    assert s.check(Play("A", c("4D"), "A3", "L")) == "the top of A3 is face down"
    assert s.check(Play("A", c("7C"), "A4", "L")) == "A4 is empty"
    assert s.check(Play("A", c("9H"), "A1", "L")) == "the top of A1 is 7♣, not 9♥"
    assert s.check(Play("A", c("8H"), "B1", "L")) == "B1 is B's stock pile"
    assert s.check(Play("A", c("7C"), "A6", "L")) == "only five stock piles"
    assert s.check(Play("A", c("7C"), "X1", "L")) == "X1 is not a stock pile"
    assert s.check(Play("A", c("7C"), "A1", "M")) == "M is not a spit pile"
    assert s.check(Play("Z", c("7C"), "A1", "L")) == "'Z' is not a player of this game"


def test_nothing_is_played_onto_an_empty_spit_pile() -> None:
    s = at({"A": ["7C", "9S"]}, piles={"L": "8D"})
    assert s.check(Play("A", c("7C"), "A1", "R")) == "there is no card on R to play onto"


def test_turn_a_face_down_top_face_up() -> None:
    s = at({"A": ["7C", "2S 9H |"]}, piles={"L": "KD", "R": "KS"})
    assert s.top("A2") is None and s.face_up("A2") == 0
    after = s.apply(TurnUp("A", "A2"))
    assert after.top("A2") == c("9H") and after.face_up("A2") == 1
    assert s.check(TurnUp("A", "A1")) == "the top of A1 is already face up"
    assert s.check(TurnUp("A", "A3")) == "A3 is empty"
    assert s.check(TurnUp("A", "A2", c("5D"))) == "the face-down top of A2 is 9♥, not 5♦"
    assert s.check(TurnUp("A", "A2", c("9H"))) is None


def test_move_a_face_up_top_into_an_empty_space() -> None:
    s = at({"A": ["7C", "2S 9H", ""]}, piles={"L": "KD", "R": "KS"})
    after = s.apply(MoveToSpace("A", c("9H"), "A2", "A3"))
    assert after.pile("A3") == (c("9H"),) and after.pile("A2") == (c("2S"),)
    assert after.face_up("A2") == 0, "the card uncovered lies face down until turned"
    assert s.check(MoveToSpace("A", c("9H"), "A2", "A1")) == "A1 is not an empty space"


def test_never_more_than_five_stock_piles() -> None:
    s = at({"A": ["7C", "2S 9H", "3C", "4D", "5H"]}, piles={"L": "KD", "R": "KS"})
    assert s.check(MoveToSpace("A", c("9H"), "A2", "A6")) == "only five stock piles"


def test_a_played_card_cannot_be_taken_back_and_the_opponent_may_play_on_it() -> None:
    s = at({"A": ["7C", "QH"], "B": ["8S", "KD"]}, piles={"L": "6D", "R": "2H"})
    s = s.apply(Play("A", c("7C"), "A1", "L"))
    assert s.check(Play("B", c("8S"), "B1", "L")) is None


# --- stalemate and spitting ---------------------------------------------------------------------


def test_stalemate_when_neither_player_can_play_or_turn_up() -> None:
    full = ["7C", "2S 9H", "8S", "5S", "6S"]
    s = at({"A": full, "B": ["QD"]}, {"A": "4C", "B": "5D"}, {"L": "2D", "R": "2C"})
    assert not s.can_move("A") and not s.can_move("B")
    assert s.is_stalemate()
    assert list(s.useful_moves()) == [spit(L="4C", R="5D")]


def test_a_face_down_top_to_turn_is_not_a_stalemate() -> None:
    s = at({"A": ["7C", "2S 9H |", "8S", "5S", "6S"], "B": ["QD"]}, {"A": "4C", "B": "5D"}, {"L": "2D", "R": "2C"})
    assert s.can_move("A") and not s.is_stalemate()


def test_move_into_space_that_uncovers_a_face_down_card_is_not_a_stalemate() -> None:
    s = at({"A": ["", "2S 9H"], "B": ["QD"]}, {"A": "4C", "B": "5D"}, {"L": "2D", "R": "2C"})
    assert s.can_move("A") and not s.is_stalemate()
    assert next(s.useful_moves("A")) == MoveToSpace("A", c("9H"), "A2", "A1")


def test_moving_a_lone_card_into_a_space_is_legal_but_no_way_out_of_a_stalemate() -> None:
    s = at({"A": ["", "9H"], "B": ["QD"]}, {"A": "4C", "B": "5D"}, {"L": "2D", "R": "2C"})
    lone = MoveToSpace("A", c("9H"), "A2", "A1")
    assert s.check(lone) is None
    assert lone in list(s.legal_moves("A")) and lone not in list(s.useful_moves("A"))
    assert s.is_stalemate()


def test_spit_each_player_turns_their_next_spit_card_onto_the_pile_they_started() -> None:
    s = at({"A": ["7C"], "B": ["QD"]}, {"A": "4C 9S", "B": "5D"}, {"L": "2D", "R": "2C"})
    assert s.check(spit(L="5D", R="4C")) == "A's next spit card is 4♣, not 5♦"
    assert s.check(spit(L="4C")) == "B spits onto R too"
    assert s.check(spit(L="4C", R="5D", S1="9S")) == "S1 is not a spit pile"
    after = s.apply(spit(L="4C", R="5D"))
    assert after.top("L") == c("4C") and after.top("R") == c("5D")
    assert after.spit_cards("A") == (c("9S"),) and after.spit_cards("B") == ()
    assert s.apply(spit(L=None, R=None)) == after, "a state that knows the spit cards fills them in"


def test_premature_spit_names_a_move_that_still_existed() -> None:
    s = at({"A": ["3D"], "B": ["QD"]}, {"A": "4C", "B": "5D"}, {"L": "2D", "R": "2C"})
    with pytest.raises(PrematureSpit) as caught:
        s.apply(spit(L="4C", R="5D"))
    assert caught.value.move == Play("A", c("3D"), "A1", "L")
    assert str(caught.value) == "no Spit yet: A plays 3♦ from A1 onto L"
    assert caught.value.move.event()[0] == "play"


def test_solo_spitter_spits_alone_onto_a_pile_of_their_choice() -> None:
    s = at({"A": ["7C"], "B": ["QD"]}, {"A": "4C 9S"}, {"L": "2D", "R": "2C"})
    assert sorted(m.cards[0][0] for m in s.table_moves()) == ["L", "R"]
    assert s.check(spit(L="4C", R="4C")) == "A spits alone, onto one pile"
    after = s.apply(spit(R="4C"))
    assert after.top("R") == c("4C") and after.locked_pile == "R"


def test_solo_spitter_keeps_the_same_pile() -> None:
    s = at({"A": ["7C"], "B": ["QD"]}, {"A": "4C 9S"}, {"L": "2D", "R": "2C"})
    s = s.apply(spit(R="4C"))
    assert s.is_stalemate()  # 7♣ and Q♦ fit neither 2♦ nor 4♣
    assert list(s.table_moves()) == [spit(R="9S")]
    assert s.check(spit(L="9S")) == "A spits alone onto R for the rest of the deal"


def test_both_out_of_spit_cards_at_a_stalemate_ends_the_deal_and_fewer_stock_chooses_first() -> None:
    s = at({"A": ["7C", "8C"], "B": ["QD"]}, {"A": "4C", "B": "5H"}, {"L": "2D", "R": "2C"})
    s = s.apply(spit(L="4C", R="5H"))  # now neither can play, and nobody has spit cards
    assert s.phase == "settle" and not s.slap_due
    assert s.choosers() == ("B",), "B has one stock card, A two"
    assert s.check(ChoosePile("A", "L")) == "B chooses first"
    assert s.check(Slap((("A", "L", 1.0), ("B", "R", 1.1)))) == "no slap now: the spit piles are chosen, not slapped"
    after = s.apply(ChoosePile("B", "R"))
    assert after.phase == "layout"
    assert after.held("B") == (c("2C"), c("5H"), c("QD"))
    assert Counter(after.held("A")) == Counter([c("2D"), c("4C"), c("7C"), c("8C")])
    assert after.deal_ender() == ("B", "no spit cards left")


def test_both_out_with_equal_stock_slap_for_the_piles() -> None:
    s = at({"A": ["7C"], "B": ["QD"]}, {"A": "4C", "B": "5H"}, {"L": "2D", "R": "2C"})
    s = s.apply(spit(L="4C", R="5H"))
    assert s.slap_due


# --- end of a deal ------------------------------------------------------------------------------


def deal_end() -> SpitState:
    s = at({"A": ["3D"], "B": ["QD", "2S 9C"]}, {"A": "KS", "B": "AH 6C"}, {"L": "5H 2D", "R": "2C"})
    return s.apply(Play("A", c("3D"), "A1", "L"))


def test_a_player_who_empties_their_stock_ends_the_deal_with_a_slap() -> None:
    s = deal_end()
    assert s.phase == "settle" and s.slap_due and not s.is_active("A")
    assert s.check(Play("B", c("QD"), "B1", "L")) == "the deal is over: the spit piles are being taken"
    assert s.check(ChoosePile("A", "R")) == "the spit piles are slapped, not chosen, in this game"
    assert len(list(s.legal_moves())) == 6


def test_different_piles_slapped_each_take_their_own() -> None:
    s = deal_end().apply(Slap((("A", "R", 10.2), ("B", "L", 10.1))))
    assert s.held("A") == (c("2C"), c("KS"))
    assert Counter(s.held("B")) == Counter(map(c, ["5H", "2D", "3D", "QD", "2S", "9C", "6C", "AH"]))
    assert s.phase == "layout"


def test_same_pile_slap_goes_to_the_first_hand() -> None:
    s = deal_end().apply(Slap((("A", "R", 10.30), ("B", "R", 10.25))))
    assert c("2C") in s.held("B") and c("3D") in s.held("A")


def test_same_instant_slap_needs_the_hand_underneath() -> None:
    s = deal_end()
    same = Slap((("A", "R", 10.3), ("B", "R", 10.3)))
    assert s.check(same) == "both hands reached R in the same instant: say whose hand is underneath"
    after = s.apply(Slap(same.touches, underneath="A"))
    assert c("2C") in after.held("A")


def test_a_slap_needs_every_player_once() -> None:
    s = deal_end()
    assert s.check(Slap((("A", "R", 1.0),))) == "B must slap a pile too"
    assert s.check(Slap((("A", "R", 1.0), ("A", "L", 1.1)))) == "A slaps one pile only"
    assert s.check(Slap((("A", "X", 1.0), ("B", "L", 1.1)))) == "X is not a spit pile"
    assert s.check(Slap((("Q", "R", 1.0), ("B", "L", 1.1)))) == "'Q' is not a player of this game"


def test_the_player_who_still_has_stock_adds_it_to_what_they_took() -> None:
    s = deal_end().apply(Slap((("A", "L", 1.0), ("B", "R", 1.1))))
    assert Counter(s.held("B")) == Counter(map(c, ["2C", "QD", "2S", "9C", "6C", "AH"]))
    assert s.counts() == {"A": 4, "B": 6}


def test_new_layout_carries_exactly_the_cards_each_player_holds() -> None:
    s = deal_end().apply(Slap((("A", "L", 1.0), ("B", "R", 1.1))))
    a, b = s.held("A"), s.held("B")
    assert s.check(Layout((a[1:], b))) == "A holds 4 cards, not 3"
    assert s.check(Layout(((c("AS"),) + a[1:], b))) == "A does not hold A♠"
    assert s.check(Layout((a,))) == "a layout has one packet for each of the 2 players"
    assert s.check(Play("A", a[0], "A1", "L")) == "the deal is over: a new layout comes next"
    after = s.apply(Layout((tuple(reversed(a)), b)))
    assert after.phase == "start" and after.stock_count("A") == 4 and after.spit_count("A") == 0


def test_layout_with_fewer_than_15_cards_is_dealt_row_by_row() -> None:
    s = deal_end().apply(Slap((("A", "L", 1.0), ("B", "R", 1.1))))
    packet_a = s.held("A")
    after = s.apply(Layout((packet_a, s.held("B"))))
    assert [len(after.pile(f"A{k}")) for k in range(1, 6)] == [1, 1, 1, 1, 0]
    assert [len(after.pile(f"B{k}")) for k in range(1, 6)] == [1, 2, 1, 1, 1]
    assert after.pile("B2") == (s.held("B")[1], s.held("B")[5])


def test_whatever_is_not_laid_out_is_the_players_spit_cards() -> None:
    s = CLASSIC.new_game(random.Random(5))
    assert s.stock_count("A") + s.spit_count("A") == 26


def test_player_with_fewer_than_15_cards_cannot_spit_and_one_spit_pile_is_used() -> None:
    deck = full_deck()
    packets = (deck[:10], deck[10:])
    s = at({}, held={"A": " ".join(x.code for x in packets[0]), "B": " ".join(x.code for x in packets[1])},
           phase="layout")
    s = s.apply(Layout(packets))
    assert s.spit_count("A") == 0 and s.spit_count("B") == 27
    moves = list(s.legal_moves())
    assert {m.cards for m in moves} == {(("L", packets[1][15]),), (("R", packets[1][15]),)}
    after = s.apply(moves[1])
    assert after.locked_pile == "R" and after.pile("L") == ()


def test_single_spit_pile_first_out_takes_nothing_the_other_takes_the_pile_and_their_stock() -> None:
    s = at({"A": ["3D"], "B": ["QD", "KH"]}, {"A": "7S"}, {"L": "2D"})
    after = s.apply(Play("A", c("3D"), "A1", "L"))
    assert after.phase == "layout" and not after.is_over()
    assert after.held("A") == (c("7S"),), "A keeps their spit cards and takes nothing"
    assert Counter(after.held("B")) == Counter(map(c, ["2D", "3D", "QD", "KH"]))


def test_player_without_spit_cards_who_empties_their_layout_first_wins_the_game() -> None:
    s = at({"A": ["QD", "KH"], "B": ["3D"]}, {"A": "7S"}, {"L": "2D"})
    after = s.apply(Play("B", c("3D"), "B1", "L"))
    assert after.is_over() and after.winner() == "B" and after.ranking() == ("B",)
    assert after.counts() == {"A": 5, "B": 0}
    assert list(after.legal_moves()) == []
    assert after.check(Layout(((), ()))) == "the game is over"


# --- records --------------------------------------------------------------------------------------


def test_game_record_pushes_and_pops_moves() -> None:
    g = Game(CLASSIC.new_game(random.Random(1)))
    first = next(g.legal_moves())
    g.push(first)
    assert g.state.phase == "play"
    assert g.pop() == first and g.state.phase == "start"


def test_states_are_values() -> None:
    s = CLASSIC.new_game(random.Random(4))
    move = next(s.legal_moves())
    a, b = s.apply(move), s.apply(move)
    a.can_anyone_move()  # a query leaves the position as it was
    assert a == b and hash(a) == hash(b) and a != s
    assert repr(a) == "<SpitState classic play {'A': 25, 'B': 25}>"
    with pytest.raises(TypeError):
        SpitState()
