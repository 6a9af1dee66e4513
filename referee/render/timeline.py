"""A simulated game as motion: where every card and hand is at any moment, from the ground-truth log.

The log says when things happen (a card *touches* its pile at the event's `t`; the hand left the
stock with it at `start`); this module fills in the rest. Each event becomes timed *effects* on
the table (a card lifted into a hand, landed on a pile, turned, piles gathered, a new layout) and
*keyframes* of the hand that does it. `Timeline.at(t)` applies every effect due by `t` and gives
the cards lying still, the cards in the air and the hands, as `referee.synth` placements.

A card lands in the first frame whose time is at or after its event's `t`: a motion ending at
`t1` is on its pile for every `t >= t1` and in the air (lifted) before.
"""

from __future__ import annotations

import bisect
import math
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

import numpy as np

from referee.events import Event
from referee.render.errors import RenderError
from referee.render.geometry import PLAYER_ANGLE, TableGeometry
from referee.synth import SKIN_TONES, CardPlacement, HandPose
from referee.synth.faces import CARD_H_CM
from referee.synth.scene import BACK, CARD_THICKNESS_CM

PLAYERS: Final = ("A", "B")
SPIT_OWNER: Final = {"L": "A", "R": "B"}
"""Whose spit card starts each spit pile (the engine pairs spit pile i with player i)."""
DRAWN: Final = frozenset({"layout", "play", "illegal_play", "turn_up", "move_to_space", "stack_equal", "refill",
                          "spit", "premature_spit", "slap", "choose_pile"})
"""Event types that move cards or hands."""
SILENT: Final = frozenset({"spit_call", "race", "deal_end", "game_end"})
"""Event types that change nothing on the table."""
EXPOSURE_S: Final = 1 / 60
"""How long the shutter is open: what moves that far in it is smeared (motion blur)."""
_WITHDRAW_S: Final = 0.3
_SPIT_REACH_S: Final = 0.3
_GATHER_STEP_S: Final = 0.3
_GATHER_S: Final = 3.0
_DEAL_S: Final = 4.0
"""How long the players take to deal the stock piles (less when the log leaves less time)."""
_SETTLE_HOLD_S: Final = 0.6
_TURN_S: Final = 0.12
"""Half the time a turned card is in the air."""


@dataclass(frozen=True)
class Grip:
    """Where a hand holds (grip point, cm, synth frame; `h` above the table) and its shape: the palm
    lies `offset` cm behind the grip towards the shoulder and `palm` cm above it."""

    x: float
    y: float
    h: float
    offset: float = 11.5
    palm: float = 1.3
    curl: float = 0.75
    spread: float = 0.15

    def towards(self, other: "Grip", s: float, arc: float) -> "Grip":
        """The grip a fraction `s` (eased) of the way to `other`, raised by an arc of `arc` cm mid-way."""
        e = _ease(s)
        mix = lambda a, b: a + (b - a) * e  # noqa: E731
        return Grip(mix(self.x, other.x), mix(self.y, other.y), mix(self.h, other.h) + arc * math.sin(math.pi * e),
                    mix(self.offset, other.offset), mix(self.palm, other.palm), mix(self.curl, other.curl),
                    mix(self.spread, other.spread))


def _ease(s: float) -> float:
    """Minimum-jerk easing: a hand starts and stops gently."""
    s = min(max(s, 0.0), 1.0)
    return s * s * s * (10 - 15 * s + 6 * s * s)


def _arc(x0: float, y0: float, x1: float, y1: float) -> float:
    """How high (cm) a hand lifts over a move of this length."""
    return min(5.0, 1.2 + 0.12 * math.hypot(x1 - x0, y1 - y0))


CARRY: Final = Grip(0, 0, 0)
TOUCH: Final = Grip(0, 0, 0, offset=10.0, palm=1.6, curl=0.55, spread=0.3)
SLAP: Final = Grip(0, 0, 0, offset=0.0, palm=0.9, curl=0.05, spread=0.75)
REST: Final = Grip(0, 0, 4.0, offset=11.5, palm=1.5, curl=0.45, spread=0.25)


@dataclass(frozen=True)
class Key:
    """A hand keyframe: the hand is at `grip` at `t` and stays until `hold`, having come in over
    `approach` s; `layer` orders hands on top of each other (a later slap lies on top)."""

    t: float
    grip: Grip
    hold: float
    approach: float = 0.25
    layer: float = 0.0


@dataclass(frozen=True)
class Frame:
    """What the camera sees at time `t`: cards lying still (`still`, drawn first), cards in the air
    (`moving`) and hands in drawing order."""

    t: float
    still: tuple[CardPlacement, ...]
    moving: tuple[CardPlacement, ...]
    hands: tuple[HandPose, ...]

    @property
    def cards(self) -> tuple[CardPlacement, ...]:
        return self.still + self.moving


@dataclass
class _Card:
    code: str
    face_up: bool
    pose: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    shade: float = 0.0


@dataclass
class _Motion:
    card: _Card
    hand: tuple[str, str] | None
    t0: float
    t1: float
    p0: tuple[float, float, float, float]
    p1: tuple[float, float, float, float]
    dest: str
    player: str
    face0: bool
    face1: bool
    z: int
    zone: str | None = None
    """The pile the card stays on while it moves (a card turned over in place), else None."""
    flip_at: float = 0.0
    """When a card turned over on the way shows its other side (it stands on its edge)."""

    def _progress(self, t: float) -> float:
        return _ease((t - self.t0) / max(self.t1 - self.t0, 1e-6))

    def tilt(self, t: float) -> float:
        """How far the card is turned over (degrees): 180 shows its other side; a card turned face
        up on the way stands on its edge (90) half-way through the move."""
        if self.face0 == self.face1:
            return 0.0
        e = self._progress(t)
        showing = t >= self.flip_at
        tilt = 180.0 * (1.0 - e) if self.face1 else 180.0 * e
        return min(tilt, 89.9) if showing == self.face1 else max(tilt, 90.1)

    def pose(self, t: float) -> tuple[float, float, float, float]:
        e = self._progress(t)
        (x0, y0, a0, h0), (x1, y1, a1, h1) = self.p0, self.p1
        turn = (a1 - a0 + 180.0) % 360.0 - 180.0
        h = h0 + (h1 - h0) * e + _arc(x0, y0, x1, y1) * math.sin(math.pi * e)
        h = max(h, CARD_H_CM / 2 * abs(math.sin(math.radians(self.tilt(t)))) + 0.2 * math.sin(math.pi * e))
        return x0 + (x1 - x0) * e, y0 + (y1 - y0) * e, a0 + turn * e, h

    def placement(self, t: float) -> CardPlacement:
        x, y, a, h = self.pose(t)
        xb, yb, _, _ = self.pose(t - EXPOSURE_S / 2)
        xf, yf, _, _ = self.pose(t + EXPOSURE_S / 2)
        turning = self.face0 != self.face1
        code = self.card.code if turning or self.face0 else BACK
        return CardPlacement(code, x, y, a, self.z, h, self.zone, lift=max(h, 0.04), shade=self.card.shade,
                             motion_cm=math.hypot(xf - xb, yf - yb),
                             motion_angle=math.degrees(math.atan2(xf - xb, yf - yb)), tilt=self.tilt(t))


def _stack_name(player: str) -> str:
    """The internal name of a player's face-down spit cards (not a zone of the table)."""
    return f"_{player}"


def _owner(pile: str, player: str) -> str:
    """Whose way round a card lies on a pile: a player's own stock or spit cards lie their way,
    a spit pile's card the way of the player who put it there."""
    if pile.startswith("_"):
        return pile[1]
    return pile[0] if pile[0] in PLAYERS and len(pile) > 1 else player


class _Table:
    """The cards on the table while the timeline is swept forwards; piles bottom to top."""

    def __init__(self, geometry: TableGeometry, seed: int) -> None:
        self.geometry = geometry
        self.seed = seed
        self.deal = 0
        self.piles: dict[str, list[_Card]] = {}
        self.motions: dict[int, _Motion] = {}
        self._still: tuple[CardPlacement, ...] | None = None
        self._rank: dict[str, int] = {}

    def _rng(self, *parts: str) -> np.random.Generator:
        return np.random.default_rng([self.seed, self.deal, *(zlib.crc32(p.encode()) for p in parts)])

    def centre(self, pile: str) -> tuple[float, float]:
        if pile.startswith("~"):
            return self.geometry.packet(pile[1])
        return self.geometry.stack(pile[1]) if pile.startswith("_") else self.geometry.pile(pile)

    def rest_pose(self, pile: str, code: str, player: str, index: int) -> tuple[float, float, float, float]:
        """Where a card comes to lie on a pile: spit piles messy, stock piles neat with a lean that
        shows their depth, spit cards sideways; the same card on the same pile lies the same way."""
        x, y = self.centre(pile)
        owner = _owner(pile, player)
        rng = self._rng(pile, code, owner)
        h = index * CARD_THICKNESS_CM
        if pile in SPIT_OWNER or not (pile.startswith("_") or pile[0] in PLAYERS):
            dx, dy = rng.normal(0, 0.5, 2)
            return x + float(dx), y + float(dy), PLAYER_ANGLE[owner] + float(rng.normal(0, 9)), h
        lean = self._rng(pile, "lean").normal(0, 0.07, 2) + (0.0, 0.05)
        dx, dy = lean * index + rng.normal(0, 0.05, 2)
        turn = 90.0 if pile.startswith("_") else 0.0
        return x + float(dx), y + float(dy), PLAYER_ANGLE[owner] + turn + float(rng.normal(0, 1.5)), h

    def put(self, pile: str, card: _Card, player: str) -> None:
        stack = self.piles.setdefault(pile, [])
        card.pose = self.rest_pose(pile, card.code, player, len(stack))
        stack.append(card)
        self._still = None

    def take(self, pile: str, code: str | None) -> _Card:
        """The card `code` (searched from the top), else the top card, else a new face-down card."""
        stack = self.piles.get(pile, [])
        for k in range(len(stack) - 1, -1, -1):
            if code is None or stack[k].code == code:
                self._still = None
                return stack.pop(k)
        if stack:
            self._still = None
            return stack.pop()
        return self._card(code or BACK, False)

    # the effects, applied in time order ------------------------------------------------------------

    def begin_deal(self, deal: int) -> None:
        """The table is cleared for deal number `deal` (its cards are about to be dealt)."""
        self.deal = deal
        self.piles = {}
        self.motions = {}
        self._still = None

    def reset(self, fields: Mapping[str, Any], deal: int) -> None:
        """Deal number `deal` lies on the table: the stock piles (only each top face up), spit piles
        and face-down spit cards, each card where it was dealt."""
        self.deal = deal
        self.piles = {}
        self.motions = {}
        self._still = None
        stock: Mapping[str, Sequence[str]] = fields.get("stock", {})
        for name, codes in stock.items():
            for k, code in enumerate(codes):
                self.put(name, self._card(code, k == len(codes) - 1), name[0])
        for name, codes in fields.get("piles", {}).items():
            for code in codes:
                self.put(name, self._card(code, True), SPIT_OWNER.get(name, "A"))
        for player, codes in _spit_cards(fields).items():
            for code in reversed(codes):
                self.put(_stack_name(player), self._card(code, False), player)

    def _card(self, code: str, face_up: bool) -> _Card:
        return _Card(code, face_up, shade=float(np.clip(self._rng("shade", code).normal(0, 0.05), -0.12, 0.12)))

    def lift(self, mid: int, src: str, code: str | None, dest: str, player: str, hand: tuple[str, str] | None,
             t0: float, t1: float, face0: bool, face1: bool, shown: str | None, flip_at: float) -> None:
        card = self.take(src, code or shown)
        if shown is not None:
            card.code = shown
        index = len(self.piles.get(dest, [])) + sum(m.dest == dest for m in self.motions.values())
        p1 = self.rest_pose(dest, card.code, player, index)
        x, y, a, h = card.pose if card.pose != (0.0, 0.0, 0.0, 0.0) else (*self.centre(src), PLAYER_ANGLE[player], 2.0)
        self.motions[mid] = _Motion(card, hand, t0, t1, (x, y, a, h), p1, dest, player, face0, face1, 10_000_000 + mid,
                                    dest if src == dest and not dest.startswith("_") else None, flip_at)

    def land(self, mid: int) -> None:
        motion = self.motions.pop(mid, None)
        if motion is not None:
            motion.card.face_up = motion.face1
            self.put(motion.dest, motion.card, motion.player)

    def clear(self, pile: str) -> None:
        if self.piles.pop(pile, None):
            self._still = None

    def still(self) -> tuple[CardPlacement, ...]:
        """Every card lying on a pile (cached until the table changes)."""
        if self._still is None:
            cards = []
            for name in sorted(self.piles):
                zone = None if name.startswith("_") else name
                base = 1000 * self._rank.setdefault(name, len(self._rank))  # a pile's cards keep their z
                for k, card in enumerate(self.piles[name]):
                    x, y, a, h = card.pose
                    cards.append(CardPlacement(card.code if card.face_up else BACK, x, y, a, base + k, h, zone,
                                               shade=card.shade))
            self._still = tuple(cards)
        return self._still


def _spit_cards(fields: Mapping[str, Any]) -> dict[str, list[str]]:
    """Each player's face-down cards beside the stock: the spit cards, else (four-card layout) the
    rest of the packet under the layout."""
    if "spit_cards" in fields:
        return {p: list(c) for p, c in fields["spit_cards"].items()}
    stock = fields.get("stock", {})
    out = {}
    for player, packet in fields.get("packets", {}).items():
        laid = [c for name, codes in stock.items() if name.startswith(player) for c in codes]
        rest = list(packet)
        for code in laid:
            if code in rest:
                rest.remove(code)
        out[player] = rest
    return out


@dataclass
class _Track:
    """One hand's keyframes in time order (after `seal`), and where it waits between them."""

    rest: Grip
    keys: list[Key] = field(default_factory=list)
    _times: list[float] = field(default_factory=list)

    def grip(self, t: float) -> tuple[Grip, float]:
        """Where the hand is at `t`, and its layer."""
        i = bisect.bisect_right(self._times, t) - 1
        nxt = self.keys[i + 1] if i + 1 < len(self.keys) else None
        if i < 0:
            prev, end, layer = self.rest, -math.inf, 0.0
        else:
            key = self.keys[i]
            end = min(key.hold, nxt.t) if nxt is not None else key.hold
            if t <= end:
                return key.grip, key.layer
            prev, layer = key.grip, key.layer
        if nxt is not None and nxt.t - end <= nxt.approach + _WITHDRAW_S + 0.2:  # straight on to the next place
            arc = _arc(prev.x, prev.y, nxt.grip.x, nxt.grip.y)
            return prev.towards(nxt.grip, (t - end) / max(nxt.t - end, 1e-6), arc), nxt.layer
        if t - end < _WITHDRAW_S:
            return prev.towards(self.rest, (t - end) / _WITHDRAW_S, 1.0), layer
        if nxt is not None and t > nxt.t - nxt.approach:
            s = (t - (nxt.t - nxt.approach)) / nxt.approach
            return self.rest.towards(nxt.grip, s, _arc(self.rest.x, self.rest.y, nxt.grip.x, nxt.grip.y)), nxt.layer
        return self.rest, 0.0

    def seal(self) -> None:
        self.keys.sort(key=lambda k: k.t)
        self._times = [k.t for k in self.keys]


@dataclass(frozen=True)
class Look:
    """How the players look: skin and sleeve colours per player."""

    skin: Mapping[str, tuple[int, int, int]]
    sleeve: Mapping[str, tuple[int, int, int] | None]

    @staticmethod
    def of_seed(seed: int) -> "Look":
        rng = np.random.default_rng([seed, 71])
        tones = rng.choice(len(SKIN_TONES), 2, replace=False)
        sleeves = ((40, 60, 120), (120, 30, 35), (60, 90, 60), (200, 200, 205), (30, 30, 35), (90, 70, 50))
        picks = rng.choice(len(sleeves), 2, replace=False)
        return Look({p: SKIN_TONES[int(t)] for p, t in zip(PLAYERS, tones)},
                    {p: sleeves[int(s)] if rng.random() < 0.8 else None for p, s in zip(PLAYERS, picks)})


class Timeline:
    """The motion of one game; `at(t)` for non-decreasing `t` (an earlier `t` replays from the start)."""

    def __init__(self, events: Sequence[Event], geometry: TableGeometry, seed: int) -> None:
        check_drawable(events)
        self.events = tuple(events)
        self.geometry = geometry
        self.seed = seed
        self.look = Look.of_seed(seed)
        self.end = max(e.t for e in self.events)
        self._effects: list[tuple[float, int, Callable[..., None], tuple[Any, ...]]] = []
        self._tracks: dict[tuple[str, str], _Track] = {}
        self._table = _Table(geometry, seed)
        self._dealt = 0.0
        for player in PLAYERS:
            self._track((player, "right"))
        self._build()
        self._effects.sort(key=lambda e: (e[0], e[1]))
        for track in self._tracks.values():
            track.seal()
        self._next = 0
        self._now = -math.inf

    # building ------------------------------------------------------------------------------------

    def _track(self, key: tuple[str, str]) -> _Track:
        if key not in self._tracks:
            rest = self.geometry.seat(*key).rest
            self._tracks[key] = _Track(replace(REST, x=rest[0], y=rest[1]))
        return self._tracks[key]

    def _effect(self, t: float, action: Callable[..., None], *args: Any) -> None:
        """At `t`, `action(table, *args)` (a method of `_Table`)."""
        self._effects.append((t, len(self._effects), action, args))

    def _key(self, hand: tuple[str, str], t: float, place: tuple[float, float], style: Grip, hold: float,
             approach: float = 0.25, h: float = 0.1, layer: float = 0.0) -> None:
        grip = replace(style, x=place[0], y=place[1], h=h if style is not SLAP else 0.0)
        self._track(hand).keys.append(Key(t, grip, max(hold, t), approach, layer))

    def _move(self, hand: tuple[str, str], player: str, src: str, code: str | None, dest: str, t0: float, t1: float,
              face0: bool = True, face1: bool = True, shown: str | None = None, hold: float = 0.08,
              flip_at: float | None = None) -> None:
        """A hand picks a card from `src` at `t0` (not before the deal's layout) and lays it on `dest` at `t1`;
        a card turned over on the way shows its other side from `flip_at` (default half-way)."""
        t0 = min(max(t0, self._dealt), t1)
        mid = len(self._effects)
        table = self._table
        flip = (t0 + t1) / 2 if flip_at is None else flip_at
        self._effect(t0, _Table.lift, mid, src, code, dest, player, hand, t0, t1, face0, face1, shown, flip)
        self._effect(t1, _Table.land, mid)
        approach = min(0.4, max(0.12, (t1 - t0) / 3))
        self._key(hand, t0, table.centre(src), CARRY, t0, approach)
        self._key(hand, t1, table.centre(dest), CARRY, t1 + hold)

    def _build(self) -> None:
        table = self._table
        settled = 0.0
        deal = 0
        for event in self.events:
            f, t = event.fields, event.t
            player = f.get("player", "A")
            hand = (player, f.get("hand", "right"))
            if event.type == "layout":
                deal += 1
                if t > 0:
                    dealing = min(_DEAL_S, max(0.5, (t - settled) / 2))
                    self._gather(max(t - dealing - _GATHER_S, settled + 0.5), t - dealing)
                    self._effect(t - dealing, _Table.begin_deal, deal)
                    self._deal(f, t - dealing, t)
                self._dealt = t
                self._effect(t, _Table.reset, f, deal)
            elif event.type in ("play", "move_to_space", "stack_equal"):
                self._move(hand, player, f["from"], f["card"], f["to"], f.get("start", t - 0.35), t)
            elif event.type == "illegal_play":
                start, back = f.get("start", t - 0.35), f.get("back", t + 0.5)
                src = f.get("from", _stack_name(player))
                if "pickup" in f:  # the card is let go, the hand goes back towards its stock, then returns for it
                    pickup = float(f["pickup"])
                    self._move(hand, player, src, f["card"], f["to"], start, t)
                    away = (t + pickup) / 2
                    self._key(hand, away, table.centre(src), TOUCH, away)
                else:  # an older log: the card is taken back at once
                    pickup = t + min(0.15, (back - t) / 2)
                    self._move(hand, player, src, f["card"], f["to"], start, t, hold=pickup - t)
                self._move(hand, player, f["to"], f["card"], src, pickup, back)
            elif event.type == "turn_up":  # the hand touches the card at `t` and turns it over in place
                self._move(hand, player, f["pile"], None, f["pile"], t, t + 2 * _TURN_S, face0=False,
                           shown=f["card"], flip_at=t + _TURN_S)
            elif event.type == "refill":
                self._move(hand, player, _stack_name(player), None, f["pile"], f.get("start", t - 0.35), t,
                           face0=False, shown=f["card"])
            elif event.type == "spit":
                owners = f.get("players") or _spit_owners(f["cards"], f.get("contact", {}))
                for pile, code in f["cards"].items():
                    who = owners.get(pile, SPIT_OWNER.get(pile, "A"))
                    touch = float(f.get("contact", {}).get(who, t))
                    self._move((who, "right"), who, _stack_name(who), None, pile, touch - _SPIT_REACH_S, touch,
                               face0=False, shown=code)
            elif event.type == "premature_spit":
                pile, stack, code = f.get("to", "L" if player == "A" else "R"), _stack_name(player), f.get("card")
                if "pickup" in f:  # as an illegal play: the card is let go, the hand goes back, then returns for it
                    pickup, back = float(f["pickup"]), float(f["back"])
                    self._move(hand, player, stack, code, pile, float(f["start"]), t, face0=False)
                    away = (t + pickup) / 2
                    self._key(hand, away, table.centre(stack), TOUCH, away)
                else:  # an older log: the card is taken back at once
                    pickup, back = t + 0.15, t + 0.55
                    self._move(hand, player, stack, code, pile, t - 0.35, t, face0=False, hold=0.15)
                self._move(hand, player, pile, code, stack, pickup, back, face1=False)
            elif event.type == "slap":
                contact: Mapping[str, float] = f["contact"]
                piles = f.get("piles") or {p: f["pile"] for p in contact}
                last = max(contact.values())
                settled = last + _SETTLE_HOLD_S
                for who, touch in contact.items():
                    self._key((who, "right"), touch, table.centre(piles[who]), SLAP, settled, layer=touch)
                for pile in set(piles.values()):
                    self._effect(settled, _Table.clear, pile)
            elif event.type == "choose_pile":
                settled = t + 0.3
                self._key(hand, t, table.centre(f["pile"]), TOUCH, settled)
                self._effect(settled, _Table.clear, f["pile"])

    def _gather(self, begin: float, end: float) -> None:
        """Before a new deal each player picks up the spit piles' rest, their stock piles and spit cards."""
        begin = min(begin, end - 0.3)
        for pile in SPIT_OWNER:
            self._effect(begin, _Table.clear, pile)
        names = sorted({n for n in self._stock_names()})
        for player in PLAYERS:
            places = [n for n in names if n[0] == player] + [_stack_name(player)]
            step = min(_GATHER_STEP_S, max(0.03, (end - begin - 0.2) / len(places)))
            for k, pile in enumerate(places):
                t = begin + k * step
                self._key((player, "right"), t, self._table.centre(pile), TOUCH, t + step * 0.5, approach=0.3)
                self._effect(t + step * 0.4, _Table.clear, pile)

    def _deal(self, fields: Mapping[str, Any], begin: float, end: float) -> None:
        """Each player deals their stock piles row by row from the packet in their hand, the top of
        each pile turned face up on the way; the last card lands at `end`, the layout's time."""
        stock: Mapping[str, Sequence[str]] = fields.get("stock", {})
        for player in PLAYERS:
            names = sorted((n for n in stock if n[0] == player), key=lambda n: int(n[1:]))
            order = [(n, codes[r], r == len(codes) - 1) for r in range(max((len(stock[n]) for n in names), default=0))
                     for n in names for codes in (stock[n],) if r < len(codes)]
            if not order:
                continue
            step = (end - begin) / len(order)
            for k, (pile, code, top) in enumerate(order):
                land = end if k == len(order) - 1 else begin + (k + 1) * step
                self._move((player, "right"), player, f"~{player}", None, pile, land - 0.55 * step, land,
                           face0=False, face1=top, shown=code, hold=0.0)

    def _stock_names(self) -> set[str]:
        return {name for e in self.events if e.type == "layout" for name in e.fields.get("stock", {})}

    # sweeping ------------------------------------------------------------------------------------

    def at(self, t: float) -> Frame:
        """The table at time `t` (s from the start of the game)."""
        if t < self._now:
            self._table = _Table(self.geometry, self.seed)
            self._next = 0
        self._now = t
        while self._next < len(self._effects) and self._effects[self._next][0] <= t:
            _, _, action, args = self._effects[self._next]
            action(self._table, *args)
            self._next += 1
        table = self._table
        moving = tuple(m.placement(t) for m in sorted(table.motions.values(), key=lambda m: m.z))
        hands = sorted((self._hand(key, t) for key in self._tracks), key=lambda h: h[0])
        return Frame(t, table.still(), moving, tuple(h for _, h in hands))

    def _hand(self, key: tuple[str, str], t: float) -> tuple[float, HandPose]:
        track = self._tracks[key]
        grip, layer = self._grip(track, key, t)
        before, _ = self._grip(track, key, t - EXPOSURE_S / 2)
        after, _ = self._grip(track, key, t + EXPOSURE_S / 2)
        player, hand = key
        angle = self.geometry.hand_angle(player, hand, grip.x, grip.y)
        a = math.radians(angle)
        return layer, HandPose(
            player, grip.x - grip.offset * math.sin(a), grip.y - grip.offset * math.cos(a), angle, grip.h + grip.palm,
            self.look.skin[player], self.look.sleeve[player], spread=grip.spread, curl=grip.curl,
            right=hand == "right", motion_cm=math.hypot(after.x - before.x, after.y - before.y),
            motion_angle=math.degrees(math.atan2(after.x - before.x, after.y - before.y)))

    def _grip(self, track: _Track, key: tuple[str, str], t: float) -> tuple[Grip, float]:
        for motion in self._table.motions.values():
            if motion.hand == key and motion.t0 <= t < motion.t1:
                x, y, _, h = motion.pose(t)
                return replace(CARRY, x=x, y=y, h=h), 0.0
        return track.grip(t)


def _spit_owners(cards: Mapping[str, str], contact: Mapping[str, float]) -> dict[str, str]:
    """Who turned the card onto each spit pile: the one spitter when only one card was turned."""
    if len(cards) == 1 and len(contact) == 1:
        return {next(iter(cards)): next(iter(contact))}
    return {pile: SPIT_OWNER[pile] for pile in cards if pile in SPIT_OWNER}


def check_drawable(events: Sequence[Event]) -> None:
    """Refuse a log this renderer cannot draw: not starting with a layout, more than two players,
    piles other than L and R in the middle, or motions of other games (draws, hand plays)."""
    if not events or events[0].type != "layout":
        raise RenderError("a game log starts with its layout event (write one with `referee simulate --log`)")
    players = set(events[0].fields.get("counts", {}))
    if not players <= set(PLAYERS):
        raise RenderError(f"render-game draws two-player Spit; this log has players {', '.join(sorted(players))}")
    unknown = sorted({e.type for e in events} - DRAWN - SILENT)
    if unknown:
        raise RenderError(f"render-game cannot draw {', '.join(unknown)} events (five-card-hand, full-deck and "
                          "Speahx games are not drawn)")
    middle = {p for e in events if e.type == "layout" for p in e.fields.get("piles", {})}
    if not middle <= set(SPIT_OWNER):
        raise RenderError(f"render-game draws the spit piles L and R; this log has {', '.join(sorted(middle))}")
