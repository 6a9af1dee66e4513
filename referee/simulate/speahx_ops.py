"""Speahx for the turn loop: its deal, careless lays, a bot that keeps its specials, and the engine's own events."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from referee.cards import parse_card
from referee.rules.speahx import TABLE_CARDS, Play, SpeahxRules, SpeahxState
from referee.rules.speahx_judge import TEN, TWO, parse_cards


WHIM = 0.25
"""How often a player lays whatever goes instead of their best lay. Two players who always make
the best lay can pass the same few cards back and forth through pick-ups for ever."""


class SpeahxOps:
    """The `TurnOps` of Speahx."""

    turn_based = True

    def start(self, rules: SpeahxRules, rng: random.Random) -> tuple[SpeahxState, dict[str, Any]]:
        state = rules.new_game(rng)
        stock = {
            f"{p}{k}": [card.code] for i, p in enumerate(state.players)
            for k, card in enumerate(state.table[i], 1) if card is not None
        }
        return state, {
            "stock": stock,
            "piles": {"P": []},
            "counts": self.counts(state),
            "hands": {p: [c.code for c in state.hands[i]] for i, p in enumerate(state.players)},
            "draw_pile": [c.code for c in state.stock],
        }

    def restart(self, rules: SpeahxRules, layout: Mapping[str, Any]) -> SpeahxState:
        seats = rules.seats
        stock = layout["stock"]
        return SpeahxState(
            rules,
            tuple(tuple(parse_cards(" ".join(layout["hands"][p]))) for p in seats),
            tuple(tuple(parse_card(stock[f"{p}{k}"][0]) for k in range(1, TABLE_CARDS + 1)) for p in seats),
            parse_cards(" ".join(layout["draw_pile"])),
        )

    def move_from_event(self, state: SpeahxState, kind: str, fields: Mapping[str, Any]) -> None:
        return None  # every Speahx move is one the engine lists

    def counts(self, state: SpeahxState) -> dict[str, int]:
        return {p: state.holds(p) for p in state.players}

    def to_move(self, state: SpeahxState) -> str:
        return str(state.to_move)

    def misplays(self, state: SpeahxState, player: str) -> list[Play]:
        """Single hand cards that match the top card in neither suit nor rank."""
        if state.chance or not state.pile:
            return []
        hand = state.hands[state.players.index(player)]
        return [
            move for move in (Play(player, (card,)) for card in sorted(set(hand)) if not _special(card.code))
            if state.check(move) is not None
        ]

    def choose(self, state: SpeahxState, player: str, moves: list[Any], rng: random.Random) -> Any:
        """Lay the most cards of an ordinary rank; a special card only when nothing else goes; then
        a chance card; pick up the pile last. Now and then (`WHIM`) any lay that goes."""
        lays = [m for m in moves if m.event()[0] in ("play", "turn_up")]
        if lays and rng.random() < WHIM:
            return rng.choice(lays)
        best: list[Any] = []
        best_score: tuple[int, int] | None = None
        draws = []
        pickups = []
        for move in moves:
            kind, fields = move.event()
            if kind in ("play", "turn_up"):
                cards = fields.get("cards", [fields["card"]])
                score = (int(any(_special(code) for code in cards)), -len(cards))
                if best_score is None or score < best_score:
                    best, best_score = [move], score
                elif score == best_score:
                    best.append(move)
            elif kind == "draw_chance":
                draws.append(move)
            else:
                pickups.append(move)
        return rng.choice(best or draws or pickups)

    def events(self, before: SpeahxState, move: Any, after: SpeahxState) -> list[tuple[str, dict[str, Any]]]:
        return list(after.last_events) or [move.event()]


def _special(code: str) -> bool:
    """A card a player keeps for later: a joker, a wild 2 or a burning 10."""
    return code == "JK" or code[:-1] in (str(TWO), str(TEN))
