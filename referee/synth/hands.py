"""Procedural hands and forearms (palm, fingers, thumb, sleeve) posed over the table plane."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

import numpy as np

from referee.synth.faces import RGB

SKIN_TONES: Final[tuple[RGB, ...]] = (
    (255, 224, 196), (241, 194, 158), (224, 172, 130), (198, 134, 94),
    (160, 102, 66), (120, 74, 46), (86, 52, 34), (62, 40, 28),
)
SLEEVES: Final[tuple[RGB, ...]] = (
    (30, 30, 35), (200, 200, 205), (40, 60, 120), (120, 30, 35), (60, 90, 60),
    (230, 225, 210), (90, 70, 50), (150, 150, 160),
)


@dataclass(frozen=True)
class HandPose:
    """A hand over the table, palm down, its arm reaching back to the player's edge.

    `x, y`: palm centre (cm); `angle`: direction the fingers point (degrees, 0 = +y, towards
    player B; 90 = +x); `height`: palm height above the table (cm; about 1 when slapping a
    pile); `spread` 0..1 opens the fingers; `curl` 0..1 bends them under (shorter seen from
    above); `sleeve`: the sleeve colour or None for a bare forearm, starting `sleeve_from` cm
    behind the wrist; `right`: a right hand (thumb on the left seen from above);
    `motion_cm`, `motion_angle`: how far and which way (degrees, like `angle`) the hand moves
    while the shutter is open (motion blur).
    """

    side: str
    x: float
    y: float
    angle: float
    height: float
    skin: RGB
    sleeve: RGB | None = None
    sleeve_from: float = 6.0
    spread: float = 0.3
    curl: float = 0.2
    scale: float = 1.0
    right: bool = True
    motion_cm: float = 0.0
    motion_angle: float = 0.0


@dataclass(frozen=True)
class HandPart:
    """One piece of a hand: its outline in table coordinates (N x 3, cm), colour, and for fingers
    the crease lines and nail (each N x 3) drawn on it."""

    kind: str
    points: np.ndarray
    color: RGB
    details: tuple[np.ndarray, ...] = ()


def _finger(base: tuple[float, float], direction: float, length: float, width: float,
            steps: int = 6) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """A tapered finger with a round tip (outline, N x 2, hand frame), its two creases and its nail."""
    d = np.array([math.sin(direction), math.cos(direction)])
    n = np.array([d[1], -d[0]])
    b = np.array(base)
    tip_w = width * 0.8
    tip = b + d * (length - tip_w / 2)
    pts = [b - n * width / 2]
    for k in range(steps + 1):
        a = math.pi * k / steps
        pts.append(tip - n * math.cos(a) * tip_w / 2 + d * math.sin(a) * tip_w / 2)
    pts.append(b + n * width / 2)
    creases = tuple(np.array([b + d * length * f - n * w * 0.35, b + d * length * f + n * w * 0.35])
                    for f, w in ((0.42, width), (0.7, tip_w)))
    nail_c = b + d * (length - tip_w * 0.75)
    nail = np.array([nail_c + d * tip_w * 0.4 * math.sin(t) + n * tip_w * 0.3 * math.cos(t)
                     for t in np.linspace(0, 2 * math.pi, 9)[:-1]])
    return np.array(pts), creases + (nail,)


def hand_parts(pose: HandPose) -> list[HandPart]:
    """The parts of a hand in drawing order (upper arm, forearm, sleeve, palm, thumb, fingers)."""
    s = pose.scale
    mirror = 1.0 if pose.right else -1.0
    curl = 1.0 - 0.55 * pose.curl
    pieces: list[tuple[str, np.ndarray, float, RGB, tuple[np.ndarray, ...]]] = []
    skin = pose.skin
    # the arm runs back from the wrist (v = -4.2): forearm to the elbow, then the upper arm, rising
    arm = np.array([[-2.7, -3.8], [2.7, -3.8], [4.2, -30.0], [-4.2, -30.0]]) * s
    upper = np.array([[-4.6, -28.0], [4.6, -28.0], [5.5, -75.0], [-5.5, -75.0]]) * s
    sleeve_colour = pose.sleeve if pose.sleeve is not None else skin
    pieces.append(("upperarm", upper, 0.0, sleeve_colour, ()))
    pieces.append(("forearm", arm, 0.0, skin, ()))
    if pose.sleeve is not None:
        start = -3.8 - pose.sleeve_from
        w0 = 2.7 + 1.5 * (pose.sleeve_from / 26) + 0.7
        sleeve = np.array([[-w0, start], [w0, start], [5.0, -30.0], [-5.0, -30.0]]) * s
        pieces.append(("sleeve", sleeve, 0.0, pose.sleeve, ()))
    palm = np.array([[-2.9, -4.4], [2.9, -4.4], [3.9, -1.8], [4.3, 2.6], [3.7, 4.5], [1.0, 4.9],
                     [-1.0, 4.9], [-3.7, 4.4], [-4.2, 2.0], [-3.8, -1.8]]) * s
    pieces.append(("palm", palm, 0.0, skin, ()))
    thumb, thumb_details = _finger((-3.4 * s, -2.2 * s), math.radians(-38 - 22 * pose.spread),
                                   6.4 * s * (1 - 0.25 * pose.curl), 2.3 * s)
    pieces.append(("thumb", thumb, -0.2, skin, thumb_details))
    for k, (u, length, fan) in enumerate(((-2.8, 7.2, -12), (-0.95, 8.0, -4), (0.95, 7.5, 4), (2.75, 6.0, 13))):
        outline, details = _finger((u * s, 4.2 * s), math.radians(fan * (0.2 + 1.6 * pose.spread)),
                                   length * s * curl, (1.8 if k < 3 else 1.55) * s)
        pieces.append((f"finger{k}", outline, -0.3, skin, details))
    a = math.radians(pose.angle)
    c, s_ = math.cos(a), math.sin(a)

    def place(outline: np.ndarray, dz: float) -> np.ndarray:
        u, v = outline[:, 0] * mirror, outline[:, 1]
        behind = np.clip(-(v / s) - 4.0, 0, None)
        z = pose.height + dz + 0.28 * behind + 0.004 * behind ** 2
        return np.column_stack([pose.x + u * c + v * s_, pose.y - u * s_ + v * c, np.maximum(z, 0.2)])

    return [HandPart(kind, place(outline, dz), color, tuple(place(d, dz + 0.05) for d in details))
            for kind, outline, dz, color, details in pieces]


def random_hand(rng: np.random.Generator, side: str, x: float, y: float, height: float | None = None) -> HandPose:
    """A hand of player `side` reaching to (x, y) from their edge of the table."""
    base = 0.0 if side == "A" else 180.0
    tone = np.array(SKIN_TONES[rng.integers(len(SKIN_TONES))]) * rng.uniform(0.92, 1.08, 3)
    moving = rng.random() < 0.3
    return HandPose(
        side=side, x=x, y=y, angle=base + float(rng.normal(0, 22)),
        height=float(height if height is not None else rng.uniform(1.0, 9.0)),
        skin=_rgb(tone),
        sleeve=None if rng.random() < 0.35 else _rgb(np.array(SLEEVES[rng.integers(len(SLEEVES))]) * rng.uniform(0.8, 1.2)),
        sleeve_from=float(rng.uniform(2.0, 14.0)),
        spread=float(rng.uniform(0, 1)), curl=float(rng.uniform(0, 0.8)),
        scale=float(rng.uniform(0.85, 1.1)), right=bool(rng.random() < 0.8),
        motion_cm=float(rng.uniform(0.5, 4.0)) if moving else 0.0, motion_angle=float(rng.uniform(0, 360)),
    )


def _rgb(value: np.ndarray) -> RGB:
    r, g, b = np.clip(value, 0, 255).astype(int)
    return int(r), int(g), int(b)
