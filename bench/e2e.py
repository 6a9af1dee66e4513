"""End-to-end benchmark of `referee run`: rendered games (cached) through vision, tracker and referee, scored against their ground truth, timed on 2 threads.

    python bench/e2e.py [--games 10 | --seeds 9001 ... | --held-out] [--max-seconds S] [--reader detector|truth]
                        [--width 1280 --height 720] [--cache DIR]

Seeds 9001-9020 are the development games (looked at game by game; the tests watch seed 7,
bench/judge.py 1001-1010). `--held-out` plays seeds 9901-9920, kept out of development: they are
measured, never debugged, and give the figure the issue asks for. (Until 24 Nov the held-out games
were 9101-9120; after two vision branches had been turned down on their figures they were no longer
blind, and became a development set.)
Videos are cached per version of the simulator and renderer (a digest of their sources in the
file name); runs sharing a cache folder render a game once, the others waiting for it (a lock
file per game). `--max-seconds` renders and judges only the start of each game (true events in the last
`--settle-s` seconds of the stretch and after it are optional: scored only where called). `--reader truth` reads zones from the render's
own timeline instead of the card detector: it measures everything but the detector (hands,
change detection, timing, the referee on real occlusion). Reports plays recall and precision,
illegal-play recall, false flags per 10 games, "Spit!" latency and calls made while a move
existed, slap verdicts on true margins of at least one frame, event time errors in frames, the
real-time factor and ms per frame (wall and CPU, decoding included), the hands' first contacts
against the true touches (`referee.judge.contacts`: cards landing, cards turned in place, slaps),
latency from a card landing to its call, and peak memory.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy
import onnxruntime

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's package, whichever one is installed

from referee.events import Event, read_events  # noqa: E402
from referee.judge.contacts import ContactScore, score_contacts  # noqa: E402
from referee.judge.score import SPIT_CALL_BOUND_S, Score, score  # noqa: E402
from referee.observations import Observation  # noqa: E402
from referee.pipeline import Pipeline, PipelineConfig, VideoFile  # noqa: E402
from referee.render import RenderOptions  # noqa: E402
from referee.render.cache import cached_game  # noqa: E402
from referee.render.truth import TruthReader  # noqa: E402

DEFAULT_SEEDS = list(range(9001, 9021))
HELD_OUT_SEEDS = list(range(9901, 9921))


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seeds", type=int, nargs="*", help="game seeds (default: the first --games of 9001-9020)")
    parser.add_argument("--held-out", action="store_true", help="the 20 games kept out of development (9901-9920)")
    parser.add_argument("--max-seconds", type=float, help="only the first S seconds of each game")
    parser.add_argument("--settle-s", type=float, default=1.0, help="true events in the last S s of a stretch are optional (scored only where called)")
    parser.add_argument("--reader", choices=("detector", "truth"), default="detector")
    parser.add_argument("--models", type=Path, help="folder of the two ONNX models for the detector reader (default: the package's)")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=720)
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "spit-referee" / "e2e")
    parser.add_argument("--verbose", action="store_true", help="print each game's calls and misses")
    parser.add_argument("--observations", action="store_true", help="keep each game's observation stream in the cache")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    cv2.setNumThreads(2)
    if args.held_out and args.seeds:
        parser.error("--held-out and --seeds name different games: give one")
    seeds = HELD_OUT_SEEDS if args.held_out else args.seeds or DEFAULT_SEEDS[: args.games]
    args.cache.mkdir(parents=True, exist_ok=True)
    options = RenderOptions(args.width, args.height, max_seconds=args.max_seconds)
    detector = None
    if args.reader == "detector":
        from referee.vision.detector import CardDetector, DetectorSettings
        from referee.vision.observe import DetectorReader

        detector = DetectorReader(CardDetector(*([args.models] if args.models else []), settings=DetectorSettings(threads=2)))
    total = Score()
    hands = ContactScore()
    wall: list[float] = []
    cpu: list[float] = []
    video_s = 0.0
    spent_s = 0.0
    landing: list[float] = []
    for seed in seeds:
        video = cached_game(args.cache, seed, options)
        truth_all = list(read_events(video.with_suffix(".jsonl")))
        oracle = TruthReader(truth_all, seed) if detector is None else None
        kept = (video.with_suffix(f".{args.reader}.obs.jsonl").open("w", encoding="utf-8")
                if args.observations else None)
        touching: list[Observation] = []

        def observed(obs: Observation, kept=kept, touching=touching) -> None:
            if any(hand.contact for hand in obs.hands):
                touching.append(obs)
            if kept is not None:
                kept.write(obs.to_json() + "\n")

        pipeline = Pipeline(oracle if oracle is not None else detector, PipelineConfig(), fps=30.0,
                            evidence_dir=args.cache / f"evidence-{seed}", on_observation=observed)
        calls: list[Event] = []
        source = iter(VideoFile(video))
        last_t = 0.0
        while True:
            w0, c0 = time.perf_counter(), time.process_time()
            frame = next(source, None)
            if frame is None:
                break
            if oracle is not None:
                oracle.at(frame.t)
            made = pipeline.feed(frame)
            w2, c2 = time.perf_counter(), time.process_time()
            reading = 0.0
            if oracle is not None and pipeline.observer is not None:
                reading = pipeline.observer.cost.detector_s  # the oracle's own cost is not the pipeline's
            wall.append(w2 - w0 - reading)
            cpu.append(c2 - c0 - reading)
            spent_s += w2 - w0 - reading
            calls.extend(made)
            last_t = frame.t
        if kept is not None:
            kept.close()
        video_s += last_t + 1 / 30
        end = last_t - args.settle_s
        truth = [e for e in truth_all if e.t <= end]
        judged = [e for e in calls if e.t <= end + 0.25]
        result = score(truth_all, judged, until=end)
        total.add(result)
        hands.add(score_contacts(truth, touching))
        landing.extend(result.latencies.get("play", []) + result.latencies.get("illegal_play", []))
        print(f"seed {seed}: {last_t:.1f} s, plays {result.matched.get('play', 0)}/{result.truth.get('play', 0)} "
              f"(+{result.unmatched('play')}), illegal {result.matched.get('illegal_play', 0)}/"
              f"{result.truth.get('illegal_play', 0)}, false flags {result.false_flags}, premature "
              f"{result.matched.get('premature_spit', 0)}/{result.truth.get('premature_spit', 0)}", file=sys.stderr)
        if args.verbose:
            for event in judged:
                print(f"    call {event.to_json()[:160]}", file=sys.stderr)
            for kind in sorted(set(result.truth) | set(result.judged)):
                if result.recall(kind) < 1 or result.precision(kind) < 1:
                    print(f"    {kind}: {result.matched.get(kind, 0)}/{result.truth.get(kind, 0)} matched, "
                          f"{result.unmatched(kind)} extra", file=sys.stderr)
    frame = 1 / 30
    errors = [e / frame for values in total.time_errors.values() for e in values]
    spit_lat = total.latencies.get("spit_call", [])
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    prefix = f", first {args.max_seconds:g} s of each" if args.max_seconds else ""
    print(f"\n{len(seeds)} games{prefix}, {video_s / 60:.1f} min of video at {args.width}x{args.height}, "
          f"reader: {args.reader}")
    print(f"packages         opencv {cv2.__version__}, onnxruntime {onnxruntime.__version__}, numpy {numpy.__version__} "
          "(the renders and the vision depend on them)")
    print(f"plays            recall {total.recall('play'):.2%}  precision {total.precision('play'):.2%}  "
          f"({total.truth.get('play', 0)} true)")
    print(f"illegal plays    recall {total.recall('illegal_play'):.2%}  ({total.truth.get('illegal_play', 0)} true)")
    for kind in ("premature_spit", "turn_up", "race", "spit", "move_to_space", "deal_end", "layout"):
        if total.truth.get(kind):
            print(f"{kind:<16} recall {total.recall(kind):.2%}  precision {total.precision(kind):.2%}  "
                  f"({total.truth[kind]} true)")
    print(f"false flags      {10 * total.false_flags / max(1, len(seeds)):.1f} per 10 games")
    print(f"plays withdrawn  {total.withdrawn} (called, then taken back by the referee: counted as called above)")
    print(f"Spit! calls      {total.matched.get('spit_call', 0)}/{total.truth.get('spit_call', 0)} "
          f"({total.spits_in_time()} within {SPIT_CALL_BOUND_S * 1000:.0f} ms), latency "
          f"median {statistics.median(spit_lat) * 1000 if spit_lat else float('nan'):.0f} ms, max "
          f"{max(spit_lat, default=float('nan')) * 1000:.0f} ms; called while a move existed: "
          f"{total.spits_while_move}")
    slaps = f"{total.slaps_right}/{total.slaps_decidable}" if total.slaps_decidable else "none in these games"
    print(f"slaps            right {slaps} (margin >= 1 frame), {total.slaps_close} too close")
    if errors:
        print(f"event times      error median {statistics.median(errors):.2f} frames, p95 {_pct(errors, 0.95):.2f}, "
              f"max {max(errors):.2f}; within one frame {sum(e <= 1.0 + 1e-6 for e in errors) / len(errors):.1%}")
    if args.verbose:
        for kind, values in sorted(total.time_errors.items()):
            within = sum(v / frame <= 1.0 + 1e-6 for v in values) / len(values)
            print(f"  {kind:<14} time error median {statistics.median(values) / frame:.2f} frames, max "
                  f"{max(values) / frame:.2f}, within one frame {within:.1%} ({len(values)})")
        for kind, values in sorted(total.latencies.items()):
            print(f"  {kind:<14} call latency median {statistics.median(values) * 1000:.0f} ms, max "
                  f"{max(values) * 1000:.0f} ms")
    print(f"speed            real-time factor {video_s / max(spent_s, 1e-9):.2f}, ms per frame (wall) median "
          f"{statistics.median(wall) * 1000:.1f} p95 {_pct(wall, 0.95) * 1000:.1f}; CPU median "
          f"{statistics.median(cpu) * 1000:.1f} p95 {_pct(cpu, 0.95) * 1000:.1f} (2 threads, decoding included"
          f"{'' if detector else ', no detector'})")
    for kind, what in (("landing", "cards landing"), ("turn_up", "cards turned"), ("slap", "slaps")):
        if hands.touches.get(kind):
            errs = hands.errors.get(kind, [])
            print(f"hand contacts    {what}: {hands.found.get(kind, 0)}/{hands.touches[kind]} found on their zone "
                  f"within 0.25 s; time error median {statistics.median(errs) * 1000 if errs else float('nan'):+.0f} ms, "
                  f"within one frame {sum(abs(e) <= frame + 1e-6 for e in errs) / max(1, len(errs)):.0%} of those found")
    if landing:
        print(f"landing -> call  median {statistics.median(landing) * 1000:.0f} ms, p95 {_pct(landing, 0.95) * 1000:.0f} ms"
              " (capture time of the calling frame)")
    print(f"peak memory      {peak_mb:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
