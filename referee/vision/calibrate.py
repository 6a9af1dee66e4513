"""Table calibration: image px <-> table cm from the four markers or four hand-picked corners; `referee calibrate`."""

from __future__ import annotations

import argparse
import functools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final

import cv2
import numpy as np

from referee.vision.calibrate_fit import (
    CalibrationError,
    MarkersNotFound,
    fit_homography,
    inner_corners,
    project,
    solve_markers,
    table_frame,
)
from referee.vision.detector import read_image
from referee.vision.markers import DEFAULT_SIZE_CM, MARKER_IDS, find_markers
from referee.vision.zones import Layout, LayoutError, Polygon, default_layout, dumps

__all__ = [
    "BadCalibrationFile",
    "Calibration",
    "CalibrationError",
    "MarkerCheck",
    "MarkersNotFound",
    "TopDown",
    "calibrate_manual",
    "calibrate_markers",
    "check_markers",
    "load_calibration",
]

SCHEMA_VERSION: Final = 1
RECTIFIED_PX_PER_CM: Final = 8.0
"""Top-down crops for the card detector: a 6.3 x 8.8 cm card is about 50 x 70 px, the resolution
a 1280 x 720 webcam gives an 80 cm table from above, so nothing is invented by upsampling."""
SOURCES: Final = ("markers", "manual")
_REFIT_RMS_PX: Final = 1.0  # a marker fitting its old place worse than this has moved on the table
_IMAGE_SUFFIXES: Final = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class BadCalibrationFile(CalibrationError, ValueError):
    """A calibration file that cannot be used: not JSON, another schema version, a field missing or
    of the wrong shape."""


def _array(value: Any, shape: tuple[int, ...], what: str) -> np.ndarray:
    try:
        array = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise CalibrationError(f"{what} must be numbers of shape {shape}") from None
    if array.shape != shape:
        raise CalibrationError(f"{what} must have shape {shape}, got {array.shape}")
    if not np.isfinite(array).all():
        raise CalibrationError(f"{what} must be finite numbers")
    array.setflags(write=False)
    return array


def _positive(value: Any, what: str) -> None:
    if not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise CalibrationError(f"{what} must be a positive number, got {value!r}")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass(frozen=True, eq=False)
class TopDown:
    """A rectified, top-down view of part of the table as player A sees it (up is towards B):
    pixel (u, v) shows table point (x0 + (u + 0.5) / px_per_cm, y1 - (v + 0.5) / px_per_cm)."""

    image: np.ndarray
    origin_cm: tuple[float, float]  # (x0, y1): the table point at the image's top-left corner
    px_per_cm: float

    def __post_init__(self) -> None:
        if not isinstance(self.image, np.ndarray) or self.image.ndim not in (2, 3):
            raise CalibrationError("a top-down view needs an image array")
        if len(self.origin_cm) != 2 or not all(math.isfinite(v) for v in self.origin_cm):
            raise CalibrationError(f"origin_cm must be two finite numbers, got {self.origin_cm}")
        _positive(self.px_per_cm, "px_per_cm")

    def to_table(self, points_px: np.ndarray) -> np.ndarray:
        uv = np.asarray(points_px, dtype=float)
        x0, y1 = self.origin_cm
        return np.stack([x0 + (uv[..., 0] + 0.5) / self.px_per_cm, y1 - (uv[..., 1] + 0.5) / self.px_per_cm], -1)

    def to_pixels(self, points_cm: np.ndarray) -> np.ndarray:
        xy = np.asarray(points_cm, dtype=float)
        x0, y1 = self.origin_cm
        return np.stack([(xy[..., 0] - x0) * self.px_per_cm - 0.5, (y1 - xy[..., 1]) * self.px_per_cm - 0.5], -1)


@dataclass(frozen=True, eq=False)
class Calibration:
    """How one camera sees the table.

    Table frame (cm): origin at marker 3's inner corner (player A's front-left corner of the play
    area), x towards marker 2 (A's right), y towards player B; seen from above, x right and y up.
    `homography` maps table cm to image px; `play_area_cm` holds the play area's corners in
    marker-id order (far left, far right, near right, near left as A sees them).
    `markers_cm`/`markers_px`: each marker's corners on the table and as seen when calibrated.
    `rms_px`/`rms_cm`: the fit's reprojection error in the image and on the table.
    """

    image_size: tuple[int, int]
    homography: np.ndarray
    play_area_cm: np.ndarray
    layout: Layout
    source: str
    marker_size_cm: float | None = None
    markers_cm: Mapping[int, np.ndarray] = field(default_factory=dict)
    markers_px: Mapping[int, np.ndarray] = field(default_factory=dict)
    rms_px: float = 0.0
    rms_cm: float = 0.0
    timestamp: str = field(default_factory=_now)

    def __post_init__(self) -> None:
        size = tuple(self.image_size)
        if len(size) != 2 or not all(isinstance(v, int) and v > 0 for v in size):
            raise CalibrationError(f"image_size must be two positive whole numbers (width, height), "
                                   f"got {self.image_size}")
        object.__setattr__(self, "image_size", size)
        homography = _array(self.homography, (3, 3), "homography")
        if abs(np.linalg.det(homography)) < 1e-12:
            raise CalibrationError("homography must be invertible")
        object.__setattr__(self, "homography", homography)
        object.__setattr__(self, "play_area_cm", _array(self.play_area_cm, (4, 2), "play_area_cm"))
        if not isinstance(self.layout, Layout):
            raise CalibrationError("layout must be a Layout")
        if self.source not in SOURCES:
            raise CalibrationError(f"source must be one of {', '.join(SOURCES)}, got {self.source!r}")
        if self.marker_size_cm is not None:
            _positive(self.marker_size_cm, "marker_size_cm")
        for name in ("markers_cm", "markers_px"):
            markers = getattr(self, name)
            if not set(markers) <= set(MARKER_IDS):
                raise CalibrationError(f"{name} must be of markers {MARKER_IDS}, got {sorted(markers)}")
            object.__setattr__(self, name, MappingProxyType(
                {int(i): _array(c, (4, 2), f"{name}[{i}]") for i, c in sorted(markers.items())}))
        if not set(self.markers_px) <= set(self.markers_cm):
            raise CalibrationError("markers_px must be of markers whose table places are known (markers_cm)")
        if self.source == "markers" and (self.marker_size_cm is None or len(self.markers_cm) < 2):
            raise CalibrationError("a calibration from markers needs the marker size and at least two markers' places")
        for name in ("rms_px", "rms_cm"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise CalibrationError(f"{name} must be a number >= 0, got {value!r}")
        if not isinstance(self.timestamp, str):
            raise CalibrationError("timestamp must be a string")

    @property
    def play_size_cm(self) -> tuple[float, float]:
        """Width and depth of the play area: the mean of its opposite edges (what a layout is made for)."""
        return _play_size(self.play_area_cm)

    @functools.cached_property
    def inverse(self) -> np.ndarray:
        """Image px -> table cm."""
        return np.linalg.inv(self.homography)

    def to_image(self, points_cm: np.ndarray) -> np.ndarray:
        """Table points (..., 2) in cm -> image px."""
        return project(self.homography, points_cm)

    def to_table(self, points_px: np.ndarray) -> np.ndarray:
        """Image points (..., 2) in px -> table cm."""
        return project(self.inverse, points_px)

    def image_polygon(self, zone: str) -> np.ndarray:
        """A zone's polygon (a pile such as `A3`, or a player's side) in image px."""
        return self.to_image(np.asarray(self.layout.zone(zone).polygon))

    def locate_pixel(self, point_px: Sequence[float]) -> str | None:
        """The pile whose zone holds the image point, else None."""
        return self.layout.locate(self.to_table(np.asarray(point_px, dtype=float)))

    def _check_frame(self, frame: np.ndarray) -> None:
        height, width = frame.shape[:2]
        if (width, height) != self.image_size:
            raise CalibrationError(f"the frame is {width}x{height} px but the calibration was made on "
                                   f"{self.image_size[0]}x{self.image_size[1]} px frames")

    def rectify(self, frame: np.ndarray, region: str | Polygon | None = None,
                px_per_cm: float = RECTIFIED_PX_PER_CM, margin_cm: float = 0.0) -> TopDown:
        """A top-down image of a zone (by name), of a polygon in table cm, or of the whole play
        area (None), grown by `margin_cm`, at `px_per_cm`."""
        self._check_frame(frame)
        if region is None:
            polygon = self.play_area_cm
        elif isinstance(region, str):
            polygon = np.asarray(self.layout.zone(region).polygon)
        else:
            polygon = np.asarray(region, dtype=float)
        (x0, y0), (x1, y1) = polygon.min(0) - margin_cm, polygon.max(0) + margin_cm
        size = (max(1, math.ceil((x1 - x0) * px_per_cm)), max(1, math.ceil((y1 - y0) * px_per_cm)))
        pixels_to_table = np.array([[1 / px_per_cm, 0, x0 + 0.5 / px_per_cm],
                                    [0, -1 / px_per_cm, y1 - 0.5 / px_per_cm], [0, 0, 1]])
        image = cv2.warpPerspective(frame, self.homography @ pixels_to_table, size,
                                    flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
        return TopDown(image, (float(x0), float(y1)), float(px_per_cm))

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "source": self.source,
            "timestamp": self.timestamp,
            "image_size": list(self.image_size),
            "homography": self.homography.tolist(),
            "marker_size_cm": self.marker_size_cm,
            "markers": {str(i): {"table_cm": self.markers_cm[i].tolist(),
                                 **({"image_px": self.markers_px[i].tolist()} if i in self.markers_px else {})}
                        for i in self.markers_cm},
            "play_area_cm": self.play_area_cm.tolist(),
            "reprojection": {"rms_px": self.rms_px, "rms_cm": self.rms_cm},
            "layout": self.layout.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Any) -> "Calibration":
        """A calibration from its JSON object; raises `BadCalibrationFile` naming what is wrong."""
        if not isinstance(data, Mapping):
            raise BadCalibrationFile("a calibration must be a JSON object")
        version = data.get("schema_version")
        if version != SCHEMA_VERSION:
            raise BadCalibrationFile(f"schema_version {version!r} is not one this referee reads ({SCHEMA_VERSION})")
        required = ("source", "image_size", "homography", "play_area_cm", "layout", "markers", "reprojection")
        missing = [key for key in required if key not in data]
        if missing:
            raise BadCalibrationFile(f"missing {', '.join(missing)}")
        try:
            markers, reprojection = data["markers"], data["reprojection"]
            if not isinstance(markers, Mapping) or not all(isinstance(m, Mapping) for m in markers.values()):
                raise CalibrationError("markers must be an object of id -> {table_cm, image_px}")
            if not isinstance(reprojection, Mapping):
                raise CalibrationError("reprojection must be an object {rms_px, rms_cm}")
            if not isinstance(data["image_size"], list):
                raise CalibrationError("image_size must be [width, height]")
            ids = {key: _marker_id(key) for key in markers}
            return cls(
                image_size=tuple(data["image_size"]),
                homography=data["homography"],
                play_area_cm=data["play_area_cm"],
                layout=Layout.from_dict(data["layout"]),
                source=data["source"],
                marker_size_cm=data.get("marker_size_cm"),
                markers_cm={ids[k]: m.get("table_cm") for k, m in markers.items()},
                markers_px={ids[k]: m["image_px"] for k, m in markers.items() if "image_px" in m},
                rms_px=reprojection.get("rms_px", 0.0),
                rms_cm=reprojection.get("rms_cm", 0.0),
                timestamp=data.get("timestamp", ""),
            )
        except LayoutError as exc:
            raise BadCalibrationFile(f"layout: {exc}") from None
        except CalibrationError as exc:
            raise BadCalibrationFile(str(exc)) from None

    def save(self, path: str | Path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dumps(self.to_dict()))


def _play_size(play_area: np.ndarray) -> tuple[float, float]:
    """Width and depth of the play area: the mean of its opposite edges."""
    far_left, far_right, near_right, near_left = play_area
    width = (np.linalg.norm(near_right - near_left) + np.linalg.norm(far_right - far_left)) / 2
    depth = (np.linalg.norm(far_left - near_left) + np.linalg.norm(far_right - near_right)) / 2
    return float(width), float(depth)


def _marker_id(key: str) -> int:
    if not (isinstance(key, str) and key.isdigit()):
        raise CalibrationError(f"marker ids must be 0-3, got {key!r}")
    return int(key)


def load_calibration(path: str | Path) -> Calibration:
    """A calibration saved by `Calibration.save`; raises `BadCalibrationFile` naming the file and the fault."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError) as exc:
        raise BadCalibrationFile(f"{path}: cannot read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise BadCalibrationFile(f"{path}: not JSON ({exc.msg}, line {exc.lineno})") from None
    try:
        return Calibration.from_dict(data)
    except BadCalibrationFile as exc:
        raise BadCalibrationFile(f"{path}: {exc}") from None


def _residuals(homography: np.ndarray, seen: Mapping[int, np.ndarray],
               markers_cm: Mapping[int, np.ndarray]) -> dict[str, float]:
    """RMS distances between the seen corners and the markers' places, in the image and on the table."""
    ids = [i for i in seen if i in markers_cm]
    table = np.concatenate([markers_cm[i] for i in ids])
    image = np.concatenate([seen[i] for i in ids])
    return {"rms_px": float(np.sqrt(np.mean(np.sum((project(homography, table) - image) ** 2, axis=1)))),
            "rms_cm": float(np.sqrt(np.mean(np.sum((project(np.linalg.inv(homography), image) - table) ** 2, axis=1))))}


def calibrate_markers(frame: np.ndarray, marker_size_cm: float = DEFAULT_SIZE_CM, *,
                      previous: Calibration | None = None, players: int = 2, stock_places: int = 5) -> Calibration:
    """Calibrate from the markers seen in a frame.

    Without a previous calibration, the markers' places, the table frame and the homography are
    fitted together from the markers' corners and their known size; with three markers in sight
    the hidden one's place completes the parallelogram of the others. With a `previous`
    calibration from markers (the camera moved or now gives frames of another size, the table
    did not), two markers in sight that
    still fit their places are enough: only the camera is fitted, and a marker that no longer
    fits (a corner under a finger, say) is left out. Only when fewer than two fit (markers laid
    afresh), and three are in sight, are the places fitted afresh. (A homography bends to fit
    four small markers wherever they lie, so one marker bumped by a few cm while the camera
    moves too goes unnoticed; `check_markers` does notice it while the camera stays.) A previous calibration also gives the
    marker size and the layout; without one, the layout is the default for the play area with
    `players` and `stock_places`.
    """
    height, width = frame.shape[:2]
    return _calibrate(find_markers(frame), (width, height), marker_size_cm, previous, players, stock_places)


def _calibrate(seen: Mapping[int, np.ndarray], image_size: tuple[int, int], marker_size_cm: float,
               previous: Calibration | None, players: int = 2, stock_places: int = 5) -> Calibration:
    if previous is not None and previous.source == "markers":
        assert previous.marker_size_cm is not None
        marker_size_cm = previous.marker_size_cm
        known = {i: c for i, c in seen.items() if i in previous.markers_cm}
        if len(known) >= 2:
            homography = fit_homography(known, previous.markers_cm)
            agree = {i: c for i, c in known.items()
                     if _residuals(homography, {i: c}, previous.markers_cm)["rms_px"] <= _REFIT_RMS_PX}
            if len(agree) >= 2:
                return replace(previous, image_size=image_size, homography=homography, markers_px=agree,
                               **_residuals(homography, agree, previous.markers_cm), timestamp=_now())
    if len(seen) < 3:
        raise MarkersNotFound(f"saw markers {sorted(seen) or 'none'}: calibrating needs three of the markers 0-3 "
                              "(two with a previous calibration)")
    plane, on_plane = solve_markers(seen, marker_size_cm)
    corners_on_plane = inner_corners(on_plane)
    to_plane = table_frame(corners_on_plane)
    homography = plane @ to_plane
    homography /= homography[2, 2]
    to_table = np.linalg.inv(to_plane)
    markers_cm = {i: project(to_table, corners) for i, corners in on_plane.items()}
    play_area = project(to_table, corners_on_plane)
    layout = previous.layout if previous is not None else default_layout(
        *_play_size(play_area), players=players, stock_places=stock_places)
    return Calibration(image_size=image_size, homography=homography, play_area_cm=play_area, layout=layout,
                       source="markers", marker_size_cm=float(marker_size_cm), markers_cm=markers_cm,
                       markers_px={i: seen[i] for i in markers_cm}, **_residuals(homography, seen, markers_cm))


def calibrate_manual(image_size: tuple[int, int], corners_px: Sequence[Sequence[float]], width_cm: float,
                     depth_cm: float, *, players: int = 2, stock_places: int = 5) -> Calibration:
    """Calibrate from the play area's four corners picked in the image, in marker-id order (far
    left, far right, near right, near left as player A sees them), and its size in cm."""
    corners = _array(corners_px, (4, 2), "corners_px")
    if not (width_cm > 0 and depth_cm > 0):
        raise CalibrationError(f"the play area's size must be positive, got {width_cm} x {depth_cm} cm")
    play_area = np.array([[0, depth_cm], [width_cm, depth_cm], [width_cm, 0], [0, 0]], dtype=float)
    if cv2.contourArea(corners.astype(np.float32)) < 1.0 or not cv2.isContourConvex(corners.astype(np.float32)):
        raise CalibrationError("the four corners must make a convex quadrilateral, in the order far left, "
                               "far right, near right, near left")
    x, y = corners.T
    if np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y) < 0:  # seen from above, these run clockwise
        raise CalibrationError("the four corners are given mirror-wise: the order is far left, far right, "
                               "near right, near left as player A sees them")
    homography = cv2.getPerspectiveTransform(play_area.astype(np.float32), corners.astype(np.float32)).astype(float)
    return Calibration(image_size=tuple(int(v) for v in image_size), homography=homography / homography[2, 2],
                       play_area_cm=play_area, source="manual",
                       layout=default_layout(width_cm, depth_cm, players=players, stock_places=stock_places))


@dataclass(frozen=True, eq=False)
class MarkerCheck:
    """What `check_markers` saw: whether the markers moved in the image beyond the tolerance (the
    largest corner shift, px; NaN when none was seen), which were seen, and the calibration to
    go on with (a new one when they moved)."""

    moved: bool
    shift_px: float
    seen: tuple[int, ...]
    calibration: Calibration

    def __post_init__(self) -> None:
        if not set(self.seen) <= set(MARKER_IDS) or not isinstance(self.calibration, Calibration):
            raise CalibrationError("a marker check names markers 0-3 and holds a Calibration")
        if self.moved and not self.shift_px > 0:
            raise CalibrationError("markers that moved have a shift")


def check_markers(frame: np.ndarray, calibration: Calibration, tolerance_px: float = 1.0) -> MarkerCheck:
    """Whether the camera (or the table) moved since `calibration`, cheap enough for every few
    frames: each marker is looked for only around where the calibration expects it (the whole
    frame when fewer than two turn up there). Two markers or more beyond `tolerance_px` mean a
    move and a re-calibration that keeps the markers' places and the layout; one marker alone
    (the others under hands) cannot tell and changes nothing."""
    if calibration.source != "markers":
        raise CalibrationError("a calibration made by hand has no markers to check")
    calibration._check_frame(frame)
    expected = {i: calibration.to_image(c) for i, c in calibration.markers_cm.items()}
    regions = {}
    for marker_id, quad in expected.items():
        (x0, y0), (x1, y1) = quad.min(0), quad.max(0)
        grow = max(20.0, 0.75 * max(x1 - x0, y1 - y0))
        regions[marker_id] = (x0 - grow, y0 - grow, x1 + grow, y1 + grow)
    seen = find_markers(frame, regions)
    if len(seen) < 2:
        seen = find_markers(frame)
    seen = {i: c for i, c in seen.items() if i in expected}
    if not seen:
        return MarkerCheck(False, math.nan, (), calibration)
    shifts = {i: float(np.linalg.norm(seen[i] - expected[i], axis=1).max()) for i in seen}
    shift = max(shifts.values())
    if sum(s > tolerance_px for s in shifts.values()) < 2:
        return MarkerCheck(False, shift, tuple(sorted(seen)), calibration)
    assert calibration.marker_size_cm is not None
    recalibrated = _calibrate(seen, calibration.image_size, calibration.marker_size_cm, calibration)
    return MarkerCheck(True, shift, tuple(sorted(seen)), recalibrated)


def _read_frame(source: str, index: int) -> np.ndarray:
    """Frame `index` of a video, a camera (a number) or an image file."""
    if Path(source).suffix.lower() in _IMAGE_SUFFIXES:
        return read_image(source)
    capture = cv2.VideoCapture(int(source) if source.isdigit() else source)
    try:
        if not capture.isOpened():
            raise CalibrationError(f"{source}: neither an image nor a video or camera that can be opened")
        frame = None
        for _ in range(index + 1):
            ok, frame = capture.read()
            if not ok:
                raise CalibrationError(f"{source}: has no frame {index}")
        assert frame is not None
        return frame
    finally:
        capture.release()


def _parse_corners(text: str) -> list[list[float]]:
    try:
        corners = [[float(v) for v in pair.split(",")] for pair in text.split()]
    except ValueError:
        corners = []
    if len(corners) != 4 or any(len(c) != 2 for c in corners):
        raise CalibrationError(f"--corners takes four x,y pairs separated by spaces, got {text!r}")
    return corners


def _parse_area(text: str) -> tuple[float, float]:
    try:
        width, depth = (float(v) for v in text.lower().split("x"))
    except ValueError:
        raise CalibrationError(f"--area-cm takes WIDTHxDEPTH in cm (e.g. 80x60), got {text!r}") from None
    return width, depth


def preview(frame: np.ndarray, calibration: Calibration) -> np.ndarray:
    """The frame with the play area, the markers as fitted and every zone drawn on it."""
    image = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)

    def poly(points_px: np.ndarray, colour: tuple[int, int, int], width: int) -> None:
        cv2.polylines(image, [np.round(points_px * 16).astype(np.int32)], True, colour, width, cv2.LINE_AA, shift=4)

    poly(calibration.to_image(calibration.play_area_cm), (0, 255, 255), 2)
    for corners in calibration.markers_cm.values():
        poly(calibration.to_image(corners), (255, 0, 255), 2)
    for zone in calibration.layout.sides + calibration.layout.piles:
        colour = (255, 160, 0) if zone in calibration.layout.sides else (0, 200, 0)
        polygon = calibration.to_image(np.asarray(zone.polygon))
        poly(polygon, colour, 1)
        if zone in calibration.layout.piles:
            x, y = polygon.mean(0)
            cv2.putText(image, zone.name, (int(x) - 8, int(y) + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 200, 0), 1,
                        cv2.LINE_AA)
    return image


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", help="an image, a video, or a camera number, showing the whole table")
    parser.add_argument("--out", default="calibration/table.json", help="where to write the calibration")
    parser.add_argument("--marker-size-cm", type=float, default=DEFAULT_SIZE_CM,
                        help=f"printed side of the markers' black squares (default: {DEFAULT_SIZE_CM:g})")
    parser.add_argument("--frame", type=int, default=0, help="which frame of a video or camera to use")
    parser.add_argument("--corners", help="no markers: the play area's corners in px, 'x,y x,y x,y x,y' "
                                          "in the order far left, far right, near right, near left (seen by A)")
    parser.add_argument("--area-cm", help="with --corners: the play area's WIDTHxDEPTH in cm, e.g. 80x60")
    parser.add_argument("--players", type=int, default=2, help="players around the table (default: 2)")
    parser.add_argument("--stock-places", type=int, default=5, help="stock piles per player (default: 5)")
    parser.add_argument("--layout", help="a layout JSON to use instead of the default one")
    parser.add_argument("--preview", help="also write the frame with the play area and the zones drawn on it")


def run(args: argparse.Namespace) -> int:
    frame = _read_frame(args.source, args.frame)
    if args.corners or args.area_cm:
        if not (args.corners and args.area_cm):
            raise CalibrationError("--corners and --area-cm go together")
        height, width = frame.shape[:2]
        calibration = calibrate_manual((width, height), _parse_corners(args.corners), *_parse_area(args.area_cm),
                                       players=args.players, stock_places=args.stock_places)
    else:
        calibration = calibrate_markers(frame, args.marker_size_cm, players=args.players,
                                        stock_places=args.stock_places)
    if args.layout:
        calibration = replace(calibration, layout=Layout.load(args.layout))
    calibration.save(args.out)
    width_cm, depth_cm = calibration.play_size_cm
    seen = f"{len(calibration.markers_px)} markers" if calibration.source == "markers" else "corners given by hand"
    print(f"calibrated from {seen}: play area {width_cm:.1f} x {depth_cm:.1f} cm, reprojection "
          f"{calibration.rms_px:.2f} px / {calibration.rms_cm:.3f} cm RMS; wrote {args.out}")
    if args.preview:
        cv2.imwrite(args.preview, preview(frame, calibration))
    return 0
