"""Which adapter (and so which table loop) simulates a rule set, chosen by the engine module of its rules."""

from __future__ import annotations

from typing import Any

from referee.simulate.spit_table import TableOps
from referee.simulate.turns import TurnOps

_OWN_DECK = ("referee.rules.owndeck", "referee.rules.fulldeck", "referee.rules.fourcard")


def adapter(rules: Any) -> TableOps | TurnOps:
    """The adapter of `rules`: a `TurnOps` for a turn-based game (Speahx), else a `TableOps`."""
    module = type(rules).__module__
    if module == "referee.rules.speahx":
        from referee.simulate.speahx_ops import SpeahxOps

        return SpeahxOps()
    if module in ("referee.rules.spit_options", "referee.rules.spit"):
        from referee.simulate.spit_ops import SpitOps

        return SpitOps()
    if module in _OWN_DECK:
        from referee.simulate.owndeck_ops import OwnDeckOps

        return OwnDeckOps()
    raise TypeError(f"no simulation adapter for the rules {type(rules).__name__} of {module}")
