"""A dealt layout in a photo without markers: table plane and layout fitted to the cards, then each zone's top card."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Final

import numpy as np

from referee.errors import RefereeError
from referee.vision.calibrate import Calibration, calibrate_manual
from referee.vision.calibrate_fit import CalibrationError, project, solve_rectangles
from referee.vision.detections import DetectedCard, Detections
from referee.vision.detector import CardDetector
from referee.vision.observe import DetectorReader, ZoneReader
from referee.vision.zones import CARD_SIZE_CM, CardSeen, LayoutError, UnknownZone, default_layout, fit_layout

PLANES: Final = ("cards", "top-down")
"""How the table plane was found: fitted to the corners of the cards, or assumed seen from straight above."""
MIN_PLANE_CARDS: Final = 3
"""Cards with corners needed to fit the plane; with fewer the photo is taken as seen from above."""
MIN_FACE_UP: Final = 3
"""Face-up cards needed to fit a layout (a deal shows one on every stock pile)."""
MIN_PLACES_FOUND: Final = 0.5
"""The share of the layout's places that must hold a face-up card: fewer, and the cards are not a
dealt layout (a fan, a hand of cards) but would still be given one."""
MAX_PLANE_RMS: Final = 0.15
"""A plane fitting the cards' corners worse than this share of a card's short side (RMS) is not
believed, and the photo is taken as seen from above."""
MAX_MISFIT: Final = 0.01
"""A plane further than this from any real camera's (`camera_misfit`) is not believed either."""
_AMBIGUOUS: Final = 1.25  # a card whose sides look within this ratio may lie either way round
_GROW_TRIES: Final = 12
_GROW: Final = 1.15


class LayoutPhotoError(RefereeError):
    """A photo whose dealt layout cannot be read."""


class NoCardsFound(LayoutPhotoError):
    """The detector found no card (or too few face-up ones) in the photo."""


class LayoutNotFitted(LayoutPhotoError):
    """The cards found do not make the rule set's layout."""


@dataclass(frozen=True, eq=False)
class PhotoLayout:
    """Where the dealt layout lies in one photo: `plane` (one of `PLANES`), the `plane_cards` it was
    fitted to and their corners' `rms_px` error, the `calibration` (the play area found around the
    cards, given to `calibrate_manual` as its four corners, with the fitted layout: table frame as
    with markers, origin at player A's near-left corner, x to A's right, y towards B) and how many
    cards the detector found."""

    plane: str
    plane_cards: int
    rms_px: float
    calibration: Calibration
    cards_found: int

    def __post_init__(self) -> None:
        if self.plane not in PLANES:
            raise LayoutPhotoError(f"plane must be one of {', '.join(PLANES)}, got {self.plane!r}")


@dataclass(frozen=True)
class ZoneTop:
    """One zone as read in the photo: its name, its polygon in image px, its top card (a code,
    `back` or `empty`) and the reader's confidence; `predicted`: no face-up card lay there when the
    layout was fitted, so its place was predicted from the spacing of the others."""

    name: str
    top: str
    confidence: float
    polygon: tuple[tuple[float, float], ...]
    predicted: bool


@dataclass(frozen=True, eq=False)
class PhotoReading:
    """A photo's layout and each of its zones, middle piles first."""

    layout: PhotoLayout
    zones: tuple[ZoneTop, ...]

    def zone(self, name: str) -> ZoneTop:
        for zone in self.zones:
            if zone.name == name:
                return zone
        raise UnknownZone(f"no zone {name!r} in this layout")

    def to_json(self) -> dict[str, Any]:
        """The CLI's JSON shape, without the image's path."""
        def points(polygon: np.ndarray | tuple[tuple[float, float], ...]) -> list[list[float]]:
            return [[round(float(x), 1), round(float(y), 1)] for x, y in polygon]

        calibration = self.layout.calibration
        return {
            "plane": self.layout.plane,
            "plane_cards": self.layout.plane_cards,
            "rms_px": round(self.layout.rms_px, 2),
            "cards_found": self.layout.cards_found,
            "zones": {z.name: {"top": z.top, "confidence": round(z.confidence, 3), "polygon": points(z.polygon),
                               "predicted": z.predicted} for z in self.zones},
            "play_area": points(calibration.to_image(calibration.play_area_cm)),
        }


def _quad(card: DetectedCard) -> np.ndarray:
    """A card's four corners in image px: its outline where known, else its box."""
    if card.corners is not None:
        return np.asarray(card.corners, dtype=float)
    x1, y1, x2, y2 = card.box
    return np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], dtype=float)


def _top_down(cards: list[DetectedCard]) -> np.ndarray:
    """The plane seen from straight above (cm, y up -> px), scaled by the cards' median size."""
    per_cm = []
    for card in cards:
        short, long_ = sorted(_sides(_quad(card)))
        per_cm.append((short / CARD_SIZE_CM[0] + long_ / CARD_SIZE_CM[1]) / 2)
    scale = float(np.median(per_cm))
    return np.array([[scale, 0.0, 0.0], [0.0, -scale, 0.0], [0.0, 0.0, 1.0]])


def _sides(quad: np.ndarray) -> tuple[float, float]:
    """Mean lengths of a quad's first-and-third and second-and-fourth edges."""
    edges = np.linalg.norm(np.roll(quad, -1, 0) - quad, axis=1)
    return float(edges[0] + edges[2]) / 2, float(edges[1] + edges[3]) / 2


def _width_first(quad: np.ndarray, long_direction: tuple[float, float] | None) -> np.ndarray:
    """The quad's corners (clockwise) started so that its first edge is a card's width: the
    shorter pair of edges as seen, or, for a quad that looks nearly square (a card foreshortened
    along its length), the edges across `long_direction` when one is given."""
    first, second = _sides(quad)
    if long_direction is not None and max(first, second) < _AMBIGUOUS * min(first, second):
        along = np.abs(np.dot(quad[2] - quad[1], long_direction)) / max(second, 1e-9)
        across = np.abs(np.dot(quad[1] - quad[0], long_direction)) / max(first, 1e-9)
        return quad if along >= across else np.roll(quad, -1, 0)
    return quad if first <= second else np.roll(quad, -1, 0)


def camera_misfit(homography: np.ndarray, image_size: tuple[int, int]) -> float:
    """How far a homography (plane -> px) is from what any pinhole camera with square pixels,
    centred on the image, makes of a plane: the least over focal lengths of the squared relative
    difference in length, plus the squared cosine, of the plane's two axes as the camera sees
    them. 0 for a real camera; rendered deals fitted from the detector's corners came out at
    0.0001-0.002."""
    width, height = image_size
    centred = np.array([[1.0, 0.0, -width / 2], [0.0, 1.0, -height / 2], [0.0, 0.0, 1.0]]) @ homography
    best = math.inf
    for focal in np.geomspace(0.2, 5.0, 120) * max(width, height):
        axes = centred[:, :2] / np.array([[focal], [focal], [1.0]])
        n1, n2 = np.linalg.norm(axes, axis=0)
        cosine = float(axes[:, 0] @ axes[:, 1]) / (n1 * n2)
        best = min(best, ((n1 - n2) / (n1 + n2)) ** 2 + cosine**2)
    return float(best)


def _solve_cards(quads: list[np.ndarray], image_size: tuple[int, int]) -> tuple[np.ndarray, list[int], float, float]:
    """A plane fitted to the cards as labelled, then again with each card labelled as it lies on
    that plane: the homography, the cards kept, the corners' RMS error (px) and `camera_misfit`."""
    for attempt in range(3):
        homography, on_plane = solve_rectangles(dict(enumerate(quads)), CARD_SIZE_CM)
        to_plane = np.linalg.inv(homography)
        relabelled = []
        for quad in quads:
            first, second = _sides(project(to_plane, quad))
            relabelled.append(quad if first <= second else np.roll(quad, -1, 0))
        if attempt == 2 or all(np.array_equal(a, b) for a, b in zip(quads, relabelled)):
            break
        quads = relabelled
    used = sorted(on_plane)
    error = project(homography, np.concatenate([on_plane[i] for i in used])) - np.concatenate([quads[i] for i in used])
    return homography, used, float(np.sqrt(np.mean(np.sum(error**2, axis=1)))), camera_misfit(homography, image_size)


def table_plane(found: Detections) -> tuple[np.ndarray, str, int, float]:
    """The plane the cards lie on: a homography (plane cm, y up -> image px), how it was found
    (`PLANES`), how many cards it was fitted to and their corners' RMS error (px).

    With at least `MIN_PLANE_CARDS` cards with corners the plane is fitted to them as rectangles
    of known size (`solve_rectangles`). A card seen at a slant can look as long as it is wide, so
    which of its sides is its width is tried three ways (as it looks; nearly square ones lengthwise
    along the photo's height; along its width) and the plane the corners fit best, counting
    `camera_misfit` too, is kept. With fewer cards, or a fit that does not hold (`MAX_PLANE_RMS`,
    `MAX_MISFIT`), the photo is taken as seen from straight above at the cards' median size."""
    cards = list(found)
    if not cards:
        raise NoCardsFound("no card found in the photo")
    outlined = [np.asarray(c.corners, dtype=float) for c in cards if c.corners is not None]
    if len(outlined) >= MIN_PLANE_CARDS:
        size = (found.width, found.height)
        fits = []
        for direction in (None, (0.0, 1.0), (1.0, 0.0)):
            try:
                fit = _solve_cards([_width_first(q, direction) for q in outlined], size)
            except (CalibrationError, np.linalg.LinAlgError):
                continue
            if np.isfinite(fit[0]).all():
                short = float(np.median([min(_sides(outlined[i])) for i in fit[1]]))
                fits.append((fit[3] + (fit[2] / short) ** 2, fit, short))
        if fits:
            _, (homography, used, rms, misfit), short = min(fits, key=lambda f: f[0])
            if rms <= MAX_PLANE_RMS * short and misfit <= MAX_MISFIT:
                return homography, "cards", len(used), rms
    return _top_down(cards), "top-down", 0, 0.0


def _towards_b(plane: np.ndarray, point: np.ndarray) -> np.ndarray:
    """The unit direction on the plane in which the photo goes up at `point`: away from player A,
    who is taken to sit at the bottom of the photo."""
    above = project(np.linalg.inv(plane), project(plane, point) - (0.0, 10.0))
    direction = above - point
    return direction / np.linalg.norm(direction)


def _long_axis(quads: list[np.ndarray], up: np.ndarray) -> np.ndarray:
    """The cards' common long axis on the plane (the mean of their long sides' directions, modulo
    a half turn), pointing the way of `up`: a dealt player's cards lie upright for them."""
    doubled = []
    for quad in quads:
        first = quad[1] - quad[0] + quad[2] - quad[3]
        second = quad[2] - quad[1] + quad[3] - quad[0]
        long_side = first if np.linalg.norm(first) > np.linalg.norm(second) else second
        doubled.append(2.0 * math.atan2(long_side[1], long_side[0]))
    angle = math.atan2(float(np.mean(np.sin(doubled))), float(np.mean(np.cos(doubled)))) / 2.0
    axis = np.array([math.cos(angle), math.sin(angle)])
    return axis if np.dot(axis, up) >= 0 else -axis


def _row_inset(players: int, stock_places: int) -> float:
    """How far in from a player's edge the default layout puts the middle of their stock row (cm)."""
    return default_layout(1000.0, 1000.0, players=players, stock_places=stock_places).zone("A1").centre[1]


def _seen(quad: np.ndarray, to_table: np.ndarray) -> CardSeen:
    """A card as `fit_layout` takes it: its corners on the plane turned into table cm."""
    corners = project(to_table, quad)
    first, second = _sides(corners)
    short, long_ = sorted((first, second))
    k = 0 if first < second else 1
    edge = corners[k + 1] - corners[k]
    centre = corners.mean(0)
    return CardSeen(float(centre[0]), float(centre[1]), float(short), float(long_),
                    math.degrees(math.atan2(edge[1], edge[0])) % 180.0)


def fit_photo_layout(found: Detections, *, players: int = 2, stock_places: int = 5,
                     middle: tuple[str, ...] | None = None) -> PhotoLayout:
    """The layout of the cards detected in one photo: the table plane from the cards
    (`table_plane`), player A's side at the bottom of the photo and the table's y axis along the
    face-up cards' long sides, a play area around the face-up cards (grown until the default
    places fit in it) and `fit_layout` on them; refused when under `MIN_PLACES_FOUND` of the
    places hold a face-up card."""
    plane, how, plane_cards, rms = table_plane(found)
    cards = list(found)
    face_up = [i for i, card in enumerate(cards) if card.face_up]
    if len(face_up) < MIN_FACE_UP:
        raise NoCardsFound(f"{len(face_up)} face-up card{'s' if len(face_up) != 1 else ''} found: "
                           f"fitting a dealt layout needs at least {MIN_FACE_UP}")
    to_plane = np.linalg.inv(plane)
    quads = [project(to_plane, _quad(cards[i])) for i in face_up]
    centre = np.mean([quad.mean(0) for quad in quads], axis=0)
    y_axis = _long_axis(quads, _towards_b(plane, centre))
    turn = np.stack([[y_axis[1], -y_axis[0]], y_axis])  # plane offsets -> (to A's right, towards B)
    spread = np.array([turn @ (quad.mean(0) - centre) for quad in quads])
    middle_of_deal = (spread.min(0) + spread.max(0)) / 2
    width, depth = (float(v) for v in np.ptp(spread, axis=0) + 2 * _row_inset(players, stock_places))
    failure: LayoutError | None = None
    for _ in range(_GROW_TRIES):
        table_to_plane = np.eye(3)
        table_to_plane[:2, :2] = turn.T
        table_to_plane[:2, 2] = centre + turn.T @ (middle_of_deal - (width / 2, depth / 2))
        to_table = np.linalg.inv(table_to_plane)
        try:
            layout = fit_layout([_seen(quad, to_table) for quad in quads], width, depth, players=players,
                                stock_places=stock_places, middle=middle)
            break
        except LayoutError as exc:  # a play area too small for the default places: grow it
            failure = exc
            width, depth = width * _GROW, depth * _GROW
    else:
        raise LayoutNotFitted(f"the cards found do not make a layout of {stock_places} stock places: {failure}")
    found_places = len(layout.piles) - len(layout.predicted)
    if found_places < MIN_PLACES_FOUND * len(layout.piles):
        raise LayoutNotFitted(f"only {found_places} of the layout's {len(layout.piles)} places hold a face-up card: "
                              "the cards do not look dealt")
    corners = project(plane @ table_to_plane, np.array([[0.0, depth], [width, depth], [width, 0.0], [0.0, 0.0]]))
    try:
        calibration = calibrate_manual((found.width, found.height), corners, width, depth, players=players,
                                       stock_places=stock_places)
    except CalibrationError as exc:  # the play area would reach behind the camera
        raise LayoutNotFitted(f"the play area around the cards does not fit in the photo: {exc}") from None
    return PhotoLayout(how, plane_cards, rms, replace(calibration, layout=layout), len(cards))


def read_tops(image: np.ndarray, photo: PhotoLayout, reader: ZoneReader) -> tuple[ZoneTop, ...]:
    """Each pile zone's top card as `reader` reads it (the pipeline's `DetectorReader`: each zone
    rectified and read by the detector), middle piles first."""
    calibration = photo.calibration
    piles = sorted(calibration.layout.piles, key=lambda zone: not zone.is_spit)
    readings = reader.read(image, calibration, [zone.name for zone in piles])
    return tuple(ZoneTop(zone.name, readings[zone.name].seen, readings[zone.name].confidence,
                         tuple((float(x), float(y)) for x, y in calibration.to_image(np.asarray(zone.polygon))),
                         zone.name in calibration.layout.predicted) for zone in piles)


def read_layout(image: np.ndarray, detector: CardDetector, *, players: int = 2, stock_places: int = 5,
                middle: tuple[str, ...] | None = None) -> PhotoReading:
    """The dealt layout in a BGR photo without markers: the detector's cards fit the layout
    (`fit_photo_layout`), then each zone is read as the pipeline reads it (`read_tops`)."""
    photo = fit_photo_layout(detector.detect(image), players=players, stock_places=stock_places, middle=middle)
    return PhotoReading(photo, read_tops(image, photo, DetectorReader(detector)))
