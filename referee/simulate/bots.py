"""The simulated players' choice of move: a card onto a centre pile first, then the other moves that
always help, then a move that opens something new; never a pointless shuffle between places."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from referee.rules.base import GameState, Move

PLAY_KINDS = frozenset({"play", "play_drawn", "hand_play"})
"""Event types of moves that put a card onto a centre pile (where cards race)."""

PRIORITY: tuple[str, ...] = ("play", "play_drawn", "hand_play", "turn_up", "refill", "place_drawn", "draw")
"""Event types of moves always worth making, best first: a card onto a centre pile, turning a
card face up, refilling a stock place, placing or drawing a card."""


@dataclass(frozen=True)
class Bot:
    """A player's policy: among the moves of the best kind in `priority`, one at random (a human
    takes the first one they notice); else a move of another kind that makes a new move of those
    kinds possible; otherwise wait. (Spit's adapter ranks the engine's `useful_moves` itself.)"""

    priority: tuple[str, ...] = PRIORITY

    def choose(self, state: GameState, player: str, moves: Sequence[Move], rng: random.Random) -> Move | None:
        """The move `player` makes now out of their legal `moves`, or None to wait."""
        if not moves:
            return None
        best: list[Move] = []
        others: list[Move] = []
        best_rank = len(self.priority)
        for move in moves:
            kind = move.event()[0]
            if kind not in self.priority:
                others.append(move)
                continue
            k = self.priority.index(kind)
            if k < best_rank:
                best, best_rank = [move], k
            elif k == best_rank:
                best.append(move)
        if best:
            return rng.choice(best)
        useful = [m for m in others if self._opens(state, player, m)]
        return rng.choice(useful) if useful else None

    def _opens(self, state: GameState, player: str, move: Move) -> bool:
        """After `move`, `player` has a move of a priority kind that they did not have before."""
        return bool(self._openers(state.apply(move), player) - self._openers(state, player))

    def _openers(self, state: GameState, player: str) -> set[tuple[str, str, str]]:
        """The player's priority moves as (kind, card, where to) — where a card comes from does not
        count, so moving a lone card between places opens nothing."""
        found = set()
        for move in state.legal_moves(player):
            kind, fields = move.event()
            if kind in self.priority:
                found.add((kind, str(fields.get("card", "")), str(fields.get("to", fields.get("pile", "")))))
        return found
