"""Where things lie on the rendered table: the play area, markers, piles, spit stacks and the players' seats.

Two table frames meet here, and only here. The scene renderer (`referee.synth`) puts its origin
at the middle of the play area; the calibration (`referee.vision.calibrate`, docs/calibration.md)
puts it at marker 3's inner corner. Both have x to player A's right and y towards player B, in
cm, so one is the other shifted by half the play area: `to_synth` and `to_calibration`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

from referee.synth import MarkerPlacement, PlayArea
from referee.vision.zones import Layout, default_layout

PLAYER_ANGLE = {"A": 0.0, "B": 180.0}
"""The angle at which a player's own cards lie upright for them (synth's convention: 0 is upright for A)."""


@dataclass(frozen=True)
class Seat:
    """Where a player's hand comes from: the shoulder (synth frame, cm) and where the hand waits."""

    shoulder: tuple[float, float]
    rest: tuple[float, float]


@dataclass(frozen=True)
class TableGeometry:
    """A play area of `width_cm` x `depth_cm` between the markers' inner corners (the calibration's
    play area), markers of `marker_cm` just outside its corners, and each player's `stock_places`
    stock piles where `referee.vision.zones.default_layout` expects them."""

    width_cm: float = 76.0
    depth_cm: float = 56.0
    marker_cm: float = 5.0
    stock_places: int = 5

    def to_synth(self, x: float, y: float) -> tuple[float, float]:
        """A calibration-frame point (origin at marker 3's inner corner) in synth's frame (origin mid-table)."""
        return x - self.width_cm / 2, y - self.depth_cm / 2

    def to_calibration(self, x: float, y: float) -> tuple[float, float]:
        """A synth-frame point in the calibration frame."""
        return x + self.width_cm / 2, y + self.depth_cm / 2

    def markers(self) -> tuple[MarkerPlacement, ...]:
        """Markers 0..3 centred half a marker outside each corner, so their inner corners are the play area's."""
        return PlayArea(self.width_cm + self.marker_cm, self.depth_cm + self.marker_cm, self.marker_cm).markers()

    @cached_property
    def layout(self) -> Layout:
        """The calibration's default zones of this play area (calibration frame)."""
        return default_layout(self.width_cm, self.depth_cm, stock_places=self.stock_places)

    @cached_property
    def _centres(self) -> dict[str, tuple[float, float]]:
        return {zone.name: self.to_synth(*zone.centre) for zone in self.layout.piles}

    def pile(self, name: str) -> tuple[float, float]:
        """The middle of a pile's default zone (synth frame); raises `UnknownZone` for another name."""
        if name not in self._centres:
            self.layout.zone(name)
        return self._centres[name]

    def stack(self, player: str) -> tuple[float, float]:
        """Where a player's face-down spit cards lie: beyond their leftmost stock pile, inside the play area."""
        x, y = self.pile(f"{player}1")
        limit = self.width_cm / 2 - 4.0
        return (max(-limit, x - 11.5) if player == "A" else min(limit, x + 11.5)), y

    def packet(self, player: str) -> tuple[float, float]:
        """Where a player holds the packet they deal from: over their edge of the play area, a little to their left."""
        return (-8.0, -self.depth_cm / 2 + 1.0) if player == "A" else (8.0, self.depth_cm / 2 - 1.0)

    def seat(self, player: str, hand: str) -> Seat:
        """The shoulder a hand comes from and where it waits, just off the player's edge."""
        side = 1.0 if hand == "right" else -1.0
        if player == "A":
            return Seat((13.0 * side, -self.depth_cm / 2 - 34.0), (10.0 * side, -self.depth_cm / 2 - 5.0))
        return Seat((-13.0 * side, self.depth_cm / 2 + 34.0), (-10.0 * side, self.depth_cm / 2 + 5.0))

    def hand_angle(self, player: str, hand: str, x: float, y: float) -> float:
        """The direction (degrees, 0 = +y) the fingers point when a hand reaches (x, y) from its shoulder."""
        sx, sy = self.seat(player, hand).shoulder
        return math.degrees(math.atan2(x - sx, y - sy))
