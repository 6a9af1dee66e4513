"""Properties of the Spit engine over whole random games of every preset (Hypothesis picks the seeds)."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.cards import full_deck
from referee.rules.spit import (
    PRESETS,
    ChoosePile,
    Deal,
    Layout,
    Play,
    Slap,
    SpitMove,
    SpitRules,
    SpitState,
    StackEqual,
)

CAP = 200_000
"""Moves after which a game counts as endless: no game may reach it."""
TWO_PLAYER = sorted(name for name, rules in PRESETS.items() if rules.players == 2)
MORE_PLAYERS = sorted(name for name, rules in PRESETS.items() if rules.players > 2)
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


def random_move(state: SpitState, rng: random.Random) -> SpitMove:
    """A random move that makes progress (no lone card shuffled from space to space): slaps at
    random piles and times, layouts shuffled."""
    if state.phase == "layout":
        return state.shuffled_layout(rng)
    if state.slap_due:
        piles = state.rules.spit_pile_names
        return Slap(tuple((p, rng.choice(piles), rng.choice((1.0, 1.05, 1.1))) for p in state.players),
                    underneath=rng.choice(state.players))
    moves = list(state.useful_moves())
    assert moves, f"no move in {state!r}"
    return rng.choice(moves)


def check_state(state: SpitState, deck: Counter) -> None:  # type: ignore[type-arg]
    """What every reachable state must satisfy."""
    assert state.cards() == deck, "every card is accounted for exactly once"
    assert None not in state.cards()
    for place in state.rules.place_names:
        pile, up = state.pile(place), state.face_up(place)
        assert 0 <= up <= len(pile) and (up > 0) == (state.top(place) is not None)
    for name in state.rules.spit_pile_names:
        assert (state.top(name) is None) == (not state.pile(name))
    if state.phase == "play" and not state.rules.five_card_hand:
        for p in state.players:
            if state.is_active(p):
                own = [m for m in state.useful_moves(p) if not isinstance(m, ChoosePile)]
                assert state.can_move(p) == bool(own)
    assert state.is_stalemate() == (state.phase == "start" or (
        state.phase == "play" and not any(state.can_move(p) for p in state.players)))


def check_legal_moves(state: SpitState, deck: Counter) -> None:  # type: ignore[type-arg]
    """Every listed legal move is legal, and reaches a state that is possible."""
    for move in state.legal_moves():
        if isinstance(move, (Layout, Deal)):
            move = state.shuffled_layout(random.Random(0))
        assert state.check(move) is None, move
        check_state(state.apply(move), deck)


def play(rules: SpitRules, seed: int, every: int) -> SpitState:
    rng = random.Random(seed)
    state = rules.new_game(rng)
    deck = Counter(full_deck() * rules.decks)
    for n in range(CAP):
        if state.is_over():
            check_state(state, deck)
            assert state.winner() is not None
            return state
        if n % every == 0:
            check_state(state, deck)
        if n % (every * 20) == 0:
            check_legal_moves(state, deck)
        state = state.apply(random_move(state, rng))
    pytest.fail(f"a game of {rules.name} with seed {seed} did not end within {CAP} moves")


@pytest.mark.parametrize("name", TWO_PLAYER)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS)
def test_every_two_player_game_ends_with_every_card_accounted_for(name: str, seed: int) -> None:
    play(PRESETS[name], seed, every=3)


@pytest.mark.parametrize("name", MORE_PLAYERS)
@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS)
def test_every_game_of_more_players_ends_with_every_card_accounted_for(name: str, seed: int) -> None:
    final = play(PRESETS[name], seed, every=40)
    assert len(final.ranking()) == final.rules.players - 1


def positions(seed: int, count: int = 60) -> list[SpitState]:
    """Positions in play from a random classic game."""
    rng = random.Random(seed)
    state = PRESETS["classic"].new_game(rng)
    found = []
    while len(found) < count and not state.is_over():
        if state.phase == "play":
            found.append(state)
        state = state.apply(random_move(state, rng))
    return found


def player_moves(state: SpitState) -> set[SpitMove]:
    return {m for p in state.players for m in state.legal_moves(p)}


@settings(max_examples=8, deadline=None)
@given(seed=SEEDS)
def test_alternate_colours_only_forbids_same_colour_plays(seed: int) -> None:
    alternate = replace(PRESETS["classic"], alternate_colours=True)
    for state in positions(seed):
        classic_moves = player_moves(state)
        same_colour = {m for m in classic_moves
                       if isinstance(m, Play) and state.top(m.to).red == m.card.red}  # type: ignore[union-attr]
        assert player_moves(state.with_rules(alternate)) == classic_moves - same_colour


@settings(max_examples=8, deadline=None)
@given(seed=SEEDS)
def test_stack_equal_only_adds_stacking_moves(seed: int) -> None:
    stacking = replace(PRESETS["classic"], stack_equal=True)
    for state in positions(seed):
        extra = player_moves(state.with_rules(stacking)) - player_moves(state)
        assert all(isinstance(m, StackEqual) for m in extra)
        assert player_moves(state) <= player_moves(state.with_rules(stacking))


@settings(max_examples=8, deadline=None)
@given(seed=SEEDS)
def test_two_hands_and_free_choice_change_nothing_during_play(seed: int) -> None:
    for option in ({"two_hands": True}, {"free_choice": True}):
        rules = replace(PRESETS["classic"], **option)
        for state in positions(seed, 20):
            other = state.with_rules(rules)
            assert list(other.legal_moves()) == list(state.legal_moves())
            assert other.is_stalemate() == state.is_stalemate()


def test_rules_of_another_shape_do_not_fit_a_table() -> None:
    state = PRESETS["classic"].new_game(random.Random(1))
    with pytest.raises(ValueError, match="other places"):
        state.with_rules(PRESETS["chinese"])
