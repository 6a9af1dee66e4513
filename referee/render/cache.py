"""Rendered games kept in a cache folder, named after the code that drew them, so the benches and the demo never reuse a video an older renderer made."""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # not on Windows
    fcntl = None  # type: ignore[assignment]

from referee.render.video import RenderOptions, simulate_and_render

_PACKAGE = Path(__file__).resolve().parents[1]
_DRAWS_NOTHING = frozenset({"cache.py", "truth.py"})
"""The modules of `referee.render` left out of `renderer_version`."""


def renderer_version() -> str:
    """A digest of the simulator's, renderer's and scene generator's sources (16 hex digits); this
    module and the truth reader (`referee.render.truth`) draw nothing, so they are left out."""
    digest = hashlib.sha256()
    for package in ("simulate", "render", "synth"):
        for path in sorted((_PACKAGE / package).glob("*.py")):
            if path.name not in _DRAWS_NOTHING or path.parent != Path(__file__).resolve().parent:
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cached_game(cache: Path, seed: int, options: RenderOptions, rules: str = "classic") -> Path:
    """The video of simulated game `seed` rendered with `options` into `cache` (its log and frame
    times beside it), rendered on first use; says on stderr how long rendering took.

    Processes sharing the folder render a game one at a time (a lock file beside it): the render
    writes in place, so a second render of the same game would cut the video the first one is
    reading."""
    tag = f"{options.width}x{options.height}" + (f"-{options.max_seconds:g}s" if options.max_seconds else "")
    video = cache / f"game-{rules}-{seed}-{tag}-{renderer_version()[:8]}.mp4"
    if _complete(video.with_suffix(".frames.json")):
        return video
    cache.mkdir(parents=True, exist_ok=True)
    with _locked(cache / f".{video.stem}.lock"):
        if not _complete(video.with_suffix(".frames.json")):  # another process may have rendered it meanwhile
            began = time.perf_counter()
            result = simulate_and_render(video, seed, rules, None, options)
            print(f"rendered seed {seed}: {result.frame_count} frames in {time.perf_counter() - began:.0f} s",
                  file=sys.stderr)
    return video


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (created if missing) while the block runs; where the
    system has no `fcntl` (Windows) the block runs unlocked."""
    with path.open("a") as handle:
        if fcntl is not None:
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _complete(frames: Path) -> bool:
    """Whether a render finished: its frame times, written last, are whole (a render cut short
    leaves them empty or cut)."""
    try:
        return "frame_count" in json.loads(frames.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
