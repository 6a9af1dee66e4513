"""Suit pips drawn from parametric curves, so training faces show suit shapes of many proportions."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw

RGB = tuple[int, int, int]
SUPERSAMPLE = 4
"""Shapes are filled at this many times their size and shrunk, which smooths their edges."""


@dataclass(frozen=True)
class SuitShape:
    """Proportions of one deck's four suit shapes (plain floats, so a face style holding one hashes)."""

    height: float = 0.7
    """Glyph height as a share of the font size it stands in for."""
    aspect: float = 0.95
    """Width over height of the heart, spade and club."""
    lobe: float = 0.27
    """Radius of a heart's or spade's two lobes, as a share of the glyph's width."""
    cleft: float = 0.1
    """How far down the notch between a heart's lobes reaches, as a share of the lobes' height."""
    bulge: float = 0.04
    """Outward bow of the sides running to a heart's or spade's point, as a share of their length."""
    club_lobe: float = 0.23
    """Radius of a club's three leaves, as a share of its width."""
    club_drop: float = 0.45
    """How far below the top leaf the side leaves sit, as a share of the leaf radius times four."""
    stem_width: float = 0.1
    """Width of the spade's and club's stem where it leaves the body, as a share of the glyph's width."""
    stem_flare: float = 0.4
    """Width of the stem's foot, as a share of the glyph's width."""
    stem_length: float = 0.25
    """Height of the stem, as a share of the glyph's height."""
    diamond_aspect: float = 0.72
    """Width over height of the diamond."""
    diamond_bulge: float = 0.0
    """Bow of the diamond's sides: negative curves them in, positive out (share of the side's length)."""


def _curve(a: tuple[float, float], b: tuple[float, float], bow: float, steps: int = 16) -> list[tuple[float, float]]:
    """Points of a quadratic curve from a to b whose middle stands `bow` of the chord's length to its left."""
    (ax, ay), (bx, by) = a, b
    nx, ny = ay - by, bx - ax  # the chord turned a quarter to the left, as long as it
    cx, cy = (ax + bx) / 2 + 2 * bow * nx, (ay + by) / 2 + 2 * bow * ny
    t = np.linspace(0.0, 1.0, steps)
    xs = (1 - t) ** 2 * ax + 2 * (1 - t) * t * cx + t**2 * bx
    ys = (1 - t) ** 2 * ay + 2 * (1 - t) * t * cy + t**2 * by
    return list(zip(xs.tolist(), ys.tolist()))


def _heart(draw: ImageDraw.ImageDraw, shape: SuitShape, w: float, h: float, flip: bool) -> None:
    """A heart filling w x h, point down (up when `flip`, as a spade's body)."""
    def at(x: float, y: float) -> tuple[float, float]:
        return (x, h - y) if flip else (x, y)

    r = shape.lobe * w
    cy = r
    for cx in (r, w - r):
        x0, y0 = at(cx - r, cy - r)
        x1, y1 = at(cx + r, cy + r)
        draw.ellipse([min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)], fill=255)
    notch = (w / 2, shape.cleft * 2 * r)
    left = _curve((0.0, cy), (w / 2, h), shape.bulge)
    right = _curve((w / 2, h), (w, cy), shape.bulge)
    points = left + right[1:] + [(w - r, cy), notch, (r, cy)]
    draw.polygon([at(x, y) for x, y in points], fill=255)


def _stem(draw: ImageDraw.ImageDraw, shape: SuitShape, w: float, h: float, top: float) -> None:
    """A stem from `top` down to the foot of the glyph, its sides curved in."""
    half_top, half_foot = shape.stem_width * w / 2, shape.stem_flare * w / 2
    right = _curve((w / 2 + half_top, top), (w / 2 + half_foot, h), 0.12)
    left = _curve((w / 2 - half_foot, h), (w / 2 - half_top, top), 0.12)
    draw.polygon(right + left, fill=255)


def _club(draw: ImageDraw.ImageDraw, shape: SuitShape, w: float, body: float) -> float:
    """A club's three leaves and the middle between them, in the glyph's top `body` pixels; returns
    the height of the side leaves' centres, where its stem joins it."""
    r = min(shape.club_lobe * w, body / 2)
    side_y = min(r + shape.club_drop * 4 * r, body - r)
    centres = [(w / 2, r), (r, side_y), (w - r, side_y)]
    for cx, cy in centres:
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=255)
    draw.polygon(centres, fill=255)
    return side_y


def _diamond(draw: ImageDraw.ImageDraw, shape: SuitShape, w: float, h: float) -> None:
    corners = [(w / 2, 0.0), (w, h / 2), (w / 2, h), (0.0, h / 2)]
    points: list[tuple[float, float]] = []
    for k in range(4):
        points += _curve(corners[k], corners[(k + 1) % 4], -shape.diamond_bulge)[:-1]
    draw.polygon(points, fill=255)


def suit_image(suit: str, shape: SuitShape, size: int, ink: RGB) -> Image.Image:
    """A tight RGBA image of one suit ("S", "H", "D", "C") in one ink, about as tall as a font's
    glyph of `size` pixels (`shape.height` of it)."""
    height = max(4, round(shape.height * size))
    aspect = shape.diamond_aspect if suit == "D" else shape.aspect
    width = max(3, round(aspect * height))
    w, h = width * SUPERSAMPLE, height * SUPERSAMPLE
    mask = Image.new("L", (w, h), 0)
    draw = ImageDraw.Draw(mask)
    body = h * (1 - shape.stem_length)
    if suit == "H":
        _heart(draw, shape, w, h, flip=False)
    elif suit == "D":
        _diamond(draw, shape, w, h)
    elif suit == "S":
        _heart(draw, shape, w, body, flip=True)
        _stem(draw, shape, w, h, body * 0.8)
    elif suit == "C":
        _stem(draw, shape, w, h, _club(draw, shape, w, body))
    else:
        raise ValueError(f"no suit {suit!r}")
    alpha = mask.resize((width, height), Image.Resampling.BOX)
    tile = Image.new("RGBA", (width, height), ink + (0,))
    tile.putalpha(alpha)
    return tile
