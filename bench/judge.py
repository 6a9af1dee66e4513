"""Benchmark of the vision-free referee: simulated games filmed by the perfect camera with faults, judged, scored against the truth.

    python bench/judge.py [SEED ...] [--rules classic] [--faults realistic] [--settle 3]

Default seeds (1001-1010) stay away from the tests' seeds. Reports plays recall and precision,
illegal-play recall, false flags per 10 games, "Spit!" latency from the true stalemate (and any
called while a move existed), slap verdicts on true margins of at least one frame, event time
errors in frames, call latency, and the tracker + referee cost in µs per frame (observations
are built beforehand and not timed).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's package, whichever one is installed

from referee.judge.camera import CameraConfig, Faults, observe_log  # noqa: E402
from referee.judge.judge import Judge  # noqa: E402
from referee.judge.score import SPIT_CALL_BOUND_S, Score, score  # noqa: E402
from referee.simulate import simulate_game  # noqa: E402
from referee.tracker import TrackerConfig  # noqa: E402

FAULTS = {"none": Faults(), "realistic": Faults.realistic(), "harsh": Faults.harsh()}
DEFAULT_SEEDS = list(range(1001, 1011))


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seeds", nargs="*", type=int, help="game seeds (default 1001-1010)")
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--faults", choices=sorted(FAULTS), default="realistic")
    parser.add_argument("--settle", type=int, default=TrackerConfig().settle_frames, help="tracker k (frames)")
    parser.add_argument("--verbose", action="store_true", help="print each game's misses")
    args = parser.parse_args(argv)
    seeds = args.seeds or DEFAULT_SEEDS
    total = Score()
    frames = 0
    resyncs = 0
    seconds = 0.0
    played = 0.0
    fps = 30.0
    for seed in seeds:
        game = simulate_game(args.rules, random.Random(seed))
        camera = CameraConfig(fps=fps, faults=FAULTS[args.faults], seed=seed)
        observations = list(observe_log(game.events, args.rules, camera))
        judge = Judge(args.rules, tracker=replace(TrackerConfig(), settle_frames=args.settle), fps=fps)
        calls = []
        began = time.perf_counter()
        for obs in observations:
            calls.extend(judge.feed(obs))
        seconds += time.perf_counter() - began
        frames += len(observations)
        resyncs += getattr(judge.referee, "resyncs", 0)
        played += game.duration_ms / 1000
        result = score(game.events, calls, frame_interval_s=1 / fps)
        total.add(result)
        print(f"seed {seed}: {game.duration_ms / 1000:6.1f} s, {len(observations)} frames, plays "
              f"{result.matched.get('play', 0)}/{result.truth.get('play', 0)} (+{result.unmatched('play')}), illegal "
              f"{result.matched.get('illegal_play', 0)}/{result.truth.get('illegal_play', 0)}, false flags "
              f"{result.false_flags}", file=sys.stderr)
        if args.verbose:
            for kind in sorted(result.truth):
                if result.recall(kind) < 1 or result.precision(kind) < 1:
                    print(f"    {kind}: {result.matched.get(kind, 0)}/{result.truth[kind]} matched, "
                          f"{result.unmatched(kind)} extra", file=sys.stderr)
    frame = 1 / fps
    errors = [e for values in total.time_errors.values() for e in values]
    spit_lat = total.latencies.get("spit_call", [])
    play_lat = total.latencies.get("play", [])
    print(f"\n{len(seeds)} games of {args.rules}, {played / 60:.1f} min of play, {frames} frames at {fps:.0f} fps, "
          f"faults {args.faults}, k = {args.settle}")
    print(f"plays            recall {total.recall('play'):.2%}  precision {total.precision('play'):.2%}  "
          f"({total.truth.get('play', 0)} true)")
    print(f"illegal plays    recall {total.recall('illegal_play'):.2%}  precision {total.precision('illegal_play'):.2%}  "
          f"({total.truth.get('illegal_play', 0)} true)")
    print(f"false flags      {total.false_flags} ({10 * total.false_flags / len(seeds):.2f} per 10 games; "
          f"illegal {total.unmatched('illegal_play')}, premature spit {total.unmatched('premature_spit')})")
    for kind in ("turn_up", "move_to_space", "spit", "race", "premature_spit", "deal_end", "layout", "game_end"):
        if total.truth.get(kind) or total.judged.get(kind):
            print(f"{kind:16} recall {total.recall(kind):.2%}  precision {total.precision(kind):.2%}  "
                  f"({total.truth.get(kind, 0)} true)")
    print(f"Spit! calls      recall {total.recall('spit_call'):.2%} ({total.spits_in_time()} of "
          f"{total.truth.get('spit_call', 0)} within {SPIT_CALL_BOUND_S * 1000:.0f} ms); latency from the true stalemate: median "
          f"{1000 * statistics.median(spit_lat):.0f} ms, p95 {1000 * _pct(spit_lat, 0.95):.0f} ms, max "
          f"{1000 * max(spit_lat):.0f} ms; called with no true stalemate: {total.spits_while_move}"
          if spit_lat else "Spit! calls      none")
    decidable = total.slaps_decidable
    print(f"slaps            {total.slaps_right}/{decidable} right with margin >= one frame "
          f"({total.slaps_right / decidable:.2%}); {total.slaps_close} closer than a frame" if decidable
          else f"slaps            none decidable; {total.slaps_close} closer than a frame")
    if errors:
        within = sum(e <= frame + 1e-6 for e in errors) / len(errors)
        print(f"event times      {within:.2%} within one frame, mean {statistics.mean(errors) / frame:.2f} frames, "
              f"max {max(errors) / frame:.1f} frames ({len(errors)} matched events)")
    if play_lat:
        print(f"play call delay  median {1000 * statistics.median(play_lat):.0f} ms, p95 {1000 * _pct(play_lat, 0.95):.0f} ms, "
              f"p99 {1000 * _pct(play_lat, 0.99):.0f} ms from the card landing (budget 300 ms)")
    print(f"re-reads         {resyncs} (the table read again after showing what no move explained for 2 s)")
    print(f"judge cost       {1e6 * seconds / frames:.1f} µs per frame (tracker + referee)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
