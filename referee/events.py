"""The event log of INTERFACES.md: one validated `Event` type, JSON Lines read and appended-and-flushed.

>>> e = Event.make("play", 1.25, player="A", card="7C", **{"from": "A3", "to": "L"})
>>> e.to_json()
'{"t": 1.25, "type": "play", "player": "A", "card": "7C", "from": "A3", "to": "L"}'
>>> Event.from_json(e.to_json()) == e
True
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

from referee.cards import parse_code
from referee.errors import BadCardCode, BadEvent

SCHEMA_VERSION: Final = 1

_REQUIRED: dict[str, tuple[str, ...]] = {
        "play": ("player", "card", "from", "to"),
        "illegal_play": ("player", "card", "to", "reason"),
        "turn_up": ("player", "pile", "card"),
        "move_to_space": ("player", "card", "from", "to"),
        "spit_call": (),
        "spit": ("cards",),
        "premature_spit": ("player", "move"),
        "race": ("pile", "first", "second", "margin_ms"),
        "slap": ("pile", "contact", "winner", "margin_ms", "evidence"),
        "deal_end": ("player", "counts"),
        "game_end": ("winner",),
        # a player's correction of a call: `corrects` is the index of the call in the log, `call`
        # its type, `verdict` legal / illegal / void / a player
        "overrule": ("corrects", "call", "verdict"),
        # the referee takes back a call of its own: a `play` (`call`) of `player`'s `card` onto `to`, called before
        # the card found under it showed that another card was laid there first; `t` is the withdrawn call's
        # (the call that replaces it, an `illegal_play` of the same card, follows)
        "withdraw": ("call", "player", "card", "to"),
        # the referee read its position again from the table (what no move explained had shown for
        # a while): `stocks` place → [cards, face-up top or null], `piles` spit pile → [cards, top]
        # (piles with a card), `spit_cards` player → spit cards held; enough to rebuild the position
        "resync": ("stocks", "piles", "spit_cards"),
}
REQUIRED_FIELDS: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(_REQUIRED)
"""Every event type (INTERFACES.md's and registered ones) and the fields it must carry besides
`t` and `type`."""


def register_event_type(name: str, required: tuple[str, ...]) -> None:
    """Add an event type (INTERFACES.md allows new ones), e.g. a game's own calls."""
    known = _REQUIRED.get(name)
    if known is not None and known != tuple(required):
        raise ValueError(f"event type {name!r} is already registered with other fields")
    _REQUIRED[name] = tuple(required)

_PLAYER = re.compile(r"^[A-N]$")
"""Players A and B; games of more players go on to N (Speahx takes up to 14)."""
_PILE = re.compile(r"^(L|R|P|S[1-9][0-9]?|[A-N][1-9][0-9]?)$")
"""Spit piles L and R (S1.. with more than two players), a single play pile P, stock places A1.."""
_SOURCE = re.compile(r"^(hand|chance|L|R|P|S[1-9][0-9]?|[A-N][1-9][0-9]?)$")
"""Where a card came from: a pile or place, or (Speahx) the player's hand or chance cards."""
_PLAYER_FIELDS: Final = ("player", "first", "second", "receiver", "loser")
_PILE_FIELDS: Final = ("to", "pile")
_CARD_FIELDS: Final = ("card",)


@dataclass(frozen=True)
class Event:
    """One thing that happened at the table, at capture time `t` (seconds from the source start).

    `fields` holds the type's fields of INTERFACES.md plus any extras (confidence, frame, ...).
    Built through `Event.make` or `Event.from_json`, which validate it.
    """

    t: float
    type: str
    fields: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _validate(self)
        object.__setattr__(self, "fields", MappingProxyType(dict(self.fields)))

    @classmethod
    def make(cls, type: str, t: float, **fields: Any) -> "Event":
        """A validated event; use `**{"from": ...}` for the `from` field."""
        return cls(t=t, type=type, fields=fields)

    def __getitem__(self, key: str) -> Any:
        return self.fields[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.fields.get(key, default)

    def as_dict(self) -> dict[str, Any]:
        """`t`, `type`, then the fields: the shape of one log line."""
        return {"t": self.t, "type": self.type, **self.fields}

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Event":
        if not isinstance(data, Mapping):
            raise BadEvent("an event must be a JSON object")
        if "t" not in data or "type" not in data:
            raise BadEvent("an event needs 't' and 'type'")
        rest = {k: v for k, v in data.items() if k not in ("t", "type")}
        return cls(t=data["t"], type=data["type"], fields=rest)

    @classmethod
    def from_json(cls, line: str) -> "Event":
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BadEvent(f"not JSON: {exc.msg}") from None
        return cls.from_dict(data)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return self.t == other.t and self.type == other.type and dict(self.fields) == dict(other.fields)

    def __hash__(self) -> int:
        return hash((self.t, self.type))


def _validate(event: Event) -> None:
    t = event.t
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or t < 0:
        raise BadEvent(f"'t' must be a non-negative number of seconds, not {t!r}")
    required = REQUIRED_FIELDS.get(event.type)
    if required is None:
        raise BadEvent(f"unknown event type {event.type!r}; known: {', '.join(REQUIRED_FIELDS)}")
    missing = [name for name in required if name not in event.fields]
    if missing:
        raise BadEvent(f"a {event.type} event needs {', '.join(missing)}")
    f = event.fields
    for name in _PLAYER_FIELDS:
        if name in f and not (isinstance(f[name], str) and _PLAYER.match(f[name])):
            raise BadEvent(f"{event.type}: {name} must be a player such as 'A' or 'B', not {f[name]!r}")
    for name in _PILE_FIELDS:
        if name in f and not (isinstance(f[name], str) and _PILE.match(f[name])):
            raise BadEvent(f"{event.type}: {name} must be a pile name such as 'L' or 'A3', not {f[name]!r}")
    if "from" in f and not (isinstance(f["from"], str) and _SOURCE.match(f["from"])):
        raise BadEvent(f"{event.type}: from must be a pile name such as 'A3' (or hand, chance), not {f['from']!r}")
    for name in _CARD_FIELDS:
        if name in f:
            _check_code(event.type, f[name])
    if event.type == "spit":
        cards = f["cards"]
        if not isinstance(cards, Mapping) or not cards:
            raise BadEvent("spit: cards must be an object of pile → card")
        for pile, code in cards.items():
            if not _PILE.match(str(pile)):
                raise BadEvent(f"spit: {pile!r} is not a pile name")
            _check_code("spit", code)
    if event.type in ("race", "slap"):
        margin = f["margin_ms"]
        if margin is not None and (isinstance(margin, bool) or not isinstance(margin, (int, float))):
            raise BadEvent(f"{event.type}: margin_ms must be a number of milliseconds or null")
    if event.type == "slap":
        contact = f["contact"]
        if not isinstance(contact, Mapping) or not all(
            _PLAYER.match(str(p)) and isinstance(v, (int, float)) and not isinstance(v, bool)
            for p, v in contact.items()
        ):
            raise BadEvent("slap: contact must be an object of player → time in s")
    if event.type == "deal_end":
        counts = f["counts"]
        if not isinstance(counts, Mapping) or not all(
            _PLAYER.match(str(p)) and isinstance(n, int) and n >= 0 for p, n in counts.items()
        ):
            raise BadEvent("deal_end: counts must be an object of player → number of cards")
    if event.type == "resync":
        _check_resync(f)
    if event.type == "game_end" and f["winner"] is not None and not _PLAYER.match(str(f["winner"])):
        raise BadEvent(f"game_end: winner must be a player or null (a tie), not {f['winner']!r}")


def _check_resync(f: Mapping[str, Any]) -> None:
    for name, empty_ok in (("stocks", True), ("piles", False)):
        places = f[name]
        if not isinstance(places, Mapping):
            raise BadEvent(f"resync: {name} must be an object of place → [cards, top card]")
        for place, value in places.items():
            if not _PILE.match(str(place)):
                raise BadEvent(f"resync: {place!r} is not a pile name")
            if not (isinstance(value, (list, tuple)) and len(value) == 2 and isinstance(value[0], int)
                    and not isinstance(value[0], bool) and value[0] >= (0 if empty_ok else 1)):
                raise BadEvent(f"resync: {name}[{place!r}] must be [number of cards, top card]")
            count, top = value
            if top is None:
                if not empty_ok:
                    raise BadEvent(f"resync: spit pile {place} needs its top card")
            else:
                if count == 0:
                    raise BadEvent(f"resync: the empty place {place} cannot show {top!r}")
                _check_code("resync", top)
    spit = f["spit_cards"]
    if not isinstance(spit, Mapping) or not all(
        _PLAYER.match(str(p)) and isinstance(n, int) and not isinstance(n, bool) and n >= 0 for p, n in spit.items()
    ):
        raise BadEvent("resync: spit_cards must be an object of player → number of cards")


def _check_code(kind: str, code: Any) -> None:
    try:
        parse_code(code)
    except BadCardCode as exc:
        raise BadEvent(f"{kind}: {exc}") from None


def read_events(source: str | os.PathLike[str] | Iterable[str]) -> Iterator[Event]:
    """The events of a JSON Lines log (a path or lines); a bad line raises `BadEvent` with its number."""
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        try:
            handle = path.open(encoding="utf-8")
        except OSError as exc:
            raise BadEvent(f"cannot read event log {path}: {exc.strerror}") from None
        with handle:
            yield from _parse_lines(handle, str(path))
    else:
        yield from _parse_lines(source, "<events>")


def _parse_lines(lines: Iterable[str], name: str) -> Iterator[Event]:
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield Event.from_json(line)
        except BadEvent as exc:
            raise BadEvent(f"{name}:{number}: {exc}") from None


class EventLog:
    """An append-only JSON Lines event log; each event is written and flushed (and fsynced) at once.

    Use as a context manager, or call `close()`.
    """

    def __init__(self, path: str | os.PathLike[str], *, fsync: bool = True) -> None:
        self.path = Path(path)
        self._fsync = fsync
        self._handle: IO[str] = self.path.open("a", encoding="utf-8")

    def append(self, event: Event) -> None:
        self._handle.write(event.to_json() + "\n")
        self._handle.flush()
        if self._fsync:
            os.fsync(self._handle.fileno())

    def extend(self, events: Iterable[Event]) -> None:
        for event in events:
            self.append(event)

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> "EventLog":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
