"""The turn-based table loop (Speahx): the player to move thinks, lays cards, and the engine says what followed."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from referee.rules.base import GameState, Move
from referee.simulate.adapter import Adapter
from referee.simulate.record import Recorder, seconds
from referee.simulate.spit_table import StuckGame
from referee.simulate.timing import Mistakes, PlayerTiming

THINK_FACTOR = 2.5
"""A turn's decision takes this many reaction times (weighing a hand is slower than spotting a card)."""


class TurnOps(Adapter, Protocol):
    """What the turn loop needs from a turn-based game."""

    def to_move(self, state: GameState) -> str:
        """The player whose turn it is."""
        ...

    def misplays(self, state: GameState, player: str) -> list[Move]:
        """Lays that break a rule which a careless `player` could make now."""
        ...

    def choose(self, state: GameState, player: str, moves: list[Move], rng: random.Random) -> Move:
        """The bot's move out of the legal `moves` (never empty)."""
        ...

    def events(self, before: GameState, move: Move, after: GameState) -> list[tuple[str, dict[str, Any]]]:
        """What happened at the table when `move` turned `before` into `after`, in order."""
        ...


@dataclass
class TurnSim:
    """One turn-based game in integer milliseconds: each turn the player to move thinks for a few
    reaction times, their hand lays the cards (or takes back a misplay), and what the engine says
    followed (burns, draws, a player going out, the game's end) is logged a hand's travel apart."""

    state: GameState
    ops: TurnOps
    rng: random.Random
    timings: Mapping[str, PlayerTiming]
    mistakes: Mistakes
    recorder: Recorder
    now: int = 0
    max_ms: int = 24 * 3600 * 1000

    def run(self) -> GameState:
        """Play the game to its end; the final state."""
        while not self.state.is_over():
            if self.now > self.max_ms:
                raise StuckGame(f"the game has not ended after {seconds(self.max_ms)}s of play")
            player = self.ops.to_move(self.state)
            timing = self.timings[player]
            decided = self.now + round(timing.reaction(self.rng) * THINK_FACTOR)
            start = decided + timing.travel(self.rng) // 3
            touch = start + timing.travel(self.rng)
            if self.rng.random() < self.mistakes.illegal:
                misplays = self.ops.misplays(self.state, player)
                if misplays:
                    self._misplay(self.rng.choice(misplays), start, touch)
                    continue
            moves = list(self.state.legal_moves(player))
            if not moves:
                raise StuckGame(f"{player} is to move but has no legal move")
            move = self.ops.choose(self.state, player, moves, self.rng)
            after = self.state.apply(move)
            t = touch
            for number, (kind, fields) in enumerate(self.ops.events(self.state, move, after)):
                if number:
                    t += timing.travel(self.rng) // 2
                extra = {"start": seconds(start)} if kind in ("play", "turn_up") else {}
                self.recorder.add(t, kind, **fields, **extra)
            self.state = after
            self.now = t
        return self.state

    def _misplay(self, move: Move, start: int, touch: int) -> None:
        kind, fields = move.event()
        player = str(fields["player"])
        back = touch + self.timings[player].travel(self.rng)
        self.recorder.add(
            touch, "illegal_play", player=player, card=fields["card"], to=fields["to"],
            reason=self.state.check(move) or "", start=seconds(start), back=seconds(back),
            **{"from": fields["from"]}, cards=fields.get("cards", [fields["card"]]),
        )
        self.now = back
