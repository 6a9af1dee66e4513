"""Where a card lying under a spit pile's top may show an index corner: whole-card quads anchored at
the corners of the pile's outline that lie outside the top card (numpy and OpenCV only)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np

from referee.vision.corners import INDEX_REGION

MIN_CONTRAST: Final = 15.0
"""Whiteness (value minus half the saturation) by which the top card must stand above the table's
for the pile's outline to be found; below it nothing is read under the top."""
_SQUARE: Final = 0.3
"""|cos| of the angle between a corner's two edges above which the corner is no card's corner."""
_EDGE_MIN_PX: Final = 5.0
_OUTSIDE_PX: Final = 2.0
"""A corner must lie this far outside the top card's quad to be a lower card's."""
_EDGE_REACH_PX: Final = 3
_INDEX_SAMPLES: Final = 6


@dataclass(frozen=True)
class LowerCorner:
    """A whole card's quad whose first corner holds an index (as `index_crops_of(..., both=False)`
    reads it), `shown`: the share of that index corner outside the top card, `edged`: the share of
    the quad's outline outside the top card that shows an edge (a card's dark border or the table)."""

    quad: np.ndarray
    shown: float
    edged: float


def whiteness(image: np.ndarray) -> np.ndarray:
    """Value minus half the saturation, as `refine_quad` finds a card: white card stock is high."""
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    return cv2.subtract(hsv[:, :, 2], hsv[:, :, 1] // 2)


def lower_corners(image: np.ndarray, top: np.ndarray) -> list[LowerCorner]:
    """Lower cards' index corners a pile view may show outside its top card (`top`, an ordered quad in
    the view's pixels).

    The pile is the largest region whiter than halfway between the table (the view's border) and the
    top card (its 90th percentile); each square, convex corner of its outline that lies outside the top
    card is a lower card's corner. Which of its two edges is the card's short side is not known, so
    each corner gives two whole cards (sized as the top), and each card its two index corners.
    """
    top = np.asarray(top, dtype=np.float32).reshape(4, 2)
    sides = np.linalg.norm(np.roll(top, -1, axis=0) - top, axis=1)
    width, height = sorted(((sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2))
    white = whiteness(image)
    border = np.concatenate([white[:3].ravel(), white[-3:].ravel(), white[:, :3].ravel(), white[:, -3:].ravel()])
    inside = np.zeros(white.shape, np.uint8)
    cv2.fillConvexPoly(inside, np.round(top).astype(np.int32), 1)
    if not inside.any():
        return []
    table, card = float(np.median(border)), float(np.percentile(white[inside > 0], 90))
    if card - table < MIN_CONTRAST:
        return []
    threshold = (table + card) / 2
    mask = ((white > threshold) * 255).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return []
    outline = cv2.approxPolyDP(max(contours, key=cv2.contourArea), 2.5, True).reshape(-1, 2).astype(np.float32)
    if _signed_area(outline) < 0:
        outline = outline[::-1]  # clockwise on screen
    found = []
    for card_quad in _cards_at_corners(outline, top, width, height):
        edged = _edged(white, top, card_quad, threshold)
        for quad in (card_quad, card_quad[[2, 3, 0, 1]]):
            found.append(LowerCorner(quad, _index_outside(quad, top), edged))
    return found


def _signed_area(polygon: np.ndarray) -> float:
    """Shoelace area, positive for a polygon clockwise on screen (y down)."""
    x, y = polygon[:, 0], polygon[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def _cards_at_corners(outline: np.ndarray, top: np.ndarray, width: float, height: float) -> list[np.ndarray]:
    """Whole cards (ordered quads, first and third corner holding an index) at each square convex corner of
    the pile's outline outside the top card: one with its short side along the corner's next edge, one along
    its previous edge."""
    contour = top.reshape(-1, 1, 2)
    quads = []
    count = len(outline)
    for k in range(count):
        corner = outline[k]
        ahead, back = outline[(k + 1) % count] - corner, outline[(k - 1) % count] - corner
        la, lb = float(np.linalg.norm(ahead)), float(np.linalg.norm(back))
        if la < _EDGE_MIN_PX or lb < _EDGE_MIN_PX or abs(float(ahead @ back)) / (la * lb) > _SQUARE:
            continue
        if ahead[0] * back[1] - ahead[1] * back[0] <= 0:
            continue  # a reflex corner: where two cards' outlines meet
        if cv2.pointPolygonTest(contour, (float(corner[0]), float(corner[1])), True) > -_OUTSIDE_PX:
            continue
        if la >= lb:  # square the corner up on its longer edge
            along = ahead / la
            down = np.array([-along[1], along[0]], np.float32)
            down = down if down @ back >= 0 else -down
        else:
            down = back / lb
            along = np.array([down[1], -down[0]], np.float32)
            along = along if along @ ahead >= 0 else -along
        quads.append(np.array([corner, corner + along * width, corner + along * width + down * height,
                               corner + down * height], np.float32))
        quads.append(np.array([corner + along * height, corner + along * height + down * width,
                               corner + down * width, corner], np.float32))
    return quads


def _index_outside(quad: np.ndarray, top: np.ndarray) -> float:
    """The share of the index at the quad's first corner (the inner part of `INDEX_REGION` that holds
    the rank and suit) that lies outside the top card."""
    to_image = cv2.getPerspectiveTransform(np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32), quad)
    steps = (np.arange(_INDEX_SAMPLES) + 0.5) / _INDEX_SAMPLES
    xs, ys = np.meshgrid(steps * INDEX_REGION[0] * 0.6, steps * INDEX_REGION[1] * 0.75)
    points = cv2.perspectiveTransform(np.stack([xs.ravel(), ys.ravel()], 1)[None].astype(np.float32), to_image)[0]
    contour = top.reshape(-1, 1, 2)
    return float(np.mean([cv2.pointPolygonTest(contour, (float(x), float(y)), False) < 0 for x, y in points]))


def _edged(white: np.ndarray, top: np.ndarray, quad: np.ndarray, threshold: float, step: float = 2.0) -> float:
    """The share of the quad's outline outside the top card along which, within `_EDGE_REACH_PX`, the
    view is darker than `threshold` (a card's border or the table): a card lying under another lower
    card has stretches of outline with white stock on both sides."""
    height, width = white.shape
    reach = _EDGE_REACH_PX
    points, normals = [], []
    for k in range(4):
        start, edge = quad[k], quad[(k + 1) % 4] - quad[k]
        length = float(np.linalg.norm(edge))
        unit = edge / length
        along = np.arange(step, length - step, step, dtype=np.float32)
        points.append(start[None] + along[:, None] * unit[None])
        normals.append(np.repeat(np.array([[-unit[1], unit[0]]], np.float32), len(along), axis=0))
    pts, nrm = np.concatenate(points), np.concatenate(normals)
    keep = (pts[:, 0] > reach) & (pts[:, 0] < width - reach - 1) & (pts[:, 1] > reach) & (pts[:, 1] < height - reach - 1)
    contour = top.reshape(-1, 1, 2)
    keep[keep] = [cv2.pointPolygonTest(contour, (float(x), float(y)), True) < -reach for x, y in pts[keep]]
    pts, nrm = pts[keep], nrm[keep]
    if not len(pts):
        return 0.0
    profile = pts[:, None, :] + np.arange(-reach, reach + 1, dtype=np.float32)[None, :, None] * nrm[:, None, :]
    xs = np.clip(np.round(profile[..., 0]).astype(int), 0, width - 1)
    ys = np.clip(np.round(profile[..., 1]).astype(int), 0, height - 1)
    return float(np.mean(white[ys, xs].min(axis=1) < threshold))
