"""A simulated game rendered as webcam video: the mp4, its ground-truth log and the exact time of every frame.

`render_game` writes three files side by side: `NAME.mp4` (mp4v, constant frame rate; frame i is
captured at `i / fps` s, which is what `cv2.VideoCapture` reports as CAP_PROP_POS_MSEC),
`NAME.jsonl` (the simulator's events up to the last frame, as `referee simulate --log` writes
them) and `NAME.frames.json` (every frame's time, the camera, and the table-to-image homography
in the calibration's frame).
"""

from __future__ import annotations

import json
import math
import multiprocessing
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from referee.events import Event, read_events
from referee.render.compose import FrameRenderer, Webcam
from referee.render.errors import RenderError
from referee.render.geometry import TableGeometry
from referee.render.timeline import Timeline, check_drawable
from referee.rules import get_rules
from referee.simulate import simulate_games
from referee.synth import (
    BUILTIN_BACKS, BUILTIN_STYLES, BuiltinFaces, Camera, Deck, Lighting, Scene, TableStyle, builtin_back,
)

FRAMES_VERSION = 1
_TAIL_S = 1.0
"""Seconds rendered after the last event."""
_CHUNK = 30
"""Frames drawn together from fresh caches, so that a frame does not depend on how the work is split."""


@dataclass(frozen=True)
class RenderOptions:
    """Frame size and rate, the camera's tilt from straight down (degrees), how much of the game to
    render (None: all of it), and how many processes draw."""

    width: int = 1280
    height: int = 720
    fps: float = 30.0
    tilt_deg: float = 30.0
    max_seconds: float | None = None
    jobs: int = 1
    """Processes drawing frames; the video is the same for any number."""


@dataclass(frozen=True)
class RenderResult:
    """What `render_game` wrote and how fast it drew."""

    video: Path
    log: Path
    frames: Path
    frame_count: int
    seconds: float
    render_fps: float


def game_events(rules: str, seed: int, log: Path | None) -> tuple[Event, ...]:
    """The game to render: read from `log`, or simulated (as `referee simulate --games 1 --seed SEED`)."""
    get_rules(rules)
    if log is not None:
        events = tuple(read_events(log))
    else:
        _, first = simulate_games(rules, 1, seed, log_first=True)
        events = first.events if first is not None else ()
    check_drawable(events)
    return events


def frame_times(duration: float, fps: float) -> list[float]:
    """The capture time of every frame from 0 to `duration` s: frame i at i / fps, rounded to the microsecond."""
    count = int(math.floor(duration * fps + 1e-9)) + 1
    return [round(i / fps, 6) for i in range(count)]


def geometry_for(events: Sequence[Event]) -> TableGeometry:
    """A play area with as many stock places as the game's layouts use."""
    places = max(int(name[1:]) for e in events if e.type == "layout" for name in e.fields.get("stock", {}))
    return TableGeometry(stock_places=places)


def stage(seed: int, geometry: TableGeometry, options: RenderOptions) -> tuple[Camera, TableStyle, Lighting, Deck]:
    """The camera, table, room light and cards of a seed: a webcam above player A's side of the table."""
    rng = np.random.default_rng([seed, 3])
    kind, colour, colour2 = [
        ("wood", (150, 104, 64), (112, 74, 42)), ("wood", (92, 60, 38), (70, 44, 28)),
        ("felt", (30, 105, 62), (24, 84, 50)), ("laminate", (206, 204, 198), (190, 188, 182)),
        ("cloth", (60, 78, 118), (50, 64, 98)),
    ][int(rng.integers(5))]
    half_w, half_d = geometry.width_cm / 2 + 14, geometry.depth_cm / 2 + 12
    table = TableStyle(kind, colour, colour2, int(rng.integers(2**31)), float(rng.uniform(0.8, 1.2)),
                       (-half_w, half_w, -half_d - 6, half_d + 6), (52, 46, 42))
    lighting = Lighting(azimuth=float(rng.uniform(90, 270)), elevation=float(rng.uniform(45, 70)),
                        shadow=float(rng.uniform(0.3, 0.45)), ambient_ramp=float(rng.uniform(0.05, 0.15)),
                        ramp_angle=float(rng.uniform(0, 360)), brightness=float(rng.uniform(0.9, 1.05)),
                        white_balance=(1.04, 1.0, 0.95), vignette=float(rng.uniform(0.12, 0.25)))
    camera = _framing(geometry, options, float(rng.normal(0, 0.8)))
    deck = Deck(BuiltinFaces(BUILTIN_STYLES[int(rng.integers(len(BUILTIN_STYLES)))]),
                builtin_back(BUILTIN_BACKS[int(rng.integers(len(BUILTIN_BACKS)))]))
    return camera, table, lighting, deck


def _framing(geometry: TableGeometry, options: RenderOptions, roll: float) -> Camera:
    """A webcam above player A's side, tilted `options.tilt_deg`, as close as it can be with the
    markers and a few cm around them inside the frame (with 6 % to spare at every edge)."""
    w, d = geometry.width_cm / 2 + geometry.marker_cm + 3, geometry.depth_cm / 2 + geometry.marker_cm + 3
    corners = np.array([[-w, -d, 0], [w, -d, 0], [w, d, 0], [-w, d, 0]], float)
    target_y, distance = 0.0, 100.0
    for _ in range(12):
        camera = Camera.look_at(options.width, options.height, (0.0, target_y), distance, options.tilt_deg, 0.0,
                                hfov_deg=70.0, roll_deg=roll)
        u, v = camera.project(corners).T
        fill = max((u.max() - u.min()) / options.width, (v.max() - v.min()) / options.height) / 0.88
        middle = np.linalg.inv(camera.homography(0.0)) @ np.array([options.width / 2, (v.max() + v.min()) / 2, 1.0])
        target_y += 0.5 * (middle[1] / middle[2] - target_y)
        distance *= fill
    return camera


def scene_at(timeline: Timeline, t: float, table: TableStyle, lighting: Lighting) -> Scene:
    """The synth scene the video shows at `t` (for `referee.synth.render_scene` and its annotation)."""
    frame = timeline.at(t)
    return Scene(frame.cards, table, frame.hands, timeline.geometry.markers(), lighting)


def outputs(out: Path) -> tuple[Path, Path, Path]:
    """The video and, beside it, the ground-truth log and the frame times."""
    if out.suffix.lower() != ".mp4":
        raise RenderError(f"the video must be an .mp4 file, not {out}")
    return out, out.with_suffix(".jsonl"), out.with_suffix(".frames.json")


def _check_writable(paths: Sequence[Path]) -> None:
    for path in paths:
        if path.is_dir():
            raise RenderError(f"cannot write {path}: it is a directory")
        try:
            with path.open("a"):
                pass
        except OSError as exc:
            raise RenderError(f"cannot write {path}: {exc.strerror}") from None


def render_game(events: Sequence[Event], out: Path, seed: int, options: RenderOptions = RenderOptions(),
                rules: str | None = None, progress: Callable[[float], None] | None = None) -> RenderResult:
    """Render a game log as video into `out` (an .mp4) with its ground truth beside it (written
    after the video); deterministic for a seed. `progress` hears the share of frames drawn."""
    video, log_path, frames_path = outputs(out)
    _check_writable([video, log_path, frames_path])
    geometry = geometry_for(events)
    check_drawable(events)
    duration = max(e.t for e in events) + _TAIL_S
    if options.max_seconds is not None:
        duration = min(duration, options.max_seconds)
    times = frame_times(duration, options.fps)
    camera = stage(seed, geometry, options)[0]
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), options.fps, (options.width, options.height))
    if not writer.isOpened():
        raise RenderError(f"OpenCV cannot write an mp4 video to {video}")
    chunks = [(first, times[first:first + _CHUNK]) for first in range(0, len(times), _CHUNK)]
    lines = tuple(e.to_json() for e in events)
    began = time.perf_counter()
    try:
        if options.jobs > 1 and len(chunks) > 1:
            # workers start from a fresh process: a fork of this one, its OpenCV threads busy, can hang
            context = multiprocessing.get_context("forkserver")
            with ProcessPoolExecutor(options.jobs, mp_context=context, initializer=_start_worker,
                                     initargs=(lines, seed, options)) as pool:
                _write(writer, chunks, pool.map(_paint, chunks), progress)
        else:
            painter = _Painter(lines, seed, options)
            _write(writer, chunks, (painter.chunk(first, chunk) for first, chunk in chunks), progress)
    finally:
        writer.release()
    spent = time.perf_counter() - began
    shown = [e for e in events if e.t <= times[-1]]
    log_path.write_text("".join(e.to_json() + "\n" for e in shown), encoding="utf-8")
    to_image = camera.homography(0.0) @ np.array([[1, 0, -geometry.width_cm / 2], [0, 1, -geometry.depth_cm / 2],
                                                  [0, 0, 1.0]])
    frames_path.write_text(json.dumps({
        "version": FRAMES_VERSION, "video": video.name, "log": log_path.name, "rules": rules, "seed": seed,
        "fps": options.fps, "width": options.width, "height": options.height, "frame_count": len(times),
        "events": len(shown), "complete": len(shown) == len(events),
        "play_size_cm": [geometry.width_cm, geometry.depth_cm], "marker_cm": geometry.marker_cm,
        "table_to_image": np.round(to_image / to_image[2, 2], 9).tolist(), "camera": camera.to_dict(),
        "t": times,
    }) + "\n", encoding="utf-8")
    return RenderResult(video, log_path, frames_path, len(times), times[-1], len(times) / max(spent, 1e-9))


def _write(writer: cv2.VideoWriter, chunks: Sequence[tuple[int, list[float]]], drawn: Iterable[list[np.ndarray]],
           progress: Callable[[float], None] | None) -> None:
    """Each chunk's frames into the video as they come, telling `progress` the share written."""
    total = chunks[-1][0] + len(chunks[-1][1])
    for (first, chunk), images in zip(chunks, drawn):
        for image in images:
            writer.write(image)
        if progress is not None:
            progress((first + len(chunk)) / total)


class _Painter:
    """One process's drawing state: the game's timeline and a frame renderer (built from the log's lines)."""

    def __init__(self, lines: Sequence[str], seed: int, options: RenderOptions) -> None:
        events = [Event.from_json(line) for line in lines]
        geometry = geometry_for(events)
        self.timeline = Timeline(events, geometry, seed)
        camera, table, lighting, deck = stage(seed, geometry, options)
        self.renderer = FrameRenderer(camera, table, lighting, geometry.markers(), deck, Webcam(), seed)

    def chunk(self, first: int, times: Sequence[float]) -> list[np.ndarray]:
        """Frames `first`, `first + 1`, ... at `times`, drawn from fresh caches."""
        self.renderer.forget()
        return [self.renderer.render(self.timeline.at(t), first + k) for k, t in enumerate(times)]


_WORKER: list[_Painter] = []


def _start_worker(lines: Sequence[str], seed: int, options: RenderOptions) -> None:
    cv2.setNumThreads(1)
    _WORKER.append(_Painter(lines, seed, options))


def _paint(job: tuple[int, list[float]]) -> list[np.ndarray]:
    return _WORKER[0].chunk(*job)


def simulate_and_render(out: Path, seed: int, rules: str = "classic", log: Path | None = None,
                        options: RenderOptions = RenderOptions()) -> RenderResult:
    """`referee render-game`: simulate (or read) a game and render it."""
    events = game_events(rules, seed, log)
    return render_game(events, out, seed, options, rules if log is None else None)
