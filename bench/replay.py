"""The judge run again on the observation streams a `bench/e2e.py --observations` run kept, scored as that bench scores: seconds instead of minutes.

    python bench/replay.py [--cache DIR] [--reader truth|detector] --seeds 9001 ... [--max-seconds 30]
                           [--width 1280 --height 720] [--settle-s 1.0] [--verbose]

A stream holds what the vision saw in each frame, so a change to the judge or the tracker is
measured here against the same sight; a change to the vision needs a new `bench/e2e.py` run.
Streams are looked for beside the cached games of the current renderer (its digest in the file
names), as `bench/e2e.py --observations --cache DIR` leaves them. The held-out games are not
replayed: they are measured once, with `bench/e2e.py --held-out`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.events import Event, read_events  # noqa: E402
from referee.judge.judge import Judge  # noqa: E402
from referee.judge.score import SPIT_CALL_BOUND_S, Score, score  # noqa: E402
from referee.observations import Observation  # noqa: E402
from referee.pipeline import PipelineConfig  # noqa: E402
from referee.render.cache import renderer_version  # noqa: E402
from referee.tracker import TrackerConfig  # noqa: E402

from e2e import HELD_OUT_SEEDS  # noqa: E402  (bench/ is the script's folder)


def stream_of(cache: Path, seed: int, reader: str, width: int, height: int, max_seconds: float | None) -> Path:
    """The kept observation stream of a game as `bench/e2e.py` names it; exits with a message when missing."""
    tag = f"{width}x{height}" + (f"-{max_seconds:g}s" if max_seconds else "")
    path = cache / f"game-classic-{seed}-{tag}-{renderer_version()[:8]}.{reader}.obs.jsonl"
    if not path.is_file():
        sys.exit(f"bench/replay.py: no kept stream {path.name} in {cache} "
                 f"(run bench/e2e.py --reader {reader} --observations --cache {cache} first)")
    return path


def replay(stream: Path, fps: float = 30.0) -> list[Event]:
    """Every call the judge makes on a stream, with the pipeline's tracker settings."""
    config = PipelineConfig()
    judge = Judge("classic", tracker=TrackerConfig(settle_frames=config.settle_frames, min_confidence=config.min_confidence),
                  fps=fps)
    calls: list[Event] = []
    with stream.open(encoding="utf-8") as lines:
        for line in lines:
            calls.extend(judge.feed(Observation.from_json(line)))
    return calls


def spit_latencies(result: Score) -> str:
    """A game's matched "Spit!" call latencies (ms) and its calls made while a move existed, for its line."""
    made = ", ".join(f"{lat * 1000:.0f}" for lat in result.latencies.get("spit_call", []))
    return (f"[{made} ms]" if made else "") + (f", {result.spits_while_move} while a move existed" if result.spits_while_move else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", required=True)
    parser.add_argument("--reader", choices=("truth", "detector"), default="truth")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "spit-referee" / "e2e")
    parser.add_argument("--max-seconds", type=float, default=30.0)
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=720)
    parser.add_argument("--settle-s", type=float, default=1.0, help="true events in the last S s of a stretch are optional (scored only where called)")
    parser.add_argument("--verbose", action="store_true", help="print each game's calls")
    args = parser.parse_args(argv)
    if any(seed in HELD_OUT_SEEDS for seed in args.seeds):
        parser.error(f"seeds {HELD_OUT_SEEDS[0]}-{HELD_OUT_SEEDS[-1]} are held out: measure them once with bench/e2e.py --held-out")
    total = Score()
    landing: list[float] = []
    for seed in args.seeds:
        stream = stream_of(args.cache, seed, args.reader, args.width, args.height, args.max_seconds)
        calls = replay(stream)
        truth_all = list(read_events(stream.with_name(stream.name.replace(f".{args.reader}.obs.jsonl", ".jsonl"))))
        last_t = Observation.from_json(stream.read_text(encoding="utf-8").splitlines()[-1]).t
        end = last_t - args.settle_s
        result = score(truth_all, [e for e in calls if e.t <= end + 0.25], until=end)
        total.add(result)
        landing.extend(result.latencies.get("play", []) + result.latencies.get("illegal_play", []))
        print(f"seed {seed}: plays {result.matched.get('play', 0)}/{result.truth.get('play', 0)} (+{result.unmatched('play')}), "
              f"illegal {result.matched.get('illegal_play', 0)}/{result.truth.get('illegal_play', 0)}, "
              f"false flags {result.false_flags}, Spit! {result.matched.get('spit_call', 0)}/"
              f"{result.truth.get('spit_call', 0)} {spit_latencies(result)}".rstrip()
              + f", premature {result.matched.get('premature_spit', 0)}/{result.truth.get('premature_spit', 0)}")
        if args.verbose:
            for event in calls:
                print(f"    call {event.to_json()[:160]}")
    print(f"\n{len(args.seeds)} games replayed ({args.reader} reader's streams)")
    print(f"plays            recall {total.recall('play'):.2%}  precision {total.precision('play'):.2%}  "
          f"({total.truth.get('play', 0)} true)")
    print(f"illegal plays    recall {total.recall('illegal_play'):.2%}  ({total.truth.get('illegal_play', 0)} true)")
    print(f"premature spits  recall {total.recall('premature_spit'):.2%}  precision {total.precision('premature_spit'):.2%}  "
          f"({total.truth.get('premature_spit', 0)} true)")
    print(f"turn-ups         recall {total.recall('turn_up'):.2%}  precision {total.precision('turn_up'):.2%}  "
          f"({total.matched.get('turn_up', 0)} of {total.truth.get('turn_up', 0)} true matched)")
    print(f"false flags      {total.false_flags * 10 / max(1, total.games):.1f} per 10 games")
    print(f"plays withdrawn  {total.withdrawn} (called, then taken back by the referee: counted as called above)")
    spit_lat = total.latencies.get("spit_call", [])
    print(f"Spit! calls      {total.matched.get('spit_call', 0)}/{total.truth.get('spit_call', 0)} "
          f"({total.spits_in_time()} within {SPIT_CALL_BOUND_S * 1000:.0f} ms), latency "
          f"median {statistics.median(spit_lat) * 1000 if spit_lat else float('nan'):.0f} ms, max "
          f"{max(spit_lat, default=float('nan')) * 1000:.0f} ms; called while a move existed: "
          f"{total.spits_while_move}")
    slaps = f"{total.slaps_right}/{total.slaps_decidable}" if total.slaps_decidable else "none in these games"
    print(f"slaps            right {slaps} (margin >= 1 frame), {total.slaps_close} too close")
    errors = [e * 30.0 for values in total.time_errors.values() for e in values]  # in frames of 1/30 s
    if errors:
        print(f"event times      within one frame {sum(e <= 1.0 + 1e-6 for e in errors) / len(errors):.1%} "
              f"({len(errors)} matched events)")
    if landing:
        print(f"landing -> call  median {statistics.median(landing) * 1000:.0f} ms, p95 "
              f"{sorted(landing)[min(len(landing) - 1, int(0.95 * len(landing)))] * 1000:.0f} ms (capture time of the calling frame)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
