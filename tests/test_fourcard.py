"""Four-card layout Spit (seed 003): one test per rule, races, camera states and property tests."""

from __future__ import annotations

import doctest
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.cards import Card, full_deck, parse_card
from referee.errors import ContradictoryOptions, IllegalMove
from referee.events import Event
from referee.rules import fourcard
from referee.rules.fourcard import (
    EndGame,
    FourCardRules,
    FourCardState,
    Play,
    Race,
    Refill,
    Spit,
    resolve,
)

C = parse_card
RULES = FourCardRules()
FULL = Counter(full_deck())


def deck(*top: str) -> list[Card]:
    """One whole deck with these cards on top, the rest in the usual order."""
    first = [C(c) for c in top]
    return first + [c for c in full_deck() if c not in first]


def table(
    L: str = "KD",
    R: str = "5H",
    *,
    a: tuple[str | None, ...] = ("2S", "2C", "2D", "2H"),
    b: tuple[str | None, ...] = ("9S", "9C", "9D", "9H"),
    deck_a: tuple[str, ...] = ("7S",),
    deck_b: tuple[str, ...] = ("7H",),
    rules: FourCardRules = RULES,
) -> FourCardState:
    """A started position with these pile tops, layouts and decks (top first)."""
    def row(cards: tuple[str | None, ...]) -> tuple[Card | None, ...]:
        return tuple(C(c) if c else None for c in cards) + (None,) * (rules.places - len(cards))

    return FourCardState(
        rules,
        decks=(tuple(map(C, deck_a)), tuple(map(C, deck_b))),
        layouts=(row(a), row(b)),
        piles=(((C(L), None),), ((C(R), None),)),
    )


def illegal(state: FourCardState, move: object) -> str:
    with pytest.raises(IllegalMove) as info:
        state.apply(move)  # type: ignore[arg-type]
    assert state.check(move) == str(info.value)  # type: ignore[arg-type]
    return str(info.value)


# ---- the layout and the opening spit -------------------------------------------------------------


def test_each_player_lays_out_their_top_four_cards_face_up_in_a_row() -> None:
    state = RULES.deal(deck("9S", "5H", "KD", "2C"), deck("3C", "3D", "3H", "3S"))
    assert state.layout("A") == {"A1": C("9S"), "A2": C("5H"), "A3": C("KD"), "A4": C("2C")}
    assert list(state.layout("B")) == ["B1", "B2", "B3", "B4"]


def test_the_rest_of_the_deck_stays_in_hand() -> None:
    state = RULES.new_game(random.Random(2))
    assert state.deck_size("A") == state.deck_size("B") == 48
    assert state.cards_of("A") == FULL == state.cards_of("B") and state.unknown() == 0


def test_at_the_first_spit_each_turns_their_next_card_to_start_a_centre_pile() -> None:
    state = RULES.deal(deck("9S", "5H", "KD", "2C", "8D"), deck("3C", "3D", "3H", "3S", "10C"))
    assert state.is_stalemate() and list(state.legal_moves("A")) == []
    assert illegal(state, Play("A", "9S", "A1", "L")) == "wait for “Spit!”: the play piles are not started yet"
    state = state.apply(Spit((("A", "L", "8D"), ("B", "R", "10C"))))
    assert (state.top("L"), state.top("R")) == (C("8D"), C("10C")) and state.deck_size("A") == 47


# ---- playing and refilling -----------------------------------------------------------------------


def test_a_layout_card_is_played_onto_a_centre_pile_one_rank_higher_or_lower() -> None:
    state = table("10D", "5H", a=("9S", "JC", "6D", "4H"))
    plays = {(m.card.code, m.pile) for m in state.legal_moves("A")}
    assert plays == {("9S", "L"), ("JC", "L"), ("6D", "R"), ("4H", "R")}


def test_the_suit_does_not_matter_and_the_ace_is_high_or_low() -> None:
    state = table("KD", "2H", a=("AS",), deck_a=())
    assert {m.pile for m in state.legal_moves("A") if m.card == C("AS")} == {"L", "R"}


def test_a_card_not_one_rank_away_is_refused() -> None:
    assert illegal(table("JD", a=("7C",), deck_a=()), Play("A", "7C", "A1", "L")) == "7♣ is not next to J♦ on L"
    assert illegal(table("7D", a=("7C",), deck_a=()), Play("A", "7C", "A1", "L")) == "7♣ is not next to 7♦ on L"


def test_a_play_names_a_layout_card_of_the_player() -> None:
    state = table("KD", a=("QS", None), deck_a=())
    assert illegal(state, Play("A", "QH", "A1", "L")) == "A1 holds Q♠, not Q♥"
    assert illegal(state, Play("A", "QS", "B1", "L")) == "B1 is not one of A's layout places (A1 to A4)"
    assert illegal(state, Play("A", "QS", "A2", "L")) == "A2 is empty"
    assert illegal(state, Play("A", "QS", "A1", "M")) == "'M' is not a play pile: play onto L or R"


def test_cards_are_played_from_the_layout_not_from_the_hand() -> None:
    reason = illegal(table(), Play("A", "7S", "hand", "L"))
    assert reason == "in four-card layout Spit cards are played from the layout, not from the hand"


def test_layout_gap_is_refilled_from_the_deck() -> None:
    state = table("KD", "5H", a=("QS", "2C", "2D", "2H"), deck_a=("7S", "8S"))
    state = state.apply(Play("A", "QS", "A1", "L"))
    assert state.layout("A")["A1"] is None
    assert list(state.legal_moves("A")) == [Refill("A", "7S", "A1")]
    state = state.apply(Refill("A", "7S", "A1"))
    assert state.layout("A")["A1"] == C("7S") and state.deck_size("A") == 1


def test_the_gap_is_refilled_at_once_before_the_next_play() -> None:
    state = table("KD", "5H", a=("QS", "6C", "2D", "2H")).apply(Play("A", "QS", "A1", "L"))
    reason = illegal(state, Play("A", "6C", "A2", "R"))
    assert reason == "fill the gap at A1 from your deck before playing another card"


def test_without_refill_at_once_gaps_may_wait() -> None:
    lax = FourCardRules(refill_at_once=False)
    state = table("KD", "5H", a=("QS", "6C", "2D", "2H"), rules=lax).apply(Play("A", "QS", "A1", "L"))
    assert state.check(Play("A", "6C", "A2", "R")) is None
    state = state.apply(Play("A", "6C", "A2", "R"))
    assert set(state.legal_moves("A")) == {Refill("A", "7S", "A1"), Refill("A", "7S", "A2")}


def test_the_refill_is_the_top_card_of_the_deck() -> None:
    state = table("KD", deck_a=("7S", "8S"), a=("QS", "2C", "2D", "2H")).apply(Play("A", "QS", "A1", "L"))
    assert illegal(state, Refill("A", "8S", "A1")) == "the top card of A's deck is 7♠, not 8♠"


def test_there_are_at_most_four_layout_cards() -> None:
    state = table("KD", "5H")
    assert illegal(state, Refill("A", "7S", "A2")) == "A2 already holds 2♣"
    assert illegal(state, Refill("A", "7S", "A5")) == "A5 is not one of A's layout places (A1 to A4)"


def test_the_number_of_layout_cards_is_an_option() -> None:
    three = FourCardRules(places=3)
    state = three.deal(deck("9S", "5H", "KD"), deck("3C", "3D", "3H"))
    assert len(state.layout("A")) == 3 and state.deck_size("A") == 49


def test_an_empty_deck_refills_nothing() -> None:
    state = table("KD", a=("QS", "5S"), deck_a=()).apply(Play("A", "QS", "A1", "L"))
    assert illegal(state, Refill("A", "7S", "A1")) == "A's deck is empty: play on from the layout alone"


def test_the_opponent_may_play_at_once_on_a_played_card() -> None:
    state = table("KD", "5H", a=("QS", "2S"), b=("JC",), deck_a=(), deck_b=()).apply(Play("A", "QS", "A1", "L"))
    assert state.check(Play("B", "JC", "B1", "L")) is None


def test_moves_of_the_other_game_are_not_moves_here() -> None:
    from referee.rules.fulldeck import Draw

    assert illegal(table(), Draw("A", "7S")) == "Draw is not a move of four-card layout Spit"


# ---- racing for a pile ---------------------------------------------------------------------------


def test_the_first_to_arrive_keeps_the_play_and_the_other_takes_their_card_back() -> None:
    state = table("8D", "KH", a=("7C", "5S"), b=("9S", "5C"), deck_a=(), deck_b=())
    after, outcomes = resolve(state, [(3.210, Play("A", "7C", "A1", "L")), (3.195, Play("B", "9S", "B1", "L"))])
    assert after.top("L") == C("9S") and after.layout("A")["A1"] == C("7C")
    assert [o.move.player for o in outcomes] == ["B", "A"] and [o.accepted for o in outcomes] == [True, False]
    race = outcomes[1].race
    assert race == Race("L", "B", "A", 15.0)
    assert outcomes[1].reason == "B got there 15 ms earlier: 7♣ is not next to 9♠ on L; take the card back"
    kind, fields = race.event()
    assert Event.make(kind, 3.21, **fields).as_dict() == {
        "t": 3.21, "type": "race", "pile": "L", "first": "B", "second": "A", "margin_ms": 15.0,
    }


def test_a_refill_and_a_play_in_one_instant_are_applied_in_touch_order() -> None:
    state = table("KD", "5H", a=("QS", "6C", "2D", "2H")).apply(Play("A", "QS", "A1", "L"))
    after, outcomes = resolve(state, [(1.0, Play("A", "6C", "A2", "R")), (0.9, Refill("A", "7S", "A1"))])
    assert all(o.accepted for o in outcomes) and after.top("R") == C("6C")


# ---- stuck and spit ------------------------------------------------------------------------------


def test_all_stuck_ready_spit_each_turns_a_new_starter_onto_the_centre_piles() -> None:
    state = table("KD", "KH", a=("5S", "5C", "5D", "5H"), b=("9S", "9C", "9D", "9H"))
    assert state.is_stalemate() and not state.can_move("A") and not state.can_move("B")
    assert set(state.legal_moves()) == {
        Spit((("A", "L", C("7S")), ("B", "R", C("7H")))),
        Spit((("A", "R", C("7S")), ("B", "L", C("7H")))),
    }
    state = state.apply(Spit((("A", "L", "7S"), ("B", "R", "7H"))))
    assert (state.top("L"), state.top("R")) == (C("7S"), C("7H")) and state.deck_size("A") == 0


def test_spit_while_a_move_exists_is_illegal_and_names_the_move() -> None:
    state = table("KD", "KH", a=("5S", "5C", "5D", "5H"), b=("9S", "QC", "9D", "9H"))
    reason = illegal(state, Spit((("A", "L", "7S"), ("B", "R", "7H"))))
    assert reason == "no spit yet, a move still exists: B plays Q♣ from B2 onto L"


def test_a_gap_to_refill_is_a_move_so_no_spit_yet() -> None:
    state = table("KD", "KH", a=("5S", None, "5D", "5H"), b=("9S", "9C", "9D", "9H"))
    assert state.can_move("A") and not state.is_stalemate()
    assert illegal(state, Spit((("A", "L", "7S"), ("B", "R", "7H")))).endswith("A fills A2 with 7♠ from the deck")


def test_a_player_whose_deck_is_empty_plays_on_from_the_layout_alone_and_cannot_spit() -> None:
    state = table("KD", "5H", a=("5S", None, "6D", None), deck_a=())
    assert [m.card.code for m in state.legal_moves("A")] == ["6D"]
    stuck = table("KD", "KH", a=("5S",), deck_a=())
    assert not stuck.can_spit("A") and stuck.can_spit("B")


def test_the_other_player_then_spits_alone_onto_either_pile() -> None:
    state = table("KD", "KH", a=("5S",), deck_a=())
    assert set(state.legal_moves()) == {Spit((("B", "L", C("7H")),)), Spit((("B", "R", C("7H")),))}
    assert illegal(state, Spit((("A", "L", "7S"),))) == "A has no card left to spit"
    assert illegal(state, Spit((("B", "L", "8H"),))) == "the top card of B's deck is 7♥, not 8♥"


# ---- the end -------------------------------------------------------------------------------------


def test_going_out_wins() -> None:
    state = table("KD", "5H", a=(None, None, "6C", None), deck_a=())
    state = state.apply(Play("A", "6C", "A3", "R"))
    assert state.is_over() and state.winner() == "A" and list(state.legal_moves()) == []


def test_fewer_cards_left_wins_when_both_decks_are_empty_and_all_are_stuck() -> None:
    state = table("KD", "KH", a=("5S", "5C", "5D"), b=("9S", "9C"), deck_a=(), deck_b=())
    assert state.is_stalemate() and not state.is_over()
    count = EndGame("B", (("A", 3), ("B", 2)))
    assert list(state.legal_moves()) == [count]
    state = state.apply(count)
    assert state.is_over() and state.winner() == "B"


def test_equal_cards_left_is_a_tie() -> None:
    state = table("KD", "KH", a=("5S", "5C"), b=("9S", "9C"), deck_a=(), deck_b=())
    assert state.apply(EndGame(None, (("A", 2), ("B", 2)))).winner() is None


def test_no_spit_when_nobody_has_a_card_left_to_spit() -> None:
    state = table("KD", "KH", a=("5S",), b=("5C",), deck_a=(), deck_b=())
    reason = illegal(state, Spit((("A", "L", "7S"),)))
    assert reason == "nobody has a card left to spit: the game ends with the count"


def test_the_count_waits_for_the_last_spit() -> None:
    state = table("KD", "KH", a=("5S",), deck_a=())
    assert illegal(state, EndGame("B", (("A", 1), ("B", 5)))) == "no count yet: B still has a card to spit"


# ---- what a camera sees --------------------------------------------------------------------------


def test_a_camera_state_reveals_refills_as_they_are_seen() -> None:
    seen = RULES.from_table(
        decks={"A": 20, "B": 0}, tops={"L": "KD", "R": "5H"},
        layout={"A1": None, "A2": "QS", "A3": "9S", "A4": "9C", "B1": "3C"},
    )
    assert seen.unknown() == 104 - 6
    refills = list(seen.legal_moves("A"))
    assert len(refills) == 52 - 3 and all(isinstance(m, Refill) for m in refills)
    state = seen.apply(Refill("A", "JH", "A1"))
    assert state.layout("A")["A1"] == C("JH") and state.deck_size("A") == 19
    assert illegal(seen, Refill("A", "QS", "A1")) == "A's Q♠ is already out of the deck"


def test_a_camera_state_has_no_drawn_cards() -> None:
    with pytest.raises(TypeError):
        RULES.from_table(decks={"A": 52, "B": 52}, held={"A": "3S"})  # type: ignore[call-arg]


# ---- rule set, moves, events ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"places": 0}, "a layout has 1 to 9 places"),
        ({"places": 12}, "a layout has 1 to 9 places"),
        ({"refill_at_once": 1}, "refill_at_once is true or false"),
    ],
)
def test_options_are_validated(options: dict, message: str) -> None:
    with pytest.raises(ContradictoryOptions, match=message):
        FourCardRules(**options)


def test_the_rule_set_is_frozen_and_named() -> None:
    assert (RULES.name, RULES.places, RULES.refill_at_once) == ("four-card", 4, True)
    with pytest.raises(AttributeError):
        RULES.refill_at_once = False  # type: ignore[misc]


def test_moves_describe_themselves_and_give_their_log_events() -> None:
    refill = Refill("B", "JH", "B3")
    assert refill.describe() == "B fills B3 with J♥ from the deck"
    kind, fields = refill.event()
    assert Event.make(kind, 2.0, **fields).as_dict() == {"t": 2.0, "type": "refill", "player": "B", "pile": "B3",
                                                         "card": "JH"}
    assert Play("A", "6C", "A3", "R").event() == ("play", {"player": "A", "card": "6C", "from": "A3", "to": "R"})


def test_get_rules_finds_four_card_layout_spit() -> None:
    from referee.rules import get_rules

    try:
        for name in ("spit", "speahx", "fulldeck"):
            pytest.importorskip(f"referee.rules.{name}")
        rules = get_rules("four-card")
    except ValueError as exc:  # this module imported cleanly, so the clash is between the others
        pytest.skip(f"the other game modules do not load together: {exc}")
    assert rules == RULES


def test_module_examples_run() -> None:
    result = doctest.testmod(fourcard)
    assert result.failed == 0 and result.attempted > 0


# ---- properties of every game --------------------------------------------------------------------

CAP = 2 * 104 + 2
"""No game can last longer: every move brings a card nearer the piles (deck, layout, pile)."""


def candidate_moves(state: FourCardState, rng: random.Random, n: int = 12) -> list[object]:
    """`n` moves a player might try, legal or not: a visible card to a random place or pile."""
    moves: list[object] = []
    for _ in range(n):
        i = rng.randrange(2)
        p = state.players[i]
        cards = [c for c in state.layouts[i] if c is not None] + list(state.decks[i][:1])
        if not cards:
            continue
        card = rng.choice(cards)
        place = f"{p}{rng.randrange(1, state.rules.places + 1)}"
        moves.append(rng.choice([Refill(p, card, place), Play(p, card, place, rng.choice("LR"))]))
    return moves


def assert_sound(state: FourCardState, before: FourCardState | None, move: object, rng: random.Random) -> None:
    assert state.cards_of("A") == FULL == state.cards_of("B")
    assert sum(state.cards().values()) == 104 and state.unknown() == 0
    for i in range(2):
        gaps = state.layouts[i].count(None)
        assert len(state.layouts[i]) == state.rules.places
        if state.rules.refill_at_once and state.decks[i]:
            assert gaps <= 1, "a gap is refilled before the next play"
    if isinstance(move, Play):
        assert state.piles[("L", "R").index(move.pile)][-2][0] is before.top(move.pile)  # type: ignore[union-attr]
        assert (state.top(move.pile).rank - before.top(move.pile).rank) % 13 in (1, 12)  # type: ignore[union-attr]
    legal = set(state.legal_moves())
    for p in state.players:
        assert state.can_move(p) == any(True for _ in state.legal_moves(p))
    assert state.is_stalemate() == (not state.is_over() and not state.can_anyone_move())
    for candidate in candidate_moves(state, rng):
        assert (state.check(candidate) is None) == (candidate in legal), candidate  # type: ignore[arg-type]
    for move_ in legal:
        assert state.check(move_) is None


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), rules=st.sampled_from([RULES, FourCardRules(refill_at_once=False),
                                                           FourCardRules(places=2)]))
def test_every_game_keeps_every_card_once_per_deck_stays_legal_and_ends(seed: int, rules: FourCardRules) -> None:
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


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_timed_batches_of_legal_moves_keep_every_card_and_report_races(seed: int) -> None:
    rng = random.Random(seed)
    state = RULES.new_game(rng)
    for _ in range(CAP):
        if state.is_over():
            break
        batch = [(rng.uniform(0, 0.2), m) for m in rng.sample(list(state.legal_moves()), 1)]
        for p in state.players:
            mine = list(state.legal_moves(p))
            if mine:
                batch.append((rng.uniform(0, 0.2), rng.choice(mine)))
        state, outcomes = resolve(state, batch)
        assert any(o.accepted for o in outcomes)
        assert [o.t for o in outcomes] == sorted(t for t, _ in batch)
        for o in outcomes:
            if o.race is not None:
                assert o.race.second == o.move.player != o.race.first and o.race.margin_ms >= 0
        assert state.cards_of("A") == FULL == state.cards_of("B")
    else:
        pytest.fail("the game did not end within the cap")
