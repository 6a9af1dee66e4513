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
    """A hand over the table, palm down.

    `x, y`: palm centre (cm); `angle`: direction the fingers point (degrees, 0 = +y, towards
    player B; 90 = +x); `height`: palm height above the table (cm; about 1 when slapping a
    pile); `spread` 0..1 opens the fingers; `curl` 0..1 bends them under (shorter seen from
    above); `sleeve`: the sleeve colour or None for a bare forearm, starting `sleeve_from` cm
    behind the wrist; `right`: a right hand (thumb on the left seen from above).
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


@dataclass(frozen=True)
class HandPart:
    """One convex-ish piece of a hand: its outline in table coordinates (N x 3, cm) and colour."""

    kind: str
    points: np.ndarray
    color: RGB


def _capsule(base: tuple[float, float], direction: float, length: float, width: float,
             steps: int = 5) -> np.ndarray:
    """Outline (N x 2, hand frame) of a finger: a rectangle with a round tip."""
    d = np.array([math.sin(direction), math.cos(direction)])
    n = np.array([d[1], -d[0]])
    b = np.array(base)
    tip = b + d * (length - width / 2)
    pts = [b - n * width / 2]
    for k in range(steps + 1):
        a = math.pi * k / steps
        pts.append(tip - n * math.cos(a) * width / 2 + d * math.sin(a) * width / 2)
    pts.append(b + n * width / 2)
    return np.array(pts)


def hand_parts(pose: HandPose) -> list[HandPart]:
    """The parts of a hand in drawing order (forearm, sleeve, palm, fingers, thumb)."""
    s = pose.scale
    mirror = 1.0 if pose.right else -1.0
    curl = 1.0 - 0.55 * pose.curl
    parts: list[tuple[str, np.ndarray, float, RGB]] = []  # kind, 2D outline, height offset per point
    skin = pose.skin
    # forearm from the wrist (v = -4.5) back 32 cm, rising towards the elbow
    arm = np.array([[-3.1, -4.0], [3.1, -4.0], [4.3, -36.0], [-4.3, -36.0]]) * s
    parts.append(("forearm", arm, 0.0, skin))
    if pose.sleeve is not None:
        start = -4.0 - pose.sleeve_from
        w0 = 3.1 + (4.3 - 3.1) * (pose.sleeve_from / 32) + 0.6
        sleeve = np.array([[-w0, start], [w0, start], [5.0, -36.0], [-5.0, -36.0]]) * s
        parts.append(("sleeve", sleeve, 0.0, pose.sleeve))
    palm = np.array([[-3.2, -4.6], [3.2, -4.6], [4.3, -1.5], [4.4, 3.0], [3.6, 4.6],
                     [-3.6, 4.6], [-4.3, 2.5], [-4.1, -1.5]]) * s
    parts.append(("palm", palm, 0.0, skin))
    spread = pose.spread
    for k, (u, length, fan) in enumerate(((-2.8, 7.0, -14), (-0.95, 7.9, -4), (0.95, 7.4, 5), (2.8, 5.9, 15))):
        direction = math.radians(fan * (0.3 + 1.4 * spread))
        outline = _capsule((u * s, 3.9 * s), direction, length * s * curl, (1.85 if k < 3 else 1.6) * s)
        parts.append((f"finger{k}", outline, -0.3, skin))
    thumb = _capsule((-3.7 * s, -1.6 * s), math.radians(-45 - 25 * spread), 6.2 * s, 2.2 * s)
    parts.append(("thumb", thumb, -0.2, skin))
    a = math.radians(pose.angle)
    c, s_ = math.cos(a), math.sin(a)
    out = []
    for kind, outline, dz, color in parts:
        u, v = outline[:, 0] * mirror, outline[:, 1]
        x = pose.x + u * c + v * s_
        y = pose.y - u * s_ + v * c
        behind = np.clip(-(v / s) - 4.0, 0, None)
        z = np.maximum(pose.height + dz + 0.3 * behind, 0.2)
        out.append(HandPart(kind, np.column_stack([x, y, z]), color))
    return out


def random_hand(rng: np.random.Generator, side: str, x: float, y: float, height: float | None = None) -> HandPose:
    """A hand of player `side` reaching to (x, y) from their edge of the table."""
    base = 0.0 if side == "A" else 180.0
    return HandPose(
        side=side, x=x, y=y, angle=base + float(rng.normal(0, 22)),
        height=float(height if height is not None else rng.uniform(1.0, 9.0)),
        skin=tuple(int(v) for v in np.clip(np.array(SKIN_TONES[rng.integers(len(SKIN_TONES))])
                                           * rng.uniform(0.9, 1.1, 3), 0, 255)),  # type: ignore[arg-type]
        sleeve=None if rng.random() < 0.35 else SLEEVES[rng.integers(len(SLEEVES))],
        sleeve_from=float(rng.uniform(2.0, 14.0)),
        spread=float(rng.uniform(0, 1)), curl=float(rng.uniform(0, 0.8)),
        scale=float(rng.uniform(0.85, 1.1)), right=bool(rng.random() < 0.8),
    )
