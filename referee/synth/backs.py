"""Card backs: the project's own printed patterns, or back images read from a folder."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import cv2
import numpy as np

from referee.synth.faces import (FACE_H, FACE_W, IMAGE_SUFFIXES, RGB, SynthAssetError,
                                 load_image_file, rounded_alpha)

PATTERNS: Final = ("lattice", "stripes", "dots", "rings", "plain")
RESERVED_PATTERNS: Final = ("checks",)
"""Back patterns no training set draws (see `RESERVED_BACKS`)."""
INKS: Final[tuple[RGB, ...]] = ((170, 25, 35), (30, 60, 150), (20, 100, 60), (25, 25, 30), (110, 40, 120))


@dataclass(frozen=True)
class BackStyle:
    """A built-in back: a pattern printed in one ink on white stock, inside a white margin."""

    pattern: str
    ink: RGB
    margin: float = 0.06
    corner_radius: float = 0.07

    @property
    def name(self) -> str:
        return f"{self.pattern}-{'%02x%02x%02x' % self.ink}"


BUILTIN_BACKS: Final[tuple[BackStyle, ...]] = tuple(
    BackStyle(pattern, ink, margin=0.04 + 0.02 * (i % 3))
    for i, (pattern, ink) in enumerate((p, k) for p in PATTERNS for k in INKS)
)


RESERVED_BACKS: Final[tuple[BackStyle, ...]] = (
    BackStyle("checks", (140, 30, 60), margin=0.05, corner_radius=0.075),
    BackStyle("checks", (30, 90, 140), margin=0.07, corner_radius=0.055),
)
"""Backs no training set draws (`BUILTIN_BACKS` are what `referee synth-data` draws unless told
otherwise): a pattern of their own, for sets measuring a deck the models never saw (`--styles`)."""

BACKS_BY_NAME: Final[dict[str, BackStyle]] = {s.name: s for s in BUILTIN_BACKS + RESERVED_BACKS}


def render_builtin_back(style: BackStyle) -> np.ndarray:
    """The RGBA back (FACE_H x FACE_W x 4) of a built-in back style."""
    if style.pattern not in PATTERNS + RESERVED_PATTERNS:
        raise SynthAssetError(f"unknown back pattern {style.pattern!r}; known: {', '.join(PATTERNS + RESERVED_PATTERNS)}")
    ink = np.array(style.ink, np.float32)
    paper = np.array((248, 248, 244), np.float32)
    ys, xs = np.mgrid[0:FACE_H, 0:FACE_W].astype(np.float32)
    if style.pattern == "lattice":
        u, v = (xs + ys) / 14.0, (xs - ys) / 14.0
        t = np.minimum(np.abs(u - np.round(u)), np.abs(v - np.round(v)))
        amount = np.clip((0.16 - t) / 0.06, 0, 1) * 0.75 + 0.25
    elif style.pattern == "stripes":
        amount = 0.55 + 0.45 * (np.sin((xs * 0.8 + ys) / 3.0) > 0)
    elif style.pattern == "dots":
        u, v = xs / 12.0, ys / 12.0
        d = np.hypot(u - np.round(u), v - np.round(v))
        amount = np.where(d < 0.28, 0.15, 1.0)
    elif style.pattern == "rings":
        r = np.hypot(xs - FACE_W / 2, (ys - FACE_H / 2) * 0.72)
        amount = 0.4 + 0.6 * (np.sin(r / 3.2) > -0.2)
    elif style.pattern == "checks":
        u, v = (xs * 0.8 + ys * 0.6) / 11.0, (ys * 0.8 - xs * 0.6) / 11.0
        amount = 0.3 + 0.7 * ((np.floor(u) + np.floor(v)) % 2)
    else:
        amount = np.ones_like(xs)
    m = style.margin * FACE_W
    inside = ((xs >= m) & (xs < FACE_W - m) & (ys >= m) & (ys < FACE_H - m)).astype(np.float32)
    frame = ((xs >= m + 5) & (xs < FACE_W - m - 5) & (ys >= m + 5) & (ys < FACE_H - m - 5))
    amount = np.where(frame, amount, 1.0) * inside
    rgb = paper * (1 - amount[..., None]) + ink * amount[..., None]
    rgb = cv2.GaussianBlur(rgb, (0, 0), 0.6)
    alpha = rounded_alpha(round(style.corner_radius * FACE_W, 1))
    return np.dstack([np.clip(rgb, 0, 255).astype(np.uint8), alpha])


@functools.lru_cache(maxsize=64)
def builtin_back(style: BackStyle) -> np.ndarray:
    back = render_builtin_back(style)
    back.setflags(write=False)
    return back


@functools.lru_cache(maxsize=16)
def _back_files(folder: Path) -> tuple[Path, ...]:
    return tuple(p for p in sorted(folder.iterdir()) if p.suffix.lower() in IMAGE_SUFFIXES)


def folder_back_files(folder: Path) -> tuple[Path, ...]:
    """The back images of a folder (every SVG, PNG or JPG in it); raises if there are none."""
    if not folder.is_dir():
        raise SynthAssetError(f"backs folder {folder} does not exist")
    files = _back_files(folder)
    if not files:
        raise SynthAssetError(f"backs folder {folder} holds no SVG, PNG or JPG images")
    return files


@functools.lru_cache(maxsize=16)
def folder_back(path: Path) -> np.ndarray:
    back = load_image_file(path)
    back.setflags(write=False)
    return back
