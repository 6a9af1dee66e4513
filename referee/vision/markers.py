"""The four table markers (ArUco DICT_4X4_50, ids 0–3): their printable A4 sheet (`referee markers`) and finding them."""

from __future__ import annotations

import argparse
import functools
import math
from pathlib import Path
from typing import Final

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from referee.errors import RefereeError

DICTIONARY: Final = cv2.aruco.DICT_4X4_50
MARKER_IDS: Final = (0, 1, 2, 3)
DEFAULT_SIZE_CM: Final = 5.0
DPI: Final = 300
A4_MM: Final = (210.0, 297.0)
PLACES: Final = {
    0: "far left (player B's right)",
    1: "far right (player B's left)",
    2: "near right (player A's right)",
    3: "near left (player A's left)",
}
"""Where each marker goes, seen from player A's seat (INTERFACES.md)."""

_CELLS: Final = 6  # 4x4 data bits and a one-bit black border
_MARGIN_MM: Final = 12.0
_TEXT_MM: Final = 3.6
_REACH_PX: Final = 8.0  # how far from an edge its profiles reach on big markers
_SHEET_ORDER: Final = (0, 1, 3, 2)  # as they lie on the table, seen from player A
_FORMATS: Final = {"pdf": ("pdf",), "png": ("png",), "both": ("pdf", "png")}


class MarkerSheetError(RefereeError, ValueError):
    """A marker sheet that cannot be printed as asked (a size that is not positive or does not fit A4)."""


def dictionary() -> cv2.aruco.Dictionary:
    """OpenCV's DICT_4X4_50, the dictionary of the table markers."""
    return cv2.aruco.getPredefinedDictionary(DICTIONARY)


def marker_image(marker_id: int, side_px: int) -> np.ndarray:
    """Marker `marker_id` as a `side_px` square uint8 image (black border included, no quiet zone).

    Cells get whole pixels (cell edges at round(i * side / 6)), so the outer black square is
    exactly `side_px` wide whatever the size.
    """
    if side_px < _CELLS:
        raise MarkerSheetError(f"a marker needs at least {_CELLS} px, got {side_px}")
    bits = cv2.aruco.generateImageMarker(dictionary(), marker_id, _CELLS, borderBits=1)
    edges = np.round(np.arange(_CELLS + 1) * side_px / _CELLS).astype(int)
    index = np.searchsorted(edges, np.arange(side_px), side="right") - 1
    return bits[np.ix_(index, index)]


def _px(mm: float, dpi: int) -> int:
    return int(round(mm / 25.4 * dpi))


class _Sheet:
    """A flow layout of A4 pages: items go down the page, onto a new page when they do not fit."""

    def __init__(self, dpi: int) -> None:
        self.dpi = dpi
        self.size = (_px(A4_MM[0], dpi), _px(A4_MM[1], dpi))
        self.margin = _px(_MARGIN_MM, dpi)
        self.pages: list[Image.Image] = []
        self.y = 0
        self.font = ImageFont.load_default(size=_px(_TEXT_MM, dpi))
        self.small = ImageFont.load_default(size=_px(_TEXT_MM * 0.8, dpi))
        self.title = ImageFont.load_default(size=_px(_TEXT_MM * 1.5, dpi))
        self._new_page()

    def _new_page(self) -> None:
        self.pages.append(Image.new("L", self.size, 255))
        self.y = self.margin

    @property
    def draw(self) -> ImageDraw.ImageDraw:
        return ImageDraw.Draw(self.pages[-1])

    @property
    def width(self) -> int:
        return self.size[0] - 2 * self.margin

    def room(self, height: int) -> int:
        """The top of a block of `height` px, on a new page when this one is full."""
        if self.y + height > self.size[1] - self.margin:
            self._new_page()
        top = self.y
        self.y += height
        return top

    def text(self, lines: list[str], font: ImageFont.FreeTypeFont) -> None:
        step = int(font.size * 1.35)
        top = self.room(step * len(lines))
        for i, line in enumerate(lines):
            self.draw.text((self.margin, top + i * step), line, fill=0, font=font)


def _dashed_rect(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], dash: int) -> None:
    x0, y0, x1, y1 = box
    for a, b, fixed, horizontal in ((x0, x1, y0, True), (x0, x1, y1, True), (y0, y1, x0, False), (y0, y1, x1, False)):
        for start in range(a, b, 2 * dash):
            end = min(start + dash, b)
            line = [(start, fixed), (end, fixed)] if horizontal else [(fixed, start), (fixed, end)]
            draw.line(line, fill=140, width=2)


def _tiles(sheet: _Sheet, size_cm: float) -> None:
    side = _px(size_cm * 10, sheet.dpi)
    quiet = max(round(side * 1.25 / _CELLS), _px(6, sheet.dpi))
    label_h = int(sheet.font.size * 1.35) * 2 + quiet // 2
    tile_w, tile_h = side + 2 * quiet, side + 2 * quiet + label_h
    gap = _px(4, sheet.dpi)
    per_row = (sheet.width + gap) // (tile_w + gap)
    usable_h = sheet.size[1] - 2 * sheet.margin
    if per_row < 1 or tile_h > usable_h:
        raise MarkerSheetError(f"a {size_cm:g} cm marker with its quiet zone does not fit on an A4 page")
    for row_start in range(0, len(_SHEET_ORDER), per_row):
        top = sheet.room(tile_h + gap)
        for col, marker_id in enumerate(_SHEET_ORDER[row_start:row_start + per_row]):
            left = sheet.margin + col * (tile_w + gap)
            sheet.pages[-1].paste(Image.fromarray(marker_image(marker_id, side)), (left + quiet, top + quiet))
            draw = sheet.draw
            _dashed_rect(draw, (left, top, left + tile_w, top + tile_h), _px(2, sheet.dpi))
            text_y = top + side + 2 * quiet
            draw.text((left + quiet, text_y), f"id {marker_id}  ·  {size_cm:g} cm", fill=0, font=sheet.font)
            draw.text((left + quiet, text_y + int(sheet.font.size * 1.35)), PLACES[marker_id].split(" (")[0],
                      fill=0, font=sheet.small)


def _ruler(sheet: _Sheet) -> None:
    """A 10 cm ruler with 1 cm ticks, to check the print scale."""
    tick = _px(3, sheet.dpi)
    top = sheet.room(tick + int(sheet.font.size * 2))
    length = _px(100, sheet.dpi)
    left = sheet.margin
    draw = sheet.draw
    draw.line([(left, top + tick), (left + length, top + tick)], fill=0, width=3)
    for cm in range(11):
        x = left + _px(cm * 10, sheet.dpi)
        draw.line([(x, top), (x, top + tick)], fill=0, width=3)
    draw.text((left + length + _px(3, sheet.dpi), top), "10 cm: measure this to check the scale",
              fill=0, font=sheet.small)


def _placement(sheet: _Sheet) -> None:
    """A sketch of the table: where each marker goes and where the players sit."""
    w, h = _px(80, sheet.dpi), _px(40, sheet.dpi)
    line = int(sheet.font.size * 1.35)
    top = sheet.room(h + 3 * line) + line
    left = sheet.margin + (sheet.width - w) // 2
    draw = sheet.draw
    draw.rectangle((left, top, left + w, top + h), outline=0, width=3)
    box = _px(8, sheet.dpi)
    corners = {0: (left, top), 1: (left + w - box, top), 2: (left + w - box, top + h - box), 3: (left, top + h - box)}
    for marker_id, (x, y) in corners.items():
        draw.rectangle((x, y, x + box, y + box), fill=0)
        draw.text((x + box // 2, y + box // 2), str(marker_id), fill=255, font=sheet.font, anchor="mm")
    draw.text((left + w // 2, top - line // 2), "player B sits here", fill=0, font=sheet.font, anchor="mm")
    draw.text((left + w // 2, top + h + line // 2 + 4), "player A sits here", fill=0, font=sheet.font, anchor="mm")
    draw.text((left + w // 2, top + h // 2), "spit piles  L   R", fill=0, font=sheet.small, anchor="mm")


def sheet_pages(size_cm: float = DEFAULT_SIZE_CM, dpi: int = DPI) -> list[Image.Image]:
    """The marker sheet as A4 pages at `dpi`: markers with ids, quiet zones, printed size, cut lines,
    a 10 cm check ruler and a sketch of where each marker goes."""
    if not math.isfinite(size_cm) or size_cm <= 0:
        raise MarkerSheetError(f"the marker size must be a positive number of cm, got {size_cm}")
    sheet = _Sheet(dpi)
    sheet.text(["Spit referee: table markers (ArUco DICT_4X4_50, ids 0-3)"], sheet.title)
    sheet.text([
        f"Print at 100% ('actual size', never 'fit to page'): each black square must measure {size_cm:g} cm.",
        "Cut along the dashed lines, keeping the white border. Lay the markers flat at the corners",
        "of the play area as in the sketch, seen from player A's seat; any rotation of a marker works.",
        f"Calibrate with: referee calibrate FRAME --marker-size-cm {size_cm:g}",
    ], sheet.small)
    sheet.room(_px(3, dpi))
    _tiles(sheet, size_cm)
    _ruler(sheet)
    _placement(sheet)
    return sheet.pages


def write_sheet(out: str | Path, size_cm: float = DEFAULT_SIZE_CM, formats: tuple[str, ...] = ("pdf", "png"),
                dpi: int = DPI) -> list[Path]:
    """Write the sheet as `out`.pdf (every page) and/or `out`.png (`out`-N.png when it takes
    several pages); returns the paths written. The PDF page is the image at `dpi`, so a marker
    prints at its stated size when printed at 100%."""
    pages = sheet_pages(size_cm, dpi)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    if "pdf" in formats:
        path = out.with_suffix(".pdf")
        pages[0].save(path, save_all=True, append_images=pages[1:], resolution=float(dpi))
        written.append(path)
    if "png" in formats:
        for number, page in enumerate(pages, start=1):
            path = out.with_suffix(".png") if len(pages) == 1 else out.with_name(f"{out.name}-{number}.png")
            page.save(path, dpi=(dpi, dpi))
            written.append(path)
    return written


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", default="calibration/markers",
                        help="path of the sheet without extension (default: calibration/markers)")
    parser.add_argument("--size-cm", type=float, default=DEFAULT_SIZE_CM,
                        help=f"printed side of each black square in cm (default: {DEFAULT_SIZE_CM:g})")
    parser.add_argument("--format", choices=sorted(_FORMATS), default="both", help="what to write (default: both)")


def run(args: argparse.Namespace) -> int:
    for path in write_sheet(args.out, args.size_cm, _FORMATS[args.format]):
        print(path)
    return 0


def detector_parameters(min_perimeter_rate: float = 0.02) -> cv2.aruco.DetectorParameters:
    """ArUco detection tuned for small, tilted, blurred markers on a table, with sub-pixel corners.
    `min_perimeter_rate`: the smallest marker outline looked at, as a share of the image's longer
    side (0.02: a 6 px square in a 1280 px frame); the lower, the more candidates and time."""
    params = cv2.aruco.DetectorParameters()
    params.minMarkerPerimeterRate = min_perimeter_rate
    params.minMarkerDistanceRate = 0.05  # the default merges a marker with the outline of its own quiet zone
    params.errorCorrectionRate = 1.0  # one wrong bit of 16 is corrected: only ids 0-3 are kept anyway
    params.polygonalApproxAccuracyRate = 0.05  # perspective and blur bend the outline
    params.perspectiveRemovePixelPerCell = 8
    params.perspectiveRemoveIgnoredMarginPerCell = 0.2
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.cornerRefinementWinSize = 4
    params.cornerRefinementMaxIterations = 50
    params.cornerRefinementMinAccuracy = 0.01
    return params


@functools.cache
def _detector(min_perimeter_rate: float) -> cv2.aruco.ArucoDetector:
    return cv2.aruco.ArucoDetector(dictionary(), detector_parameters(min_perimeter_rate))


def _gray(image: np.ndarray) -> np.ndarray:
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def refine_corners(gray: np.ndarray, quad: np.ndarray, passes: int = 2) -> np.ndarray:
    """Corners of a marker as the crossings of lines fitted along its four outer edges: on
    profiles across each edge, where the image crosses halfway between the black border (sampled
    mid-cell) and the white quiet zone (sampled 3/4 of a cell out, so one cell of it is enough),
    no further than a few px from the edge on big markers. Unbiased under blur, unlike
    corner-window refinement. A side too faint to fit keeps its corners."""
    gray = gray if gray.dtype == np.float32 else gray.astype(np.float32)
    steps = np.linspace(0.0, 1.0, 33)
    for _ in range(passes):
        edge = np.roll(quad, -1, 0) - quad
        lengths = np.linalg.norm(edge, axis=1)
        outward = np.stack([edge[:, 1], -edge[:, 0]], 1) / np.maximum(lengths, 1e-9)[:, None]
        outward *= np.sign(np.sum(outward * (quad + edge / 2 - quad.mean(0)), axis=1))[:, None]
        cells = (np.roll(lengths, -1) + np.roll(lengths, 1)) / 2 / _CELLS
        along = np.linspace(0.15, 0.85, int(np.clip(lengths.max() * 0.7, 5, 40)))
        inner, outer = np.minimum(0.5 * cells, _REACH_PX), np.minimum(0.75 * cells, _REACH_PX)
        across = -inner[:, None] + steps[None, :] * (inner + outer)[:, None]
        points = (quad[:, None, None] + along[None, :, None, None] * edge[:, None, None]
                  + across[:, None, :, None] * outward[:, None, None])
        maps = points.reshape(-1, len(steps), 2).astype(np.float32)
        profiles = cv2.remap(gray, maps[..., 0], maps[..., 1], cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_REPLICATE).reshape(points.shape[:3])
        dark, light = np.median(profiles[..., 0], axis=1), np.median(profiles[..., -1], axis=1)
        level = ((dark + light) / 2)[:, None, None]
        above = profiles >= level
        first = above.argmax(2)
        good = above.any(2) & (first > 0) & ((light - dark) >= 20)[:, None]
        lines: list[tuple[np.ndarray, np.ndarray] | None] = []
        for k in range(4):
            rows = np.nonzero(good[k])[0]
            if len(rows) < 4:
                lines.append(None)
                continue
            i = first[k, rows]
            low, high = profiles[k, rows, i - 1], profiles[k, rows, i]
            fraction = ((level[k, 0, 0] - low) / np.maximum(high - low, 1e-6))[:, None]
            edges = points[k, rows, i - 1] + fraction * (points[k, rows, i] - points[k, rows, i - 1])
            vx, vy, x0, y0 = cv2.fitLine(edges.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
            lines.append((np.array([x0, y0], float), np.array([vx, vy], float)))
        refined = quad.copy()
        for k in range(4):
            before, after = lines[(k - 1) % 4], lines[k]
            if before is None or after is None:
                continue
            (p, u), (q, v) = before, after
            matrix = np.column_stack([u, -v])
            if abs(np.linalg.det(matrix)) > 1e-6:
                refined[k] = p + np.linalg.solve(matrix, q - p)[0] * u
        quad = refined
    return quad


def find_markers(image: np.ndarray, regions: dict[int, tuple[int, int, int, int]] | None = None,
                 refine: bool = True) -> dict[int, np.ndarray]:
    """The table markers seen in a (BGR or grey) image: id -> its 4 corners in image px, float64,
    in ArUco's order (the printed marker's top-left, top-right, bottom-right, bottom-left).

    With `regions` (id -> box x0, y0, x1, y1 in px, a few times the marker's size), each marker
    is looked for only in its box, which is much cheaper than the whole frame. `refine` fits the
    corners to the marker's edges (`refine_corners`, ~0.05 px instead of ~0.3 px). When an id is seen twice, the larger one is kept.
    """
    gray = _gray(image)
    if regions is None:
        crops = [((0, 0), gray, set(MARKER_IDS))]
        rate = 0.02
    else:
        height, width = gray.shape
        crops = []
        for marker_id, (x0, y0, x1, y1) in regions.items():
            x0, y0 = max(0, int(x0)), max(0, int(y0))
            x1, y1 = min(width, int(math.ceil(x1))), min(height, int(math.ceil(y1)))
            if x1 - x0 >= 8 and y1 - y0 >= 8:
                crops.append(((x0, y0), gray[y0:y1, x0:x1], {marker_id}))
        rate = 0.3  # a box is a few times its marker's size: skip the specks
    found: dict[int, np.ndarray] = {}
    for (dx, dy), crop, wanted in crops:
        corners, ids, _ = _detector(rate).detectMarkers(crop)
        fine = crop.astype(np.float32) if refine and corners else None
        for quad, marker_id in zip(corners, [] if ids is None else ids.ravel()):
            marker_id = int(marker_id)
            if marker_id not in wanted:
                continue
            quad = quad.reshape(4, 2).astype(np.float64)
            quad = (quad if fine is None else refine_corners(fine, quad)) + (dx, dy)
            if marker_id not in found or cv2.contourArea(quad.astype(np.float32)) > cv2.contourArea(
                    found[marker_id].astype(np.float32)):
                found[marker_id] = quad
    return found
