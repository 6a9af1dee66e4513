"""Which table loop and adapter simulate a game, chosen by the engine module of its state."""

from __future__ import annotations

from referee.rules.base import GameState
from referee.simulate.spit_table import TableOps
from referee.simulate.turns import TurnOps

_OWN_DECK = ("referee.rules.owndeck", "referee.rules.fulldeck", "referee.rules.fourcard")


def turn_ops(state: GameState) -> TurnOps | None:
    """The turn-loop adapter of a turn-based game (Speahx), else None."""
    if type(state).__module__ == "referee.rules.speahx":
        from referee.simulate.speahx_ops import SpeahxOps

        return SpeahxOps()
    return None


def table_ops(state: GameState) -> TableOps:
    """The table-loop adapter of a simultaneous-play game."""
    module = type(state).__module__
    if module in _OWN_DECK:
        from referee.simulate.owndeck_ops import OwnDeckOps

        return OwnDeckOps()
    raise TypeError(f"no simulation adapter for {type(state).__name__} of {module}")
