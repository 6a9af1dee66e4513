"""A whole game judged: what the tracker and the referee remember, and so the work each frame does over it, does not grow with the game's length; each test is named after the rule it checks."""

from __future__ import annotations

import random
from typing import Any

from referee.judge.camera import CameraConfig, Faults, observe_log
from referee.judge.judge import Judge
from referee.simulate import simulate_game

BOUND = 120
"""The most items any list, dict or set of the tracker or the referee may hold (a dict of lists
counted with its lists' items): a few seconds of touches, the last 16 moves, the last few
stretches of each zone, the last 30 s of calls."""


def _held(obj: Any) -> dict[str, int]:
    """The items each container attribute of `obj` holds (a dict's container values' items added)."""
    sizes = {}
    for name in dir(obj):
        value = getattr(obj, name, None) if not name.startswith("__") else None
        if isinstance(value, (list, dict, set, frozenset)):
            values = value.values() if isinstance(value, dict) else ()
            sizes[name] = len(value) + sum(len(v) for v in values if isinstance(v, (list, dict, set, frozenset)))
    return sizes


def test_what_the_referee_remembers_does_not_grow_with_the_number_of_plays() -> None:
    game = simulate_game("classic", random.Random(6))  # about 4 minutes of play
    judge = Judge("classic", fps=30.0)
    calls = 0
    most: dict[str, int] = {}
    for obs in observe_log(game.events, "classic", CameraConfig(fps=30.0, faults=Faults.realistic(), seed=6)):
        calls += len(judge.feed(obs))
        if obs.frame % 30 == 0:
            for owner, obj in (("referee", judge.referee), ("tracker", judge.tracker)):
                for name, size in _held(obj).items():
                    most[f"{owner}.{name}"] = max(most.get(f"{owner}.{name}", 0), size)
    assert calls > 2 * BOUND  # had it kept every touch judged (173 here), or every touch, it would hold more
    assert {name: size for name, size in most.items() if size > BOUND} == {}
