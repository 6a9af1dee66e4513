"""The rendered clip the vision and pipeline tests watch (cached by the simulator's and renderer's source), and a reader that knows its true cards."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from referee.events import Event, read_events
from referee.observations import EMPTY, ZoneReading
from referee.render import RenderOptions, game_events, render_game
from referee.render.cache import renderer_version
from referee.render.truth import TruthReader
from referee.vision.calibrate import calibrate_manual
from referee.vision.zones import default_layout

SEED = 7
OPTIONS = RenderOptions(width=640, height=360, max_seconds=5.6)
"""Seed 7's first 5.6 s: the deal lying still for the players' pause, the opening spit, plays by A
and B, turn-ups, "Spit!", a second spit and a race for L (B's 7D, then A's 6S 0.48 s later, which
fits it)."""


@dataclass(frozen=True)
class Clip:
    video: Path
    truth: tuple[Event, ...]
    times: tuple[float, ...]


HD = RenderOptions(width=1280, height=720, max_seconds=2.4)
"""The first 2.4 s at full size, for the card detector: the deal, the first spit, A's first play."""


def _renderer_hash(options: RenderOptions) -> str:
    """The clip's options and the simulator's, renderer's and scene generator's sources: a
    simulator that plays seed 7 differently renders the clip again."""
    return hashlib.sha256(f"{options!r} {renderer_version()}".encode()).hexdigest()[:16]


def rendered_clip(cache: pytest.Cache, options: RenderOptions = OPTIONS) -> Clip:
    """The clip, rendered once per version of the renderer and kept in pytest's cache."""
    folder = cache.mkdir(f"pipeline-clip-{_renderer_hash(options)}")
    video = folder / "game.mp4"
    if not video.with_suffix(".frames.json").is_file():
        render_game(game_events("classic", SEED, None), video, SEED, options, "classic")
    times = json.loads(video.with_suffix(".frames.json").read_text())["t"]
    return Clip(video, tuple(read_events(video.with_suffix(".jsonl"))), tuple(times))


@pytest.fixture(scope="module")
def clip(pytestconfig: pytest.Config) -> Clip:
    assert pytestconfig.cache is not None
    return rendered_clip(pytestconfig.cache)


def test_the_truth_reader_reads_the_deal(clip: Clip) -> None:
    reader = TruthReader(clip.truth, SEED)
    deal = clip.truth[0]
    width, depth = reader.geometry.width_cm, reader.geometry.depth_cm
    calibration = calibrate_manual((640, 360), [(0, 0), (640, 0), (640, 360), (0, 360)], width, depth)
    assert calibration.layout == default_layout(width, depth)
    tops = reader.read(np.zeros((360, 640, 3), np.uint8), calibration, ["A1", "B5", "L"])
    assert tops == {"A1": ZoneReading(deal["stock"]["A1"][-1]), "B5": ZoneReading(deal["stock"]["B5"][-1]),
                    "L": ZoneReading(EMPTY)}
