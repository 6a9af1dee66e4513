"""Simulated games of any rule set: one game with its ground-truth log, or many with a summary."""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, cast

from referee.events import Event
from referee.rules import get_rules
from referee.rules.base import GameState
from referee.simulate.engines import adapter
from referee.simulate.record import Recorder
from referee.simulate.spit_table import TableOps, TableSim
from referee.simulate.summary import GameTotals, Summary
from referee.simulate.timing import Mistakes, TimingProfile
from referee.simulate.turns import TurnOps, TurnSim


@dataclass(frozen=True)
class SimConfig:
    """The players' pace and carelessness."""

    timing: TimingProfile = field(default_factory=TimingProfile)
    mistakes: Mistakes = field(default_factory=Mistakes)


@dataclass(frozen=True)
class GameResult:
    """One simulated game: its winner (None for a tie), simulated length, event counts by type,
    the log (empty unless kept) and the final engine state."""

    rules: str
    winner: str | None
    duration_ms: int
    counts: Mapping[str, int]
    events: tuple[Event, ...]
    state: GameState

    def totals(self) -> GameTotals:
        return GameTotals(self.counts, self.winner, self.duration_ms, tuple(self.state.players))


def simulate_game(rules: Any, rng: random.Random, config: SimConfig = SimConfig(), *, keep_log: bool = True) -> GameResult:
    """Bots play one game of `rules` (a rule set or its name) to the end, drawing every shuffle,
    timing and choice from `rng`. Raises `UnknownRuleSet` for an unknown name."""
    if isinstance(rules, str):
        rules = get_rules(rules)
    ops = adapter(rules)
    state, layout = ops.start(rules, rng)
    timings = {p: config.timing.player(rng) for p in state.players}
    recorder = Recorder(keep_log)
    recorder.add(0, "layout", **layout)
    sim: TurnSim | TableSim
    if ops.turn_based:
        sim = TurnSim(state, cast(TurnOps, ops), rng, timings, config.mistakes, recorder)
    else:
        sim = TableSim(state, cast(TableOps, ops), rng, timings, config.mistakes, recorder)
    final, end = sim.run(), sim.now
    winner = final.winner()
    if not recorder.counts["game_end"]:  # unless the engine's last move was the game's end
        recorder.add(end, "game_end", winner=winner, counts=ops.counts(final))
    return GameResult(
        rules=str(rules.name), winner=winner, duration_ms=end,
        counts=MappingProxyType(dict(recorder.counts)),
        events=tuple(recorder.events()) if keep_log else (), state=final,
    )


def simulate_games(
    rules_name: str, games: int, seed: int, config: SimConfig = SimConfig(), *, log_first: bool = False
) -> tuple[Summary, GameResult | None]:
    """`games` games of one rule set from `seed` (game i's own seed is drawn from it); the summary
    and, with `log_first`, the first game with its log."""
    rules = get_rules(rules_name)
    master = random.Random(seed)
    first: GameResult | None = None
    totals = []
    began = time.perf_counter()
    for i in range(games):
        result = simulate_game(rules, random.Random(master.getrandbits(64)), config, keep_log=log_first and i == 0)
        if i == 0 and log_first:
            first = result
        totals.append(result.totals())
    return Summary.of(rules_name, totals, time.perf_counter() - began), first
