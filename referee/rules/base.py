"""What every game of the rules engine shares: the state protocol, moves, and a push/pop game record.

Each game (classic Spit and its variants, full-deck Spit, four-card layout Spit, Speahx) has an
immutable state class following `GameState`; applying a move returns a new state or raises
`IllegalMove` whose message names the broken rule in a player's words. `Game` keeps the history
so that moves can be pushed and popped like python-chess's `Board`.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from referee.cards import Card


@runtime_checkable
class Move(Protocol):
    """One explicit thing done at the table. Every move names who makes it (`player`, or None
    for what the table does as a whole, such as a spit by both players). `describe()` says it
    in a player's words; `event()` gives the type and fields of its INTERFACES.md log event."""

    player: str | None

    def describe(self) -> str: ...

    def event(self) -> tuple[str, dict[str, Any]]: ...


@runtime_checkable
class RuleSet(Protocol):
    """A game's configuration: an immutable, named object that can start a game."""

    name: str

    def new_game(self, rng: random.Random) -> "GameState": ...


S = TypeVar("S", bound="GameState")


@runtime_checkable
class GameState(Protocol):
    """An immutable position of one game."""

    rules: Any

    @property
    def players(self) -> tuple[str, ...]: ...

    def legal_moves(self, player: str | None = None) -> Iterator[Move]:
        """Lazily, every legal move (of `player` only, when given)."""
        ...

    def apply(self: S, move: Move) -> S:
        """The state after `move`; raises `IllegalMove` naming the broken rule."""
        ...

    def check(self, move: Move) -> str | None:
        """None when `move` is legal here, else the reason in a player's words."""
        ...

    def is_over(self) -> bool: ...

    def winner(self) -> str | None: ...

    def cards(self) -> Counter[Card]:
        """Every card in the state, wherever it lies (used to prove no card is lost or doubled)."""
        ...


class Game(Generic[S]):
    """A game record: the current state with push/pop over its history of moves.

    >>> from referee.rules import get_rules
    >>> g = Game(get_rules("classic").new_game(random.Random(1)))
    >>> move = next(g.state.legal_moves())
    >>> g.push(move); len(g.moves)
    1
    >>> g.pop() == move, len(g.moves)
    (True, 0)
    """

    def __init__(self, state: S) -> None:
        self._states: list[S] = [state]
        self.moves: list[Move] = []

    @property
    def state(self) -> S:
        return self._states[-1]

    def push(self, move: Move) -> None:
        """Apply `move` (raises `IllegalMove` and changes nothing if it is illegal)."""
        self._states.append(self.state.apply(move))
        self.moves.append(move)

    def pop(self) -> Move:
        """Take back the last move and return it."""
        if not self.moves:
            raise IndexError("no move to take back")
        self._states.pop()
        return self.moves.pop()

    def legal_moves(self, player: str | None = None) -> Iterator[Move]:
        return self.state.legal_moves(player)
