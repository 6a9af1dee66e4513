"""The zone tracker: per-zone state over time with hysteresis, held under hands, and the touches of every hand.

A zone's settled state (a card code, `back` or `empty`) changes only once a new reading has been
seen in `settle_frames` consecutive readable frames with no hand over the zone; a reading under
a hand, an `occluded` one, one below `min_confidence` or a missing one holds the state (a hand
also drops a new state not yet settled: it is seen anew once the hand has gone). The change
keeps the capture time of the first frame the new state was seen; the touches (the first
frame of each hand's contact with, or cover of, a zone) let the referee date an event to the
moment the card touched its pile. A card read under a spit pile's top (`ZoneReading.under`) settles
the same way, with its top: the same top and card under it (or none) in `settle_frames`
consecutive readable frames with no hand over the zone, so a misread of it in one frame never
reaches the referee.

>>> from referee.observations import Observation, ZoneReading
>>> tracker = Tracker(TrackerConfig(settle_frames=2))
>>> frames = ["7C", "7C", "9H", "7C", "8D", "8D", "8D"]  # a one-frame misread, then a new card
>>> for i, seen in enumerate(frames):
...     snap = tracker.update(Observation(i / 30, i, {"L": ZoneReading(seen)}))
...     for change in snap.changes:
...         print(i, change.before, "->", change.after, "first seen in frame", change.seen_frame)
1 None -> 7C first seen in frame 0
5 7C -> 8D first seen in frame 4
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final

from referee.errors import RefereeError
from referee.observations import OCCLUDED, HandSeen, Observation

HOLD: Final = frozenset({OCCLUDED})


class BadTrackerConfig(RefereeError, ValueError):
    """Tracker settings that make no sense."""


@dataclass(frozen=True, slots=True)
class TrackerConfig:
    """`settle_frames`: consecutive readable frames a new zone state needs (k); `min_confidence`:
    readings below it are ignored; `touch_gap_frames`: a hand missing from a zone this many frames
    still makes the same touch."""

    settle_frames: int = 3
    min_confidence: float = 0.6
    touch_gap_frames: int = 2

    def __post_init__(self) -> None:
        if isinstance(self.settle_frames, bool) or not isinstance(self.settle_frames, int) or self.settle_frames < 1:
            raise BadTrackerConfig(f"settle_frames must be a whole number >= 1, not {self.settle_frames!r}")
        if not 0.0 <= self.min_confidence <= 1.0:
            raise BadTrackerConfig(f"min_confidence must lie in 0..1, not {self.min_confidence!r}")
        if isinstance(self.touch_gap_frames, bool) or not isinstance(self.touch_gap_frames, int) or self.touch_gap_frames < 0:
            raise BadTrackerConfig(f"touch_gap_frames must be a whole number >= 0, not {self.touch_gap_frames!r}")


@dataclass(frozen=True, slots=True)
class ZoneChange:
    """A zone's settled state changed from `before` (None: never settled) to `after` (a card
    code, `back` or `empty`); `seen_t`/`seen_frame`: the first frame the new state was seen;
    `confidence`: the lowest confidence of the settling frames."""

    zone: str
    before: str | None
    after: str
    seen_t: float
    seen_frame: int
    confidence: float


@dataclass(frozen=True, slots=True)
class Touch:
    """A hand of `side` began touching (`contact`) or covering a zone at capture time `t`; `under`:
    the sides whose hands lay over it there when its contact was first seen."""

    zone: str
    side: str
    t: float
    frame: int
    contact: bool
    under: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The tracked table after one frame: the settled state of every zone settled so far, the
    zones `unsettled` now (under a hand, unreadable, or showing a new state not yet settled),
    what changed in this frame (settled changes and new touches), the zones seen before that
    this frame left `unread` (a reader leaves out a zone that changed and is not read yet), and
    what this frame `read` in the zones with no hand over them (settled or not), `under`:
    per zone, the card settled under its settled top (read under that top in `settle_frames`
    consecutive readable frames; zones with none left out), `redated`: contacts of a touch
    under way found again with a later start (lost for at most `touch_gap_frames`: the hand that
    came to rest moved on and came to rest again), each with that later start, and `hands`: the
    hands seen in this frame as observed (where they rest now, which lies beneath another arm)."""

    t: float
    frame: int
    zones: Mapping[str, str]
    unsettled: frozenset[str]
    changes: tuple[ZoneChange, ...] = ()
    touches: tuple[Touch, ...] = ()
    unread: frozenset[str] = frozenset()
    read: Mapping[str, str] = field(default_factory=dict)
    under: Mapping[str, str] = field(default_factory=dict)
    redated: tuple[Touch, ...] = ()
    hands: tuple[HandSeen, ...] = ()


@dataclass(slots=True)
class _Zone:
    stable: str | None = None
    candidate: str | None = None
    count: int = 0
    first_t: float = 0.0
    first_frame: int = 0
    low: float = 1.0
    pair: tuple[str, str | None] | None = None
    """The top and the card under it read in the last readable frames (`pair_count` of them in a row)."""
    pair_count: int = 0
    under: tuple[str, str] | None = None
    """The settled card under a top: (top, card under it)."""


@dataclass(slots=True)
class Tracker:
    """Feeds on observations in capture order (`update`), gives a `Snapshot` per frame."""

    config: TrackerConfig = field(default_factory=TrackerConfig)
    _zones: dict[str, _Zone] = field(default_factory=dict)
    _stable: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    _touching: dict[tuple[str, str, bool], int] = field(default_factory=dict)
    _contact_start: dict[tuple[str, str], float] = field(default_factory=dict)
    _under: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def update(self, obs: Observation) -> Snapshot:
        """Track one frame; frames must come in capture order (dropped frames may be missing)."""
        cfg = self.config
        k = cfg.settle_frames
        floor = cfg.min_confidence
        covered: set[str] = set()
        touches: list[Touch] = []
        redated: list[Touch] = []
        frame = obs.frame
        gap = cfg.touch_gap_frames + 1
        touching = self._touching
        for hand in obs.hands:
            side = hand.side
            contact = hand.contact
            for zone in hand.over:
                covered.add(zone)
                for is_contact in (False, True) if zone in contact else (False,):
                    key = (zone, side, is_contact)
                    last = touching.get(key)
                    if last is None or frame - last > gap:
                        when = contact[zone] if is_contact else obs.t
                        touches.append(Touch(zone, side, when, frame, is_contact, hand.under if is_contact else ()))
                        if is_contact:
                            self._contact_start[zone, side] = when
                    elif is_contact and contact[zone] > self._contact_start.get((zone, side), math.inf):
                        self._contact_start[zone, side] = contact[zone]
                        redated.append(Touch(zone, side, contact[zone], frame, True, hand.under))
                    touching[key] = frame
        changes: list[ZoneChange] = []
        read: dict[str, str] = {}
        zones = self._zones
        for name, reading in obs.zones.items():
            seen = reading.seen
            z = zones.get(name)
            if z is None:
                z = zones[name] = _Zone()
            if name in covered or seen in HOLD or reading.confidence < floor:
                z.count = 0
                z.pair = None
                if name in covered:
                    z.candidate = None  # what shows once the hand has gone is seen anew
                covered.add(name)
                continue
            read[name] = seen
            pair = (seen, reading.under)
            if pair == z.pair:
                z.pair_count += 1
            else:
                z.pair, z.pair_count = pair, 1
            if seen == z.stable:
                if z.candidate is not None:
                    z.candidate = None
                    z.count = 0
                continue
            if seen == z.candidate:
                z.count += 1
                if reading.confidence < z.low:
                    z.low = reading.confidence
            else:
                z.candidate = seen
                z.count = 1
                z.first_t = obs.t
                z.first_frame = frame
                z.low = reading.confidence
            if z.count >= k:
                changes.append(ZoneChange(name, z.stable, seen, z.first_t, z.first_frame, z.low))
                z.stable = seen
                z.candidate = None
                z.count = 0
            else:
                covered.add(name)
        if changes:
            self._stable = MappingProxyType({n: z.stable for n, z in zones.items() if z.stable is not None})
        if self._settle_under(read):
            self._under = MappingProxyType({n: z.under[1] for n, z in zones.items()
                                            if z.under is not None and z.under[0] == z.stable})
        unread = frozenset(name for name in zones if name not in obs.zones)
        return Snapshot(obs.t, frame, self._stable, frozenset(covered), tuple(changes), tuple(touches), unread, read,
                        self._under, tuple(redated), obs.hands)

    def _settle_under(self, read: Mapping[str, str]) -> bool:
        """Settles the card under each zone's top that was read the same, with that settled top,
        in `settle_frames` readable frames in a row; a top that changed drops the card settled
        under the old one. True when any zone's card under its top changed."""
        changed = False
        k = self.config.settle_frames
        for name in read:
            z = self._zones[name]
            under = z.under
            if z.pair is not None and z.pair[0] == z.stable and z.pair_count >= k:
                under = (z.stable, z.pair[1]) if z.pair[1] is not None else None
            elif under is not None and under[0] != z.stable:
                under = None
            if under != z.under:
                z.under = under
                changed = True
        return changed

    @property
    def zones(self) -> Mapping[str, str]:
        """Every zone's settled state (zones never settled are left out)."""
        return self._stable
