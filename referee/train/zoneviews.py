"""Detector training images cut as the pipeline's zone reader sees a table: piles rectified top-down from synthetic scenes and tiled, with oriented-box labels."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.cards import FACE_DOWN
from referee.vision.evaluate import seen_enough

PAD_GREY = 114  # what DetectorReader fills a mosaic's gaps with
MIN_IN_TILE = 0.6  # share of a card's area inside its tile for it to be labelled


def _to_table(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Image pixels -> table cm through the inverse of a table -> image homography."""
    moved = cv2.perspectiveTransform(points.reshape(-1, 1, 2).astype(np.float64), np.linalg.inv(homography))
    return moved.reshape(-1, 2)


def _tile(image: np.ndarray, homography: np.ndarray, box_cm: tuple[float, float, float, float],
          px_per_cm: float) -> tuple[np.ndarray, np.ndarray]:
    """A top-down view of the table box (x0, y0, x1, y1 in cm) at `px_per_cm`, as
    `Calibration.rectify` makes it (x to the right, table y upwards), and the table cm -> tile
    pixel matrix."""
    x0, y0, x1, y1 = box_cm
    size = (max(1, math.ceil((x1 - x0) * px_per_cm)), max(1, math.ceil((y1 - y0) * px_per_cm)))
    pixels_to_table = np.array([[1 / px_per_cm, 0, x0 + 0.5 / px_per_cm],
                                [0, -1 / px_per_cm, y1 - 0.5 / px_per_cm], [0, 0, 1]])
    view = cv2.warpPerspective(image, homography @ pixels_to_table, size,
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
    return view, np.linalg.inv(pixels_to_table)


def _inside_share(quad: np.ndarray, width: int, height: int) -> float:
    """The share of a quad's area that lies inside the width x height rectangle."""
    area = abs(cv2.contourArea(quad.astype(np.float32)))
    if area < 1.0:
        return 0.0
    rect = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    overlap, _ = cv2.intersectConvexConvex(quad.astype(np.float32), rect)
    return float(overlap) / area


@dataclass(frozen=True)
class PlacedCard:
    """A synthetic card as a zone mosaic shows it: its annotation, its outline in its tile's pixels
    (the annotation's corner order, not clipped) and the tile's place (x, y, width, height) in the
    mosaic. A card near two piles is placed once per tile that shows it."""

    card: dict[str, Any]
    quad: np.ndarray
    tile: tuple[int, int, int, int]

    @property
    def in_mosaic(self) -> np.ndarray:
        """The outline in mosaic pixels, not clipped to the tile."""
        return self.quad + self.tile[:2]

    def inside_share(self) -> float:
        """The share of the card's area that lies inside its tile."""
        return _inside_share(self.quad, self.tile[2], self.tile[3])


def zone_mosaic(image: np.ndarray, note: dict, rng: np.random.Generator) -> tuple[np.ndarray, list[PlacedCard]] | None:
    """One mosaic of 1-6 pile views of a synthetic image (each pile's cards' extent grown by a
    random margin, at one random scale of 6-16 px/cm) and every card of the image placed in every
    tile; None when the image has no pile."""
    homography = np.asarray(note["camera"]["homography"], dtype=np.float64)
    piles: dict[str, list[np.ndarray]] = {}
    for card in note["cards"]:
        if card.get("zone"):
            piles.setdefault(card["zone"], []).append(_to_table(homography, np.asarray(card["corners"])))
    if not piles:
        return None
    names = sorted(piles)
    chosen = [names[k] for k in rng.choice(len(names), size=min(len(names), int(rng.integers(1, 7))), replace=False)]
    px_per_cm = float(rng.uniform(6.0, 16.0))
    tiles = []
    for name in chosen:
        points = np.concatenate(piles[name])
        centre = (points.min(0) + points.max(0)) / 2 + rng.normal(0, 1.0, 2)
        half = np.maximum((points.max(0) - points.min(0)) / 2, 4.5) + rng.uniform(1.0, 3.5, 2)
        box = (centre[0] - half[0], centre[1] - half[1], centre[0] + half[0], centre[1] + half[1])
        tiles.append(_tile(image, homography, box, px_per_cm))
    cols = math.ceil(math.sqrt(len(tiles)))
    rows = math.ceil(len(tiles) / cols)
    cell_w = max(t.shape[1] for t, _ in tiles) + 8
    cell_h = max(t.shape[0] for t, _ in tiles) + 8
    mosaic = np.full((rows * cell_h, cols * cell_w, 3), PAD_GREY, np.uint8)
    placed: list[PlacedCard] = []
    for k, (view, to_tile) in enumerate(tiles):
        y, x = (k // cols) * cell_h + 4, (k % cols) * cell_w + 4
        h, w = view.shape[:2]
        mosaic[y:y + h, x:x + w] = view
        for card in note["cards"]:
            table = _to_table(homography, np.asarray(card["corners"]))
            quad = cv2.perspectiveTransform(table.reshape(-1, 1, 2), to_tile).reshape(-1, 2)
            placed.append(PlacedCard(card, quad, (x, y, w, h)))
    return mosaic, placed


def zone_view(image: np.ndarray, note: dict, rng: np.random.Generator) -> tuple[np.ndarray, list[tuple[int, np.ndarray]]] | None:
    """One `zone_mosaic` and its detector labels: (class, quad in mosaic pixels) for every card
    seen enough and mostly inside its tile; None when the image has no pile."""
    made = zone_mosaic(image, note, rng)
    if made is None:
        return None
    mosaic, placed = made
    labels: list[tuple[int, np.ndarray]] = []
    for item in placed:
        if seen_enough(item.card) and item.inside_share() >= MIN_IN_TILE:
            x, y, w, h = item.tile
            labels.append((1 if item.card["card"] == FACE_DOWN else 0, np.clip(item.quad, 0, (w, h)) + (x, y)))
    return mosaic, labels


def write_zone_views(synth_dir: Path, split: str, out_dir: Path, per_image: float, seed: int) -> list[Path]:
    """Write about `per_image` zone mosaics per synthetic image of a split into `out_dir/images`,
    with ultralytics OBB labels in `out_dir/labels` (class 0 card, 1 back); deterministic for a
    seed, and images already written are kept."""
    notes = sorted((synth_dir / "annotations" / split).glob("*.json"))
    images, labels = out_dir / "images", out_dir / "labels"
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    written = []
    for note_path in notes:
        count = int(per_image) + (1 if rng.random() < per_image - int(per_image) else 0)
        note = json.loads(note_path.read_text())
        source = synth_dir / note["image"]["file"]
        picture = None
        for k in range(count):
            target = images / f"{note_path.stem}-{k}.jpg"
            draw = np.random.default_rng([seed, int(note_path.stem) if note_path.stem.isdigit() else 0, k])
            if not target.exists():
                picture = cv2.imread(str(source)) if picture is None else picture
                if picture is None:
                    continue
                made = zone_view(picture, note, draw)
                if made is None:
                    continue
                mosaic, boxes = made
                height, width = mosaic.shape[:2]
                lines = [f"{cls} " + " ".join(f"{v:.6f}" for v in (quad / (width, height)).reshape(-1))
                         for cls, quad in boxes]
                (labels / f"{target.stem}.txt").write_text("".join(f"{line}\n" for line in lines))
                cv2.imwrite(str(target), mosaic, [cv2.IMWRITE_JPEG_QUALITY, int(draw.integers(70, 96))])
            written.append(target.absolute())
    return written
