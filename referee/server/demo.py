"""The built-in demo source: a short simulated game rendered once as webcam video into a cache folder, and a card reader that knows its true cards."""

from __future__ import annotations

import hashlib
import os
import random
import re
import shutil
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from referee.events import Event, read_events
from referee.render import RenderError, RenderOptions
from referee.render.cache import renderer_version
from referee.render.timeline import check_drawable
from referee.render.video import render_game
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
    """Draw the game as `referee render-game` draws, on up to `RENDER_JOBS` processes (the video is
    the same for any number), under a temporary name; the truth log is moved into place last: it
    marks the video as complete."""
    jobs = max(1, min(RENDER_JOBS, os.cpu_count() or 1))
    result = render_game(events, video.with_suffix(".part.mp4"), seed, replace(options, jobs=jobs), DEMO_RULES,
                         progress)
    result.frames.unlink()
    result.video.replace(video)
    result.log.replace(truth_path)
