"""Soak benchmark of `referee run`: minutes of rendered play through one pipeline in real time, memory sampled as it goes.

    python bench/soak.py [--minutes 30] [--reader truth|detector] [--seeds 9001 9002 ...]
                         [--max-seconds 30] [--width 1280 --height 720] [--cache DIR] [--trace-python]

The games (seeds 9001.., the first `--max-seconds` of each) are rendered once and cached under
the same names as bench/e2e.py's, then chained one after another and looped until `--minutes`
of video have gone by; one pipeline watches them all, as `referee run` watches a camera for a
whole evening (each chained game is refereed as a new game, `Pipeline.new_game`: a fresh judge;
the calibration, vision and evidence go on). Frames come at their own capture times from a
thread that decodes them and keeps only the newest, as a live camera's grabber does: a frame
not taken before the next one comes is dropped. The process's resident memory (VmRSS in
/proc/self/status) is sampled every `--sample-s` seconds; the baseline is the last sample of the
first minute, the growth is the last sample taken while frames still came against it (target:
flat, < 50 MB; the figure once the video closed, its decoder's memory gone, is given beside it).
Games not in the cache are rendered in this process first, as the server renders its demo; the
pipeline sets malloc for a long run when it is made (referee.pipeline.memory). `--reader truth`
reads zones from the render's own timeline, so the figures are the pipeline's own (hands, change
detection, tracker, referee, event log, evidence). A cached video is used whatever version of the
renderer made it: the soak measures memory and speed, not the calls. `kill -USR1 PID` prints
where a soak that seems stuck is.

Beside RSS each sample gives malloc's own account (glibc's mallinfo2: memory handed out and still
in use, and memory free inside its heaps, of which what a trim gave back is no longer resident),
so growth in what the program holds can be told from memory malloc keeps. `--trace-python` adds the Python heap
traced by tracemalloc (Python objects, and numpy and OpenCV arrays made from Python, whose data
numpy reports to it); what RSS holds beyond it and the shared libraries is native (the decoder,
OpenCV's own buffers, malloc's free memory). Tracing slows every Python allocation, so the
figures of speed and dropped frames of such a run are not the pipeline's.
"""

from __future__ import annotations

import argparse
import collections
import faulthandler
import gc
import os
import signal
import statistics
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Iterator, Sequence
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's package, whichever one is installed

from referee.events import Event, EventLog, read_events  # noqa: E402
from referee.observations import ZoneReading  # noqa: E402
from referee.pipeline import CapturedFrame, Pipeline, PipelineConfig, VideoFile  # noqa: E402
from referee.pipeline.memory import heap_usage  # noqa: E402
from referee.render import RenderOptions  # noqa: E402
from referee.render.cache import cached_game  # noqa: E402
from referee.render.truth import TruthReader  # noqa: E402
from referee.vision.calibrate import Calibration  # noqa: E402
from referee.vision.observe import ZoneReader  # noqa: E402
from referee.vision.zones import CardSeen  # noqa: E402

DEFAULT_SEEDS = [9001, 9002, 9003, 9004]


def rss_mb() -> float:
    """This process's resident memory now (VmRSS), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status (not Linux?)")


def heaps_mb(trace: bool) -> tuple[float | None, float | None, float | None]:
    """malloc's memory in use and free inside its heaps (None without glibc 2.33), and the Python
    heap traced by tracemalloc (None when not tracing), in MB."""
    usage = heap_usage()
    used, free = (usage[0] / 2**20, usage[1] / 2**20) if usage is not None else (None, None)
    return used, free, (tracemalloc.get_traced_memory()[0] / 2**20 if trace else None)


def _mb(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0f}"


def _first_end(name: str, values: list[tuple[float, float | None]]) -> str:
    """`name` at the last sample of the first minute -> at the last sample, and the range after the first minute."""
    first = [v for s, v in values if s <= 60][-1]
    later = [v for s, v in values if s >= 60 and v is not None]
    if first is None or values[-1][1] is None:
        return f"{name} n/a"
    spread = f" (samples after the first minute {min(later):.0f}-{max(later):.0f})" if later else ""
    return f"{name} {first:.0f} -> {values[-1][1]:.0f} MB: {values[-1][1] - first:+.1f}{spread}"


class ChainedTruth:
    """The ground-truth zone reader of whichever chained game is on the table now (`now`)."""

    def __init__(self) -> None:
        self.now: TruthReader | None = None

    def read(self, frame: np.ndarray, calibration: Calibration, zones: Sequence[str]) -> dict[str, ZoneReading]:
        assert self.now is not None
        return self.now.read(frame, calibration, zones)

    def table_cards(self, frame: np.ndarray, calibration: Calibration) -> list[CardSeen]:
        assert self.now is not None
        return self.now.table_cards(frame, calibration)


def _chained(videos: list[Path], seeds: list[int], seconds: float) -> Iterator[tuple[CapturedFrame, int, float]]:
    """The games' frames one after another, looped, on one clock and one frame count, until
    `seconds`: (frame, its game's seed, its time in that game)."""
    offset_t, offset_i = 0.0, 0
    while True:
        for seed, video in zip(seeds, videos):
            last_t, last_i = 0.0, 0
            for frame in VideoFile(video):
                t = offset_t + frame.t
                if t >= seconds:
                    return
                last_t, last_i = frame.t, frame.index
                yield CapturedFrame(offset_i + frame.index, t, frame.image), seed, frame.t
            offset_t += last_t + 1 / 30
            offset_i += last_i + 1


class Camera(threading.Thread):
    """Plays frames at their capture times (decoding them on its own thread) and keeps only the
    newest, as `LiveCamera`'s grabber does; `take` waits for a frame newer than the last taken
    (None at the end) and `dropped` counts frames never taken."""

    def __init__(self, frames: Iterator[tuple[CapturedFrame, int, float]]) -> None:
        super().__init__(name="soak-camera", daemon=True)
        self._frames = frames
        self._lock = threading.Condition()
        self._newest: tuple[CapturedFrame, int, float] | None = None
        self._taken = -1
        self._done = False
        self.dropped = 0
        self.start_time = 0.0

    def run(self) -> None:
        self.start_time = time.perf_counter()
        try:
            for item in self._frames:
                wait = self.start_time + item[0].t - time.perf_counter()
                if wait > 0:
                    time.sleep(wait)
                with self._lock:
                    if self._newest is not None and self._newest[0].index > self._taken:
                        self.dropped += 1
                    self._newest = item
                    self._lock.notify_all()
        finally:
            with self._lock:
                self._done = True
                self._lock.notify_all()

    @property
    def finished(self) -> bool:
        """Whether the last frame has come (and the video was closed)."""
        with self._lock:
            return self._done

    def take(self) -> tuple[CapturedFrame, int, float] | None:
        with self._lock:
            self._lock.wait_for(lambda: self._done or (self._newest is not None and self._newest[0].index > self._taken))
            if self._newest is None or self._newest[0].index <= self._taken:
                return None
            self._taken = self._newest[0].index
            return self._newest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0, help="minutes of video to play (default 30)")
    parser.add_argument("--reader", choices=("detector", "truth"), default="truth")
    parser.add_argument("--seeds", type=int, nargs="*", help=f"games to chain (default {DEFAULT_SEEDS})")
    parser.add_argument("--max-seconds", type=float, default=30.0, help="the first S seconds of each game (0: whole)")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=720)
    parser.add_argument("--sample-s", type=float, default=10.0, help="seconds between memory samples")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "spit-referee" / "e2e")
    parser.add_argument("--trace-python", action="store_true",
                        help="also sample the Python heap with tracemalloc (slows the pipeline: not for speed figures)")
    args = parser.parse_args(argv)
    if not args.minutes > 0 or not args.sample_s > 0:
        parser.error("--minutes and --sample-s must be positive")
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    cv2.setNumThreads(2)
    faulthandler.register(signal.SIGUSR1)
    seeds = args.seeds or DEFAULT_SEEDS
    args.cache.mkdir(parents=True, exist_ok=True)
    options = RenderOptions(args.width, args.height, max_seconds=args.max_seconds or None)
    videos = [cached_game(args.cache, seed, options) for seed in seeds]
    truth = ChainedTruth() if args.reader == "truth" else None
    reader: ZoneReader
    if truth is not None:
        reader = truth
    else:
        from referee.vision.detector import CardDetector, DetectorSettings
        from referee.vision.observe import DetectorReader

        reader = DetectorReader(CardDetector(settings=DetectorSettings(threads=2)))
    seconds = args.minutes * 60
    counts: collections.Counter[str] = collections.Counter()
    with tempfile.TemporaryDirectory(prefix="soak-") as scratch, EventLog(Path(scratch) / "events.jsonl",
                                                                           fsync=False) as log:
        pipeline = Pipeline(reader, PipelineConfig(), fps=30.0, evidence_dir=Path(scratch) / "evidence")

        def called(event: Event) -> None:
            log.append(event)
            counts[event.type] += 1

        gc.collect()
        if args.trace_python:
            tracemalloc.start()
        samples: list[tuple[float, float]] = [(0.0, rss_mb())]
        heaps = [(0.0, *heaps_mb(args.trace_python))]
        objects = {"start": len(gc.get_objects())}
        readers = {seed: TruthReader(list(read_events(video.with_suffix(".jsonl"))), seed)
                   for seed, video in zip(seeds, videos)} if truth is not None else {}
        fed = 0
        busy = 0.0
        frame_ms: list[float] = []
        camera = Camera(_chained(videos, seeds, seconds))
        camera.start()
        start = time.perf_counter()
        next_sample = args.sample_s
        last_t = 0.0
        game_start = 0.0
        while (taken := camera.take()) is not None:
            frame, seed, game_t = taken
            began = time.perf_counter()
            if frame.t - game_t > game_start + 1e-6:  # the next chained game
                game_start = frame.t - game_t
                pipeline.new_game()  # (its time counted with the frame's)
            if truth is not None:
                truth.now = readers[seed]
                truth.now.at(game_t)
            for event in pipeline.feed(frame):
                called(event)
            spent = time.perf_counter() - began
            if truth is not None and pipeline.observer is not None:
                spent -= pipeline.observer.cost.detector_s  # the oracle's own cost is not the pipeline's
            busy += spent
            frame_ms.append(spent * 1000)
            fed += 1
            last_t = frame.t
            wall = time.perf_counter() - start
            if wall >= next_sample and not camera.finished:
                samples.append((wall, rss_mb()))
                heaps.append((wall, *heaps_mb(args.trace_python)))
                next_sample += args.sample_s
                _, used, free, python = heaps[-1]
                print(f"{wall:5.0f} s wall, {frame.t:5.0f} s of video: RSS {samples[-1][1]:.0f} MB (malloc {_mb(used)} "
                      f"in use, {_mb(free)} free" + (f"; Python heap {_mb(python)}" if args.trace_python else "")
                      + f"), {fed} frames fed, {camera.dropped} dropped", file=sys.stderr, flush=True)
                if samples[-2][0] < 60 <= wall:
                    objects["first minute"] = len(gc.get_objects())
        camera.join()
        dropped = camera.dropped
        wall = time.perf_counter() - start
        gc.collect()
        closed = rss_mb()
        if args.trace_python:
            tracemalloc.stop()
        objects["end"] = len(gc.get_objects())
    video_s = min(seconds, last_t + 1 / 30)
    first = [mb for s, mb in samples if s <= 60]
    baseline = first[-1]
    end = samples[-1][1]
    later = [(s, mb) for s, mb in samples if s >= 60]
    slope = float(np.polyfit([s for s, _ in later], [mb for _, mb in later], 1)[0]) * 600 if len(later) >= 3 else None
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) / 1024 for line in status if line.startswith("VmHWM:"))
    print(f"\nsoak: {video_s / 60:.1f} min of video ({len(seeds)} games of {args.max_seconds:g} s chained and looped, "
          f"seeds {seeds[0]}..{seeds[-1]}) at {args.width}x{args.height}, reader: {args.reader}, "
          f"{wall / 60:.1f} min wall")
    print(f"frames           fed {fed}, dropped {dropped} ({dropped / max(1, fed + dropped):.1%})")
    print(f"events written   {sum(counts.values())}: " + ", ".join(f"{k} {v}" for k, v in counts.most_common()))
    print(f"speed            real-time factor {video_s / max(busy, 1e-9):.2f} (video s per s spent in the pipeline), "
          f"ms per fed frame median {statistics.median(frame_ms):.1f}, p95 {np.percentile(frame_ms, 95):.1f}, "
          f"max {max(frame_ms):.0f} (decoding on the camera thread)")
    spread = [mb for s, mb in later]
    print(f"memory (RSS)     start {samples[0][1]:.0f} MB, first minute {baseline:.0f} MB, end (last sample while "
          f"playing) {end:.0f} MB: growth {end - baseline:+.1f} MB (target < 50)"
          + (f", trend after the first minute {slope:+.1f} MB per 10 min" if slope is not None else "")
          + (f"; samples after the first minute {min(spread):.0f}-{max(spread):.0f} MB" if spread else "")
          + f"; peak {peak:.0f} MB; {closed:.0f} MB once the video closed (after a collection)")
    print("malloc (MB)      " + _first_end("in use", [(s, used) for s, used, _, _ in heaps]) + "; "
          + _first_end("free in its heaps", [(s, free) for s, _, free, _ in heaps]))
    if args.trace_python:
        print("Python heap      " + _first_end("traced", [(s, python) for s, _, _, python in heaps]))
    print("Python objects   " + ", ".join(f"{k} {v}" for k, v in objects.items()))
    print("RSS samples (s, MB): " + " ".join(f"{s:.0f}:{mb:.0f}" for s, mb in samples))
    return 0


if __name__ == "__main__":
    sys.exit(main())
