"""Zone-reading benchmark: how often the card detector reads a zone's top card right on rendered games, against the render's own truth.

    python bench/zones.py [--seeds 9001 9002] [--every 15] [--px-per-cm 8 12 16] [--max-seconds 30]

Each rendered game (cached as bench/e2e.py caches them) runs through the pipeline with the
ground-truth reader, so calibration and the deal's layout are fitted as in `referee run`. Every
`--every`-th frame after the deal's layout is fitted, every zone no hand is over is read again by the
`DetectorReader` at each `--px-per-cm`, and compared with the truth: face-up code, `back`, or
`empty`. Prints the share of zone reads that are right, unsure (below the pipeline's confidence
threshold: the observer reads again, the tracker holds its state) and confidently wrong (what
could become a false call), the kinds of wrong reads, and the CPU ms per detector pass.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's package, whichever one is installed

from referee.events import read_events  # noqa: E402
from referee.observations import EMPTY  # noqa: E402
from referee.pipeline import Pipeline, PipelineConfig, VideoFile  # noqa: E402
from referee.render import RenderOptions  # noqa: E402
from referee.render.cache import cached_game  # noqa: E402
from referee.render.truth import TruthReader  # noqa: E402
from referee.vision.detector import CardDetector, DetectorSettings  # noqa: E402
from referee.vision.observe import DetectorReader  # noqa: E402


def _kind(code: str) -> str:
    return code if code in (EMPTY, "back") else "card"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="*", default=[9001, 9002])
    parser.add_argument("--every", type=int, default=15, help="read every N-th frame")
    parser.add_argument("--px-per-cm", type=float, nargs="*", default=[8.0])
    parser.add_argument("--max-seconds", type=float, default=30.0)
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=720)
    parser.add_argument("--models", type=Path, help="folder of the two ONNX models (default: the package's)")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "spit-referee" / "e2e")
    parser.add_argument("--min-confidence", type=float, default=PipelineConfig().min_confidence,
                        help="reads below it are unsure (default: the pipeline's tracker threshold)")
    parser.add_argument("--verbose", action="store_true", help="print each wrong read")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    cv2.setNumThreads(2)
    args.cache.mkdir(parents=True, exist_ok=True)
    options = RenderOptions(args.width, args.height, max_seconds=args.max_seconds)
    detector = CardDetector(args.models, DetectorSettings(threads=2)) if args.models else \
        CardDetector(settings=DetectorSettings(threads=2))
    readers = {scale: DetectorReader(detector, px_per_cm=scale) for scale in args.px_per_cm}
    right = collections.Counter[float]()
    unsure = collections.Counter[float]()
    total = collections.Counter[float]()
    errors: dict[float, collections.Counter[str]] = {scale: collections.Counter() for scale in readers}
    cpu: dict[float, list[float]] = {scale: [] for scale in readers}
    for seed in args.seeds:
        video = cached_game(args.cache, seed, options)
        oracle = TruthReader(list(read_events(video.with_suffix(".jsonl"))), seed)
        pipeline = Pipeline(oracle, PipelineConfig(), fps=30.0)
        for frame in VideoFile(video):
            oracle.at(frame.t)
            pipeline.feed(frame)
            observer = pipeline.observer
            if observer is None or frame.index % args.every or observer.calibration.layout.source != "fitted":
                continue
            calibration = observer.calibration
            covered = {zone for hand in observer.hands.hands for zone in hand.over}
            zones = [zone.name for zone in calibration.layout.piles if zone.name not in covered]
            truth = oracle.read(frame.image, calibration, zones)
            for scale, reader in readers.items():
                began = time.process_time()
                seen = reader.read(frame.image, calibration, zones)
                cpu[scale].append((time.process_time() - began) / max(1, -(-len(zones) // reader.per_pass)))
                for zone in zones:
                    total[scale] += 1
                    want, got = truth[zone].seen, seen[zone].seen
                    if seen[zone].confidence < args.min_confidence:
                        unsure[scale] += 1
                    elif want == got:
                        right[scale] += 1
                    else:
                        errors[scale][f"{_kind(want)} read as {_kind(got)}" if _kind(want) != _kind(got) or
                                      _kind(want) != "card" else "card misread"] += 1
                        if args.verbose:
                            print(f"seed {seed} frame {frame.index} {zone} @{scale:g}: {want} read {got} "
                                  f"({seen[zone].confidence:.2f})", file=sys.stderr)
        print(f"seed {seed} done", file=sys.stderr)
    for scale in readers:
        n = total[scale]
        passes = sorted(cpu[scale])
        median = passes[len(passes) // 2] * 1000 if passes else float("nan")
        wrong = n - right[scale] - unsure[scale]
        print(f"{scale:g} px/cm: of {n} zone reads {right[scale] / max(1, n):.1%} right, {unsure[scale] / max(1, n):.1%} "
              f"unsure (confidence < {args.min_confidence:g}), {wrong / max(1, n):.1%} wrong; CPU per pass median "
              f"{median:.0f} ms; wrong: " + (", ".join(f"{k} {v}" for k, v in errors[scale].most_common()) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
