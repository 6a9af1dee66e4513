"""The built-in demo source: a short simulated game rendered once as webcam video into a cache folder, and a card reader that knows its true cards."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import random
import re
import shutil
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import cv2
import numpy as np

from referee.events import Event, read_events
from referee.render import RenderError, RenderOptions, Timeline
from referee.render.cache import renderer_version
from referee.render.timeline import check_drawable
from referee.render.video import _CHUNK as CHUNK
from referee.render.video import _paint as paint_chunk
from referee.render.video import _Painter as Painter
from referee.render.video import _start_worker as start_painter
from referee.render.video import frame_times, geometry_for
from referee.simulate import Mistakes, SimConfig, simulate_game

DEMO_RULES: Final = "classic"
DEMO_SEED: Final = 20
"""With a 10 % mistake rate, seed 20's game has an illegal play at 1.4 s and a "Spit!" at 1.5 s."""
DEMO_MISTAKES: Final = 0.1
DEMO_OPTIONS: Final = RenderOptions(width=1920, height=1080, fps=30.0, tilt_deg=30.0, max_seconds=12.0)
"""A 1080p webcam above player A's side of the table, as `referee render-game` places it: the card
detector reads the far (player B's) piles at about 13 x 10 px per cm there (at 1280x720, 9 x 7 px
per cm, it misread B's 6H and missed the game's start; bench/demo.py)."""
RENDER_JOBS: Final = 8
"""Processes drawing the demo on first run (at most the machine's cores)."""

ProgressCallback = Callable[[float], None]
"""Called with the share of the demo rendered so far (0..1)."""


@dataclass(frozen=True)
class DemoGame:
    """The rendered demo: the video (frame i captured at i / fps s), the game's true events
    (up to the video's end) and the seed that drew it."""

    video: Path
    truth: tuple[Event, ...]
    seed: int


def cache_folder() -> Path:
    """Where the demo is kept: `$SPIT_REFEREE_CACHE`, else ~/.cache/spit-referee."""
    env = os.environ.get("SPIT_REFEREE_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "spit-referee"


def demo_key(options: RenderOptions = DEMO_OPTIONS, seed: int = DEMO_SEED) -> str:
    """A name for one version of the demo: its settings and the renderer's and simulator's code."""
    digest = hashlib.sha256(repr((options, seed, DEMO_RULES, DEMO_MISTAKES, renderer_version())).encode())
    return digest.hexdigest()[:16]


def demo_events(seed: int = DEMO_SEED) -> tuple[Event, ...]:
    """The demo game: bots playing classic Spit with a mistake rate that makes illegal plays early."""
    game = simulate_game(DEMO_RULES, random.Random(seed), SimConfig(mistakes=Mistakes(rate=DEMO_MISTAKES)))
    check_drawable(game.events)
    return game.events


_render_lock = threading.Lock()


def ensure_demo(folder: Path | None = None, progress: ProgressCallback | None = None,
                options: RenderOptions = DEMO_OPTIONS, seed: int = DEMO_SEED) -> DemoGame:
    """The demo game, rendered into `folder/demo-KEY/` on first use (a minute or so) and read
    from there afterwards; `progress` hears how far the rendering got."""
    base = (folder or cache_folder()) / f"demo-{demo_key(options, seed)}"
    video, truth_path = base / "demo.mp4", base / "demo.jsonl"
    with _render_lock:
        if not truth_path.is_file():
            try:
                base.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise RenderError(f"cannot create the demo cache folder {base}: {exc.strerror}") from None
            _render(demo_events(seed), video, truth_path, seed, options, progress)
            _forget_old_demos(base)
    if progress is not None:
        progress(1.0)
    return DemoGame(video, tuple(read_events(truth_path)), seed)


def _forget_old_demos(current: Path) -> None:
    """Remove the demos an older renderer drew beside the current one."""
    for folder in current.parent.glob("demo-*"):
        if folder != current and re.fullmatch(r"demo-[0-9a-f]{16}", folder.name) and folder.is_dir():
            shutil.rmtree(folder, ignore_errors=True)


def _render(events: Sequence[Event], video: Path, truth_path: Path, seed: int, options: RenderOptions,
            progress: ProgressCallback | None) -> None:
    """Draw the game into `video` in chunks of frames, on up to `RENDER_JOBS` processes (the video is
    the same for any number), as `referee render-game` draws; the truth log is written last: it
    marks the video as complete."""
    geometry = geometry_for(events)
    timeline = Timeline(events, geometry, seed)
    duration = timeline.end if options.max_seconds is None else min(timeline.end, options.max_seconds)
    times = frame_times(duration, options.fps)
    chunks = [(first, times[first:first + CHUNK]) for first in range(0, len(times), CHUNK)]
    lines = tuple(e.to_json() for e in events)
    jobs = max(1, min(RENDER_JOBS, os.cpu_count() or 1, len(chunks)))
    partial = video.with_suffix(".part.mp4")
    writer = cv2.VideoWriter(str(partial), cv2.VideoWriter_fourcc(*"mp4v"), options.fps,
                             (options.width, options.height))
    if not writer.isOpened():
        raise RenderError(f"OpenCV cannot write an mp4 video to {partial}")
    try:
        if jobs > 1:
            # workers start from a fresh process: a fork of this one (a server's threads) can hang
            context = multiprocessing.get_context("forkserver")
            with ProcessPoolExecutor(jobs, mp_context=context, initializer=start_painter,
                                     initargs=(lines, seed, options)) as pool:
                for (first, chunk), images in zip(chunks, pool.map(paint_chunk, chunks)):
                    _write(writer, images, progress, (first + len(chunk)) / len(times))
        else:
            painter = Painter(lines, seed, options)
            for first, chunk in chunks:
                _write(writer, painter.chunk(first, chunk), progress, (first + len(chunk)) / len(times))
    finally:
        writer.release()
    partial.replace(video)
    shown = [e for e in events if e.t <= times[-1]]
    truth_path.write_text("".join(e.to_json() + "\n" for e in shown), encoding="utf-8")


def _write(writer: cv2.VideoWriter, images: Sequence[np.ndarray], progress: ProgressCallback | None,
           share: float) -> None:
    for image in images:
        writer.write(image)
    if progress is not None:
        progress(share)
