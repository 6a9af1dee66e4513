"""The rules engine: pure Python, no vision imports. `get_rules(name)` gives a named rule set.

>>> sorted(RULE_SETS)[:3]  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from referee.errors import UnknownRuleSet
from referee.rules.base import Game, GameState, Move, RuleSet

_FACTORIES: dict[str, Callable[[], Any]] = {}


def register(name: str, factory: Callable[[], Any]) -> None:
    """Register a named rule set (called by each game module for its presets)."""
    _FACTORIES[name] = factory


def _load_games() -> None:
    # Each game module registers its presets when imported.
    from referee.rules import spit  # noqa: F401
    from referee.rules import fulldeck, fourcard, speahx  # noqa: F401


def rule_set_names() -> list[str]:
    """Every registered rule-set name."""
    _load_games()
    return sorted(_FACTORIES)


def get_rules(name: str) -> Any:
    """The rule set registered under `name`; raises `UnknownRuleSet` listing the known names."""
    _load_games()
    try:
        return _FACTORIES[name]()
    except KeyError:
        raise UnknownRuleSet(
            f"unknown rule set {name!r}; known: {', '.join(sorted(_FACTORIES))}"
        ) from None


__all__ = ["Game", "GameState", "Move", "RuleSet", "get_rules", "register", "rule_set_names"]
