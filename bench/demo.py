"""The built-in demo game (`referee serve`'s default source) refereed through the pipeline with a chosen card reader, its calls scored against the demo's ground truth.

    python bench/demo.py [--reader truth detector] [--width W --height H] [--threads 1]
                         [--verbose] [--dump DIR] [--cache DIR]

The demo is rendered as `referee serve` renders it (referee.server.demo: same seed, rules,
mistakes and camera; `--width/--height` other than the demo's own size render the same game at
that size into `--cache`). Every frame is fed to the pipeline in order, as the served demo does
(a file plays every frame, slowing down when the referee falls behind). Prints, per reader:
plays found/true, illegal plays flagged/true, the "Spit!" called or missed, every false call
(a flag against a player, or a "Spit!", with no true event: time and reason), and the time per
frame (wall and CPU, decoding included; for the truth reader its own lookup is left out). Calls
are matched to the truth by referee.judge.score as bench/e2e.py scores rendered games (true events in
the last `--settle-s` s of the video optional, calls up to 0.25 s after it kept).
`--dump DIR` writes, for the detector reader, every image the detector was given (the zone
mosaics, named by frame time and zones) and `reads.jsonl` (what it read in each zone), and for
any reader `observations.jsonl` (the per-frame observations) and `calls.jsonl`.
Exit status 0 when a reader made no false call, else 1.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's package, whichever one is installed

from referee.events import Event  # noqa: E402
from referee.judge.score import FLAGS, Score, score  # noqa: E402
from referee.observations import Observation  # noqa: E402
from referee.pipeline import Pipeline, PipelineConfig, VideoFile  # noqa: E402
from referee.render.truth import TruthReader  # noqa: E402
from referee.server.demo import DEMO_OPTIONS, DemoGame, cache_folder, ensure_demo  # noqa: E402

FALSE_CALL_TYPES = (*FLAGS, "spit_call")
"""Calls that, made wrongly, a new user watching the demo would see as the referee's mistake."""


def false_calls(truth: Sequence[Event], judged: Sequence[Event], until: float) -> list[Event]:
    """The judged flags and "Spit!" calls that `score` matches to no true event (one per unmatched
    call: a call is dropped as unmatched when leaving it out keeps every match)."""
    kept = list(judged)
    wrong: list[Event] = []
    matched = score(truth, kept, until=until).matched
    for event in [e for e in judged if e.type in FALSE_CALL_TYPES]:
        rest = [e for e in kept if e is not event]
        if score(truth, rest, until=until).matched.get(event.type, 0) == matched.get(event.type, 0):
            wrong.append(event)
            kept = rest
    return wrong


class _RecordingDetector:
    """Stands in for the reader's detector: saves each image it is given and what was found."""

    def __init__(self, detector: Any, folder: Path) -> None:
        self.detector = detector
        self.folder = folder
        self.t = 0.0
        self.count = 0

    def detect(self, image: np.ndarray) -> Any:
        found = self.detector.detect(image)
        self.count += 1
        name = f"{self.t:07.3f}-{self.count:04d}.png"
        cv2.imwrite(str(self.folder / name), image)
        self.last = (name, [{"code": c.code if c.face_up else "back", "confidence": round(float(c.confidence), 3),
                             "box": [round(float(v)) for v in c.box]} for c in found])
        return found

    def __getattr__(self, name: str) -> Any:
        return getattr(self.detector, name)


class _RecordingReader:
    """Passes reads through to a `DetectorReader`, logging each zone's reading and the mosaic it came from."""

    def __init__(self, reader: Any, folder: Path) -> None:
        self.reader = reader
        self.recorder = _RecordingDetector(reader.detector, folder)
        reader.detector = self.recorder
        self.log = (folder / "reads.jsonl").open("w", encoding="utf-8")

    def at(self, t: float) -> None:
        self.recorder.t = t

    def read(self, frame: np.ndarray, calibration: Any, zones: Sequence[str]) -> Any:
        out = self.reader.read(frame, calibration, zones)
        self.log.write(json.dumps({"t": self.recorder.t, "mosaic": self.recorder.last[0],
                                   "zones": {z: [r.seen, round(r.confidence, 3)] for z, r in out.items()},
                                   "found": self.recorder.last[1]}) + "\n")
        return out

    def table_cards(self, frame: np.ndarray, calibration: Any) -> Any:
        return self.reader.table_cards(frame, calibration)


def make_reader(kind: str, demo: DemoGame, threads: int) -> Any:
    if kind == "truth":
        return TruthReader(demo.truth, demo.seed)
    from referee.vision.detector import CardDetector, DetectorSettings
    from referee.vision.observe import DetectorReader
    return DetectorReader(CardDetector(settings=DetectorSettings(threads=threads)))


def run(demo: DemoGame, reader: Any, dump: Path | None = None) -> tuple[list[Event], list[float], list[float]]:
    """The demo video through a pipeline with `reader`: its calls, and each frame's wall and CPU seconds."""
    observations = (dump / "observations.jsonl").open("w", encoding="utf-8") if dump else None

    def observed(obs: Observation) -> None:
        if observations is not None:
            observations.write(obs.to_json() + "\n")

    pipeline = Pipeline(reader, PipelineConfig(), fps=DEMO_OPTIONS.fps, on_observation=observed)
    calls: list[Event] = []
    wall: list[float] = []
    cpu: list[float] = []
    source = iter(VideoFile(demo.video))
    while True:
        w0, c0 = time.perf_counter(), time.process_time()
        frame = next(source, None)
        if frame is None:
            break
        if hasattr(reader, "at"):
            reader.at(frame.t)
        made = pipeline.feed(frame)
        w1, c1 = time.perf_counter(), time.process_time()
        oracle = pipeline.observer.cost.detector_s if isinstance(reader, TruthReader) and pipeline.observer else 0.0
        wall.append(w1 - w0 - oracle)
        cpu.append(c1 - c0 - oracle)
        calls.extend(made)
    if observations is not None:
        observations.close()
    return calls, wall, cpu


def _count(result: Score, kind: str) -> str:
    return f"{result.matched.get(kind, 0)}/{result.truth.get(kind, 0)}"


def _reason(event: Event) -> str:
    if event.type == "illegal_play":
        return f"{event.get('player')} {event.get('card')} on {event.get('to')}: {event.get('reason')}"
    if event.type == "premature_spit":
        return f"{event.get('player')} spat while {event.get('move')} was possible"
    return "Spit! called while a move existed"


def report(name: str, demo: DemoGame, calls: list[Event], wall: list[float], cpu: list[float],
           settle_s: float, verbose: bool) -> list[Event]:
    end = len(wall) / DEMO_OPTIONS.fps - settle_s
    truth = [e for e in demo.truth if e.t <= end]
    judged = [e for e in calls if e.t <= end + 0.25]
    result = score(demo.truth, judged, until=end)
    wrong = false_calls(demo.truth, judged, end)
    spit = "called" if result.matched.get("spit_call", 0) >= result.truth.get("spit_call", 0) else "missed"
    print(f"reader {name}: plays {_count(result, 'play')} (+{result.unmatched('play')} not true), "
          f"illegal plays flagged {_count(result, 'illegal_play')}, Spit! {spit} ({_count(result, 'spit_call')}), "
          f"false calls {len(wrong)}")
    for kind in ("turn_up", "move_to_space", "spit", "race"):
        if result.truth.get(kind) or result.judged.get(kind):
            print(f"    {kind:<14} {_count(result, kind)} (+{result.unmatched(kind)} not true)")
    for event in wrong:
        print(f"    FALSE {event.type} at {event.t:.2f} s: {_reason(event)}")
    print(f"    ms per frame: wall median {statistics.median(wall) * 1000:.1f}, p95 "
          f"{sorted(wall)[int(0.95 * (len(wall) - 1))] * 1000:.1f}, max {max(wall) * 1000:.1f}; CPU median "
          f"{statistics.median(cpu) * 1000:.1f}, p95 {sorted(cpu)[int(0.95 * (len(cpu) - 1))] * 1000:.1f}, "
          f"mean {statistics.mean(cpu) * 1000:.1f}; {len(wall)} frames ({len(wall) / DEMO_OPTIONS.fps:.1f} s of "
          f"video) in {sum(wall):.1f} s wall, {sum(cpu):.1f} s CPU")
    if verbose:
        for event in calls:
            print(f"    call {event.to_json()[:170]}")
        shown = ("play", "illegal_play", "spit_call", "turn_up", "move_to_space", "spit")
        missed = [e for e in truth if e.type in shown and score([e], judged).matched.get(e.type, 0) == 0]
        for event in missed:
            print(f"    missed {event.to_json()[:170]}")
    return wrong


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reader", nargs="+", choices=("truth", "detector"), default=["truth", "detector"])
    parser.add_argument("--width", type=int, default=DEMO_OPTIONS.width)
    parser.add_argument("--height", type=int, default=DEMO_OPTIONS.height)
    parser.add_argument("--threads", type=int, default=1, help="detector threads (referee serve uses 1)")
    parser.add_argument("--cache", type=Path, help="where the demo is rendered (default: referee serve's "
                        "cache for the demo's own size, else a bench-demo-WxH folder beside it)")
    parser.add_argument("--settle-s", type=float, default=1.0,
                        help="true events in the video's last S s are optional (scored only where called)")
    parser.add_argument("--dump", type=Path, help="write the detector's images and reads, observations and calls here")
    parser.add_argument("--verbose", action="store_true", help="print every call and every true event missed")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    cv2.setNumThreads(2)
    options = replace(DEMO_OPTIONS, width=args.width, height=args.height)
    cache = args.cache
    if cache is None:
        cache = cache_folder() if options == DEMO_OPTIONS else cache_folder() / f"bench-demo-{args.width}x{args.height}"
    began = time.perf_counter()
    demo = ensure_demo(cache, options=options)
    print(f"demo game (seed {demo.seed}) at {args.width}x{args.height}: {demo.video} "
          f"(ready in {time.perf_counter() - began:.0f} s)")
    any_wrong = False
    for kind in args.reader:
        reader = make_reader(kind, demo, args.threads)
        folder = None
        if args.dump is not None:
            folder = args.dump / kind
            folder.mkdir(parents=True, exist_ok=True)
            if kind == "detector":
                reader = _RecordingReader(reader, folder)
        calls, wall, cpu = run(demo, reader, folder)
        if folder is not None:
            (folder / "calls.jsonl").write_text("".join(e.to_json() + "\n" for e in calls), encoding="utf-8")
        any_wrong |= bool(report(kind, demo, calls, wall, cpu, args.settle_s, args.verbose))
    return 1 if any_wrong else 0


if __name__ == "__main__":
    sys.exit(main())
