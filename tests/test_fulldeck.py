"""Full-deck Spit (seed 001): one test per rule, the shared own-deck engine, and property tests."""

from __future__ import annotations

import doctest
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.cards import Card, full_deck, parse_card
from referee.errors import ContradictoryOptions, IllegalMove, ImpossiblePosition
from referee.events import Event
from referee.rules import owndeck
from referee.rules import fulldeck
from referee.rules.base import Game
from referee.rules.fulldeck import (
    HAND,
    Draw,
    EndGame,
    FullDeckRules,
    FullDeckState,
    Place,
    Play,
    Race,
    Spit,
    resolve,
)

C = parse_card
RULES = FullDeckRules()
FULL = Counter(full_deck())


def deck(*top: str) -> list[Card]:
    """One whole deck with these cards on top, the rest in the usual order."""
    first = [C(c) for c in top]
    return first + [c for c in full_deck() if c not in first]


def table(
    L: str = "KD",
    R: str = "5H",
    *,
    a: tuple[str | None, ...] = (),
    b: tuple[str | None, ...] = (),
    deck_a: tuple[str, ...] = ("2S",),
    deck_b: tuple[str, ...] = ("2H",),
    held_a: str | None = None,
    held_b: str | None = None,
    rules: FullDeckRules = RULES,
) -> FullDeckState:
    """A started position with these pile tops, layouts, decks (top first) and drawn cards."""
    def row(cards: tuple[str | None, ...]) -> tuple[Card | None, ...]:
        return tuple(C(c) if c else None for c in cards) + (None,) * (rules.places - len(cards))

    return FullDeckState(
        rules,
        decks=(tuple(map(C, deck_a)), tuple(map(C, deck_b))),
        layouts=(row(a), row(b)),
        piles=(((C(L), None),), ((C(R), None),)),
        hands=(C(held_a) if held_a else None, C(held_b) if held_b else None),
    )


def opened(deck_a: list[Card], deck_b: list[Card]) -> FullDeckState:
    """A dealt game after the opening spit (A onto L, B onto R)."""
    state = RULES.deal(deck_a, deck_b)
    return state.apply(Spit((("A", "L", deck_a[0]), ("B", "R", deck_b[0]))))


def illegal(state: FullDeckState, move: object) -> str:
    with pytest.raises(IllegalMove) as info:
        state.apply(move)  # type: ignore[arg-type]
    assert state.check(move) == str(info.value)  # type: ignore[arg-type]
    return str(info.value)


# ---- the deal and the opening spit ---------------------------------------------------------------


def test_each_player_has_their_own_full_52_card_deck() -> None:
    state = RULES.new_game(random.Random(1))
    assert state.deck_size("A") == state.deck_size("B") == 52
    assert state.cards_of("A") == FULL == state.cards_of("B")
    assert sum(state.cards().values()) == 104 and state.unknown() == 0
    assert state.decks[0] != state.decks[1]  # shuffled separately


def test_a_deal_needs_two_whole_decks() -> None:
    with pytest.raises(ImpossiblePosition, match="A's deck must be one whole 52-card deck"):
        RULES.deal(deck()[:51], deck())


def test_both_turn_their_top_card_to_start_the_two_play_piles() -> None:
    state = RULES.deal(deck("KD"), deck("5H"))
    assert not state.started and state.is_stalemate() and not state.can_anyone_move()
    spits = list(state.legal_moves())
    assert set(spits) == {
        Spit((("A", "L", C("KD")), ("B", "R", C("5H")))),
        Spit((("A", "R", C("KD")), ("B", "L", C("5H")))),
    }
    state = state.apply(spits[0])
    assert (state.top("L"), state.top("R")) == (C("KD"), C("5H"))
    assert state.deck_size("A") == state.deck_size("B") == 51 and state.can_anyone_move()


def test_nothing_is_drawn_before_the_opening_spit() -> None:
    state = RULES.deal(deck("KD"), deck("5H"))
    assert illegal(state, Draw("A", "KD")) == "wait for “Spit!”: the play piles are not started yet"
    assert list(state.legal_moves("A")) == []


# ---- drawing, playing and laying out -------------------------------------------------------------


def test_a_drawn_card_is_played_onto_a_play_pile_one_rank_away() -> None:
    state = opened(deck("KD", "6D"), deck("5H"))
    state = state.apply(Draw("A", "6D"))
    assert set(state.legal_moves("A")) >= {Play("A", "6D", HAND, "R")}
    state = state.apply(Play("A", "6D", HAND, "R"))
    assert state.top("R") == C("6D") and state.hands[0] is None


def test_a_card_not_one_rank_away_is_refused() -> None:
    assert illegal(table("JD", held_a="7C"), Play("A", "7C", HAND, "L")) == "7♣ is not next to J♦ on L"


def test_suits_do_not_matter_and_the_ace_turns_the_corner() -> None:
    state = table("KS", "2H", held_a="AD")
    assert {m.pile for m in state.legal_moves("A") if isinstance(m, Play)} == {"L", "R"}
    assert table("AS", held_a="KC").check(Play("A", "KC", HAND, "L")) is None
    assert table("AS", held_a="2C").check(Play("A", "2C", HAND, "L")) is None


def test_equal_ranks_are_never_adjacent() -> None:
    assert illegal(table("7D", held_a="7C"), Play("A", "7C", HAND, "L")) == "7♣ is not next to 7♦ on L"


def test_play_onto_L_or_R_only() -> None:
    assert illegal(table(held_a="QS"), Play("A", "QS", HAND, "P")) == "'P' is not a play pile: play onto L or R"


def test_the_drawn_card_is_the_top_card_of_the_deck() -> None:
    state = table(deck_a=("9S", "2S"))
    assert list(state.legal_moves("A")) == [Draw("A", "9S")]
    assert illegal(state, Draw("A", "2S")) == "the top card of A's deck is 9♠, not 2♠"


def test_drawn_card_that_cannot_be_played_goes_to_an_empty_layout_place() -> None:
    state = table("KD", "5H", deck_a=("9S", "2S")).apply(Draw("A", "9S"))
    moves = set(state.legal_moves("A"))
    assert moves == {Place("A", "9S", f"A{k}") for k in range(1, 5)}
    state = state.apply(Place("A", "9S", "A3"))
    assert state.layout("A") == {"A1": None, "A2": None, "A3": C("9S"), "A4": None}
    assert state.hands[0] is None


def test_a_playable_drawn_card_may_still_go_to_the_layout() -> None:
    state = table("KD", "5H", held_a="6D")
    assert state.check(Place("A", "6D", "A1")) is None


def test_with_must_play_drawn_a_playable_drawn_card_must_be_played() -> None:
    strict = FullDeckRules(must_play_drawn=True)
    state = table("KD", "5H", held_a="6D", rules=strict)
    assert illegal(state, Place("A", "6D", "A1")) == "6♦ can be played onto a play pile: play it"
    assert set(state.legal_moves("A")) == {Play("A", "6D", HAND, "R")}
    assert table("KD", "5H", held_a="9S", rules=strict).check(Place("A", "9S", "A1")) is None


def test_a_layout_place_holds_one_card() -> None:
    state = table(a=(None, None, "9S"), held_a="3C")
    assert illegal(state, Place("A", "3C", "A3")) == "A3 already holds 9♠"


def test_there_are_at_most_four_layout_places() -> None:
    state = table(held_a="3C")
    assert illegal(state, Place("A", "3C", "A5")) == "A5 is not one of A's layout places (A1 to A4)"
    assert illegal(state, Place("A", "3C", "B1")) == "B1 is not one of A's layout places (A1 to A4)"


def test_draw_a_card_before_placing_one() -> None:
    assert illegal(table(), Place("A", "3C", "A1")) == "draw a card before placing one"
    assert illegal(table(), Play("A", "4H", HAND, "R")) == "draw a card before playing one"


def test_the_card_placed_or_played_is_the_card_drawn() -> None:
    state = table(held_a="3C")
    assert illegal(state, Place("A", "4H", "A1")) == "A drew 3♣, not 4♥"


def test_one_hand_play_or_place_the_drawn_card_before_drawing_again() -> None:
    assert illegal(table(held_a="3C"), Draw("A", "2S")) == "play or place the 3♣ you drew before drawing again"


def test_one_hand_play_or_place_the_drawn_card_before_playing_a_layout_card() -> None:
    state = table("KD", "5H", a=("QS",), held_a="3C")
    assert illegal(state, Play("A", "QS", "A1", "L")) == "play or place the 3♣ you drew first"


def test_layout_cards_are_played_onto_the_play_piles() -> None:
    state = table("KD", "5H", a=(None, "QS"))
    assert Play("A", "QS", "A2", "L") in set(state.legal_moves("A"))
    state = state.apply(Play("A", "QS", "A2", "L"))
    assert state.top("L") == C("QS") and state.layout("A")["A2"] is None
    assert illegal(state, Play("A", "QS", "A2", "L")) == "A2 is empty"


def test_a_layout_play_names_a_card_that_is_there() -> None:
    state = table("KD", "5H", a=("QS",))
    assert illegal(state, Play("A", "QH", "A1", "L")) == "A1 holds Q♠, not Q♥"
    assert illegal(state, Play("A", "QS", "B1", "L")) == "B1 is not one of A's layout places (A1 to A4)"


def test_a_player_may_not_touch_the_other_players_cards() -> None:
    state = table("KD", "5H", b=("QS",))
    assert illegal(state, Play("A", "QS", "B1", "L")).startswith("B1 is not one of A's layout places")


def test_the_opponent_may_play_at_once_on_a_played_card() -> None:
    state = table("KD", "5H", a=("QS",), b=("JC",)).apply(Play("A", "QS", "A1", "L"))
    assert state.check(Play("B", "JC", "B1", "L")) is None


def test_only_players_A_and_B_move() -> None:
    assert illegal(table(), Draw("C", "2S")) == "there is no player 'C': the players are A and B"
    assert list(table().legal_moves("C")) == []


def test_moves_of_the_other_game_are_not_moves_here() -> None:
    from referee.rules.fourcard import Refill

    assert illegal(table(), Refill("A", "2S", "A1")) == "Refill is not a move of full-deck Spit"


# ---- stuck, spit ---------------------------------------------------------------------------------


def test_a_player_with_cards_in_the_deck_and_an_empty_hand_can_always_draw() -> None:
    state = table("KD", "KH", a=("5S", "5C", "5D", "5H"))
    assert state.can_move("A") and list(state.legal_moves("A")) == [Draw("A", "2S")]


def test_a_drawn_card_that_fits_nowhere_leaves_the_player_stuck_holding_it() -> None:
    state = table("KD", "KH", a=("5S", "5C", "5D", "5H"), held_a="9S")
    assert not state.can_move("A") and list(state.legal_moves("A")) == []
    assert state.can_move("B") and not state.is_stalemate()


def test_a_stuck_player_waits_while_the_other_can_move() -> None:
    state = table("KD", "KH", a=("5S", "5C", "5D", "5H"), held_a="9S")
    reason = illegal(state, Spit((("A", "L", "9S"), ("B", "R", "2H"))))
    assert reason == "no spit yet, a move still exists: B draws 2♥"


def test_when_both_are_stuck_both_turn_a_new_card_onto_the_play_piles() -> None:
    full = ("5S", "5C", "5D", "5H")
    state = table("KD", "KH", a=full, b=full, deck_a=(), deck_b=("3C", "4C"), held_a="9S", held_b="9H")
    assert state.is_stalemate() and not state.can_anyone_move()
    spits = list(state.legal_moves())
    assert Spit((("A", "L", "9S"), ("B", "R", "9H"))) in spits and len(spits) == 2
    state = state.apply(Spit((("A", "R", "9S"), ("B", "L", "9H"))))
    assert (state.top("L"), state.top("R")) == (C("9H"), C("9S"))
    assert state.hands == (None, None) and state.deck_size("B") == 2


def test_a_held_card_is_the_card_turned_at_a_spit() -> None:
    full = ("5S", "5C", "5D", "5H")
    state = table("KD", "KH", a=full, b=full, held_a="9S", held_b="9H")
    reason = illegal(state, Spit((("A", "L", "2S"), ("B", "R", "9H"))))
    assert reason == "A holds the drawn 9♠: that is the card A spits, not 2♠"


def test_spit_while_a_move_exists_is_illegal_and_names_the_move() -> None:
    state = table("KD", "5H", a=("6C",))
    reason = illegal(state, Spit((("A", "L", "2S"), ("B", "R", "2H"))))
    assert reason == "no spit yet, a move still exists: A plays 6♣ from A1 onto R"
    assert state.available_move("A") == Play("A", "6C", "A1", "R")


def test_a_player_with_no_card_left_sits_out_and_the_other_spits_alone_onto_either_pile() -> None:
    full = ("5S", "5C", "5D", "5H")
    state = table("KD", "KH", a=full, b=full, deck_a=(), deck_b=("3C",), held_b="9H")
    assert not state.can_spit("A") and state.can_spit("B")
    assert set(state.legal_moves()) == {Spit((("B", "L", C("9H")),)), Spit((("B", "R", C("9H")),))}
    assert illegal(state, Spit((("A", "L", "9S"), ("B", "R", "9H")))) == "A has no card left to spit"
    assert state.apply(Spit((("B", "L", "9H"),))).top("L") == C("9H")


def test_every_player_with_a_card_must_spit() -> None:
    full = ("5S", "5C", "5D", "5H")
    state = table("KD", "KH", a=full, b=full, held_a="9S", held_b="9H")
    assert illegal(state, Spit((("A", "L", "9S"),))) == "B still has a card and must spit too"
    assert illegal(state, Spit((("A", "L", "9S"), ("A", "R", "9S")))) == "A turns one card at a spit, not two"
    both_left = Spit((("A", "L", "9S"), ("B", "L", "9H")))
    assert illegal(state, both_left) == "two spit cards go onto L: one goes onto each pile"
    assert illegal(state, Spit((("A", "X", "9S"),))) == "'X' is not a play pile: spit onto L or R"
    assert illegal(state, Spit((("Z", "L", "9S"),))) == "there is no player 'Z': the players are A and B"


def test_the_spit_card_is_the_top_card_of_the_deck() -> None:
    state = RULES.deal(deck("KD"), deck("5H"))
    reason = illegal(state, Spit((("A", "L", "QD"), ("B", "R", "5H"))))
    assert reason == "the top card of A's deck is K♦, not Q♦"


# ---- the end -------------------------------------------------------------------------------------


def test_a_player_who_empties_deck_and_layout_places_wins() -> None:
    state = table("KD", "5H", deck_a=(), held_a="6C")
    assert not state.is_over()
    state = state.apply(Play("A", "6C", HAND, "R"))
    assert state.is_over() and state.winner() == "A"
    assert not state.is_stalemate() and not state.can_anyone_move()


def test_a_layout_card_can_be_the_last_card() -> None:
    state = table("KD", "5H", a=(None, None, "QC"), deck_a=()).apply(Play("A", "QC", "A3", "L"))
    assert state.winner() == "A"


def test_nothing_is_played_once_the_game_is_over() -> None:
    state = table("KD", "5H", deck_a=(), held_a="6C", b=("QC",)).apply(Play("A", "6C", HAND, "R"))
    assert illegal(state, Play("B", "QC", "B1", "L")) == "the game is over: A went out"
    assert illegal(state, Spit((("B", "L", "2H"),))) == "the game is over: A went out"
    assert illegal(state, EndGame(None, (("A", 0), ("B", 1)))) == "the game is over: A went out"
    assert list(state.legal_moves()) == [] and state.available_move() is None


def test_both_out_at_the_same_time_first_card_on_the_table_wins() -> None:
    state = table("KD", "5H", deck_a=(), deck_b=(), held_a="6C", held_b="QH")
    after, outcomes = resolve(state, [(10.020, Play("B", "QH", HAND, "L")), (10.000, Play("A", "6C", HAND, "R"))])
    assert after.winner() == "A"
    assert [o.accepted for o in outcomes] == [True, False]
    assert outcomes[1].race == Race("L", "A", "B", 20.0)
    assert outcomes[1].reason == "A got there 20 ms earlier: the game is over: A went out; take the card back"


def test_fewer_layout_cards_wins_when_both_are_stuck_with_empty_decks() -> None:
    state = table("KD", "KH", a=("5S", "5C"), b=("5D",), deck_a=(), deck_b=())
    assert state.is_stalemate() and not state.can_spit("A") and not state.can_spit("B")
    assert list(state.legal_moves()) == [EndGame("B", (("A", 2), ("B", 1)))]
    assert not state.is_over() and state.winner() is None
    state = state.apply(EndGame("B", (("A", 2), ("B", 1))))
    assert state.is_over() and state.winner() == "B" and not state.is_stalemate()
    assert illegal(state, EndGame("B", (("A", 2), ("B", 1)))) == "the game is over"


def test_equal_layout_cards_is_a_tie() -> None:
    state = table("KD", "KH", a=("5S",), b=("5D",), deck_a=(), deck_b=())
    state = state.apply(EndGame(None, (("A", 1), ("B", 1))))
    assert state.is_over() and state.winner() is None


def test_the_count_must_be_right() -> None:
    state = table("KD", "KH", a=("5S", "5C"), b=("5D",), deck_a=(), deck_b=())
    reason = illegal(state, EndGame("A", (("A", 2), ("B", 1))))
    assert reason == "the count is wrong: nobody can move or spit: A has 2 cards left, B has 1 card left; B wins"


def test_no_count_while_someone_can_move_or_spit() -> None:
    state = table("KD", "5H", a=("6C",), b=("6D",), deck_a=(), deck_b=())
    assert illegal(state, EndGame(None, (("A", 1), ("B", 1)))).startswith("no count yet, a move still exists")
    stuck = table("KD", "KH", a=("5S",), b=("5S", "5C", "5D", "5H"), deck_a=(), held_b="9H")
    assert illegal(stuck, EndGame(None, (("A", 1), ("B", 6)))) == "no count yet: B still has a card to spit"
    opening = RULES.deal(deck(), deck())
    assert illegal(opening, EndGame(None, (("A", 52), ("B", 52)))) == "no count yet: A still has a card to spit"


# ---- simultaneous play ---------------------------------------------------------------------------


def test_same_pile_race_first_touch_counts_and_the_second_is_judged_against_the_new_top() -> None:
    state = table("8D", "KH", a=("7C",), b=("9S",))
    after, outcomes = resolve(state, [(5.040, Play("B", "9S", "B1", "L")), (5.000, Play("A", "7C", "A1", "L"))])
    assert after.top("L") == C("7C") and after.layout("B")["B1"] == C("9S")  # B takes the card back
    first, second = outcomes
    assert first.accepted and first.race is None and first.t == 5.0
    assert not second.accepted
    assert second.race == Race("L", "A", "B", 40.0)
    assert second.reason == "A got there 40 ms earlier: 9♠ is not next to 7♣ on L; take the card back"
    kind, fields = second.race.event()
    assert Event.make(kind, 5.04, **fields)["margin_ms"] == 40.0


def test_a_second_card_that_fits_the_new_top_stands() -> None:
    state = table("8D", "KH", a=("7C",), b=("6S",))
    after, outcomes = resolve(state, [(1.0, Play("A", "7C", "A1", "L")), (1.1, Play("B", "6S", "B1", "L"))])
    assert after.top("L") == C("6S") and all(o.accepted for o in outcomes)
    assert outcomes[1].race == Race("L", "A", "B", 100.0)


def test_cards_on_different_piles_at_the_same_time_both_stand() -> None:
    state = table("8D", "KH", a=("7C",), b=("QS",))
    after, outcomes = resolve(state, [(1.0, Play("A", "7C", "A1", "L")), (1.0, Play("B", "QS", "B1", "R"))])
    assert (after.top("L"), after.top("R")) == (C("7C"), C("QS"))
    assert [o.race for o in outcomes] == [None, None]


def test_one_players_own_quick_cards_are_no_race() -> None:
    state = table("8D", "KH", a=("7C", "6S"))
    _, outcomes = resolve(state, [(1.0, Play("A", "7C", "A1", "L")), (1.05, Play("A", "6S", "A2", "L"))])
    assert all(o.accepted and o.race is None for o in outcomes)


# ---- what a camera sees --------------------------------------------------------------------------


def test_a_state_from_the_camera_has_unknown_deck_cards_that_are_revealed_when_drawn() -> None:
    seen = RULES.from_table(decks={"A": 10, "B": 12}, tops={"L": "7C", "R": "2D"}, layout={"A1": "9S", "B2": "KH"})
    assert seen.unknown() == 104 - 4 and sum(seen.cards().values()) == 4
    assert sum(len(p) for p in seen.piles) == 104 - 22 - 2
    draws = [m for m in seen.legal_moves("A") if isinstance(m, Draw)]
    assert C("9S") not in {m.card for m in draws} and len(draws) == 51
    state = seen.apply(Draw("A", "8H"))
    assert state.hands[0] == C("8H") and state.deck_size("A") == 9
    assert state.apply(Play("A", "8H", HAND, "L")).top("L") == C("8H")


def test_a_camera_state_refuses_a_card_its_deck_cannot_hold() -> None:
    seen = RULES.from_table(decks={"A": 10, "B": 12}, tops={"L": "7C", "R": "7C"}, layout={"A1": "9S"})
    assert illegal(seen, Draw("A", "9S")) == "A's 9♠ is already out of the deck"
    assert illegal(seen, Draw("A", "7C")) == "both 7♣s are already on the table"


def test_a_camera_state_can_be_before_the_opening_spit() -> None:
    seen = RULES.from_table(decks={"A": 52, "B": 52})
    assert not seen.started and seen.is_stalemate()
    spit = Spit((("A", "L", "QD"), ("B", "R", "QD")))
    assert seen.check(spit) is None
    assert seen.apply(spit).cards() == Counter({C("QD"): 2})


def test_a_camera_state_with_given_pile_sizes_and_a_drawn_card() -> None:
    seen = RULES.from_table(
        decks={"A": 40, "B": 50}, tops={"L": "7C", "R": "2D"}, held={"A": "3S"}, pile_sizes={"L": 10, "R": 3}
    )
    assert [len(p) for p in seen.piles] == [10, 3] and seen.hands[0] == C("3S")
    assert seen.cards_of("A") == Counter({C("3S"): 1})


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"decks": {"A": 53, "B": 0}}, "each player's deck holds 0 to 52 cards"),
        ({"decks": {"A": 1}}, "each player's deck holds 0 to 52 cards"),
        ({"decks": {"A": 50, "B": 50}, "tops": {"L": "7C"}}, "both play piles L and R have a top card"),
        ({"decks": {"A": 50, "B": 50}}, "the table must hold 104 cards in all"),
        ({"decks": {"A": 52, "B": 51}, "tops": {"L": "7C", "R": "7D"}}, "the table must hold 104 cards in all"),
        ({"decks": {"A": 50, "B": 50}, "tops": {"L": "7C", "R": "7D"}, "pile_sizes": {"L": 3}}, "104 cards"),
        ({"decks": {"A": 1, "B": 1}, "layout": {"A9": "7C"}}, "'A9' is not a layout place of full-deck"),
        ({"decks": {"A": 1, "B": 1}, "layout": {"C1": "7C"}}, "'C1' is not a layout place of full-deck"),
        ({"decks": {"A": 52, "B": 1}, "layout": {"A1": "7C"}}, "A shows more than the 52 cards of one deck"),
        ({"decks": {"A": 1, "B": 1}, "layout": {"A1": "7C"}, "held": {"A": "7C"}}, "A shows one twice"),
        ({"decks": {"A": 1, "B": 1}, "held": {"C": "7C"}}, "there is no player 'C'"),
        (
            {"decks": {"A": 1, "B": 1}, "tops": {"L": "7C", "R": "7C"}, "layout": {"A1": "7C"}},
            "two decks hold two 7♣s, not 3",
        ),
    ],
)
def test_a_camera_state_that_no_table_can_show_is_refused(kwargs: dict, message: str) -> None:
    with pytest.raises(ImpossiblePosition, match=message):
        RULES.from_table(**kwargs)


def test_an_empty_layout_place_may_be_named() -> None:
    seen = RULES.from_table(decks={"A": 50, "B": 50}, tops={"L": "7C", "R": "7D"}, layout={"A1": None})
    assert seen.layout("A")["A1"] is None


# ---- rule set, moves, events ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"places": 0}, "a layout has 1 to 9 places"),
        ({"places": 10}, "a layout has 1 to 9 places"),
        ({"places": True}, "a layout has 1 to 9 places"),
        ({"name": ""}, "a rule set needs a name"),
        ({"must_play_drawn": "yes"}, "must_play_drawn is true or false"),
    ],
)
def test_options_are_validated(options: dict, message: str) -> None:
    with pytest.raises(ContradictoryOptions, match=message):
        FullDeckRules(**options)


def test_the_number_of_layout_places_is_an_option() -> None:
    two = FullDeckRules(places=2)
    state = table(held_a="3C", rules=two)
    assert {m.place for m in state.legal_moves("A") if isinstance(m, Place)} == {"A1", "A2"}
    assert illegal(state, Place("A", "3C", "A3")) == "A3 is not one of A's layout places (A1 to A2)"


def test_the_rule_set_is_frozen_and_named() -> None:
    assert RULES.name == "full-deck" and RULES.places == 4 and RULES == FullDeckRules()
    with pytest.raises(AttributeError):
        RULES.places = 5  # type: ignore[misc]


def test_states_are_immutable() -> None:
    state = table(held_a="6C")
    after = state.apply(Play("A", "6C", HAND, "R"))
    assert state.hands[0] == C("6C") and after is not state
    with pytest.raises(AttributeError):
        state.ended = True  # type: ignore[misc]


def test_moves_describe_themselves_and_give_their_log_events() -> None:
    moves = [
        (Draw("A", "6D"), "A draws 6♦", "draw"),
        (Place("A", "6D", "A2"), "A puts the drawn 6♦ into A2", "place_drawn"),
        (Play("A", "6D", HAND, "R"), "A plays the drawn 6♦ onto R", "play_drawn"),
        (Play("B", "6D", "B4", "L"), "B plays 6♦ from B4 onto L", "play"),
        (Spit((("A", "L", "KD"), ("B", "R", "5H"))), "Spit! A turns K♦ onto L, B turns 5♥ onto R", "spit"),
        (EndGame(None, (("A", 1), ("B", 1))), "nobody can move or spit: A has 1 card left, B has 1 card left; a tie",
         "game_end"),
    ]
    for move, words, kind in moves:
        assert move.describe() == words
        event_type, fields = move.event()
        assert event_type == kind
        assert Event.make(event_type, 1.5, **fields).type == kind
    assert Spit((("A", "L", "KD"),)).event() == ("spit", {"cards": {"L": "KD"}, "players": {"L": "A"}})
    assert EndGame("B", (("A", 3), ("B", 1))).event() == ("game_end", {"winner": "B", "counts": {"A": 3, "B": 1}})
    assert owndeck.EVENT_TYPES["place_drawn"] == ("player", "card", "to")


def test_a_game_record_pushes_and_pops_moves() -> None:
    game = Game(RULES.new_game(random.Random(5)))
    spit = next(game.legal_moves())
    game.push(spit)
    assert game.state.started and game.pop() == spit and not game.state.started


def test_the_state_prints_as_the_table_looks() -> None:
    assert str(table("KD", "5H", a=("9S",), held_a="3C")) == (
        "L: K♦ (1)  R: 5♥ (1)\nA: deck 1, layout 9♠ · · ·, drawn 3♣\nB: deck 1, layout · · · ·"
    )


def test_get_rules_finds_full_deck_spit() -> None:
    from referee.rules import get_rules

    try:
        for name in ("spit", "speahx", "fourcard"):
            pytest.importorskip(f"referee.rules.{name}")
        rules = get_rules("full-deck")
    except ValueError as exc:  # this module imported cleanly, so the clash is between the others
        pytest.skip(f"the other game modules do not load together: {exc}")
    assert rules == RULES


def test_module_examples_run() -> None:
    for module in (fulldeck, owndeck):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted > 0


# ---- properties of every game --------------------------------------------------------------------

CAP = 3 * 104 + 2
"""No game can last longer: every move brings a card nearer the piles (deck, hand, layout, pile)."""


def candidate_moves(state: FullDeckState, rng: random.Random, n: int = 12) -> list[object]:
    """`n` moves a player might try, legal or not: a visible card to a random place or pile."""
    moves: list[object] = []
    for _ in range(n):
        i = rng.randrange(2)
        p = state.players[i]
        cards = [c for c in state.layouts[i] if c is not None]
        cards += [c for c in (state.hands[i], state.decks[i][0] if state.decks[i] else None) if c is not None]
        if not cards:
            continue
        card = rng.choice(cards)
        place = f"{p}{rng.randrange(1, state.rules.places + 1)}"
        moves.append(rng.choice([
            Draw(p, card), Place(p, card, place), Play(p, card, rng.choice([HAND, place]), rng.choice("LR")),
        ]))
    return moves


def assert_sound(state: FullDeckState, before: FullDeckState | None, move: object, rng: random.Random) -> None:
    assert state.cards_of("A") == FULL == state.cards_of("B")
    assert sum(state.cards().values()) == 104 and state.unknown() == 0
    assert all(len(row) == state.rules.places for row in state.layouts)
    assert len(state.piles[0]) > 0 or not state.started
    if isinstance(move, Play):
        pile = ("L", "R").index(move.pile)
        assert state.piles[pile][-2][0] is before.top(move.pile)  # type: ignore[union-attr]
        assert rank_gap(state.top(move.pile), before.top(move.pile)) in (1, 12)  # type: ignore[union-attr]
    legal = set(state.legal_moves())
    for p in state.players:
        assert state.can_move(p) == any(True for _ in state.legal_moves(p))
    assert state.is_stalemate() == (not state.is_over() and not state.can_anyone_move())
    assert state.can_anyone_move() == any(m.player is not None for m in legal)
    for candidate in candidate_moves(state, rng):
        assert (state.check(candidate) is None) == (candidate in legal), candidate  # type: ignore[arg-type]
    for move_ in legal:
        assert state.check(move_) is None


def rank_gap(a: Card, b: Card) -> int:
    return (a.rank - b.rank) % 13


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    rules=st.sampled_from([RULES, FullDeckRules(must_play_drawn=True), FullDeckRules(places=1)]),
)
def test_every_game_keeps_every_card_once_per_deck_stays_legal_and_ends(seed: int, rules: FullDeckRules) -> None:
    rng = random.Random(seed)  # a plain generator: hypothesis's own random is slow over hundreds of moves
    state = rules.new_game(rng)
    assert_sound(state, None, None, rng)
    for _ in range(CAP):
        if state.is_over():
            break
        moves = list(state.legal_moves())
        assert moves, "a game that is not over always has a move (a player's, a spit or the count)"
        move = rng.choice(moves)
        before, state = state, state.apply(move)
        assert_sound(state, before, move, rng)
    else:
        pytest.fail("the game did not end within the cap")
    assert state.winner() in ("A", "B", None)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_a_camera_game_with_unknown_decks_keeps_every_card_at_most_twice(seed: int) -> None:
    rng = random.Random(seed)
    state = RULES.from_table(decks={"A": 52, "B": 52})
    for _ in range(CAP):
        if state.is_over():
            break
        moves = list(state.legal_moves())
        state = state.apply(rng.choice(moves))
        counts = state.cards()
        assert max(counts.values()) <= 2 and sum(counts.values()) + state.unknown() == 104
        assert all(n <= 1 for n in state.cards_of("A").values())
    else:
        pytest.fail("the game did not end within the cap")
