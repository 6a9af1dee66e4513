"""A zone reader that knows a rendered game's true cards: the oracle standing in for the card detector in tests, benches and the demo."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

import numpy as np

from referee.cards import FACE_DOWN
from referee.events import Event
from referee.observations import EMPTY, ZoneReading
from referee.render.timeline import Timeline
from referee.render.video import geometry_for
from referee.synth import CardPlacement
from referee.synth.faces import CARD_H_CM, CARD_W_CM
from referee.vision.calibrate import Calibration
from referee.vision.zones import CardSeen


INDEX_CM: Final = (1.0, 2.2)
"""The printed index (rank over suit, margin included) at a card's top-left and bottom-right corners:
width and height (cm)."""
INDEX_SHOWN: Final = 0.8
"""The share of one index corner that must lie outside the cards above for the card to be read
under a pile's top (at 80 % the rank and most of the suit show whichever edge cuts it)."""
_GRID: Final = 8, 16
"""Sample points across an index corner (columns, rows) that measure its share shown."""


def _index_points() -> tuple[np.ndarray, np.ndarray]:
    """Sample points (card coordinates, cm from the centre) of the top-left and bottom-right index corners."""
    w, h = CARD_W_CM / 2, CARD_H_CM / 2
    gx = (np.arange(_GRID[0]) + 0.5) / _GRID[0] * INDEX_CM[0]
    gy = (np.arange(_GRID[1]) + 0.5) / _GRID[1] * INDEX_CM[1]
    xs, ys = (a.ravel() for a in np.meshgrid(gx, gy))
    return np.column_stack([-w + xs, h - ys]), np.column_stack([w - xs, -h + ys])


_INDEX_POINTS: Final = _index_points()


def _turn(angle: float) -> np.ndarray:
    a = math.radians(angle)
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def index_shown(card: CardPlacement, above: Sequence[CardPlacement]) -> float:
    """The largest share of one of `card`'s two index corners that no card of `above` covers (by
    their outlines, lying flat)."""
    best = 0.0
    for corner in _INDEX_POINTS:
        points = corner @ _turn(card.angle).T + (card.x, card.y)
        hidden = np.zeros(len(points), bool)
        for other in above:
            local = (points - (other.x, other.y)) @ _turn(other.angle)
            hidden |= (np.abs(local[:, 0]) <= CARD_W_CM / 2) & (np.abs(local[:, 1]) <= CARD_H_CM / 2)
        best = max(best, 1.0 - float(hidden.mean()))
    return best


class TruthReader:
    """Reads each zone's true top card from a rendered game's timeline at the capture time of the
    frame about to be observed (`at` sets it). It implements the pipeline's zone-reader interface
    (`read`, `table_cards`), so everything else (markers, hands, change detection, the judge) runs
    on the video as it would on a camera. On a spit pile (cards lie there messily) it also reads the card directly below the top (`ZoneReading.under`) where at least
    `INDEX_SHOWN` of one of its index corners lies outside the cards above it."""

    def __init__(self, events: Sequence[Event], seed: int) -> None:
        self.geometry = geometry_for(list(events))
        self.timeline = Timeline(list(events), self.geometry, seed)
        self.t = 0.0

    def at(self, t: float) -> None:
        """The capture time of the frame about to be observed."""
        self.t = t

    def read(self, frame: np.ndarray, calibration: Calibration, zones: Sequence[str]) -> dict[str, ZoneReading]:
        still = self.timeline.at(self.t).still
        out = {}
        for name in zones:
            zone = calibration.layout.zone(name)
            cards = sorted((card for card in still if zone.contains(self.geometry.to_calibration(card.x, card.y))),
                           key=lambda card: (card.z, card.height))
            top = cards[-1] if cards else None
            seen = EMPTY if top is None else FACE_DOWN if top.code == FACE_DOWN else top.code
            under = None
            if zone.is_spit and len(cards) > 1 and seen != FACE_DOWN and cards[-2].code != FACE_DOWN \
                    and index_shown(cards[-2], cards[-1:]) >= INDEX_SHOWN:
                under = cards[-2].code
            out[name] = ZoneReading(seen, under=under)
        return out

    def table_cards(self, frame: np.ndarray, calibration: Calibration) -> list[CardSeen]:
        """The face-up cards lying still (what a layout is fitted to)."""
        return [CardSeen(*self.geometry.to_calibration(c.x, c.y)) for c in self.timeline.at(self.t).still
                if c.code != FACE_DOWN]
