"""A perfect camera with realistic faults: a simulator's ground-truth log turned into the observation stream a camera would give.

Cards lie where the log puts them; hands travel between a player's edge of the table and the
zones, hiding what they pass over; a card appears when the hand that laid it moves away, a
misplayed card lies on the pile until its player takes it back. `Faults` then spoils the
readings: one-frame misreads, low-confidence readings, flicker, occlusion bursts, dropped
frames, confidence noise and missed contacts. Every choice comes from `CameraConfig.seed`.

>>> import random
>>> from referee.simulate import simulate_game
>>> game = simulate_game("classic", random.Random(5))
>>> frames = list(observe_log(game.events, "classic"))
>>> frames[0].zones["A1"].seen == game.events[0]["stock"]["A1"][-1], frames[1].t
(True, 0.033333)
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from referee.cards import ALL_CARDS, FACE_DOWN
from referee.events import Event
from referee.judge.spit.config import UnsupportedRules, spit_rules
from referee.observations import EMPTY, OCCLUDED, HandSeen, Observation, StreamHeader, ZoneReading
from referee.rules.spit import SpitRules

Point = tuple[float, float]
HAND_RADIUS: Final = 0.45
"""A hand hides every zone whose centre is this close (zones lie one unit apart)."""
_CODES: Final = tuple(c.code for c in ALL_CARDS)


@dataclass(frozen=True)
class Faults:
    """Reading faults, each a chance per zone and frame (`dropped` per frame, `contact_miss` per
    hand contact and frame); `confidence_noise` is the spread of the confidence of good readings."""

    misread: float = 0.0
    low_confidence: float = 0.0
    flicker: float = 0.0
    occlusion_burst: float = 0.0
    dropped: float = 0.0
    confidence_noise: float = 0.0
    contact_miss: float = 0.0

    def __post_init__(self) -> None:
        for name in ("misread", "low_confidence", "flicker", "occlusion_burst", "dropped", "contact_miss"):
            value = getattr(self, name)
            if not 0.0 <= value < 1.0:
                raise ValueError(f"{name} is a chance in [0, 1), not {value!r}")
        if not 0.0 <= self.confidence_noise <= 0.5:
            raise ValueError("confidence_noise must lie in 0..0.5")

    @classmethod
    def realistic(cls) -> "Faults":
        """Faults of a good detector at a real table (rates per zone and frame)."""
        return cls(misread=0.004, low_confidence=0.01, flicker=0.003, occlusion_burst=0.001,
                   dropped=0.01, confidence_noise=0.03, contact_miss=0.05)

    @classmethod
    def harsh(cls) -> "Faults":
        """About five times the realistic rates."""
        return cls(misread=0.02, low_confidence=0.05, flicker=0.015, occlusion_burst=0.005,
                   dropped=0.05, confidence_noise=0.06, contact_miss=0.25)


@dataclass(frozen=True)
class CameraConfig:
    """Frame rate, faults, how long a hand rests on a card it lays (`dwell_s`), and the seed."""

    fps: float = 30.0
    faults: Faults = field(default_factory=Faults)
    dwell_s: float = 0.1
    seed: int = 0

    def __post_init__(self) -> None:
        if not self.fps > 0 or not 0.0 < self.dwell_s < 1.0:
            raise ValueError("fps must be positive and dwell_s within (0, 1) s")


@dataclass(frozen=True, slots=True)
class _Segment:
    side: str
    t0: float
    t1: float
    p0: Point
    p1: Point
    contact: str | None = None

    def at(self, t: float) -> Point:
        if self.t1 <= self.t0:
            return self.p1
        u = min(1.0, max(0.0, (t - self.t0) / (self.t1 - self.t0)))
        return (self.p0[0] + u * (self.p1[0] - self.p0[0]), self.p0[1] + u * (self.p1[1] - self.p0[1]))


class _Table:
    """Zone positions, the players' edges, and the hands' paths of one game."""

    def __init__(self, rules: SpitRules, dwell: float) -> None:
        n = rules.places
        mid = (n - 1) / 2
        self.pos: dict[str, Point] = {}
        a, b = rules.stock_names
        for k in range(n):
            self.pos[a[k]] = (float(k), 2.0)
            self.pos[b[k]] = (float(n - 1 - k), 0.0)
        left, right = rules.spit_pile_names
        self.pos[left] = (mid - 0.5, 1.0)
        self.pos[right] = (mid + 0.5, 1.0)
        self.rest = {rules.player_names[0]: (mid, 3.0), rules.player_names[1]: (mid, -1.0)}
        self.dwell = dwell
        self.segments: list[_Segment] = []

    def path(self, side: str, t0: float, t1: float, p0: Point, p1: Point, contact: str | None = None) -> None:
        """The hand of `side` moves from `p0` to `p1` over `[t0, t1)`, touching `contact` if given."""
        if t1 > t0:
            self.segments.append(_Segment(side, t0, t1, p0, p1, contact))

    def lay(self, side: str, source: str | None, start: float, target: str, touch: float, *, leave: bool = True) -> float:
        """A hand picks a card at `source` (None: from the hand) at `start` and lays it on `target`
        at `touch`; it rests there `dwell` (touching) and, with `leave`, goes back to its edge.
        Returns when it leaves the target."""
        rest, dst = self.rest[side], self.pos[target]
        if source is None or start >= touch:
            self.path(side, touch - 0.2, touch, rest, dst)
        else:
            src = self.pos[source]
            self.path(side, start - 0.15, start - 0.04, rest, src)
            self.path(side, start - 0.04, start, src, src, source)
            self.path(side, start, touch, src, dst)
        off = touch + self.dwell
        self.path(side, touch, off, dst, dst, target)
        if leave:
            self.path(side, off, off + 0.2, dst, rest)
        return off

    def take_back(self, side: str, target: str, off: float, back: float, source: str | None,
                  pickup: float | None = None) -> float:
        """After a card laid on `target` (the hand leaving it at `off`), its player takes it back
        to `source` by `back`, lifting it at `pickup` (default 0.1 s before `back`); returns the
        moment it leaves `target`."""
        rest, dst = self.rest[side], self.pos[target]
        lift = back - 0.1 if pickup is None else min(pickup, back)
        if lift - off >= 0.2:
            mid = (dst[0] + 0.6 * (rest[0] - dst[0]), dst[1] + 0.6 * (rest[1] - dst[1]))
            self.path(side, off, off + 0.06, dst, mid)
            self.path(side, off + 0.06, lift - 0.1, mid, mid)
            self.path(side, lift - 0.1, lift - 0.04, mid, dst)
            self.path(side, lift - 0.04, lift, dst, dst, target)
        else:
            lift = max(off, lift)
            self.path(side, off, lift, dst, dst, target)
        end = self.pos[source] if source is not None else rest
        self.path(side, lift, back, dst, end)
        if source is not None:
            self.path(side, back, back + 0.05, end, end, source)
        self.path(side, back + 0.05, back + 0.25, end, rest)
        return lift

    def visit(self, side: str, zone: str, t: float, contact: bool) -> None:
        """A hand over `zone` around `t` (gathering or dealing cards)."""
        p = self.pos[zone]
        self.path(side, t - 0.05, t + 0.08, p, p, zone if contact else None)


def _top(stack: list[tuple[str, bool]]) -> str:
    if not stack:
        return EMPTY
    code, up = stack[-1]
    return code if up else FACE_DOWN


def _render(rules: SpitRules, events: Sequence[Event], table: _Table) -> tuple[dict[str, list[tuple[float, str]]], float]:
    """Every zone's visible state over time, `(from t, shows)` in order, and the stream's end;
    fills `table.segments` with the hands' paths."""
    ops: list[tuple[float, int, str, str, Any]] = []

    def op(t: float, zone: str, kind: str, arg: Any = None) -> None:
        ops.append((t, len(ops), zone, kind, arg))

    players = rules.player_names
    own_pile = dict(zip(players, rules.spit_pile_names))
    starter = dict(zip(rules.spit_pile_names, players))
    stock_zones = [z for names in rules.stock_names for z in names]
    spit: dict[str, list[str]] = {p: [] for p in players}
    end = 0.0
    gathered_after: float | None = None
    for event in events:
        kind, t, f = event.type, event.t, event.fields
        end = max(end, t)
        if kind == "layout":
            if gathered_after is not None:
                g0 = gathered_after + 1.0
                for k, zone in enumerate(stock_zones):
                    at = g0 + 0.15 * (k % rules.places)
                    op(at, zone, "set", [])
                    table.visit(zone[0], zone, at, False)
                for pile in rules.spit_pile_names:
                    op(g0, pile, "set", [])
            for k, zone in enumerate(stock_zones):
                cards = list(f["stock"].get(zone, []))
                stack = [(code, i == len(cards) - 1) for i, code in enumerate(cards)]
                if gathered_after is None:
                    op(t, zone, "set", stack)
                else:
                    at = t - 0.12 * (rules.places - 1 - k % rules.places)
                    op(at, zone, "set", stack)
                    table.visit(zone[0], zone, at, True)
            for pile in rules.spit_pile_names:
                op(t, pile, "set", [(c, True) for c in f.get("piles", {}).get(pile, [])])
            spit = {p: list(f.get("spit_cards", {}).get(p, [])) for p in players}
        elif kind in ("play", "move_to_space", "stack_equal"):
            op(f["start"], f["from"], "remove", f["card"])
            op(t, f["to"], "push", f["card"])
            table.lay(f["player"], f["from"], f["start"], f["to"], t)
        elif kind == "illegal_play":
            source = f.get("from")
            start = f.get("start", t)
            if source is not None:
                op(start, source, "remove", f["card"])
            op(t, f["to"], "push", f["card"])
            off = table.lay(f["player"], source, start, f["to"], t, leave=False)
            back = max(f.get("back", t + 0.4), off + 0.05)
            lift = table.take_back(f["player"], f["to"], off, back, source, f.get("pickup"))
            op(lift, f["to"], "remove", f["card"])
            if source is not None:
                op(back, source, "push", f["card"])
        elif kind == "turn_up":
            op(t, f["pile"], "flip", f["card"])
            table.lay(f["player"], None, t, f["pile"], t)
        elif kind == "refill":
            _take(spit, f["player"], f["card"])
            op(t, f["pile"], "push", f["card"])
            table.lay(f["player"], None, f.get("start", t), f["pile"], t)
        elif kind == "spit":
            contact = f.get("contact", {})
            for pile, code in f["cards"].items():
                who = next((p for p in players if code in spit[p]), starter[pile])
                _take(spit, who, code)
                at = contact.get(who, t)
                op(at, pile, "push", code)
                table.lay(who, None, at, pile, at)
        elif kind == "premature_spit":
            who = f["player"]
            if spit.get(who):
                pile = f.get("to", own_pile[who])
                code = f.get("card", spit[who][0])
                if "back" in f:  # the card lies on the pile until its player picks it up
                    start, pickup, back = f["start"], f["pickup"], f["back"]
                else:  # an older log: taken back in time for the player's next real spit
                    later = [e["contact"].get(who, e.t) for e in events if e.type == "spit" and e.t > t]
                    start, pickup, back = t, None, min([t + 0.55] + [c - 0.15 for c in later[:1]])
                op(t, pile, "push", code)
                off = table.lay(who, None, start, pile, t, leave=False)
                lift = table.take_back(who, pile, off, max(back, off + 0.05), None, pickup)
                op(lift, pile, "remove", code)
        elif kind in ("slap", "choose_pile"):
            touches = f["contact"].items() if kind == "slap" else [(f["player"], t)]
            piles = f["piles"] if kind == "slap" else {f["player"]: f["pile"]}
            last = max(c for _, c in touches)
            for who, at in touches:
                dst = table.pos[piles[who]]
                table.path(who, at - 0.25, at, table.rest[who], dst)
                table.path(who, at, last + 0.35, dst, dst, piles[who])
                table.path(who, last + 0.35, last + 0.6, dst, table.rest[who])
                op(last + 0.35, piles[who], "set", [])
            gathered_after = last + 0.35
        elif kind == "deal_end":
            gathered_after = t if gathered_after is None or gathered_after < t else gathered_after
        elif kind == "game_end":
            end = t + 1.0
            break
        elif kind not in ("race", "spit_call"):
            raise UnsupportedRules(f"the camera does not render {kind!r} events")
    ops.sort(key=lambda o: (o[0], o[1]))
    stacks: dict[str, list[tuple[str, bool]]] = {}
    timeline: dict[str, list[tuple[float, str]]] = {}
    for t, _, zone, kind, arg in ops:
        stack = stacks.setdefault(zone, [])
        if kind == "set":
            stack[:] = arg
        elif kind == "push":
            stack.append((arg, True))
        elif kind == "remove":
            for i in range(len(stack) - 1, -1, -1):
                if stack[i][0] == arg:
                    del stack[i]
                    break
        elif kind == "flip" and stack:
            stack[-1] = (arg, True)
        timeline.setdefault(zone, []).append((t, _top(stack)))
    return timeline, end


def _take(spit: dict[str, list[str]], player: str | None, code: str) -> None:
    if player is not None and code in spit.get(player, []):
        spit[player].remove(code)


def observe_log(events: Iterable[Event], rules: str | SpitRules = "classic",
                config: CameraConfig = CameraConfig()) -> Iterator[Observation]:
    """The observations, frame by frame at `config.fps`, of a simulated game's log (which starts
    with its `layout` event); dropped frames are missing from the stream."""
    spit_rules_ = spit_rules(rules)
    table = _Table(spit_rules_, config.dwell_s)
    timeline, end = _render(spit_rules_, list(events), table)
    segments = sorted(table.segments, key=lambda s: s.t0)
    starts = [s.t0 for s in segments]
    zones = sorted(timeline)
    pos = {z: table.pos[z] for z in zones}
    rng = random.Random(config.seed)
    faults = config.faults
    fps = config.fps
    r2 = HAND_RADIUS * HAND_RADIUS
    spoiled: dict[str, tuple[int, str]] = {}
    marks = {z: [t for t, _ in timeline[z]] for z in zones}
    active: list[_Segment] = []
    touched: dict[int, float] = {}  # a contact's time: the first frame it was seen touching
    nxt = 0
    p_misread = faults.misread
    p_low = p_misread + faults.low_confidence
    p_flicker = p_low + faults.flicker
    p_burst = p_flicker + faults.occlusion_burst
    for i in range(int(end * fps) + 1):
        t = round(i / fps, 6)
        while nxt < len(segments) and starts[nxt] <= t:
            active.append(segments[nxt])
            nxt += 1
        active = [s for s in active if s.t1 > t]
        if faults.dropped and rng.random() < faults.dropped:
            continue
        hands = []
        hidden: set[str] = set()
        for seg in active:
            if seg.t0 > t:
                continue
            x, y = seg.at(t)
            over = [z for z in zones if (pos[z][0] - x) ** 2 + (pos[z][1] - y) ** 2 <= r2]
            contact = {}
            if seg.contact is not None:
                if seg.contact not in over:
                    over.append(seg.contact)
                if not (faults.contact_miss and rng.random() < faults.contact_miss):
                    contact[seg.contact] = touched.setdefault(id(seg), t)
            hidden.update(over)
            hands.append(HandSeen(seg.side, tuple(over), contact, (round(x, 3), round(y, 3))))
        readings = {}
        for z in zones:
            at = bisect.bisect_right(marks[z], t) - 1
            if at < 0:
                continue
            shows = timeline[z][at][1]
            if z in hidden:
                readings[z] = ZoneReading(OCCLUDED)
                continue
            readings[z] = _spoil(z, shows, i, rng, faults, spoiled, (p_misread, p_low, p_flicker, p_burst))
        yield Observation(t, i, readings, tuple(hands))


def _spoil(zone: str, shows: str, i: int, rng: random.Random, faults: Faults,
           spoiled: dict[str, tuple[int, str]], p: tuple[float, float, float, float]) -> ZoneReading:
    """One zone's reading with the faults of `faults` (`spoiled`: zones in a flicker or burst)."""
    held = spoiled.get(zone)
    if held is not None:
        if held[0] >= i:
            return ZoneReading(held[1], 0.9)
        del spoiled[zone]
    r = rng.random()
    if r < p[3]:
        if r < p[0]:
            wrong = rng.choice(_CODES)
            while wrong == shows:
                wrong = rng.choice(_CODES)
            return ZoneReading(wrong, round(rng.uniform(0.6, 0.95), 3))
        if r < p[1]:
            return ZoneReading(shows, round(rng.uniform(0.1, 0.55), 3))
        if r < p[2]:
            spoiled[zone] = (i + rng.randint(0, 1), rng.choice((EMPTY, FACE_DOWN, OCCLUDED)))
        else:
            spoiled[zone] = (i + rng.randint(2, 11), OCCLUDED)
        return ZoneReading(spoiled[zone][1], 0.9)
    conf = 0.97
    if faults.confidence_noise:
        conf = min(1.0, max(0.6, conf + rng.gauss(0.0, faults.confidence_noise)))
    return ZoneReading(shows, round(conf, 3))


def header(rules: SpitRules | str, config: CameraConfig, source: str = "") -> StreamHeader:
    """The stream header of `observe_log`'s output."""
    name = rules if isinstance(rules, str) else rules.name
    return StreamHeader(fps=config.fps, rules=name, source=source)
