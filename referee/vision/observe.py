"""Camera frames to per-frame observations: cheap per-zone change detection every frame, the card detector only on zones that changed and settled.

Every frame: one warp into the small top-down view (`TableView`), the hands (`HandFinder`), and for
each zone a comparison of its patch with the previous frame (is it still?) and with the patch it
showed when last read (did it change?). A zone under a hand reads `occluded`; a zone that changed
and has been still for `settle_frames` with no hand over it (or that a hand has just left, where
nothing changed but what the hand held in the frame before or, lying over no more than
`edge_fraction` of it, holds in this one: a card laid on a spit pile or turned up in a stock place
is read in the frame its hand leaves) is read again by the `ZoneReader` (the detector, on rectified
crops at 16 px/cm, up to four zones a pass), and again in the following frames until `agree` reads
in a row say the same with at least `min_confidence` (so the tracker's hysteresis sees independent
reads, and one misread cannot stand); a zone that looks as when last read keeps its reading, one
that changed and is not yet read is left out of the observation (not read in this frame). When most
of the view differs from the still table (something over the table) every zone reads `occluded`
until it clears (or for 3 s at most, after which what is there is taken as the table); a change of
light is followed instead. The hand finder is told which zones hold a face-down card (a hand
touching one turns it over in place): those last read so, and a stock place its owner's hand touched
while a face-up card lay on top, until it is read again (taking the top card bares a face-down one,
which that hand often comes back to turn over before its arm has uncovered the place).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

import cv2
import numpy as np

from referee.cards import FACE_DOWN
from referee.errors import RefereeError
from referee.observations import EMPTY, OCCLUDED, Observation, ZoneReading
from referee.vision.calibrate import Calibration
from referee.vision.detector import CardDetector
from referee.vision.hands import HandConfig, HandFinder, TableView, largest_difference, summed_difference
from referee.vision.zones import CardSeen, LayoutError, fit_layout

_OCCLUDED = ZoneReading(OCCLUDED)


class BadObserveConfig(RefereeError, ValueError):
    """Observer settings that make no sense."""


class ZoneReader(Protocol):
    """What reads cards: the top card of named zones of a frame, and every card on the table."""

    def read(self, frame: np.ndarray, calibration: Calibration, zones: Sequence[str]) -> dict[str, ZoneReading]:
        """The reading of each zone (`empty` when no card lies there)."""

    def table_cards(self, frame: np.ndarray, calibration: Calibration) -> list[CardSeen]:
        """Every face-up card seen on the play area, in table cm (for fitting a layout: the
        face-down spit stacks lie in line with the stock rows and would pass for a place)."""


@dataclass(frozen=True)
class ObserveConfig:
    """`change_threshold`: grey levels a pixel of a zone must differ from its last read patch to
    count as changed, `change_fraction` the share of the zone's pixels that must; `still_threshold`
    and `still_fraction` likewise between consecutive frames for a zone to be still;
    `settle_frames`: still frames before a changed zone is read; a zone is read until `agree`
    reads in a row with at least `min_confidence` say the same, at most `retries` reads; a read of
    `empty` where over `occupied_fraction` of the zone differs from the bare table around it, or
    of a card where it does not, is unsure (confidence 0): the bare table is the colour of a ring
    `ring_cm` wide around the zone in the first view, taken to vary linearly across the zone
    between the median colours of the ring's four sides (tables are lit unevenly: a cream card on
    a light table differs from the table's colour by less than a spot in a gradient does), and a
    pixel differs when it is further from it than `table_threshold` (summed over the channels) or
    than 1.5 times what the ring itself strays from it (a grained table);
    `blocked_fraction`: the share of the top-down view that, differing from the still table,
    makes the view blocked (far more than two arms cover: something over most of the table, the
    light changed); a change that a gain and an offset per colour channel explain (a correlation
    of at least `relight_correlation`, no more than `relight_residual` of the view left
    unexplained) is the light changing and is followed at once; a zone that changed with an arm
    (this frame's or the last's) over part of it is still, and read, by the pixels the arms leave
    when they leave at least `visible_fraction` of it, and is left unread when those look as when
    it was last read; a pile (spit pile or stock place) a hand has just left is still when what no
    hand held in the last frame nor holds in this one is still, while an arm lies over no more than
    `edge_fraction` of it (its edge: enough of the card shows to be read);
    `hands`: the hand finder's settings."""

    change_threshold: int = 40
    change_fraction: float = 0.02
    still_threshold: int = 20
    still_fraction: float = 0.01
    settle_frames: int = 1
    agree: int = 2
    min_confidence: float = 0.3
    retries: int = 5
    table_threshold: int = 45
    occupied_fraction: float = 0.2
    ring_cm: float = 1.5
    blocked_fraction: float = 0.4
    relight_correlation: float = 0.8
    relight_residual: float = 0.25
    visible_fraction: float = 0.5
    edge_fraction: float = 0.1
    hands: HandConfig = field(default_factory=HandConfig)

    def __post_init__(self) -> None:
        if not (0 < self.change_threshold < 256 and 0 < self.still_threshold < 256):
            raise BadObserveConfig("thresholds are grey levels in 1..255")
        if not (0 < self.change_fraction < 1 and 0 < self.still_fraction < 1):
            raise BadObserveConfig("fractions must lie in (0, 1)")
        if self.settle_frames < 1 or not 1 <= self.agree <= self.retries or not 0 <= self.min_confidence <= 1:
            raise BadObserveConfig("settle_frames >= 1, 1 <= agree <= retries, min_confidence in 0..1")
        if not (0 < self.table_threshold < 766 and 0 < self.occupied_fraction < 1 and self.ring_cm > 0):
            raise BadObserveConfig("table_threshold lies in 1..765, occupied_fraction in (0, 1), ring_cm > 0")
        if not (0 < self.blocked_fraction <= 1 and 0 < self.relight_correlation <= 1 and 0 <= self.relight_residual < 1):
            raise BadObserveConfig("blocked_fraction and relight_correlation lie in (0, 1], relight_residual in [0, 1)")
        if not 0 < self.visible_fraction <= 1:
            raise BadObserveConfig("visible_fraction lies in (0, 1]")
        if not 0 <= self.edge_fraction < 1:
            raise BadObserveConfig("edge_fraction lies in [0, 1)")


@dataclass
class _ZoneState:
    """One zone's reads; `taken`: its owner's hand was over it, a face-up card on top, since it was last read;
    `under_hand`: the zone's pixels a hand's foreground held in the last frame (None: none)."""

    reading: ZoneReading | None = None
    read_patch: np.ndarray | None = None
    previous: np.ndarray | None = None
    still: int = 0
    tries: int = 0
    agreeing: int = 0
    taken: bool = False
    under_hand: np.ndarray | None = None


@dataclass(frozen=True)
class FrameCost:
    """What one frame cost: zones read by the detector and seconds spent in each stage."""

    zones_read: int
    hands_s: float
    zones_s: float
    detector_s: float


class Observer:
    """Turns frames of a calibrated table into `Observation`s (`observe`); `view_image` is the
    last top-down view (for evidence) and `cost` what the last frame cost.

    While the view is blocked (`blocked`: most of it differs from the still table and no change
    of light explains it) every zone reads `occluded` and no hand is reported, so the tracker
    holds the table as it was; the hands and zones go on from where they were once the view
    clears, or after 3 s take what is there as the table."""

    def __init__(self, calibration: Calibration, reader: ZoneReader, players: tuple[str, ...] = ("A", "B"),
                 config: ObserveConfig = ObserveConfig()) -> None:
        self.reader = reader
        self.players = players
        self.config = config
        self.view_image: np.ndarray | None = None
        self.cost = FrameCost(0, 0.0, 0.0, 0.0)
        self.blocked = False
        self._restart(calibration)

    def set_calibration(self, calibration: Calibration) -> None:
        """Go on with another calibration. Where only the camera moved or its frames changed size
        (the same play area and layout) the top-down view shows the same table, so what was seen
        in it stands: the hands, their still-table reference and the zones' last reads (a hand
        over a pile at that moment is still a hand). A new layout (fitted to a deal) has its
        zones read afresh."""
        same_table = (np.array_equal(calibration.play_area_cm, self.calibration.play_area_cm)
                      and calibration.layout == self.calibration.layout)
        if not same_table:
            self._restart(calibration)
            return
        self.calibration = calibration
        self.view = TableView(calibration, self.config.hands.px_per_cm, self.config.hands.margin_cm)
        self.hands.view = self.view

    def _restart(self, calibration: Calibration) -> None:
        self.calibration = calibration
        self.view = TableView(calibration, self.config.hands.px_per_cm, self.config.hands.margin_cm)
        self.hands = HandFinder(self.view, self.players, self.config.hands)
        self._blocked_frames = 0
        self._zones = {name: _ZoneState() for name in self.view.zones}
        self._owner = {zone.name: zone.player for zone in calibration.layout.piles if zone.player is not None}
        self._pixels = {name: int(mask.sum()) for name, mask in self.view.zones.items()}
        self._bare: dict[str, tuple[np.ndarray, float]] | None = None
        self._arms: np.ndarray | None = None
        self._grow = cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))

    def _bare_table(self, image: np.ndarray) -> dict[str, tuple[np.ndarray, float]]:
        """Each zone's bare table and how far the table itself strays from it, from a ring
        `ring_cm` wide around the zone's box (table, and little of any neighbour's card, which
        lies inside its own zone). The bare table is a colour varying linearly across the box,
        fitted to the median colours of the ring's four sides: a table lit unevenly darkens
        across a zone by more than a cream card differs from it, and a side's median is not
        moved by a neighbour card's edge within the ring. How far it strays is the ring's differences
        from it (summed over the channels) at the 90th percentile of a grain, from their 75th:
        a pile's own overhanging edges and a neighbour's card can cover more than a tenth of the
        ring (9038: a red back on wood taken for bare table)."""
        height, width = image.shape[:2]
        ring = max(1, round(self.config.ring_cm * self.view.px_per_cm))
        bare = {}
        for name, (x, y, w, h) in self.view.boxes.items():
            x0, y0, x1, y1 = max(0, x - ring), max(0, y - ring), min(width, x + w + ring), min(height, y + h + ring)
            around = image[y0:y1, x0:x1].astype(np.float32)
            top, bottom = around[: y - y0], around[y + h - y0 :]
            left, right = around[y - y0 : y + h - y0, : x - x0], around[y - y0 : y + h - y0, x + w - x0 :]
            sides = [np.median(side.reshape(-1, 3), axis=0) if side.size else None for side in (top, bottom, left, right)]
            known = [side for side in sides if side is not None]
            middle = np.mean(known, axis=0)
            top_c, bottom_c, left_c, right_c = (middle if side is None else side for side in sides)
            across = (right_c - left_c) / (w + (x1 - x - w) / 2 - (x - x0) / 2)  # per pixel, between the sides' middles
            down = (bottom_c - top_c) / (h + (y1 - y - h) / 2 - (y - y0) / 2)
            rows, columns = np.mgrid[y0 - y : y1 - y, x0 - x : x1 - x].astype(np.float32)
            plane = middle + (columns[..., None] - (w - 1) / 2) * across + (rows[..., None] - (h - 1) / 2) * down
            outside = np.ones((y1 - y0, x1 - x0), bool)
            outside[y - y0 : y - y0 + h, x - x0 : x - x0 + w] = False
            strays = np.abs(around[outside] - plane[outside]).sum(axis=1)
            spread = 1.45 * float(np.percentile(strays, 75))  # ~ the 90th percentile of a grain, where up to a
            # quarter of the ring is a card's edge
            inside = plane[y - y0 : y - y0 + h, x - x0 : x - x0 + w]
            bare[name] = np.clip(np.round(inside), 0, 255).astype(np.uint8), spread
        return bare

    def _looks_occupied(self, patch: np.ndarray, zone: str) -> bool:
        """Whether a zone's patch holds something other than the bare table around it."""
        assert self._bare is not None
        bare, spread = self._bare[zone]
        threshold = min(max(float(self.config.table_threshold), 1.5 * spread), 200.0)  # the sum saturates at 255
        other = summed_difference(patch, bare) > threshold
        return np.count_nonzero(other[self.view.zones[zone]]) >= self.config.occupied_fraction * self._pixels[zone]

    def fit_layout(self, frame: np.ndarray, stock_places: int) -> bool:
        """Fit the layout to the cards dealt on the table now; False (layout kept) when they do not
        make one."""
        cards = self.reader.table_cards(frame, self.calibration)
        if not cards:
            return False
        width, depth = self.calibration.play_size_cm
        try:
            layout = fit_layout(cards, width, depth, players=len(self.players), stock_places=stock_places)
        except LayoutError:
            return False
        self.set_calibration(replace(self.calibration, layout=layout))
        return True

    def observe(self, frame: np.ndarray, t: float, index: int) -> Observation:
        """One captured frame (BGR, capture time `t` s, frame index) -> its observation."""
        cfg = self.config
        began = time.perf_counter()
        image = self.view.warp(frame)
        self.view_image = image
        if self._bare is None:
            self._bare = self._bare_table(image)
        self.blocked = self._blocked(image)
        if self.blocked:
            for state in self._zones.values():
                state.still = 0
            self.cost = FrameCost(0, time.perf_counter() - began, 0.0, 0.0)
            return Observation(t, index, {name: _OCCLUDED for name in self._zones}, ())
        face_down = frozenset(name for name, state in self._zones.items()
                              if state.taken or (state.reading is not None and state.reading.seen == FACE_DOWN))
        hands = self.hands.update(image, t, index, face_down)
        for hand in hands:
            for zone in hand.over:
                state = self._zones[zone]
                if self._owner.get(zone) == hand.side and state.reading is not None and state.reading.is_card:
                    state.taken = True
        covered = {zone for hand in hands for zone in hand.over}
        arms = self._arm_pixels()
        after_hands = time.perf_counter()
        readings: dict[str, ZoneReading] = {}
        due: list[str] = []
        for name, state in self._zones.items():
            patch = self.view.crop(image, name)
            mask = self.view.zones[name]
            held, state.under_hand = state.under_hand, None
            if self._arms is not None:
                state.under_hand = self.view.crop(self._arms, name) & mask
                if not state.under_hand.any():
                    state.under_hand = None
            if name in covered:
                state.still = 0
                state.previous = patch
                readings[name] = _OCCLUDED
                continue
            pixels = self._pixels[name]
            changed = state.read_patch is None or \
                self._share(patch, state.read_patch, mask, cfg.change_threshold) >= cfg.change_fraction * pixels
            if changed and arms is not None:  # perhaps only an arm's edge: what the arms leave to be seen tells
                visible = mask & ~self.view.crop(arms, name)
                shown = int(np.count_nonzero(visible))
                if cfg.visible_fraction * pixels <= shown < pixels:
                    mask, pixels = visible, shown
            whole_still = state.previous is not None and (pixels == self._pixels[name] or self._share(
                patch, state.previous, self.view.zones[name], cfg.still_threshold) < cfg.still_fraction * self._pixels[name])
            if state.previous is not None and self._share(patch, state.previous, mask, cfg.still_threshold) \
                    < cfg.still_fraction * pixels:
                state.still += 1
            elif held is not None and state.previous is not None \
                    and self._arm_s_edge_at_most(state.under_hand, name) \
                    and self._share(patch, state.previous, self._left_by_hands(mask, held, state.under_hand),
                                    cfg.still_threshold) < cfg.still_fraction * pixels:
                state.still = max(state.still, 1)  # a pile where only what a hand held in the last frame
                # (or, by its edge, holds in this one) changed: the hand left what lies there still (the card it
                # laid or turned up is read a frame sooner)
            else:
                state.still = 0
            state.previous = patch
            if pixels < self._pixels[name] and not whole_still and state.read_patch is not None \
                    and self._share(patch, state.read_patch, mask, cfg.change_threshold) < cfg.change_fraction * pixels:
                continue  # as last read but for the moving arm over its side: not read, nor said to show what it
                # showed (a zone still as a whole is read as before)
            if changed and state.still >= cfg.settle_frames:
                due.append(name)
            elif not changed and state.reading is not None:
                readings[name] = state.reading
        after_zones = time.perf_counter()
        if due:
            for name, reading in self.reader.read(frame, self.calibration, due).items():
                state = self._zones[name]
                if (reading.seen == EMPTY) == self._looks_occupied(self.view.crop(image, name), name):
                    reading = replace(reading, confidence=0.0, corners=None)  # the detector and the eye disagree: unsure
                readings[name] = reading
                sure = reading.confidence >= cfg.min_confidence
                same = state.reading is not None and state.reading.seen == reading.seen
                state.agreeing = (state.agreeing + 1 if same else 1) if sure else 0
                state.reading = reading
                state.taken = False
                state.tries += 1
                if state.agreeing >= cfg.agree or state.tries >= cfg.retries:
                    state.read_patch = self.view.crop(image, name).copy()
                    state.tries = 0
                    state.agreeing = 0
        done = time.perf_counter()
        self.cost = FrameCost(len(due), after_hands - began, after_zones - after_hands, done - after_zones)
        return Observation(t, index, readings, hands)

    def _arm_s_edge_at_most(self, under_hand: np.ndarray | None, zone: str) -> bool:
        """No arm lies over pile `zone` in this frame (`under_hand`, None: none), or only its edge,
        over no more than `edge_fraction` of it: the card shows. (An arm over more of the pile may be a
        hand still laying or turning a card there, whose contact the hand finder reports a frame later: read before
        that report, the card would be dated by an earlier cover of the pile.)"""
        return under_hand is None or np.count_nonzero(under_hand) <= self.config.edge_fraction * self._pixels[zone]

    @staticmethod
    def _left_by_hands(mask: np.ndarray, held: np.ndarray, under_hand: np.ndarray | None) -> np.ndarray:
        """The pixels of `mask` that no hand held in the last frame (`held`) nor holds in this one
        (`under_hand`): what lies still there once the hand leaves shows in them."""
        left = mask & ~held
        return left if under_hand is None else left & ~under_hand

    def _arm_pixels(self) -> np.ndarray | None:
        """The view's pixels under an arm in this frame or the last, grown by a pixel (None: no arm in
        either): a zone an arm lies partly over is compared on the rest, so that the arm's moving edge
        does not keep a card turned or laid beside it unread until the arm has gone."""
        now = None
        for hand in self.hands.hands:
            now = hand.mask if now is None else now | hand.mask
        last, self._arms = self._arms, now
        if now is None and last is None:
            return None
        both = now if last is None else last if now is None else now | last
        return cv2.dilate(both.astype(np.uint8), self._grow) > 0

    def _blocked(self, image: np.ndarray) -> bool:
        """Whether most of the view differs from the still table (the hand finder's reference,
        which it does not learn while the view is blocked); a change of light is followed instead,
        and a view blocked for the hand finder's `forget_frames` (3 s: what lies there that long
        is the table now, as an arm lying still that long becomes table) is taken as the table."""
        reference = self.hands.reference
        if reference is None:
            return False
        differs = cv2.compare(summed_difference(image, reference), self.config.hands.threshold, cv2.CMP_GT)
        if cv2.countNonZero(differs) < self.config.blocked_fraction * differs.size:
            self._blocked_frames = 0
            return False
        light = self._light_change(reference[::2, ::2], image[::2, ::2])
        if light is not None:
            self._relight(*light)
            self._blocked_frames = 0
            return False
        self._blocked_frames += 1
        if self._blocked_frames < self.config.hands.forget_frames:
            return True
        self.hands.reference = image.copy()
        self._blocked_frames = 0
        return False

    def _light_change(self, before: np.ndarray, after: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """Per-channel gain and offset taking the view `before` to `after`, when they explain the
        change (the view's structure kept: a lamp, a cloud), else None (something in the way).
        Pixels the new light saturates tell nothing and are left out."""
        cfg = self.config
        unsaturated = (after < 250).all(axis=2) & (before < 250).all(axis=2)
        if np.count_nonzero(unsaturated) < unsaturated.size / 2:
            return None
        x = before[unsaturated].astype(np.float32)
        y = after[unsaturated].astype(np.float32)
        dx, dy = x - x.mean(0), y - y.mean(0)
        spread_x, spread_y = np.sqrt((dx * dx).mean(0)), np.sqrt((dy * dy).mean(0))
        if (spread_x < 1.0).any() or (spread_y < 1.0).any():
            return None
        covariance = (dx * dy).mean(0)
        if (covariance / (spread_x * spread_y) < cfg.relight_correlation).any():
            return None
        gain = spread_y / spread_x  # not the least-squares slope, which hands and noise bias towards 0
        offset = y.mean(0) - gain * x.mean(0)
        predicted = np.clip(x * gain + offset, 0, 255)
        unexplained = np.abs(y - predicted).sum(axis=1) > cfg.hands.threshold
        if np.count_nonzero(unexplained) > cfg.relight_residual * unexplained.size:
            return None
        return gain, offset

    def _relight(self, gain: np.ndarray, offset: np.ndarray) -> None:
        """Carry what was seen over to the new light: the still table, the zones' patches, the bare table's colours."""

        def lit(image: np.ndarray) -> np.ndarray:
            return np.clip(image.astype(np.float32) * gain + offset, 0, 255).astype(np.uint8)

        assert self.hands.reference is not None and self._bare is not None
        self.hands.reference = lit(self.hands.reference)
        self._bare = {name: (lit(colour[None])[0], spread * float(np.mean(gain)))
                      for name, (colour, spread) in self._bare.items()}
        for state in self._zones.values():
            if state.read_patch is not None:
                state.read_patch = lit(state.read_patch)
            if state.previous is not None:
                state.previous = lit(state.previous)

    @staticmethod
    def _share(a: np.ndarray, b: np.ndarray, mask: np.ndarray, threshold: int) -> int:
        """How many pixels of a zone differ by more than `threshold` between two patches."""
        return int(np.count_nonzero((largest_difference(a, b) > threshold) & mask))


class DetectorReader:
    """Reads zones with the card detector: each zone rectified from the full frame at
    `px_per_cm` (grown by `margin_cm`), up to `per_pass` zones tiled into one image per pass; a
    zone shows the most confident card whose centre lies in it, else `empty`. A card whose index
    is hard to read keeps its low confidence (unsure, for the observer and tracker to weigh): a
    card seen is never reported as `empty`. `min_card_confidence` is what `table_cards` keeps. It
    reports no card under a spit pile's top (`ZoneReading.under`): the box model finds one card per
    pile (docs/pipeline.md, `under2`)."""

    def __init__(self, detector: CardDetector, px_per_cm: float = 16.0, margin_cm: float = 1.5, per_pass: int = 4,
                 min_card_confidence: float = 0.3, empty_confidence: float = 0.9) -> None:
        self.detector = detector
        self.px_per_cm = px_per_cm
        self.margin_cm = margin_cm
        self.per_pass = per_pass
        self.min_card_confidence = min_card_confidence
        self.empty_confidence = empty_confidence

    def read(self, frame: np.ndarray, calibration: Calibration, zones: Sequence[str]) -> dict[str, ZoneReading]:
        out: dict[str, ZoneReading] = {}
        for start in range(0, len(zones), self.per_pass):
            out.update(self._pass(frame, calibration, list(zones[start:start + self.per_pass])))
        return out

    def _pass(self, frame: np.ndarray, calibration: Calibration, zones: list[str]) -> dict[str, ZoneReading]:
        views = [calibration.rectify(frame, zone, self.px_per_cm, self.margin_cm) for zone in zones]
        cols = math.ceil(math.sqrt(len(views)))
        rows = math.ceil(len(views) / cols)
        cell_w = max(v.image.shape[1] for v in views) + 8
        cell_h = max(v.image.shape[0] for v in views) + 8
        mosaic = np.full((rows * cell_h, cols * cell_w, 3), 114, np.uint8)
        places = []
        for k, view in enumerate(views):
            y, x = (k // cols) * cell_h + 4, (k % cols) * cell_w + 4
            h, w = view.image.shape[:2]
            mosaic[y:y + h, x:x + w] = view.image
            places.append((x, y))
        found = self.detector.detect(mosaic)
        out = {}
        for zone, view, (x, y) in zip(zones, views, places):
            polygon = view.to_pixels(np.asarray(calibration.layout.zone(zone).polygon)) + (x, y)
            contour = polygon.astype(np.float32)
            best = None
            for card in found:  # most confident first
                cx, cy = (card.box[0] + card.box[2]) / 2, (card.box[1] + card.box[3]) / 2
                if cv2.pointPolygonTest(contour, (cx, cy), False) >= 0:
                    best = card
                    break
            if best is None:
                out[zone] = ZoneReading(EMPTY, self.empty_confidence)
            else:
                out[zone] = ZoneReading(best.code if best.face_up else FACE_DOWN, min(1.0, best.confidence))
        return out

    def table_cards(self, frame: np.ndarray, calibration: Calibration) -> list[CardSeen]:
        view = calibration.rectify(frame, None, self.px_per_cm, self.margin_cm)
        cards = []
        for card in self.detector.detect(view.image):
            if card.confidence < self.min_card_confidence or card.corners is None or not card.face_up:
                continue
            corners = view.to_table(np.asarray(card.corners))
            centre = corners.mean(0)
            sides = np.linalg.norm(np.roll(corners, -1, 0) - corners, axis=1)
            short, long_ = sorted(((sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2))
            k = 0 if sides[0] < sides[1] else 1
            edge = corners[k + 1] - corners[k]
            angle = math.degrees(math.atan2(edge[1], edge[0])) % 180.0
            cards.append(CardSeen(float(centre[0]), float(centre[1]), float(short), float(long_), angle))
        return cards
