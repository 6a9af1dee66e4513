"""Per-frame observations, the one currency between any detector and the tracker: validated dataclasses and their JSON Lines format.

A detector (or the perfect camera of `referee.judge.camera`) says, for every captured frame, what
it sees in each zone of the table (a face-up card, a face-down card, nothing, or a hand in the
way) and which hands are over the table. docs/observations.md documents the format.

>>> obs = Observation.from_json('{"t": 0.5, "frame": 15, "zones": {"L": {"seen": "7C", "confidence": 0.93},'
...     ' "A3": "back", "A4": "empty", "R": "occluded"}, "hands": [{"side": "B", "over": ["R"], "contact": {"R": 0.5}}]}')
>>> obs.zones["L"].seen, obs.zones["A3"].seen, obs.hands[0].contact["R"]
('7C', 'back', 0.5)
>>> Observation.from_json(obs.to_json()) == obs
True
>>> Observation.from_json('{"t": 0.5, "frame": 15, "zones": {"L": "7X"}}')
Traceback (most recent call last):
...
referee.observations.BadObservation: zone L: '7X' is not a card code, back, empty or occluded
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import IO, Any, Final

from referee.cards import ALL_CARDS, FACE_DOWN, JOKER_CODE
from referee.errors import RefereeError

FORMAT_VERSION: Final = 1
EMPTY: Final = "empty"
OCCLUDED: Final = "occluded"
CARD_CODES: Final = frozenset(c.code for c in ALL_CARDS) | {JOKER_CODE}
SEEN_VALUES: Final = CARD_CODES | {FACE_DOWN, EMPTY, OCCLUDED}
"""What a zone can show: a card code (face up), `back` (face down), `empty`, `occluded`."""
_ZONE = re.compile(r"^(L|R|P|S[1-9][0-9]?|[A-N][1-9][0-9]?)$")
_SIDE = re.compile(r"^[A-N]$")
_KNOWN_ZONES: set[str] = set()
Point = tuple[float, float]
Quad = tuple[Point, Point, Point, Point]


class BadObservation(RefereeError, ValueError):
    """An observation (or a line of an observation stream) of the wrong shape."""


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise BadObservation(f"{what} must be a finite number, not {value!r}")
    return float(value)


def _zone_name(name: Any) -> str:
    if name in _KNOWN_ZONES:
        return name  # type: ignore[no-any-return]
    if not isinstance(name, str) or not _ZONE.match(name):
        raise BadObservation(f"{name!r} is not a zone name (L, R, P, S1.., A1.., B1..)")
    _KNOWN_ZONES.add(name)
    return name


def _point(value: Any, what: str) -> Point:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise BadObservation(f"{what} must be a point [x, y], not {value!r}")
    return (_number(value[0], what), _number(value[1], what))


@dataclass(frozen=True, slots=True)
class ZoneReading:
    """What one zone shows in one frame: `seen` is a card code (`7C`, `10H`, `JK`), `back`,
    `empty` or `occluded`; `confidence` 0..1; `corners`, where known, the card's outline
    (four points clockwise, in the detector's coordinates); `under`, on a spit pile only, the
    code of the card directly below the top where enough of one of its index corners shows
    past the cards above it to be read (None: not read, or nothing below)."""

    seen: str
    confidence: float = 1.0
    corners: Quad | None = None
    under: str | None = None

    def __post_init__(self) -> None:
        if self.seen not in SEEN_VALUES:
            raise BadObservation(f"{self.seen!r} is not a card code, back, empty or occluded")
        c = self.confidence
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not 0.0 <= c <= 1.0:
            raise BadObservation(f"confidence must be a number in 0..1, not {c!r}")
        if self.corners is not None:
            if len(self.corners) != 4:
                raise BadObservation("corners must be four points")
            object.__setattr__(self, "corners", tuple(_point(p, "a corner") for p in self.corners))
        if self.under is not None and (self.under not in CARD_CODES or self.seen not in CARD_CODES):
            raise BadObservation(f"under {self.under!r}: a card code read below a face-up top card")

    @property
    def is_card(self) -> bool:
        """A face-up card is seen."""
        return self.seen in CARD_CODES

    def to_dict(self) -> dict[str, Any] | str:
        """The JSON shape: the bare string when confidence is 1 and neither corners nor a card
        under the top are known."""
        if self.confidence == 1.0 and self.corners is None and self.under is None:
            return self.seen
        out: dict[str, Any] = {"seen": self.seen, "confidence": round(self.confidence, 4)}
        if self.corners is not None:
            out["corners"] = [list(p) for p in self.corners]
        if self.under is not None:
            out["under"] = self.under
        return out

    @classmethod
    def from_value(cls, value: Any) -> "ZoneReading":
        if isinstance(value, str):
            return _SHORT.get(value) or cls(value)
        if not isinstance(value, Mapping):
            raise BadObservation(f"a zone reading is a string or an object, not {value!r}")
        unknown = set(value) - {"seen", "confidence", "corners", "under"}
        if unknown:
            raise BadObservation(f"unknown zone field(s) {', '.join(sorted(unknown))}")
        if "seen" not in value:
            raise BadObservation("a zone reading needs 'seen'")
        return cls(value["seen"], value.get("confidence", 1.0), value.get("corners"), value.get("under"))


_SHORT: Final = {v: ZoneReading(v) for v in (FACE_DOWN, EMPTY, OCCLUDED)}


@dataclass(frozen=True, slots=True)
class HandSeen:
    """A hand (or forearm) over the table: the `side` it comes from (the player's seat, `A`, `B`,
    ...), the zones it is `over` (it hides them), and `contact`: the zones it touches, each with
    the time (s, capture clock) it was first seen touching, no later than the frame's time;
    `under`: the sides whose hands lie over this one where it touches (two hands on one pile:
    the one underneath got there first), as the other arm was seen coming over it; `beneath`: the
    sides whose arms are seen lying over this hand where it rests on a spit pile in this frame
    (from what shows of the two arms then, not how they came there), one frame's vote."""

    side: str
    over: tuple[str, ...] = ()
    contact: Mapping[str, float] = field(default_factory=dict)
    position: Point | None = None
    under: tuple[str, ...] = ()
    beneath: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.side, str) or not _SIDE.match(self.side):
            raise BadObservation(f"a hand's side must be a player such as 'A' or 'B', not {self.side!r}")
        over = tuple(_zone_name(z) for z in self.over)
        object.__setattr__(self, "over", over)
        contact = {}
        for zone, t in dict(self.contact).items():
            if zone not in over:
                raise BadObservation(f"a hand touching {zone} must be over it too")
            contact[zone] = _number(t, f"contact time on {zone}")
        object.__setattr__(self, "contact", MappingProxyType(contact))
        if self.position is not None:
            object.__setattr__(self, "position", _point(self.position, "a hand's position"))
        for name, other in (("under", "another player's hand"), ("beneath", "another player's arm")):
            sides = tuple(getattr(self, name))
            for side in sides:
                if not isinstance(side, str) or not _SIDE.match(side) or side == self.side:
                    raise BadObservation(f"a hand lies {name} {other}, not {side!r}")
            if sides and not contact:
                raise BadObservation(f"a hand {name} {other} must touch a zone")
            object.__setattr__(self, name, sides)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"side": self.side, "over": list(self.over)}
        if self.contact:
            out["contact"] = dict(self.contact)
        if self.position is not None:
            out["position"] = list(self.position)
        if self.under:
            out["under"] = list(self.under)
        if self.beneath:
            out["beneath"] = list(self.beneath)
        return out

    @classmethod
    def from_value(cls, value: Any) -> "HandSeen":
        if not isinstance(value, Mapping) or "side" not in value:
            raise BadObservation("a hand is an object with 'side' (and 'over', 'contact')")
        unknown = set(value) - {"side", "over", "contact", "position", "under", "beneath"}
        if unknown:
            raise BadObservation(f"unknown hand field(s) {', '.join(sorted(unknown))}")
        over = value.get("over", [])
        contact = value.get("contact", {})
        if not isinstance(over, list):
            raise BadObservation("a hand's 'over' is a list of zones")
        if not isinstance(contact, Mapping):
            raise BadObservation("a hand's 'contact' is an object of zone -> time")
        layered = {name: value.get(name, []) for name in ("under", "beneath")}
        for name, sides in layered.items():
            if not isinstance(sides, list):
                raise BadObservation(f"a hand's {name!r} is a list of sides")
        return cls(value["side"], tuple(over), contact, value.get("position"), tuple(layered["under"]),
                   tuple(layered["beneath"]))


@dataclass(frozen=True, slots=True)
class LooseCard:
    """A card seen outside every zone (in a hand, sliding, dropped): its code or `back`,
    confidence and position (detector coordinates)."""

    seen: str
    confidence: float
    position: Point

    def __post_init__(self) -> None:
        if self.seen not in CARD_CODES and self.seen != FACE_DOWN:
            raise BadObservation(f"a loose card is a card code or back, not {self.seen!r}")
        if not 0.0 <= _number(self.confidence, "confidence") <= 1.0:
            raise BadObservation(f"confidence must be in 0..1, not {self.confidence!r}")
        object.__setattr__(self, "position", _point(self.position, "a loose card's position"))


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything seen in one captured frame: capture time `t` (s from the source's start, from
    the capture clock, never the processing time), frame index, the reading of each zone seen
    (a zone left out was not read in this frame), the hands and any loose cards."""

    t: float
    frame: int
    zones: Mapping[str, ZoneReading]
    hands: tuple[HandSeen, ...] = ()
    loose: tuple[LooseCard, ...] = ()

    def __post_init__(self) -> None:
        t = _number(self.t, "t")
        if t < 0:
            raise BadObservation(f"t must not be negative, not {t}")
        if isinstance(self.frame, bool) or not isinstance(self.frame, int) or self.frame < 0:
            raise BadObservation(f"frame must be a whole number >= 0, not {self.frame!r}")
        zones = dict(self.zones)
        for name, reading in zones.items():
            _zone_name(name)
            if not isinstance(reading, ZoneReading):
                raise BadObservation(f"zone {name}: a reading must be a ZoneReading")
        object.__setattr__(self, "zones", MappingProxyType(zones))
        hands = tuple(self.hands)
        for hand in hands:
            if not isinstance(hand, HandSeen):
                raise BadObservation("hands must be HandSeen items")
            for zone, when in hand.contact.items():
                if when > t + 1e-6:
                    raise BadObservation(f"a contact on {zone} at {when} s is later than the frame ({t} s)")
        object.__setattr__(self, "hands", hands)
        object.__setattr__(self, "loose", tuple(self.loose))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "t": self.t,
            "frame": self.frame,
            "zones": {name: reading.to_dict() for name, reading in self.zones.items()},
        }
        if self.hands:
            out["hands"] = [hand.to_dict() for hand in self.hands]
        if self.loose:
            out["loose"] = [{"seen": c.seen, "confidence": c.confidence, "position": list(c.position)}
                            for c in self.loose]
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: Any) -> "Observation":
        if not isinstance(data, Mapping):
            raise BadObservation("an observation is a JSON object")
        for key in ("t", "frame", "zones"):
            if key not in data:
                raise BadObservation(f"an observation needs {key!r}")
        unknown = set(data) - {"t", "frame", "zones", "hands", "loose"}
        if unknown:
            raise BadObservation(f"unknown observation field(s) {', '.join(sorted(unknown))}")
        raw = data["zones"]
        if not isinstance(raw, Mapping):
            raise BadObservation("'zones' is an object of zone -> reading")
        zones = {}
        for name, value in raw.items():
            try:
                zones[_zone_name(name)] = ZoneReading.from_value(value)
            except BadObservation as exc:
                raise BadObservation(f"zone {name}: {exc}") from None
        hands = data.get("hands", [])
        loose = data.get("loose", [])
        if not isinstance(hands, list) or not isinstance(loose, list):
            raise BadObservation("'hands' and 'loose' are lists")
        cards = []
        for item in loose:
            if not isinstance(item, Mapping) or not {"seen", "confidence", "position"} <= set(item):
                raise BadObservation("a loose card is an object with seen, confidence and position")
            cards.append(LooseCard(item["seen"], item["confidence"], item["position"]))
        return cls(data["t"], data["frame"], zones, tuple(HandSeen.from_value(h) for h in hands), tuple(cards))

    @classmethod
    def from_json(cls, line: str) -> "Observation":
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BadObservation(f"not JSON: {exc.msg}") from None
        return cls.from_dict(data)


@dataclass(frozen=True, slots=True)
class StreamHeader:
    """The optional first line of a stream: format version, nominal frame rate, rule set, source."""

    fps: float | None = None
    rules: str | None = None
    source: str = ""
    version: int = FORMAT_VERSION

    def __post_init__(self) -> None:
        if self.version != FORMAT_VERSION:
            raise BadObservation(f"observation format version {self.version!r} is not {FORMAT_VERSION}")
        if self.fps is not None and not _number(self.fps, "fps") > 0:
            raise BadObservation(f"fps must be positive, not {self.fps!r}")
        if self.rules is not None and not isinstance(self.rules, str):
            raise BadObservation("rules must be a rule-set name")

    def to_json(self) -> str:
        data: dict[str, Any] = {"observations": self.version}
        if self.fps is not None:
            data["fps"] = self.fps
        if self.rules is not None:
            data["rules"] = self.rules
        if self.source:
            data["source"] = self.source
        return json.dumps(data)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "StreamHeader":
        unknown = set(data) - {"observations", "fps", "rules", "source"}
        if unknown:
            raise BadObservation(f"unknown header field(s) {', '.join(sorted(unknown))}")
        return cls(data.get("fps"), data.get("rules"), str(data.get("source", "")), data["observations"])


class ObservationStream:
    """Reads a JSON Lines observation stream (a path or lines): `header` (None when the stream
    has none, known after the first line is read) and the observations in order. Times and frame
    indices must increase; a bad line raises `BadObservation` naming the source and line number."""

    def __init__(self, source: str | os.PathLike[str] | Iterable[str]) -> None:
        self.header: StreamHeader | None = None
        self._source = source

    def __iter__(self) -> Iterator[Observation]:
        source = self._source
        if isinstance(source, (str, os.PathLike)):
            path = Path(source)
            try:
                handle = path.open(encoding="utf-8")
            except OSError as exc:
                raise BadObservation(f"cannot read observations {path}: {exc.strerror}") from None
            with handle:
                yield from self._parse(handle, str(path))
        else:
            yield from self._parse(source, "<observations>")

    def _parse(self, lines: Iterable[str], name: str) -> Iterator[Observation]:
        last: Observation | None = None
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise BadObservation(f"{name}:{number}: not JSON: {exc.msg}") from None
            try:
                if isinstance(data, Mapping) and "observations" in data:
                    if last is not None or self.header is not None:
                        raise BadObservation("the header must be the first line")
                    self.header = StreamHeader.from_dict(data)
                    continue
                obs = Observation.from_dict(data)
                if last is not None and (obs.t <= last.t or obs.frame <= last.frame):
                    raise BadObservation(
                        f"frame {obs.frame} at {obs.t} s does not come after frame {last.frame} at {last.t} s"
                    )
            except BadObservation as exc:
                raise BadObservation(f"{name}:{number}: {exc}") from None
            last = obs
            yield obs


def read_observations(source: str | os.PathLike[str] | Iterable[str]) -> Iterator[Observation]:
    """The observations of a stream (the header, if any, skipped); see `ObservationStream`."""
    return iter(ObservationStream(source))


def write_observations(out: IO[str], observations: Iterable[Observation], header: StreamHeader | None = None) -> int:
    """Writes a stream (header first when given); returns the number of observations written."""
    n = 0
    if header is not None:
        out.write(header.to_json() + "\n")
    for obs in observations:
        out.write(obs.to_json() + "\n")
        n += 1
    return n
