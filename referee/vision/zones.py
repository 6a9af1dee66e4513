"""Where the piles lie on the table plane (cm): the default layout of a play area, and one fitted from a deal."""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np

from referee.errors import RefereeError

CARD_SIZE_CM: Final = (6.3, 8.8)
"""A poker-size card, width x height."""
PLAYERS: Final = "ABCD"
"""Seats: A at the near edge (markers 3–2), B at the far edge (0–1), C at A's left edge (3–0),
D at A's right edge (2–1)."""

_PILE = re.compile(r"^(L|R|P|S[1-9]|[A-D][1-9][0-9]?)$")
_SIDE = re.compile(r"^[A-D]$")
_MIDDLE = re.compile(r"^(L|R|P|S[1-9])$")
_ROW_OFFSET_CM: Final = 3.0  # from a player's edge to the near edge of their stock cards
_PITCH_GAP_CM: Final = 3.0  # between neighbouring stock cards
_MERGE_CM: Final = 2.5  # cards whose centres lie closer are one pile
_PRIOR_WEIGHT: Final = 0.1  # pull of the default positions when fitting a row
_MAX_EXTRA: Final = 4  # cards beyond a row's places that are tried as outliers

Polygon = tuple[tuple[float, float], ...]


class LayoutError(RefereeError, ValueError):
    """A layout that cannot be built or read: a play area too small, a bad zone, a bad layout file."""


class UnknownZone(LayoutError, KeyError):
    """A zone name that is not in the layout."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "unknown zone"


def _polygon(points: Any, what: str) -> Polygon:
    try:
        array = np.asarray(points, dtype=float)
    except (TypeError, ValueError):
        raise LayoutError(f"{what}: a polygon must be a list of [x, y] numbers") from None
    if array.ndim != 2 or array.shape[1] != 2 or len(array) < 3:
        raise LayoutError(f"{what}: a polygon needs at least 3 [x, y] points, got shape {array.shape}")
    if not np.isfinite(array).all():
        raise LayoutError(f"{what}: a polygon's points must be finite")
    return tuple((round(float(x), 4), round(float(y), 4)) for x, y in array)  # to 1/100 mm


_PAIR = re.compile(r"\[\s+([^\s\[\],]+),\s+([^\s\[\],]+)\s+\]")


def dumps(data: Any) -> str:
    """JSON for a person to read: indented, with each [x, y] pair on one line."""
    return _PAIR.sub(r"[\1, \2]", json.dumps(data, indent=1)) + "\n"


def _inside(polygon: Polygon, point: Sequence[float]) -> bool:
    contour = np.asarray(polygon, dtype=np.float32)
    return cv2.pointPolygonTest(contour, (float(point[0]), float(point[1])), False) >= 0


@dataclass(frozen=True)
class Zone:
    """A pile's place (`L`, `R`, `S1`.., a single play pile `P`, `A1`..) or a player's side (`A`,
    `B`..) as a polygon in table cm."""

    name: str
    polygon: Polygon

    def __post_init__(self) -> None:
        if not (_PILE.match(self.name) or _SIDE.match(self.name)):
            raise LayoutError(f"{self.name!r} is neither a pile name (L, R, S1, A1..) nor a player (A..D)")
        object.__setattr__(self, "polygon", _polygon(self.polygon, self.name))

    @property
    def is_spit(self) -> bool:
        """A pile in the middle, played on by everyone."""
        return bool(_MIDDLE.match(self.name))

    @property
    def player(self) -> str | None:
        """The player a stock place or side belongs to; None for a spit pile."""
        return None if self.is_spit else self.name[0]

    @property
    def centre(self) -> tuple[float, float]:
        x, y = np.mean(self.polygon, axis=0)
        return float(x), float(y)

    def contains(self, point: Sequence[float]) -> bool:
        return _inside(self.polygon, point)


@dataclass(frozen=True)
class Layout:
    """The piles and the players' sides of one play area of `width_cm` x `depth_cm` (table frame:
    origin at marker 3's inner corner, x towards marker 2, y towards player B).

    `source` is `default`, `fitted` (from a deal) or `file`; `predicted` names the piles a fit
    placed where no card was seen.
    """

    width_cm: float
    depth_cm: float
    piles: tuple[Zone, ...]
    sides: tuple[Zone, ...]
    source: str = "default"
    predicted: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in ("width_cm", "depth_cm"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
                raise LayoutError(f"{name} must be a positive number, got {value!r}")
        object.__setattr__(self, "piles", tuple(self.piles))
        object.__setattr__(self, "sides", tuple(self.sides))
        object.__setattr__(self, "predicted", tuple(self.predicted))
        names = [z.name for z in self.piles]
        if len(set(names)) != len(names) or any(not _PILE.match(n) for n in names):
            raise LayoutError(f"piles must have distinct pile names, got {names}")
        sides = [z.name for z in self.sides]
        if len(set(sides)) != len(sides) or any(not _SIDE.match(n) for n in sides):
            raise LayoutError(f"sides must be distinct players A..D, got {sides}")
        if self.source not in ("default", "fitted", "file"):
            raise LayoutError(f"source must be default, fitted or file, got {self.source!r}")
        if not set(self.predicted) <= set(names):
            raise LayoutError(f"predicted piles {self.predicted} are not all in the layout")

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(z.name for z in self.sides)

    def zone(self, name: str) -> Zone:
        for zone in self.piles + self.sides:
            if zone.name == name:
                return zone
        names = ", ".join(z.name for z in self.piles + self.sides)
        raise UnknownZone(f"no zone {name!r} in this layout (it has {names})")

    def locate(self, point: Sequence[float]) -> str | None:
        """The pile whose zone holds the table point (the nearest centre if zones overlap), else None."""
        holding = [z for z in self.piles if z.contains(point)]
        if not holding:
            return None
        return min(holding, key=lambda z: math.dist(z.centre, point)).name

    def side_of(self, point: Sequence[float]) -> str | None:
        """The player whose side holds the table point, else None."""
        return next((z.name for z in self.sides if z.contains(point)), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "width_cm": self.width_cm,
            "depth_cm": self.depth_cm,
            "source": self.source,
            "predicted": list(self.predicted),
            "piles": {z.name: [list(p) for p in z.polygon] for z in self.piles},
            "sides": {z.name: [list(p) for p in z.polygon] for z in self.sides},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Layout":
        if not isinstance(data, Mapping):
            raise LayoutError("a layout must be a JSON object")
        missing = [k for k in ("width_cm", "depth_cm", "piles", "sides") if k not in data]
        if missing:
            raise LayoutError(f"a layout needs {', '.join(missing)}")
        for key in ("piles", "sides"):
            if not isinstance(data[key], Mapping):
                raise LayoutError(f"'{key}' must be an object of name -> polygon")
        return cls(
            width_cm=data["width_cm"],
            depth_cm=data["depth_cm"],
            piles=tuple(Zone(name, poly) for name, poly in data["piles"].items()),
            sides=tuple(Zone(name, poly) for name, poly in data["sides"].items()),
            source=data.get("source", "file"),
            predicted=tuple(data.get("predicted", ())),
        )

    def save(self, path: str | Path) -> None:
        Path(path).write_text(dumps(self.to_dict()))

    @classmethod
    def load(cls, path: str | Path) -> "Layout":
        """A layout written by `save` (or by hand); its source becomes `file`."""
        try:
            data = json.loads(Path(path).read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise LayoutError(f"{path}: cannot read a layout: {exc}") from None
        if isinstance(data, dict):
            data["source"] = "file"
        try:
            return cls.from_dict(data)
        except LayoutError as exc:
            raise LayoutError(f"{path}: {exc}") from None


@dataclass(frozen=True)
class CardSeen:
    """A card (or pile) lying on the table: its centre in table cm, its size and the angle of its
    width axis from the table's x axis (degrees, counter-clockwise) when known."""

    x: float
    y: float
    width_cm: float = CARD_SIZE_CM[0]
    height_cm: float = CARD_SIZE_CM[1]
    angle_deg: float = 0.0

    def __post_init__(self) -> None:
        values = (self.x, self.y, self.width_cm, self.height_cm, self.angle_deg)
        if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in values):
            raise LayoutError(f"a card needs finite numbers, got {values}")
        if self.width_cm <= 0 or self.height_cm <= 0:
            raise LayoutError("a card's size must be positive")


@dataclass(frozen=True)
class _Row:
    """A row of places seen from one player: names in order, and the frame of that player's view."""

    names: tuple[str, ...]
    centres: np.ndarray  # default centre of each place, table cm
    along: np.ndarray  # unit vector from the first place to the last
    size: tuple[float, float]  # default zone extent along and across the row


def _seat_frame(player: str, width: float, depth: float) -> tuple[np.ndarray, np.ndarray, float]:
    """Origin (the player's front-left corner), the unit vector to their right, and their edge's length."""
    return {
        "A": (np.array([0.0, 0.0]), np.array([1.0, 0.0]), width),
        "B": (np.array([width, depth]), np.array([-1.0, 0.0]), width),
        "C": (np.array([0.0, depth]), np.array([0.0, -1.0]), depth),
        "D": (np.array([width, 0.0]), np.array([0.0, 1.0]), depth),
    }[player]


def _rectangle(centre: np.ndarray, along: np.ndarray, size: tuple[float, float]) -> Polygon:
    across = np.array([-along[1], along[0]])
    half_u, half_v = size[0] / 2, size[1] / 2
    corners = [centre + su * half_u * along + sv * half_v * across for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    return tuple((float(x), float(y)) for x, y in corners)


def _rows(width: float, depth: float, players: int, stock_places: int, card: tuple[float, float],
          middle: Sequence[str] | None) -> list[_Row]:
    if not 2 <= players <= len(PLAYERS):
        raise LayoutError(f"a layout seats 2 to {len(PLAYERS)} players, got {players}")
    if not 1 <= stock_places <= 99:
        raise LayoutError(f"stock places must be 1 to 99, got {stock_places}")
    card_w, card_h = card
    pitch = card_w + _PITCH_GAP_CM
    rows = []
    for player in PLAYERS[:players]:
        origin, right, edge = _seat_frame(player, width, depth)
        inward = np.array([-right[1], right[0]])
        offsets = (np.arange(stock_places) - (stock_places - 1) / 2) * pitch + edge / 2
        depth_in = _ROW_OFFSET_CM + card_h / 2
        centres = origin + offsets[:, None] * right + depth_in * inward
        names = tuple(f"{player}{k + 1}" for k in range(stock_places))
        rows.append(_Row(names, centres, right, (pitch * 0.95, card_h + 2 * _ROW_OFFSET_CM * 0.9)))
    spit = tuple(middle) if middle else ("L", "R") if players == 2 else tuple(f"S{k + 1}" for k in range(players))
    if not all(_MIDDLE.match(name) for name in spit):
        raise LayoutError(f"middle piles are named L, R, P or S1.., got {spit}")
    offsets = (np.arange(len(spit)) - (len(spit) - 1) / 2) * pitch * 1.2 + width / 2
    centres = np.stack([offsets, np.full(len(spit), depth / 2)], axis=1)
    rows.append(_Row(spit, centres, np.array([1.0, 0.0]), (pitch * 1.1, card_h * 1.6)))
    return rows


def _sides(width: float, depth: float, players: int) -> tuple[Zone, ...]:
    """Two players split the table at the middle line; more split it along the diagonals."""
    w, d = width, depth
    if players == 2:
        return (Zone("A", ((0, 0), (w, 0), (w, d / 2), (0, d / 2))),
                Zone("B", ((0, d / 2), (w, d / 2), (w, d), (0, d))))
    centre = (w / 2, d / 2)
    triangles = {"A": ((0, 0), (w, 0), centre), "B": ((w, d), (0, d), centre),
                 "C": ((0, d), (0, 0), centre), "D": ((w, 0), (w, d), centre)}
    return tuple(Zone(p, triangles[p]) for p in PLAYERS[:players])


def _overlap(a: Polygon, b: Polygon) -> float:
    area, _ = cv2.intersectConvexConvex(np.asarray(a, np.float32), np.asarray(b, np.float32))
    return float(area)


def _standard(width: float, depth: float, players: int, stock_places: int, card: tuple[float, float],
              middle: Sequence[str] | None) -> tuple[list[_Row], tuple[Zone, ...]]:
    """The rows of default places and their zones, refused when they overlap or leave the play area."""
    rows = _rows(width, depth, players, stock_places, card, middle)
    piles = tuple(Zone(name, _rectangle(c, row.along, row.size))
                  for row in rows for name, c in zip(row.names, row.centres))
    too_small = (f"a play area of {width:.1f} x {depth:.1f} cm is too small for {players} players "
                 f"with {stock_places} stock places")
    for a, b in itertools.combinations(piles, 2):
        if _overlap(a.polygon, b.polygon) > 1e-6:
            raise LayoutError(f"{too_small} ({a.name} and {b.name} overlap)")
    for zone in piles:
        xs, ys = np.asarray(zone.polygon).T
        if xs.min() < 0 or ys.min() < 0 or xs.max() > width or ys.max() > depth:
            raise LayoutError(f"{too_small} ({zone.name} does not fit)")
    return rows, piles


def default_layout(width_cm: float, depth_cm: float, *, players: int = 2, stock_places: int = 5,
                   card_size_cm: tuple[float, float] = CARD_SIZE_CM, middle: Sequence[str] | None = None) -> Layout:
    """The standard places on a play area: each player's stock row a few cm in from their edge,
    centred, from their left to their right; the middle piles side by side across the middle,
    from A's left: `middle`, by default `L`, `R` for two players and `S1`.. `Sn` for n players
    (`("P",)` for a game with one play pile)."""
    _, piles = _standard(width_cm, depth_cm, players, stock_places, card_size_cm, middle)
    return Layout(width_cm, depth_cm, piles, _sides(width_cm, depth_cm, players))


def _merge(cards: Sequence[CardSeen]) -> list[CardSeen]:
    """Cards whose centres lie within a few cm are one pile (a card seen twice, a squared-up pile)."""
    groups: list[list[CardSeen]] = []
    for card in cards:
        for group in groups:
            if math.dist((card.x, card.y), (group[0].x, group[0].y)) < _MERGE_CM:
                group.append(card)
                break
        else:
            groups.append([card])
    return [CardSeen(float(np.mean([c.x for c in g])), float(np.mean([c.y for c in g])),
                     g[0].width_cm, g[0].height_cm, g[0].angle_deg) for g in groups]


def _segment_distance(point: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    ab = b - a
    t = 0.0 if not ab.any() else float(np.clip(np.dot(point - a, ab) / np.dot(ab, ab), 0, 1))
    return float(np.linalg.norm(point - (a + t * ab)))


def _nearest(cards: list[CardSeen], rows: list[_Row], shifts: list[np.ndarray]) -> list[list[CardSeen]]:
    """Each card to the row whose line of places (moved by its shift) lies nearest."""
    groups: list[list[CardSeen]] = [[] for _ in rows]
    for card in cards:
        point = np.array([card.x, card.y])
        distances = [_segment_distance(point, r.centres[0] + s, r.centres[-1] + s) for r, s in zip(rows, shifts)]
        groups[int(np.argmin(distances))].append(card)
    return groups


def _assign(cards: list[CardSeen], rows: list[_Row]) -> list[list[CardSeen]]:
    """Each card to the nearest row of default places, then again after moving every row across
    to the median of its cards (a deal a little off the standard positions)."""
    shifts = []
    for row, group in zip(rows, _nearest(cards, rows, [np.zeros(2)] * len(rows))):
        across = np.array([-row.along[1], row.along[0]])
        offsets = [np.dot(np.array([c.x, c.y]) - row.centres[0], across) for c in group]
        shifts.append(float(np.median(offsets)) * across if group else np.zeros(2))
    return _nearest(cards, rows, shifts)


def _fit_row(row: _Row, cards: list[CardSeen]) -> tuple[np.ndarray, list[CardSeen | None], float]:
    """Place each of the row's places: the cards in order along the row on evenly spaced places,
    the best choice of which places are empty (or which cards are strays), pulled a little towards
    the default places. Returns the centres, the card on each place (None where predicted) and the pitch."""
    n = len(row.names)
    default_s = (row.centres - row.centres[0]) @ row.along
    default_pitch = float(default_s[1] - default_s[0]) if n > 1 else row.size[0]
    across = np.array([-row.along[1], row.along[0]])
    if not cards:
        return row.centres.copy(), [None] * n, default_pitch
    cards = sorted(cards, key=lambda c: float(np.dot((c.x, c.y), row.along)))
    s = np.array([np.dot(np.array([c.x, c.y]) - row.centres[0], row.along) for c in cards])
    if len(cards) > n + _MAX_EXTRA:
        keep = np.argsort(np.abs(s - default_s.mean()))[: n + _MAX_EXTRA]
        cards, s = [cards[i] for i in sorted(keep)], s[sorted(keep)]
    best: tuple[float, tuple[int, ...], tuple[int, ...], float, float] | None = None
    m = min(len(cards), n)
    for used in itertools.combinations(range(len(cards)), m):
        for places in itertools.combinations(range(n), m):
            k, obs = np.array(places, float), s[list(used)]
            if m >= 2:
                slope, start = np.polyfit(k, obs, 1)
            else:
                slope, start = default_pitch, float(obs[0] - default_pitch * k[0])
            cost = float(np.sum((obs - (start + slope * k)) ** 2)
                         + _PRIOR_WEIGHT * np.sum((obs - default_s[list(places)]) ** 2))
            if best is None or cost < best[0]:
                best = (cost, used, places, float(start), float(slope))
    assert best is not None
    _, used, places, start, slope = best
    seen: list[CardSeen | None] = [None] * n
    for card_index, place in zip(used, places):
        seen[place] = cards[card_index]
    offset = float(np.median([np.dot(np.array([c.x, c.y]) - row.centres[0], across) for c in cards]))
    centres = np.array([
        (card.x, card.y) if card is not None else row.centres[0] + (start + slope * k) * row.along + offset * across
        for k, card in enumerate(seen)
    ], dtype=float)
    return centres, seen, abs(slope) if m >= 2 else default_pitch


def _fitted_size(row: _Row, card: CardSeen | None, pitch: float) -> tuple[float, float]:
    """A place's zone: the default extent, grown to hold the card as it lies, no wider than the pitch."""
    along, across = row.size
    if card is not None:
        angle = math.radians(card.angle_deg) - math.atan2(row.along[1], row.along[0])
        c, s = abs(math.cos(angle)), abs(math.sin(angle))
        along = max(along, 1.15 * (card.width_cm * c + card.height_cm * s))
        across = max(across, 1.15 * (card.width_cm * s + card.height_cm * c))
    return min(along, 0.95 * pitch), across


def fit_layout(cards: Sequence[CardSeen], width_cm: float, depth_cm: float, *, players: int = 2,
               stock_places: int = 5, card_size_cm: tuple[float, float] = CARD_SIZE_CM,
               middle: Sequence[str] | None = None) -> Layout:
    """The layout where the dealt cards actually lie (table cm): each card goes to the nearest row
    (a player's stock row or the spit piles in the middle), ordered along the row as its player
    sees it; a missing card's place is predicted from the spacing of the others, and cards beyond
    a row's places are left out as strays."""
    rows, _ = _standard(width_cm, depth_cm, players, stock_places, card_size_cm, middle)
    piles: list[Zone] = []
    predicted: list[str] = []
    for row, group in zip(rows, _assign(_merge(cards), rows)):
        centres, seen, pitch = _fit_row(row, group)
        for name, centre, card in zip(row.names, centres, seen):
            piles.append(Zone(name, _rectangle(centre, row.along, _fitted_size(row, card, pitch))))
            if card is None:
                predicted.append(name)
    return Layout(width_cm, depth_cm, tuple(piles), _sides(width_cm, depth_cm, players), "fitted", tuple(predicted))
