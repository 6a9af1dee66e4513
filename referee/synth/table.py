"""Procedural table surfaces (wood, felt, cloth, laminate; dark and light) drawn on the table plane."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np

from referee.synth.faces import RGB

KINDS: Final = ("wood", "felt", "cloth", "laminate", "check", "carpet", "rug")
FINE_KINDS: Final = frozenset({"carpet", "rug"})
"""Surfaces with detail that needs a finer texture raster."""


@dataclass(frozen=True)
class TableStyle:
    """One tabletop: its kind, main and second colour, and the seed of its grain."""

    kind: str
    color: RGB
    color2: RGB
    seed: int
    scale: float = 1.0
    """Size of the pattern (planks, weave, checks) relative to the default."""
    edges: tuple[float, float, float, float] | None = None
    """Where the table ends (left, right, near, far in cm on the table frame); None: it fills the view."""
    beyond: RGB = (40, 36, 34)
    """The colour of what is seen past the edges (floor, room), drawn out of focus."""


def random_table(rng: np.random.Generator) -> TableStyle:
    kind = KINDS[int(rng.choice(len(KINDS), p=[0.3, 0.15, 0.12, 0.17, 0.08, 0.1, 0.08]))]
    dark = rng.random() < 0.4
    if kind == "wood":
        base = np.array([150, 100, 60]) * (rng.uniform(0.35, 0.7) if dark else rng.uniform(0.9, 1.5))
        second = base * rng.uniform(0.6, 0.85)
    elif kind == "felt":
        base = np.array([(30, 110, 60), (30, 60, 120), (120, 30, 40), (60, 60, 60), (20, 20, 22)][rng.integers(5)])
        second = base * 0.8
    elif kind == "cloth":
        base = rng.uniform(30, 230, 3) if not dark else rng.uniform(15, 90, 3)
        second = base * rng.uniform(0.75, 0.95)
    elif kind == "laminate":
        grey = rng.uniform(25, 70) if dark else rng.uniform(170, 240)
        base = grey + rng.uniform(-12, 12, 3)
        second = base * rng.uniform(0.9, 1.0)
    elif kind == "check":  # gingham tablecloth: white and one colour
        base = np.array([245, 243, 238]) * rng.uniform(0.85, 1.0)
        second = np.array([(190, 30, 40), (40, 70, 160), (30, 120, 60), (40, 40, 40), (220, 160, 40)][rng.integers(5)])
    elif kind == "carpet":  # looped pile: beige, grey, brown
        base = np.array([(190, 170, 140), (150, 150, 150), (120, 95, 70), (90, 90, 110)][rng.integers(4)])
        base = base * rng.uniform(0.6, 1.15)
        second = base * rng.uniform(0.35, 0.6)
    else:  # a patterned rug: two strong colours
        base = rng.uniform(120, 240, 3)
        second = rng.uniform(10, 120, 3)
    edges = None
    if rng.random() < 0.5:
        half_w, half_d = rng.uniform(42, 90), rng.uniform(36, 70)
        dx, dy = rng.normal(0, 8, 2)
        edges = (float(dx - half_w), float(dx + half_w), float(dy - half_d), float(dy + half_d))
    return TableStyle(kind, _rgb(base), _rgb(second), int(rng.integers(2**31)), float(rng.uniform(0.7, 1.5)),
                      edges, _rgb(rng.uniform(10, 160, 3) * rng.uniform(0.3, 1.0)))


def _rgb(value: np.ndarray) -> RGB:
    r, g, b = np.clip(value, 0, 255).astype(int)
    return int(r), int(g), int(b)


def _smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cells: tuple[int, int]) -> np.ndarray:
    small = rng.standard_normal((max(2, cells[0]), max(2, cells[1]))).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def render_table(style: TableStyle, x0: float, y0: float, px_per_cm: float,
                 size: tuple[int, int]) -> np.ndarray:
    """The surface (float32 RGB in 0..1, rows x cols = size) of the region starting at (x0, y0) cm.

    Row r, column c shows table point (x0 + (c + 0.5) / px_per_cm, y0 + (r + 0.5) / px_per_cm).
    The pattern depends on the style and the region, so a fixed camera always sees the same table.
    """
    rows, cols = size
    rng = np.random.default_rng([style.seed, int(x0 * 10) & 0xFFFF, int(y0 * 10) & 0xFFFF])
    w_cm, h_cm = cols / px_per_cm, rows / px_per_cm
    xs = (x0 + (np.arange(cols, dtype=np.float32) + 0.5) / px_per_cm)[None, :]
    ys = (y0 + (np.arange(rows, dtype=np.float32) + 0.5) / px_per_cm)[:, None]
    base, second = np.array(style.color, np.float32) / 255, np.array(style.color2, np.float32) / 255
    s = style.scale
    fine = rng.standard_normal((rows, cols), dtype=np.float32)
    if style.kind == "wood":
        plank_w = 11.0 * s
        plank = np.floor(xs / plank_w)
        phase = (np.sin(plank * 12.9898 + style.seed % 97) * 43758.5453) % 1.0
        # growth rings: bands across the plank that drift slowly along it
        drift = _smooth_noise(rng, (rows, cols), (int(h_cm / 60) + 2, int(w_cm / 6) + 2))
        rings = ((xs - plank * plank_w) * (0.9 / s) + drift * 1.5 + phase * 7.0) % 1.0
        band = np.clip(np.abs(rings - 0.5) * 2.0, 0, 1) ** 3
        # fibres: fine across the plank, long along it
        fibre = _smooth_noise(rng, (rows, cols), (int(h_cm / 12) + 2, int(w_cm * 3 * px_per_cm / max(px_per_cm, 3))))
        t = np.clip(0.55 * band + 0.18 * fibre + 0.35 * (phase - 0.5), 0, 1)
        img = base * (1 - t[..., None]) + second * t[..., None]
        seam = (np.abs(xs / plank_w - np.round(xs / plank_w)) * plank_w < 0.07).astype(np.float32)
        img *= (1 - 0.4 * seam)[..., None]
        img *= (1 + 0.03 * fine)[..., None]
    elif style.kind == "felt":
        blotch = _smooth_noise(rng, (rows, cols), (int(h_cm / 10) + 2, int(w_cm / 10) + 2))
        img = base * (1 + 0.06 * blotch[..., None] + 0.07 * fine[..., None])
    elif style.kind == "cloth":
        weave = (np.sin(xs * 2 * np.pi * 5 / s) * np.sin(ys * 2 * np.pi * 5 / s))
        folds = _smooth_noise(rng, (rows, cols), (int(h_cm / 15) + 2, int(w_cm / 15) + 2))
        img = base * (1 + 0.05 * weave[..., None] + 0.08 * folds[..., None] + 0.04 * fine[..., None])
    elif style.kind == "laminate":
        blotch = _smooth_noise(rng, (rows, cols), (int(h_cm / 20) + 2, int(w_cm / 20) + 2))
        speck = (fine > 2.3).astype(np.float32)
        img = base * (1 + 0.025 * blotch[..., None] - 0.15 * speck[..., None] + 0.015 * fine[..., None])
    elif style.kind == "carpet":
        loops = _smooth_noise(rng, (rows, cols), (int(h_cm / 0.35) + 2, int(w_cm / 0.35) + 2))
        patches = _smooth_noise(rng, (rows, cols), (int(h_cm / 12) + 2, int(w_cm / 12) + 2))
        t = np.clip(0.5 + 0.3 * loops + 0.22 * fine + 0.1 * patches, 0, 1)
        img = second * (1 - t[..., None]) + base * t[..., None]
    elif style.kind == "rug":
        period = 6.0 * s
        zig = np.abs((xs / period) % 2.0 - 1.0) * period * 0.6
        band = (np.floor((ys + zig) / (period * 0.5)) % 3).astype(np.float32) / 2.0
        fibres = 0.18 * fine + 0.12 * _smooth_noise(rng, (rows, cols), (int(h_cm / 0.4) + 2, int(w_cm / 0.4) + 2))
        t = np.clip(band + fibres, 0, 1)
        img = second * (1 - t[..., None]) + base * t[..., None]
    else:
        period = 2.5 * s
        stripes_x = (np.floor(xs / period) % 2).astype(np.float32)
        stripes_y = (np.floor(ys / period) % 2).astype(np.float32)
        gingham = 0.5 * (stripes_x + stripes_y)  # 0 white, 0.5 mixed, 1 full colour
        folds = _smooth_noise(rng, (rows, cols), (int(h_cm / 15) + 2, int(w_cm / 15) + 2))
        img = base * (1 - gingham[..., None]) + second * gingham[..., None]
        img = img * (1 + 0.06 * folds[..., None] + 0.03 * fine[..., None])
    if style.edges is not None:
        img = _with_edges(img, style, xs, ys, px_per_cm, rng)
    return np.clip(img, 0, 1).astype(np.float32)


def _with_edges(img: np.ndarray, style: TableStyle, xs: np.ndarray, ys: np.ndarray, px_per_cm: float,
                rng: np.random.Generator) -> np.ndarray:
    """Past the table's edges: a blurred, darker room; along them a thin rim in shade."""
    left, right, near, far = style.edges  # type: ignore[misc]
    inside = np.minimum(np.minimum(xs - left, right - xs), np.minimum(ys - near, far - ys))  # cm, < 0 outside
    if float(inside.min()) > 1.5:
        return img
    rows, cols = img.shape[:2]
    on_table = np.clip(inside * px_per_cm + 0.5, 0, 1)
    rim = np.clip(1 - np.abs(inside + 0.6) / 0.6, 0, 1)
    w_img = on_table * (1 - 0.1 * rim) + 0.25 * rim
    w_room = (1 - on_table) * (1 - 0.35 * rim)
    room = np.array(style.beyond, np.float32) / 255
    blotch = _smooth_noise(rng, (rows, cols), (6, 6))
    return img * w_img[..., None] + (w_room * (1 + 0.25 * blotch))[..., None] * room
