"""A card's four corners from its box, and its two index corners cut out upright (numpy and OpenCV only)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Final

import cv2
import numpy as np

CARD_ASPECT: Final = 88.9 / 63.5
"""Height over width of a poker-size card; bridge and pinochle cards are close to it."""
INDEX_REGION: Final = (0.27, 0.33)
"""Fraction of the card's width and height, from a corner, that holds the rank and suit index."""
CROP_SIZE: Final = (32, 56)
"""Width and height of an index crop, as the classifier takes it."""
READ_SCALES: Final = (1.0, 0.93, 1.07)
"""Sizes, about its centre, at which a card's quad is read (`scaled_quad`): the first is the first
reading; a card read unsure is read again at the others (a box or outline a few percent off cuts
the index a little off), each size giving its two crops, and at each of its corners as a whole
card's (`card_quads_at_corners`), all merged."""
_WORK_SIZE: Final = 120
_ASPECT_RANGE: Final = (1.15, 1.8)
_AREA_RANGE: Final = (0.4, 1.15)


def order_quad(points: np.ndarray) -> np.ndarray:
    """Four points of a convex quad, clockwise on screen, starting at a corner whose next edge is a short side.

    Of the two such corners the one nearer the image's top-left is first, so the result is
    deterministic; a card's printed top-left is either that corner or the opposite one.
    """
    pts = np.asarray(points, dtype=np.float32).reshape(4, 2)
    centre = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
    pts = pts[np.argsort(angles)]  # y grows downwards: increasing angle is clockwise on screen
    step = pts[_NEXT] - pts
    edge = np.sqrt((step * step).sum(axis=1))
    start = 0 if edge[0] + edge[2] <= edge[1] + edge[3] else 1
    other = start + 2
    if pts[other].sum() < pts[start].sum():
        start = other
    return pts[_FROM[start]]


_NEXT: Final = np.array([1, 2, 3, 0])
_FROM: Final = tuple(np.roll(np.arange(4), -k) for k in range(4))
"""Index arrays: each corner's next corner, and the four corners in turn from each one."""


def box_quad(box: tuple[float, float, float, float] | np.ndarray) -> np.ndarray:
    """The box itself as an ordered quad: the fallback when a card's outline cannot be found."""
    x1, y1, x2, y2 = (float(v) for v in box)
    return order_quad(np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], dtype=np.float32))


def refine_quad(image: np.ndarray, box: tuple[float, float, float, float] | np.ndarray) -> tuple[np.ndarray, bool]:
    """The card's outline inside its detection box as an ordered quad, and whether it was found.

    The card is the largest bright, unsaturated region overlapping the box centre; its
    minimum-area rectangle must have a card's aspect and fill the box as a card would,
    otherwise the box itself is returned (with False).
    """
    height, width = image.shape[:2]
    x1, y1, x2, y2 = (float(v) for v in box)
    bw, bh = x2 - x1, y2 - y1
    if bw < 4 or bh < 4:
        return box_quad(box), False
    mx, my = 0.06 * bw, 0.06 * bh
    cx1, cy1 = int(max(0, np.floor(x1 - mx))), int(max(0, np.floor(y1 - my)))
    cx2, cy2 = int(min(width, np.ceil(x2 + mx))), int(min(height, np.ceil(y2 + my)))
    crop = image[cy1:cy2, cx1:cx2]
    scale = min(1.0, _WORK_SIZE / max(crop.shape[:2]))
    if scale < 1.0:
        # bilinear while shrinking by less than half: area averaging by a fraction takes about four times
        # as long for nearly the same mask; a larger shrink (a close-up photo's card) needs the averaging
        interpolation = cv2.INTER_AREA if scale < 0.5 else cv2.INTER_LINEAR
        crop = cv2.resize(crop, None, fx=scale, fy=scale, interpolation=interpolation)
    hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV)
    whiteness = cv2.subtract(hsv[:, :, 2], hsv[:, :, 1] // 2)
    whiteness = cv2.GaussianBlur(whiteness, (5, 5), 0)
    _, mask = cv2.threshold(whiteness, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    inner = np.zeros_like(mask)
    ix1, iy1 = int((x1 - cx1) * scale), int((y1 - cy1) * scale)
    ix2, iy2 = int(np.ceil((x2 - cx1) * scale)), int(np.ceil((y2 - cy1) * scale))
    inner[iy1:iy2, ix1:ix2] = 255
    mask = cv2.morphologyEx(mask & inner, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return box_quad(box), False
    contour = max(contours, key=cv2.contourArea)
    (rcx, rcy), (rw, rh), angle = cv2.minAreaRect(contour)
    long_side, short_side = max(rw, rh), min(rw, rh)
    box_area = bw * bh * scale * scale
    if short_side < 2 or not _ASPECT_RANGE[0] <= long_side / short_side <= _ASPECT_RANGE[1]:
        return box_quad(box), False
    if not _AREA_RANGE[0] <= rw * rh / box_area <= _AREA_RANGE[1]:
        return box_quad(box), False
    points = cv2.boxPoints(((rcx, rcy), (rw, rh), angle)) / scale + np.array([cx1, cy1], dtype=np.float32)
    return order_quad(points), True


def outline_in_box(image: np.ndarray, quad: np.ndarray) -> np.ndarray | None:
    """A face-up card's outline found inside its oriented box (an ordered quad), if it agrees
    with the box: IoU >= 0.5 of their axis-aligned extents."""
    limit = (image.shape[1], image.shape[0])
    x1, y1 = np.clip(quad.min(axis=0), 0, limit)
    x2, y2 = np.clip(quad.max(axis=0), 0, limit)
    if x2 - x1 < 8 or y2 - y1 < 8:
        return None
    refined, found = refine_quad(image, (x1, y1, x2, y2))
    if not found:
        return None
    rx1, ry1 = refined.min(axis=0)
    rx2, ry2 = refined.max(axis=0)
    inter = max(0.0, min(x2, rx2) - max(x1, rx1)) * max(0.0, min(y2, ry2) - max(y1, ry1))
    union = (x2 - x1) * (y2 - y1) + (rx2 - rx1) * (ry2 - ry1) - inter
    return refined if inter / union >= 0.5 else None


def scaled_quad(quad: np.ndarray, factor: float) -> np.ndarray:
    """The quad grown (factor > 1) or shrunk about its centre, corners in the same order."""
    quad = np.asarray(quad, dtype=np.float32).reshape(4, 2)
    centre = quad.mean(axis=0)
    return (centre + (quad - centre) * np.float32(factor)).astype(np.float32)


def card_quads_at_corners(quad: np.ndarray) -> list[np.ndarray]:
    """A whole card's quad anchored at each corner of a quad, for a card partly hidden or cut by the image's edge.

    The box of such a card covers only the part that shows, so its index crops come out
    squeezed or at the wrong corners. Each corner is read here as a card's printed top-left:
    the card's width runs along the corner's next edge (clockwise), its height along the
    previous one, and the shorter of the two is grown to a card's proportions (`CARD_ASPECT`).
    The first corner of each returned quad is the anchor, so `index_crops(image, q)[0]` reads it.

    >>> strip = np.array([[0, 0], [30, 0], [30, 140], [0, 140]], dtype=np.float32)  # a card's left strip
    >>> card_quads_at_corners(strip)[0].round(1).tolist()
    [[0.0, 0.0], [100.0, 0.0], [100.0, 140.0], [0.0, 140.0]]
    """
    quad = np.asarray(quad, dtype=np.float32).reshape(4, 2)
    quads = []
    for k in range(4):
        corner = quad[k]
        across, down = quad[(k + 1) % 4] - corner, quad[(k - 1) % 4] - corner
        width_seen, height_seen = float(np.linalg.norm(across)), float(np.linalg.norm(down))
        if width_seen < 1.0 or height_seen < 1.0:
            continue
        width = max(width_seen, height_seen / CARD_ASPECT)
        across, down = across * (width / width_seen), down * (width * CARD_ASPECT / height_seen)
        quads.append(np.array([corner, corner + across, corner + across + down, corner + down], dtype=np.float32))
    return quads


def index_crops(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The two index corners of a card (at the quad's first and third corner), each turned upright.

    Returns an array (2, CROP_SIZE[1], CROP_SIZE[0], 3) uint8 in the image's channel order.
    The second crop is the opposite corner rotated by 180°, which on ordinary decks shows
    the same index, so the pair reads the same whichever way round the card lies.
    """
    return index_crops_of(image, [quad])


_CANONICAL: Final = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float32)
_HALF_TURN: Final = np.array([[-1.0, 0.0, 1.0], [0.0, -1.0, 1.0], [0.0, 0.0, 1.0]])
"""The unit card turned by 180° about its centre: the opposite corner's crop from the first's transform."""


@lru_cache(maxsize=8)
def _crop_to_card(factor: int) -> tuple[np.ndarray, np.ndarray]:
    """For a crop warped at `factor` times the crop size, the maps from its pixels to the unit card's
    index region at the first corner and at the opposite corner turned by 180°."""
    warp_w, warp_h = CROP_SIZE[0] * factor, CROP_SIZE[1] * factor
    scale = np.array([[INDEX_REGION[0] / warp_w, 0, 0], [0, INDEX_REGION[1] / warp_h, 0], [0, 0, 1]], dtype=np.float64)
    return scale, _HALF_TURN @ scale


def index_crops_of(image: np.ndarray, quads: Sequence[np.ndarray], both: bool = True) -> np.ndarray:
    """`index_crops` of many quads in the quads' order, (2 * len(quads), CROP_SIZE[1], CROP_SIZE[0], 3);
    with `both` False only each quad's first corner, (len(quads), ...).

    Each crop is warped at about the source resolution (a whole multiple of the crop size), then
    shrunk by area averaging, so a large card's index is not aliased. One perspective transform
    per card serves both corners.
    """
    out_w, out_h = CROP_SIZE
    per_quad = 2 if both else 1
    crops = np.empty((per_quad * len(quads), out_h, out_w, 3), dtype=np.uint8)
    for n, quad in enumerate(quads):
        quad = np.asarray(quad, dtype=np.float32).reshape(4, 2)
        card_h = math.hypot(float(quad[2, 0] - quad[1, 0]), float(quad[2, 1] - quad[1, 1]))
        factor = max(1, int(round(card_h * INDEX_REGION[1] / out_h)))
        card_to_image = cv2.getPerspectiveTransform(_CANONICAL, quad)
        for k, crop_to_card in enumerate(_crop_to_card(factor)[:per_quad]):
            warped = cv2.warpPerspective(image, card_to_image @ crop_to_card, (out_w * factor, out_h * factor),
                                         flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
            crops[per_quad * n + k] = warped if factor == 1 else cv2.resize(warped, (out_w, out_h), interpolation=cv2.INTER_AREA)
    return crops
