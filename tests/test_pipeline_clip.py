"""The rendered clip the vision and pipeline tests watch (cached by the renderer's source), and a reader that knows its true cards."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from referee.cards import FACE_DOWN
from referee.events import Event, read_events
from referee.observations import EMPTY, ZoneReading
from referee.render import RenderOptions, Timeline, game_events, render_game
from referee.render.video import geometry_for
from referee.vision.calibrate import Calibration, calibrate_manual
from referee.vision.zones import CardSeen, default_layout

SEED = 7
OPTIONS = RenderOptions(width=640, height=360, max_seconds=5.2)
"""Seed 7's first 5.2 s: the deal, a spit, plays by A and B, turn-ups, "Spit!", a second spit and a race."""
ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Clip:
    video: Path
    truth: tuple[Event, ...]
    times: tuple[float, ...]


HD = RenderOptions(width=1280, height=720, max_seconds=2.4)
"""The first 2.4 s at full size, for the card detector: the deal, the first spit, A's first play."""


def _renderer_hash(options: RenderOptions) -> str:
    digest = hashlib.sha256(repr(options).encode())
    for folder in ("referee/render", "referee/synth"):
        for path in sorted((ROOT / folder).glob("*.py")):
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


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


class TruthReader:
    """Reads each zone's true top card at time `t` (set before each frame) from the render's timeline."""

    def __init__(self, clip: Clip) -> None:
        self.geometry = geometry_for(clip.truth)
        self.timeline = Timeline(clip.truth, self.geometry, SEED)
        self.t = 0.0
        self.calls: list[tuple[float, tuple[str, ...]]] = []

    def read(self, frame: np.ndarray, calibration: Calibration, zones: list[str]) -> dict[str, ZoneReading]:
        self.calls.append((self.t, tuple(zones)))
        still = self.timeline.at(self.t).still
        out = {}
        for name in zones:
            zone = calibration.layout.zone(name)
            top = None
            for card in still:
                if zone.contains(self.geometry.to_calibration(card.x, card.y)) and (
                        top is None or (card.z, card.height) > (top.z, top.height)):
                    top = card
            out[name] = ZoneReading(EMPTY if top is None else FACE_DOWN if top.code == "back" else top.code)
        return out

    def table_cards(self, frame: np.ndarray, calibration: Calibration) -> list[CardSeen]:
        return [CardSeen(*self.geometry.to_calibration(c.x, c.y)) for c in self.timeline.at(self.t).still
                if c.code != "back"]


def test_the_truth_reader_reads_the_deal(clip: Clip) -> None:
    reader = TruthReader(clip)
    deal = clip.truth[0]
    width, depth = reader.geometry.width_cm, reader.geometry.depth_cm
    calibration = calibrate_manual((640, 360), [(0, 0), (640, 0), (640, 360), (0, 360)], width, depth)
    assert calibration.layout == default_layout(width, depth)
    tops = reader.read(np.zeros((360, 640, 3), np.uint8), calibration, ["A1", "B5", "L"])
    assert tops == {"A1": ZoneReading(deal["stock"]["A1"][-1]), "B5": ZoneReading(deal["stock"]["B5"][-1]),
                    "L": ZoneReading(EMPTY)}
