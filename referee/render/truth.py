"""A zone reader that knows a rendered game's true cards: the oracle standing in for the card detector in tests, benches and the demo."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from referee.cards import FACE_DOWN
from referee.events import Event
from referee.observations import EMPTY, ZoneReading
from referee.render.timeline import Timeline
from referee.render.video import geometry_for
from referee.vision.calibrate import Calibration
from referee.vision.zones import CardSeen


class TruthReader:
    """Reads each zone's true top card from a rendered game's timeline at the capture time of the
    frame about to be observed (`at` sets it). It implements the pipeline's zone-reader interface
    (`read`, `table_cards`), so everything else (markers, hands, change detection, the judge) runs
    on the video as it would on a camera."""

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
            top = None
            for card in still:
                if zone.contains(self.geometry.to_calibration(card.x, card.y)) and (
                        top is None or (card.z, card.height) > (top.z, top.height)):
                    top = card
            out[name] = ZoneReading(EMPTY if top is None else FACE_DOWN if top.code == FACE_DOWN else top.code)
        return out

    def table_cards(self, frame: np.ndarray, calibration: Calibration) -> list[CardSeen]:
        """The face-up cards lying still (what a layout is fitted to)."""
        return [CardSeen(*self.geometry.to_calibration(c.x, c.y)) for c in self.timeline.at(self.t).still
                if c.code != FACE_DOWN]
