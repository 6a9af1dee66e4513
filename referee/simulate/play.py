"""Simulated games of any rule set: one game with its ground-truth log, or many with a summary."""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import repeat
from types import MappingProxyType
from typing import cast

from referee.events import Event
from referee.rules import get_rules
from referee.rules.base import GameState, RuleSet
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
        return GameTotals(dict(self.counts), self.winner, self.duration_ms, tuple(self.state.players))


def simulate_game(
    rules: RuleSet | str, rng: random.Random, config: SimConfig = SimConfig(), *, keep_log: bool = True
) -> GameResult:
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
    rules_name: str,
    games: int,
    seed: int,
    config: SimConfig = SimConfig(),
    *,
    log_first: bool = False,
    jobs: int = 1,
) -> tuple[Summary, GameResult | None]:
    """`games` games of one rule set from `seed` (game i's own seed is the i-th number drawn from
    it, so the games do not depend on `jobs`, the number of processes playing them); the summary
    and, with `log_first`, the first game with its log. Raises `UnknownRuleSet` for a bad name."""
    rules = get_rules(rules_name)
    master = random.Random(seed)
    seeds = [master.getrandbits(64) for _ in range(games)]
    began = time.perf_counter()
    first = simulate_game(rules, random.Random(seeds[0]), config, keep_log=log_first) if seeds else None
    totals = [first.totals()] if first is not None else []
    rest = seeds[1:]
    if jobs > 1 and len(rest) >= 2 * jobs:
        size = -(-len(rest) // (4 * jobs))
        chunks = [rest[i : i + size] for i in range(0, len(rest), size)]
        with ProcessPoolExecutor(jobs) as pool:
            for part in pool.map(_play_seeds, repeat(rules_name), chunks, repeat(config)):
                totals.extend(part)
    else:
        totals.extend(_play_seeds(rules_name, rest, config))
    return Summary.of(rules_name, totals, time.perf_counter() - began), (first if log_first else None)


def _play_seeds(rules_name: str, seeds: list[int], config: SimConfig) -> list[GameTotals]:
    """The totals of one game per seed (run in a worker process when there are several)."""
    rules = get_rules(rules_name)
    return [simulate_game(rules, random.Random(s), config, keep_log=False).totals() for s in seeds]
