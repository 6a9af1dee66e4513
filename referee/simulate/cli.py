"""`referee simulate`: bots play many games of a rule set; prints a summary, optionally logs the first game."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from referee.events import EventLog
from referee.simulate.play import SimConfig, simulate_games
from referee.simulate.timing import MAX_MISTAKE_RATE, Mistakes, TimingProfile
from referee.cli_args import count, positive_float, positive_int


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", default="classic", help="rule set (see `referee rules`); default classic")
    parser.add_argument("--games", type=positive_int, default=100, help="games to play (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="random seed; the same seed gives the same games")
    parser.add_argument("--speed", type=positive_float, default=1.0,
                        help="players' pace: 2 halves every reaction and hand travel (default 1)")
    parser.add_argument("--mistakes", type=_rate, default=Mistakes().rate,
                        help="chance per decision of misplaying a card; premature spits and wrong slaps scale "
                             f"with it (default {Mistakes().rate})")
    parser.add_argument("--jobs", type=count, default=1, metavar="N",
                        help="processes playing the games (0: one per CPU core; default 1); the games are the same")
    parser.add_argument("--log", type=Path, metavar="FILE",
                        help="write the first game's ground-truth event log (JSON Lines) to FILE")


def run(args: argparse.Namespace) -> int:
    config = SimConfig(timing=TimingProfile(speed=args.speed), mistakes=Mistakes(rate=args.mistakes))
    jobs = args.jobs or os.cpu_count() or 1
    summary, first = simulate_games(args.rules, args.games, args.seed, config, log_first=args.log is not None, jobs=jobs)
    if args.log is not None:
        args.log.unlink(missing_ok=True)
        with EventLog(args.log, fsync=False) as log:
            log.extend(first.events if first is not None else ())
    print(summary.text())
    if args.log is not None:
        print(f"event log           {args.log} (game 1, {len(first.events) if first else 0} events)")
    return 0


def _rate(text: str) -> float:
    value = float(text)
    if not 0 <= value <= MAX_MISTAKE_RATE:
        raise argparse.ArgumentTypeError(f"must lie between 0 and {MAX_MISTAKE_RATE}")
    return value
