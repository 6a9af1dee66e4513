"""What the simulator needs from every game besides the `GameState` protocol: dealing, counts, rebuilding moves."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Protocol

from referee.rules.base import GameState, Move


class Adapter(Protocol):
    """A game's adapter. `start` deals a new game with the simulator's random numbers and gives
    the fields of its `layout` event (enough for `restart` to rebuild the same position);
    `move_from_event` rebuilds a table move the engine cannot list (a slap at given times, a
    layout of given cards) from its logged event, for replaying a log. `turn_based` games go to
    the turn loop (`TurnOps`), the others to the table loop (`TableOps`)."""

    turn_based: bool

    def start(self, rules: Any, rng: random.Random) -> tuple[GameState, dict[str, Any]]: ...

    def restart(self, rules: Any, layout: Mapping[str, Any]) -> GameState: ...

    def counts(self, state: GameState) -> dict[str, int]:
        """Cards each player still holds."""
        ...

    def move_from_event(self, state: GameState, kind: str, fields: Mapping[str, Any]) -> Move | None: ...
