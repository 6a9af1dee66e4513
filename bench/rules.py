"""Benchmark of the classic Spit engine: "can anyone move" per position and whole greedy games per second.

Run `python3 bench/rules.py [--games N] [--runs R] [--rules NAME]`; prints the median over runs of
(1) the time of `SpitState.can_anyone_move()` on mid-game positions (each position queried once,
nothing cached) and (2) whole games (all deals, dealing included) played per second on one core
by the greedy policy `greedy_game`. Times are CPU time of this process (`time.process_time`), so
that other jobs on a shared machine disturb them less; a reference loop shows the machine's speed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's package, whichever one is installed

from referee.rules.spit import PRESETS, ChoosePile, Slap, SpitRules, SpitState  # noqa: E402


def greedy_move(state: SpitState, player: str) -> object | None:
    """The greedy choice of one player: a play if any, else a turn-up or refill, else a move
    that uncovers a card, else the smaller spit pile when they choose one (None: nothing to do)."""
    move = next(state.useful_moves(player), None)
    if isinstance(move, ChoosePile):
        choices = [m for m in state.useful_moves(player) if isinstance(m, ChoosePile)]
        return min(choices, key=lambda m: (len(state.pile(m.pile)), m.pile))
    return move


def table_move(state: SpitState, rng: random.Random) -> object:
    """The table's move when no player has one: a Spit, a reshuffle, a slap (both reach for the
    smaller pile, the first player out gets there first), or a new layout shuffled with `rng`."""
    if state.phase == "layout":
        return state.shuffled_layout(rng)
    if state.slap_due:
        names = state.rules.spit_pile_names
        smaller = min(names, key=lambda name: (len(state.pile(name)), name))
        first = (state.deal_ender() or (state.players[0], ""))[0]
        return Slap(tuple((p, smaller, 0.0 if p == first else 0.1) for p in state.players))
    move = next(state.table_moves(), None)
    if move is None:
        raise RuntimeError(f"no move in {state!r}")
    return move


def greedy_game(rules: SpitRules, rng: random.Random, positions: list[SpitState] | None = None) -> int:
    """Plays one whole game with both players greedy, A first in each round; returns the number of
    moves. Mid-game positions are appended to `positions` when given."""
    state = rules.new_game(rng)
    players = state.players
    moves = 0
    while not state.is_over():
        moved = False
        for player in players:
            move = next(state.useful_moves(player), None)  # greedy_move, its usual case inline
            if type(move) is ChoosePile:
                move = greedy_move(state, player)
            if move is not None:
                state = state.apply(move)  # type: ignore[arg-type]
                moves += 1
                moved = True
                if positions is not None and state.phase == "play":
                    positions.append(state)
        if not moved:
            state = state.apply(table_move(state, rng))  # type: ignore[arg-type]
            moves += 1
    return moves


def bench_can_anyone_move(rules: SpitRules, runs: int, seed: int) -> tuple[float, int]:
    positions: list[SpitState] = []
    rng = random.Random(seed)
    while len(positions) < 2000:
        greedy_game(rules, rng, positions)
    sample = positions[:: max(1, len(positions) // 2000)][:2000]
    per_call = []
    for _ in range(runs):
        start = time.process_time()
        for state in sample:
            state.can_anyone_move()
        per_call.append((time.process_time() - start) / len(sample))
    return statistics.median(per_call) * 1e6, len(sample)


def bench_games(rules: SpitRules, games: int, runs: int, seed: int) -> tuple[float, float]:
    rates = []
    moves = 0
    for run in range(runs):
        rng = random.Random(seed + run)
        start = time.process_time()
        moves = sum(greedy_game(rules, rng) for _ in range(games))
        rates.append(games / (time.process_time() - start))
    return statistics.median(rates), moves / games


def reference_us() -> float:
    """CPU time of a fixed pure-Python loop (`sum(range(100))`), to judge how loaded the machine is:
    compare it with the same figure from an idle run on the same machine."""
    start = time.process_time()
    for _ in range(20000):
        sum(range(100))
    return (time.process_time() - start) / 20000 * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per run (default 200)")
    parser.add_argument("--runs", type=int, default=5, help="runs; the median is printed (default 5)")
    parser.add_argument("--rules", default="classic", choices=sorted(PRESETS))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rules = PRESETS[args.rules]
    before = reference_us()
    us, n = bench_can_anyone_move(rules, args.runs, args.seed)
    print(f"can_anyone_move: {us:.2f} µs per mid-game position (median of {args.runs} runs over {n} positions)")
    rate, moves = bench_games(rules, args.games, args.runs, args.seed)
    print(f"greedy games: {rate:.0f} whole {rules.name} games/s on one core "
          f"(median of {args.runs} runs of {args.games} games, {moves:.0f} moves a game)")
    print(f"machine: sum(range(100)) took {before:.2f} µs before and {reference_us():.2f} µs after")


if __name__ == "__main__":
    main()
