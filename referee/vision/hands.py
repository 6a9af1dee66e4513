"""Hands over the table: foreground against a learned still-table reference in the rectified view, each arm's side, zones and first contacts.

Every frame is warped once into a small top-down view of the play area and a margin around it
(`TableView`, 4 px/cm by default). `HandFinder` keeps a *reference* of the still table (cards
included): a pixel joins it once it has been still for a few frames and is not part of a hand.
What differs from the reference and is connected to a player's edge of the view is an arm with
its hand (and whatever it carries); what differs but lies loose on the table is a card that
moved, left to the zones' change detection (`referee.vision.observe`). An arm of the table's own
colour (brown skin over a wooden table) differs little but for its shading and the cards it covers:
a large blob of what differs a little, reaching a player's edge with some clear difference in it,
is an arm too (else, found in no frame, it would be learned into the reference as it lay still).
The arm is grown through what differs less (a hand of the table's own colour, found only in pieces
by a single threshold, would leave its loose pieces to be learned into the reference and seen as a
hand once it left), but not through a piece that has been still for longer than the arm (a card its
hand laid down or turned over and left). An arm that reaches across to the other edge (two arms
meeting over a pile) is split between the two edges by growing both at once through the blob,
except that what was one arm's in the last frame and lies as it lay stays that arm's (the hand
resting on the pile when the other arrives keeps its fingers).
A hand's tip is the middle of its leading edge; where that edge falls apart into pieces it grips
with the piece that moved last (not a card it laid down or turned up in the same row a moment
before, beside the place it reaches now).

A hand *touches* a zone when it comes to rest there: its step between frames is measured by the
share of its pixels that changed (robust where the leading edge flips between a finger and a
carried card), the arrival is dated inside the frame interval from the last two steps
(reaching movements end with a minimum-jerk deceleration: distance to go ~ time to go cubed),
and the touched zone is the first pile zone under the hand going back along the arm from just
behind the tip (a card carried under the fingers) to the palm (a flat slap, fingers beyond).
A hand lying still on the zone it touches keeps that touch through a frame in which only its tip
jumps (its leading edge flipping between a finger and the card it just laid), rather than touching
it again later. A hand turning over a face-down card in place stirs until the card lies turned,
so a touch on a zone showing a face-down card is dated from the frame between its reach and the
turn in which it came near a stop (the first such dip: the top of its lift in the turn is another).

Where two hands touch one zone, a hand lies *under* the other when the other arm came over it
there: in the last `COVER_S` the other arm's part took many of its pixels on the zone (pixels
that changed), and few went back. Two slaps on one pile within a frame are settled by it (the
hand underneath got there first). Where both hands are on one spit pile, a hand lies *beneath* the other
arm in a frame when its own arm's colours show in pieces cut off from that arm by the other hand near the
pile (its fingers beyond the other's palm: `HandFinder._layered`); it is reported while it rests there.
A hand the other arm came over on a spit pile, whose visible
end stops beside that pile, grips that pile, not the one its end lies nearer; once that arm no
longer comes over it, it lies hidden under it, at rest only where that arm is. A hand gripping the
spit pile it gripped in the frame before comes to rest there by its stirring alone (where the other
arm lies over it, its tip jumps between strips of its rim), except while the other arm comes over it
there. A hand slowing over the pile it grips (under half its pixels changing in each of the last few
frames) whose pixels there the other arm took in this frame (many more than it took back) does not come
to rest in that frame: the pixels it lost changed, and what is left of it may lie still while it still
moves (a hand hovering over the pile as the other arm reaches in); it rests in the next frame it is seen
still there. A hand that came in fast and lies still as the other arm reaches it has stopped (the first
hand of a race): it rests in that frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from referee.errors import RefereeError
from referee.observations import HandSeen
from referee.vision.calibrate import Calibration

EDGE_OF: dict[str, str] = {"A": "bottom", "B": "top", "C": "left", "D": "right"}
"""The edge of the top-down view (up is towards B) each player's arms come in from."""


DIP = 1.1
"""A hand stirring this many times less in a frame than in a frame beside it stopped there (less is noise)."""
NEAR_STOP = 1.3
"""A hand turning a card over comes near a stop twice: at its reach's end and at the top of its lift, the
card on its edge. A dip stirring up to this many times the least dip before a rest is one of those two
stops; a shallower one is a reach slowing on its way. It compares the hand's stirring in two frames, which
a camera shows, and assumes nothing about how long a turn takes."""


COLOUR_BINS = 16
"""Levels per channel of the colour histograms that tell two meeting arms apart."""
COLOUR_ODDS = 4.0
"""Where two arms meet, a pixel whose colour one arm shows this many times as often as the other is that arm's."""
COLOUR_PIECE_CM2 = 2.0
"""The least piece of one arm's part in the other arm's colours that goes to the other arm."""
COLOUR_RATE = 0.2
"""How much of an arm's colour histogram each frame it is seen alone makes up."""

COVER_S = 0.5
"""How far back a hand touching a zone counts the other hand coming over it there."""
COVER_ODDS = 2.0
"""A touching hand lies under the other when at least this many times more of its pixels on the zone
went to the other's part than came back from it (in the last `COVER_S`)."""
EDGE_CM = 1.5
"""A hand that grips nothing, its visible end this close to the spit pile the other hand covers, lies under it there."""

COVER_CM2 = 2.0
"""The least area of a touching hand's pixels the other must have taken on the zone to lie over it."""

SLOWING_FRAMES = 5
"""A hand is slowing over a pile (`HandFinder._slowing`) when it gripped it in each of this many frames before."""
SLOWING_SHARE = 0.5
"""The largest share of its pixels a hand slowing over a pile stirs in each of those frames."""

# `HandFinder._layered`'s settings, chosen on the slap clips of seeds 5001-5024 (bench/slaps.py): none of its
# verdicts there contradicted the true first hand.
LAYER_ROOT_CM = 4.0
"""Where both hands rest on one spit pile, an arm's own part (the hand finder's split) farther than this from
both spit piles, and not beside the other arm's colours, roots it: the arm away from the hands' overlap,
sleeves included (colours not learned there)."""
LAYER_SHADOW_SPREAD = 1.3
"""A pixel is shadow-like (the table darkened by an arm above it, its hue kept) where its channels' ratios to
the still-table reference lie within this factor of one another ..."""
LAYER_SHADOW_DARK = 0.95
"""... and average below this: no arm's colour there, whatever the histograms say."""
LAYER_PIECE_CM2 = (1.5, 18.75)
"""The least and largest area of a piece of an arm's colours cut off from it that counts (a finger or two's
width showing past the other hand; larger is a part of the blob the colours mislead on)."""
LAYER_GAP_CM = 1.5
"""The least distance from a piece to what stays attached to its arm for it to count as cut off from it."""
LAYER_NEAR_CM = 3.0
"""A piece counts where it comes within this of the spit pile both hands rest on."""
LAYER_CUT_CM2 = 2.5
"""The least area of an arm's cut-off pieces for a frame to see that arm's hand underneath ..."""
LAYER_ODDS = 3.0
"""... and it must be at least this many times the other arm's (a frame seeing both says nothing)."""


def _colour_codes(pixels: np.ndarray) -> np.ndarray:
    """Each BGR pixel's bin in a histogram of `COLOUR_BINS` levels per channel."""
    q = (pixels // (256 // COLOUR_BINS)).astype(np.int32)
    return (q[..., 0] * COLOUR_BINS + q[..., 1]) * COLOUR_BINS + q[..., 2]


def _rooted(parts: dict[str, np.ndarray], edges: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Each arm's part cut to the pieces joined to its own edge; with two arms, a piece cut off one
    that borders the other goes to it (an arm is one piece from its edge to its hand; a piece that
    borders neither, a card left loose on the table, is no arm's)."""
    out = {p: part.copy() for p, part in parts.items()}
    for p, part in parts.items():
        count, pieces = cv2.connectedComponents(part.astype(np.uint8), connectivity=8)
        if count <= 2:
            continue
        rooted = np.unique(pieces[edges[p] & part])
        loose = part & ~np.isin(pieces, rooted[rooted > 0])
        if loose.any():
            out[p] &= ~loose
            others = [q for q in parts if q != p]
            if len(others) == 1:
                border = cv2.dilate(parts[others[0]].astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
                bordering = np.unique(pieces[loose & border])
                out[others[0]] |= np.isin(pieces, bordering[bordering > 0]) & loose
    return out


class BadHandConfig(RefereeError, ValueError):
    """Hand-finder settings that make no sense."""


@dataclass(frozen=True)
class HandConfig:
    """`px_per_cm`, `margin_cm`: the top-down view (play area grown by the margin); `threshold`:
    grey levels a pixel must differ from the reference (summed over the channels) to be foreground,
    `weak_threshold` (averaged over its 3x3 neighbourhood, where noise averages out) to belong to an
    arm found so (a hand of the table's own colour); `min_area_cm2`: smaller blobs are noise;
    `faint_arm_cm2`, `faint_clear_cm2`: a blob of what differs by `weak_threshold` that reaches a
    player's edge is an arm with at least this area, and this much of it differing by `threshold`;
    `still_frames`: frames a pixel must stay within `still_threshold` to join the reference
    (`forget_frames` for a pixel inside a hand: an arm lying still that long becomes table);
    `over_fraction`: share of a zone a hand's foreground pixels must cover for it to be over the
    zone; a hand is at rest when no more than `stir_share` of its pixels changed since the
    previous frame and its tip (the middle of its leading `lead_cm`) moved less than `stop_cm` (on
    the spit pile it gripped in the frame before, the stirring alone);
    it touches the first pile zone met going back along the arm from `grip_cm` behind the tip
    (a hand carrying a card) to `palm_cm` (a flat hand, fingers beyond the pile); on a zone showing
    a face-down card (turned over in place, stirring under the hand) it touches from the first frame
    it came near a stop in, at most `turn_s` before it came to rest."""

    px_per_cm: float = 4.0
    margin_cm: float = 10.0
    threshold: int = 30
    weak_threshold: int = 20
    min_area_cm2: float = 12.0
    faint_arm_cm2: float = 24.0
    faint_clear_cm2: float = 3.0
    still_frames: int = 4
    still_threshold: int = 10
    forget_frames: int = 90
    over_fraction: float = 0.3
    grip_cm: float = 1.0
    palm_cm: float = 8.0
    stir_share: float = 0.1
    stop_cm: float = 3.0
    lead_cm: float = 2.5
    turn_s: float = 0.4

    def __post_init__(self) -> None:
        if not (self.px_per_cm > 0 and self.margin_cm >= 0 and self.min_area_cm2 > 0 and self.faint_arm_cm2 > 0
                and self.faint_clear_cm2 > 0 and self.stop_cm > 0 and self.lead_cm > 0 and self.turn_s > 0):
            raise BadHandConfig("px_per_cm, min_area_cm2, faint_arm_cm2, faint_clear_cm2, stop_cm, lead_cm and "
                                "turn_s must be positive and margin_cm >= 0")
        if not (0 < self.weak_threshold <= self.threshold < 256 and 0 < self.still_threshold < 256):
            raise BadHandConfig("thresholds are grey levels in 1..255, weak_threshold at most threshold")
        if not (1 <= self.still_frames < self.forget_frames <= 255):
            raise BadHandConfig("still_frames must be at least 1 and less than forget_frames (at most 255)")
        if not 0.0 < self.over_fraction <= 1.0:
            raise BadHandConfig("over_fraction must lie in (0, 1]")


class TableView:
    """The top-down view of the play area (grown by `margin_cm`) at `px_per_cm`, warped from
    camera frames through maps computed once per calibration; zone masks in its pixels."""

    def __init__(self, calibration: Calibration, px_per_cm: float = 4.0, margin_cm: float = 10.0) -> None:
        self.calibration = calibration
        area = calibration.play_area_cm
        (x0, y0), (x1, y1) = area.min(0) - margin_cm, area.max(0) + margin_cm
        width, height = math.ceil((x1 - x0) * px_per_cm), math.ceil((y1 - y0) * px_per_cm)
        self.origin_cm = (float(x0), float(y1))
        self.px_per_cm = float(px_per_cm)
        self.size = (width, height)
        u, v = np.meshgrid(np.arange(width), np.arange(height))
        table = np.stack([x0 + (u + 0.5) / px_per_cm, y1 - (v + 0.5) / px_per_cm], -1)
        pixels = calibration.to_image(table).astype(np.float32)
        self._maps = cv2.convertMaps(pixels[..., 0], pixels[..., 1], cv2.CV_16SC2)
        self.zones: dict[str, np.ndarray] = {}
        self.boxes: dict[str, tuple[int, int, int, int]] = {}
        for zone in calibration.layout.piles:
            mask = np.zeros((height, width), np.uint8)
            cv2.fillPoly(mask, [np.round(self.to_pixels(np.asarray(zone.polygon)) * 16).astype(np.int32)], 1,
                         cv2.LINE_8, shift=4)
            x, y, w, h = cv2.boundingRect(mask)
            self.zones[zone.name] = mask[y:y + h, x:x + w].astype(bool)
            self.boxes[zone.name] = (x, y, w, h)

    def warp(self, frame: np.ndarray) -> np.ndarray:
        """The view of a camera frame (BGR)."""
        return cv2.remap(frame, self._maps[0], self._maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def to_table(self, points_px: np.ndarray) -> np.ndarray:
        """View pixels (..., 2) -> table cm."""
        uv = np.asarray(points_px, dtype=float)
        x0, y1 = self.origin_cm
        return np.stack([x0 + (uv[..., 0] + 0.5) / self.px_per_cm, y1 - (uv[..., 1] + 0.5) / self.px_per_cm], -1)

    def to_pixels(self, points_cm: np.ndarray) -> np.ndarray:
        """Table cm (..., 2) -> view pixels."""
        xy = np.asarray(points_cm, dtype=float)
        x0, y1 = self.origin_cm
        return np.stack([(xy[..., 0] - x0) * self.px_per_cm - 0.5, (y1 - xy[..., 1]) * self.px_per_cm - 0.5], -1)

    def crop(self, image: np.ndarray, zone: str) -> np.ndarray:
        """A zone's bounding box cut from a view-sized image."""
        x, y, w, h = self.boxes[zone]
        return image[y:y + h, x:x + w]


def summed_difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per pixel, the sum of the three channel differences of two BGR images (uint8, saturating):
    a dark arm over a dark table differs little in each channel but in all three."""
    return cv2.transform(cv2.absdiff(a, b), np.ones((1, 3)))


def largest_difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per pixel, the largest channel difference of two BGR images (uint8)."""
    diff = cv2.absdiff(a, b)
    blue, green, red = cv2.split(diff)
    return cv2.max(cv2.max(blue, green), red)


@dataclass(frozen=True)
class Hand:
    """One arm with its hand in one frame: the `side` it comes from, its pixel `mask` (view size),
    the zones it is `over`, its `tip` and `entry` (table cm: the leading edge and where the arm
    crosses into the view), the zone its grip lies on (None: between zones), `stirring`, the
    share of its pixels that changed since the previous frame, and `grips_beneath`: its grip
    lies hidden under the other player's arm; `covered`: per (other side, zone), how many of its
    pixels of the last frame on the zone the other arm's part holds now, changed (it came over them);
    `beneath`: the sides whose arm lies over this hand on the spit pile both are on, seen from the arms'
    colours in this frame (`HandFinder._layered`)."""

    side: str
    mask: np.ndarray = field(repr=False)
    over: tuple[str, ...]
    tip: tuple[float, float]
    entry: tuple[float, float]
    grip_zone: str | None
    stirring: float = 0.0
    grips_beneath: bool = False
    covered: dict[tuple[str, str], int] = field(default_factory=dict)
    beneath: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.side not in EDGE_OF:
            raise BadHandConfig(f"a hand's side is one of {', '.join(EDGE_OF)}, not {self.side!r}")


@dataclass(frozen=True)
class _Step:
    """One frame of a side's hand: capture time, stirring, at rest, tip, the zone under its grip,
    its pixels the other arm came over (`Hand.covered`), the zones it was over, and whether it was
    held back from rest there (`HandFinder._overrun`)."""

    t: float
    stirring: float
    rest: bool
    tip: tuple[float, float]
    grip: str | None = None
    covered: dict[tuple[str, str], int] = field(default_factory=dict)
    over: tuple[str, ...] = ()
    held: bool = False


@dataclass
class _Track:
    """One side's hand followed over frames: its recent steps and its current contact."""

    history: list[_Step] = field(default_factory=list)
    tip: tuple[float, float] | None = None
    contact: dict[str, float] = field(default_factory=dict)
    seen_frame: int = -1


class HandFinder:
    """Finds the hands in each top-down view (`update`) and reports them as `HandSeen` with the
    zones they cover and first-contact times; keeps the still-table reference."""

    def __init__(self, view: TableView, players: tuple[str, ...] = ("A", "B"), config: HandConfig = HandConfig()) -> None:
        if not set(players) <= set(EDGE_OF):
            raise BadHandConfig(f"players come from the edges of {', '.join(EDGE_OF)}, not {players}")
        self.view = view
        self.players = tuple(players)
        self.config = config
        self.reference: np.ndarray | None = None
        self._previous: np.ndarray | None = None
        width, height = view.size
        self._still = np.zeros((height, width), np.uint8)
        self._min_area = config.min_area_cm2 * config.px_per_cm**2
        self._faint_area = config.faint_arm_cm2 * config.px_per_cm**2
        self._faint_clear = config.faint_clear_cm2 * config.px_per_cm**2
        self._tracks: dict[str, _Track] = {p: _Track() for p in self.players}
        self._kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
        self.hands: tuple[Hand, ...] = ()
        self._colours: dict[str, np.ndarray] = {}
        self._spit = frozenset(zone.name for zone in view.calibration.layout.piles if zone.is_spit)
        self._spit_cm: dict[str, np.ndarray] = {}
        for name in self._spit:  # per spit pile, how far each view pixel lies from it (cm)
            outside = np.ones((height, width), np.uint8)
            zx, zy, zw, zh = view.boxes[name]
            outside[zy:zy + zh, zx:zx + zw][view.zones[name]] = 0
            self._spit_cm[name] = cv2.distanceTransform(outside, cv2.DIST_L2, 5) / view.px_per_cm
        self._off_spit = np.minimum.reduce(list(self._spit_cm.values())) > LAYER_ROOT_CM if self._spit_cm \
            else np.ones((height, width), bool)
        """The view pixels farther than `LAYER_ROOT_CM` from every spit pile (where an arm roots in `_layered`)."""

    def _edges(self, labels: np.ndarray) -> dict[str, set[int]]:
        """The labels touching each player's edge of the view."""
        strips = {"bottom": labels[-2:, :], "top": labels[:2, :], "left": labels[:, :2], "right": labels[:, -2:]}
        return {p: set(np.unique(strips[EDGE_OF[p]]).tolist()) - {0} for p in self.players}

    def _split(self, blob: np.ndarray, seeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """A blob reaching several edges shared out by growing each edge's part at the same pace."""
        owned = {p: (seed & blob) for p, seed in seeds.items()}
        taken = np.zeros_like(blob)
        for part in owned.values():
            taken |= part
        while True:
            grown = False
            for p in owned:
                more = cv2.dilate(owned[p], self._kernel) & blob & ~taken
                if more.any():
                    owned[p] |= more
                    taken |= more
                    grown = True
            if not grown:
                return owned

    def update(self, image: np.ndarray, t: float, frame: int,
               face_down: frozenset[str] = frozenset()) -> tuple[HandSeen, ...]:
        """One top-down view (`TableView.warp`) captured at `t`: the hands over the table; `face_down`:
        the zones last seen holding a face-down card (a hand touching one turns it over in place)."""
        cfg = self.config
        if self.reference is None:
            self.reference = image.copy()
            self._previous = image
            self.hands = ()
            return ()
        assert self._previous is not None
        moving_mask = cv2.compare(largest_difference(image, self._previous), cfg.still_threshold, cv2.CMP_GT)
        moving = moving_mask > 0
        labels, stats, owners, strong = self._arms(summed_difference(image, self.reference))
        hands: list[Hand] = []
        hand_mask = np.zeros(labels.shape, np.uint8)
        height, width = labels.shape
        strips = {"bottom": (slice(height - 2, height), slice(None)), "top": (slice(0, 2), slice(None)),
                  "left": (slice(None), slice(0, 2)), "right": (slice(None), slice(width - 2, width))}
        for label, players in owners.items():
            x, y, w, h = stats[label, :4]
            blob = labels[y:y + h, x:x + w] == label
            hand_mask[y:y + h, x:x + w] |= blob.astype(np.uint8)
            clear = blob & (strong[y:y + h, x:x + w] > 0)
            covered = {}
            if len(players) == 1:
                parts = {players[0]: blob}
                self._learn_colours(players[0], image[y:y + h, x:x + w][clear])
            else:
                edges = {}
                for p in players:
                    seed = np.zeros((height, width), bool)
                    seed[strips[EDGE_OF[p]]] = True
                    edges[p] = seed[y:y + h, x:x + w] & blob
                seeds = {p: edge.astype(np.uint8) for p, edge in edges.items()}
                parts = {p: part.astype(bool) for p, part in self._split(blob.astype(np.uint8), seeds).items()}
                lying = blob & ~moving[y:y + h, x:x + w]
                for hand in self.hands:  # what was an arm's in the last frame and lies as it lay stays its own
                    if hand.side in parts:
                        kept = hand.mask[y:y + h, x:x + w] & lying
                        parts = {q: part | kept if q == hand.side else part & ~kept for q, part in parts.items()}
                looks = self._colour_seeds(image[y:y + h, x:x + w], clear, players)
                recoloured = self._recoloured(parts, looks, edges)
                if any((recoloured[p] != parts[p]).any() for p in parts):  # the arm on top took its own colours
                    recoloured = _rooted(recoloured, edges)
                parts = recoloured
                covered = self._covered(parts, moving[y:y + h, x:x + w], (x, y))
            sharing: list[Hand] = []
            for player, part in parts.items():
                area = int(part.sum())
                if area >= self._min_area:
                    stirring = np.count_nonzero(part & moving[y:y + h, x:x + w]) / area
                    hiding = part & clear  # (each part lies within its blob)
                    others = [q for q in parts.values() if q is not part]
                    beneath = np.any(others, axis=0) if others else None
                    hand = self._describe(player, part, hiding, (x, y), stirring, beneath)
                    sharing.append(replace(hand, covered=covered[player]) if covered.get(player) else hand)
            sharing = self._under_other_pile(sharing, t)
            if len(sharing) == 2:
                sharing = self._layered(sharing, image[y:y + h, x:x + w], parts, looks, clear, (x, y))
            hands.extend(sharing)
        self._learn(image, hand_mask, moving_mask)
        self.hands = tuple(hands)
        return self._report(t, frame, face_down)

    def _under_other_pile(self, sharing: list[Hand], t: float) -> list[Hand]:
        """The hands of one blob, a hand lying under the other arm given the pile that arm covers.
        Where a hand came down on a spit pile and the other came down over it, the first hand's
        visible part ends at the pile's edge or in the gap beside it (the rest lies under the other
        arm), and going back along it from its end meets the neighbouring spit pile, or the split
        of the blob leaves it a thin strip along the other arm ending at the other player's places.
        So, first, a hand whose grip lies on another player's place it is not over (where no
        player reaches) grips the one spit pile it is over. Then, where the other hand both grips
        and is over a spit pile and its arm came over this hand there (`_came_over`), a hand whose
        grip lies on another spit pile it is not over and was not over in the frame before
        (`_was_over`), or that grips nothing while its visible end lies within `EDGE_CM` of that
        pile, grips it (two hands laying cards on the two piles, their arms touching, keep their
        own piles: neither came over the other on the other's pile). A hand so given the pile,
        where the other arm took none of its pixels in this frame (it came over it earlier), lies
        hidden under that arm (`Hand.grips_beneath`): its visible part, a strip of its arm's rim, lies
        still while the hand beneath may still move, so it is at rest only where that arm is. While
        the other arm is still coming over it, its own stirring stands (the hand lay there first)."""
        if len(sharing) != 2:
            return sharing
        piles = {zone.name: zone for zone in self.view.calibration.layout.piles}
        spit = {name for name, zone in piles.items() if zone.is_spit}
        grips = []
        for hand in sharing:
            grip = hand.grip_zone
            if grip in piles and piles[grip].player not in (None, hand.side) and grip not in hand.over:
                over = [zone for zone in hand.over if zone in spit]
                grip = over[0] if len(over) == 1 else grip
            grips.append(grip)
        out = []
        for k, hand in enumerate(sharing):
            other, mine, theirs = sharing[1 - k], grips[k], grips[1 - k]
            if theirs in spit and theirs in other.over and theirs != mine \
                    and self._came_over(hand, other.side, theirs, t):
                if mine in spit and not self._was_over(hand, mine):
                    mine = theirs
                elif mine is None and self._near(hand.tip, piles[theirs].polygon):
                    mine = theirs
            if mine != hand.grip_zone:
                hidden = not hand.covered.get((other.side, mine))
                hand = replace(hand, grip_zone=mine, grips_beneath=hidden)
            out.append(hand)
        return out

    def _layered(self, sharing: list[Hand], image: np.ndarray, parts: dict[str, np.ndarray],
                 looks: dict[str, np.ndarray], clear: np.ndarray, offset: tuple[int, int]) -> list[Hand]:
        """The two hands of one blob, the one seen lying under the other given it in `Hand.beneath`,
        where both are on the same spit pile (each grips it, or its side's hand touched it as of the
        frame before: a hand lying under the other arm often grips nothing): that hand's arm shows
        pieces of its own colours cut off from it, near the pile, by the hand on top (its fingers past
        the other's palm). `image`, `parts`, the
        arms' colours `looks` and the `clear` foreground are cut from the view at `offset`.

        Per arm p (the other q), in two ways: p's colours (not shadow-like: `LAYER_SHADOW_SPREAD`,
        `LAYER_SHADOW_DARK`) closed 3x3, and in the lenient way also the clear foreground in neither
        arm's colours (a pale palm, a crease), not within a pixel of q's colours, are what p's arm is
        passable through; from its root (`LAYER_ROOT_CM`) what is passable is attached to it. p's
        colours outside it, in pieces of `LAYER_PIECE_CM2` at least `LAYER_GAP_CM` from it that border
        q's part and come within `LAYER_NEAR_CM` of the pile, are cut off from p by q's hand. A way sees
        p underneath when p's pieces add up to `LAYER_CUT_CM2` and `LAYER_ODDS` times q's; the frame
        does when one way does and the other sees q in no way (none: the frame says nothing)."""
        first, second = sharing
        piles = [({hand.grip_zone} | set(self._tracks[hand.side].contact)) & self._spit for hand in sharing]
        common = piles[0] & piles[1]
        if len(common) != 1 or not all(hand.side in self._colours for hand in sharing):
            return sharing
        pile = common.pop()
        assert self.reference is not None
        x, y = offset
        height, width = clear.shape
        ref = self.reference[y:y + height, x:x + width].astype(np.float32) + 8
        ratio = (image.astype(np.float32) + 8) / ref
        shadow = (ratio.max(2) / ratio.min(2) < LAYER_SHADOW_SPREAD) & (ratio.mean(2) < LAYER_SHADOW_DARK)
        looks = {hand.side: looks[hand.side] & ~shadow for hand in sharing}
        near = self._spit_cm[pile][y:y + height, x:x + width] <= LAYER_NEAR_CM
        away = self._off_spit[y:y + height, x:x + width]
        px2 = self.config.px_per_cm**2
        least, most = (area * px2 for area in LAYER_PIECE_CM2)
        gap = LAYER_GAP_CM * self.config.px_per_cm
        square = np.ones((3, 3), np.uint8)
        beside = {p: cv2.dilate(look.astype(np.uint8), square) > 0 for p, look in looks.items()}
        seen = set()
        for lenient in (False, True):
            cut = {}
            for hand, other in ((first, second), (second, first)):
                p, q = hand.side, other.side
                passable = cv2.morphologyEx(looks[p].astype(np.uint8), cv2.MORPH_CLOSE, self._kernel) > 0
                if lenient:
                    passable |= clear & ~shadow & ~beside[q]
                root = parts[p] & away & ~beside[q]
                passable |= root
                _, through = cv2.connectedComponents(passable.astype(np.uint8), connectivity=8)
                rooted = np.unique(through[root])
                attached = np.isin(through, rooted[rooted > 0])
                apart = cv2.distanceTransform((~attached).astype(np.uint8), cv2.DIST_L2, 3)
                theirs = parts[q] & ~looks[p]
                count, pieces, stats, _ = cv2.connectedComponentsWithStats((looks[p] & ~attached).astype(np.uint8),
                                                                           connectivity=8)
                cut[p] = 0
                for k in range(1, count):
                    area = stats[k, cv2.CC_STAT_AREA]
                    if not least <= area <= most:
                        continue
                    piece = pieces == k
                    ring = cv2.dilate(piece.astype(np.uint8), square, iterations=2) > 0
                    if (ring & theirs).any() and (piece & near).any() and apart[piece].min() >= gap:
                        cut[p] += int(area)
            for p, q in ((first.side, second.side), (second.side, first.side)):
                if cut[p] >= LAYER_CUT_CM2 * px2 and cut[p] >= LAYER_ODDS * cut[q]:
                    seen.add(p)
        if len(seen) != 1:
            return sharing
        under = seen.pop()
        return [replace(hand, beneath=tuple(h.side for h in sharing if h.side != under)) if hand.side == under else hand
                for hand in sharing]

    def _was_over(self, hand: Hand, zone: str) -> bool:
        """Whether `hand` is over `zone`, or its side's hand was in the frame before (a hand laying
        a card on a pile, seen over it a frame before, is on it even where the other arm sweeping
        past takes its pixels on the pile beside it; `over` flickers from frame to frame there)."""
        steps = self._steps(hand.side)
        return zone in hand.over or bool(steps) and zone in steps[-1].over

    def _came_over(self, hand: Hand, other: str, zone: str, t: float) -> bool:
        """Whether the other side's arm came over `hand` on `zone` (captured at `t`): in the last
        `COVER_S`, this frame included, it took at least `COVER_CM2` of the hand's pixels there."""
        taken = hand.covered.get((other, zone), 0) \
            + sum(step.covered.get((other, zone), 0) for step in self._steps(hand.side) if step.t > t - COVER_S)
        return taken >= COVER_CM2 * self.config.px_per_cm**2

    def _steps(self, side: str) -> list[_Step]:
        """The recent steps of `side`'s hand, up to the frame before (none where it has no track)."""
        track = self._tracks.get(side)
        return track.history if track is not None else []

    @staticmethod
    def _near(point: tuple[float, float], polygon: np.ndarray) -> bool:
        """Whether a point (table cm) lies within `EDGE_CM` of a zone's polygon."""
        outline = np.asarray(polygon, np.float32).reshape(-1, 1, 2)
        return cv2.pointPolygonTest(outline, (float(point[0]), float(point[1])), True) >= -EDGE_CM

    def _covered(self, parts: dict[str, np.ndarray], moving: np.ndarray,
                 offset: tuple[int, int]) -> dict[str, dict[tuple[str, str], int]]:
        """Where two arms meet (their parts cut from the view at `offset`, `moving` cut the same
        way), per arm and (other side, zone): how many of its pixels of the last frame on the zone
        changed and lie in the other arm's part now. A hand that comes down over the other takes
        such pixels from it; the hand underneath takes few back (`Hand.covered`)."""
        x, y = offset
        height, width = moving.shape
        out: dict[str, dict[tuple[str, str], int]] = {p: {} for p in parts}
        for hand in self.hands:
            if hand.side not in parts:
                continue
            before = hand.mask[y:y + height, x:x + width] & moving
            for other, part in parts.items():
                taken = before & part if other != hand.side else None
                if taken is None or not taken.any():
                    continue
                for name, zone in self.view.zones.items():
                    zx, zy, zw, zh = self.view.boxes[name]
                    u0, v0 = max(zx, x), max(zy, y)
                    u1, v1 = min(zx + zw, x + width), min(zy + zh, y + height)
                    if u0 >= u1 or v0 >= v1:
                        continue
                    count = int(np.count_nonzero(taken[v0 - y:v1 - y, u0 - x:u1 - x]
                                                 & zone[v0 - zy:v1 - zy, u0 - zx:u1 - zx]))
                    if count:
                        key = (other, name)
                        out[hand.side][key] = out[hand.side].get(key, 0) + count
        return out

    def _learn_colours(self, side: str, pixels: np.ndarray) -> None:
        """What colours an arm alone in its blob shows (its clear foreground pixels, BGR): a running
        histogram over `COLOUR_BINS` levels per channel."""
        if len(pixels) < self._min_area:
            return
        counts = np.bincount(_colour_codes(pixels), minlength=COLOUR_BINS**3).astype(np.float32)
        counts /= counts.sum()
        known = self._colours.get(side)
        self._colours[side] = counts if known is None else (1 - COLOUR_RATE) * known + COLOUR_RATE * counts

    def _colour_seeds(self, image: np.ndarray, clear: np.ndarray, players: list[str]) -> dict[str, np.ndarray]:
        """Where two arms meet, the clear foreground pixels whose colour one arm shows `COLOUR_ODDS`
        times as often as every other (learned while each arm was alone), opened 3x3 (not single
        pixels of an arm's rim, whose colours blend with the table; a 5x5 opening lost the fingers
        of the arm on top, 3 to 4 px wide); none while an arm's colours are unknown."""
        looks = {p: np.zeros(clear.shape, bool) for p in players}
        if not all(p in self._colours for p in players):
            return looks
        codes = _colour_codes(image[clear])
        shares = {p: self._colours[p][codes] for p in players}
        for p in players:
            others = np.max([shares[q] for q in players if q != p], axis=0)
            looks[p][clear] = (shares[p] > COLOUR_ODDS * others) & (shares[p] > 1.0 / COLOUR_BINS**3)
            looks[p] = cv2.morphologyEx(looks[p].astype(np.uint8), cv2.MORPH_OPEN, self._kernel) > 0
        return looks

    def _recoloured(self, parts: dict[str, np.ndarray], looks: dict[str, np.ndarray],
                    edges: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Where two arms meet, a piece of one arm's part in the other arm's colours (at least
        `COLOUR_PIECE_CM2`) that borders the other arm's part, and does not reach its own arm's edge,
        goes to it: the arm lying on top shows its own colours, however the growth from the edges
        shared it out."""
        least = COLOUR_PIECE_CM2 * self.config.px_per_cm**2
        parts = {p: part.copy() for p, part in parts.items()}
        for _ in range(4):
            moved = False
            for p in parts:
                border = cv2.dilate(parts[p].astype(np.uint8), self._kernel) > 0
                for q in parts:
                    if q == p:
                        continue
                    count, pieces, stats, _ = cv2.connectedComponentsWithStats((parts[q] & looks[p]).astype(np.uint8),
                                                                                connectivity=8)
                    touching = np.unique(pieces[border & (pieces > 0)])
                    rooted = np.unique(pieces[edges[q]])
                    for piece in np.setdiff1d(touching, rooted):
                        if stats[piece, cv2.CC_STAT_AREA] >= least:
                            taken = pieces == piece
                            parts[q] &= ~taken
                            parts[p] |= taken
                            moved = True
            if not moved:
                return parts
        return parts

    def _arms(self, difference: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[int, list[str]], np.ndarray]:
        """The foreground's blobs (labels and stats) and the players whose arm each holds. An arm is a
        blob differing by more than `threshold` that reaches a player's edge; it is grown through
        what differs by more than `weak_threshold` (a hand of the table's colour differs little),
        leaving out pieces that have been still for longer than their arm (a card it laid down or
        turned over, which its hand leaves). A blob of what differs by more than `weak_threshold`
        that reaches a player's edge, `faint_arm_cm2` large with `faint_clear_cm2` of it differing by
        more than `threshold`, is an arm too (one of the table's colour all along: only its shading
        and the cards it covers differ clearly). Also the clear foreground (what hides a zone)."""
        cfg = self.config
        kernel = self._kernel
        strong = cv2.morphologyEx(cv2.compare(difference, cfg.threshold, cv2.CMP_GT) // 255, cv2.MORPH_OPEN, kernel)
        faint = cv2.compare(cv2.blur(difference, (3, 3)), cfg.weak_threshold, cv2.CMP_GT) // 255
        fore = cv2.morphologyEx(faint, cv2.MORPH_OPEN, kernel) | strong
        count, pieces, piece_stats, _ = cv2.connectedComponentsWithStats(strong, connectivity=8)
        areas = piece_stats[:, cv2.CC_STAT_AREA]
        arms = {p: [a for a in found if areas[a] >= self._min_area] for p, found in self._edges(pieces).items()}
        blobs, labels, stats, _ = cv2.connectedComponentsWithStats(fore, connectivity=8)
        inside = strong > 0
        piece_of = pieces[inside]
        label_of = np.zeros(count, np.int32)  # each piece lies in one blob
        label_of[piece_of] = labels[inside]
        still = np.bincount(piece_of, weights=self._still[inside], minlength=count) / np.maximum(areas, 1)
        every_arm = [a for found in arms.values() for a in found]
        arm_still = np.full(blobs, np.inf)  # per blob: how long its arm has been still (the least of its arms)
        for arm in every_arm:
            arm_still[label_of[arm]] = min(arm_still[label_of[arm]], still[arm])
        left = (still >= cfg.still_frames) & (still > arm_still[label_of] + cfg.still_frames) \
            & (areas >= self._min_area / 4)
        left[0] = False
        left[every_arm] = False
        if left.any():
            fore[left[pieces]] = 0
            _, labels, stats, _ = cv2.connectedComponentsWithStats(fore, connectivity=8)
            label_of[piece_of] = labels[inside]
        owners: dict[int, list[str]] = {}
        for player, found in arms.items():
            for arm in found:
                label = int(label_of[arm])
                if player not in owners.setdefault(label, []):
                    owners[label].append(player)
        clear = np.bincount(labels[inside], minlength=len(stats))  # (the blobs once the pieces left are cut out)
        for player, reaching in self._edges(labels).items():
            for label in reaching:
                if stats[label, cv2.CC_STAT_AREA] >= self._faint_area and clear[label] >= self._faint_clear \
                        and player not in owners.setdefault(label, []):
                    owners[label].append(player)
        return labels, stats, owners, strong

    def _learn(self, image: np.ndarray, hand_mask: np.ndarray, moving: np.ndarray) -> None:
        """Pixels still for `still_frames` (outside hands; inside after `forget_frames`) join the reference."""
        cfg = self.config
        assert self.reference is not None
        self._still = cv2.subtract(cv2.add(self._still, 1), moving)  # saturating: a moving pixel starts again at 0
        arm = cv2.dilate(hand_mask, self._kernel, iterations=2)
        settled = cv2.compare(self._still, cfg.still_frames, cv2.CMP_GE)
        forgotten = cv2.compare(self._still, cfg.forget_frames, cv2.CMP_GE)
        learn = cv2.bitwise_and(settled, cv2.bitwise_or(cv2.compare(arm, 0, cv2.CMP_EQ), forgotten))
        cv2.copyTo(image, learn, self.reference)
        self._previous = image

    def _describe(self, side: str, part: np.ndarray, hiding: np.ndarray, offset: tuple[int, int],
                  stirring: float, beneath: np.ndarray | None = None) -> Hand:
        """A hand from its blob (cut from the view at `offset`): the zones its `hiding` pixels (those
        differing clearly) cover, tip, entry, grip zone."""
        view = self.view
        height, width = view.size[1], view.size[0]
        mask = np.zeros((height, width), bool)
        x, y = offset
        mask[y:y + part.shape[0], x:x + part.shape[1]] = part
        hidden = np.zeros((height, width), bool)
        hidden[y:y + part.shape[0], x:x + part.shape[1]] = hiding
        over = []
        for name, zone in view.zones.items():
            zx, zy, zw, zh = view.boxes[name]
            covered = np.count_nonzero(hidden[zy:zy + zh, zx:zx + zw] & zone)
            if covered >= self.config.over_fraction * zone.sum():
                over.append(name)
        vs, us = np.nonzero(part)
        us = us + x
        vs = vs + y
        edge = EDGE_OF[side]
        # how far each pixel lies from the arm's own edge, in view pixels
        depth = {"bottom": height - 1 - vs, "top": vs, "left": us, "right": width - 1 - us}[edge]
        far = depth >= depth.max() - self.config.lead_cm * view.px_per_cm
        tip_px = np.array([us[far].mean(), vs[far].mean()])
        grip_px = self._leading(us[far], vs[far])
        near = depth <= depth.min() + 2
        entry_px = np.array([us[near].mean(), vs[near].mean()])
        tip, entry, fingers = view.to_table(tip_px), view.to_table(entry_px), view.to_table(grip_px)
        along = fingers - entry
        length = float(np.hypot(*along))
        back = -along / length if length > 1e-6 else np.zeros(2)
        grip_zone = None
        for step in np.arange(self.config.grip_cm, self.config.palm_cm + 1e-9, 1.0):  # from the fingers to the palm
            zone = view.calibration.layout.locate(fingers + back * step)
            if zone is not None and zone in view.zones:
                grip_zone = zone
                break
        grips_beneath = False
        if grip_zone is None and beneath is not None:
            grip_zone = self._beneath(tip, -back, beneath | part, offset)
            grips_beneath = grip_zone is not None
        return Hand(side, mask, tuple(over), (float(tip[0]), float(tip[1])), (float(entry[0]), float(entry[1])),
                    grip_zone, stirring, grips_beneath)

    def _beneath(self, end: np.ndarray, ahead: np.ndarray, beneath: np.ndarray, offset: tuple[int, int]) -> str | None:
        """The pile zone a hand hidden under another arm grips: the first met going on along its arm
        from the middle of its visible end (table cm; `ahead` a unit vector) up to `palm_cm`, while
        the way lies on its arm or under the other (`beneath`: their pixels in the blob cut at `offset`)."""
        view = self.view
        for step in np.arange(self.config.grip_cm, self.config.palm_cm + 1e-9, 1.0):
            point = end + ahead * step
            u, v = np.round(view.to_pixels(point)).astype(int) - np.array(offset)
            if not (0 <= v < beneath.shape[0] and 0 <= u < beneath.shape[1] and beneath[v, u]):
                return None
            zone = view.calibration.layout.locate(point)
            if zone is not None and zone in view.zones:
                return zone
        return None

    def _leading(self, us: np.ndarray, vs: np.ndarray) -> np.ndarray:
        """Where a hand grips (view px), from its leading pixels: their middle, or where they fall
        apart into pieces the middle of the piece that moved last (not a card it laid down or
        turned up a moment before, lying in the same row as the place it reaches now, nor the
        other arm's card where two arms meet: the reference has learned neither)."""
        x0, y0 = int(us.min()), int(vs.min())
        band = np.zeros((int(vs.max()) - y0 + 1, int(us.max()) - x0 + 1), np.uint8)
        band[vs - y0, us - x0] = 1
        count, pieces = cv2.connectedComponents(band, connectivity=8)
        if count <= 2:
            return np.array([us.mean(), vs.mean()])
        piece = pieces[vs - y0, us - x0]
        areas = np.bincount(piece, minlength=count)
        still = np.bincount(piece, weights=self._still[vs, us], minlength=count) / np.maximum(areas, 1)
        still[areas < self.view.px_per_cm**2] = np.inf  # specks under a square cm
        still[0] = np.inf
        if not np.isfinite(still).any():
            return np.array([us.mean(), vs.mean()])
        keep = piece == int(np.argmin(still))
        return np.array([us[keep].mean(), vs[keep].mean()])

    def _report(self, t: float, frame: int, face_down: frozenset[str]) -> tuple[HandSeen, ...]:
        """The hands as observations, with the contacts each side's hand has made and kept."""
        cfg = self.config
        out = []
        seen_sides = set()
        for hand in sorted(self.hands, key=lambda h: -h.mask.sum()):
            if hand.side in seen_sides:  # a second arm of one player: over zones, no contact of its own
                out.append(HandSeen(hand.side, hand.over, {}, (round(hand.tip[0], 2), round(hand.tip[1], 2))))
                continue
            seen_sides.add(hand.side)
            track = self._tracks[hand.side]
            if frame - track.seen_frame > 3:
                track.history.clear()
                track.contact.clear()
                track.tip = None
            track.seen_frame = frame
            # a hand whose grip lies under the other arm is still only where that arm is: its own
            # visible part may lie still while the hidden hand moves on beneath
            stirring = max([hand.stirring] + [h.stirring for h in self.hands if hand.grips_beneath and h.side != hand.side])
            # a hand gripping the spit pile it gripped in the frame before rests by its stirring alone
            # (where the other arm lies over it there, its tip jumps between strips of its rim), but not
            # while the other arm comes over it there (its grip may then be that arm's doing)
            coming = sum(n for (_, zone), n in hand.covered.items() if zone == hand.grip_zone)
            steady = hand.grip_zone in self._spit and bool(track.history) and track.history[-1].grip == hand.grip_zone \
                and coming < COVER_CM2 * cfg.px_per_cm**2
            still = stirring <= cfg.stir_share and track.tip is not None \
                and (math.dist(track.tip, hand.tip) < cfg.stop_cm or steady)
            held = still and not self._still_before(track, hand) and self._slowing(track, hand) \
                and self._overrun(hand)
            rest = still and not held
            track.tip = hand.tip
            before = track.history[-1] if track.history else None
            track.history.append(_Step(t, stirring, rest, hand.tip, hand.grip_zone, hand.covered, hand.over, held))
            del track.history[:-16]
            grip = hand.grip_zone
            if rest and grip is not None and grip not in track.contact:
                arrival = self._turned(track.history, grip) if grip in face_down else self._arrival(track.history)
                track.contact = {grip: arrival}
            elif not rest and before is not None and before.held \
                    and before.grip is not None and before.grip not in track.contact:
                # held back in the frame before and not at rest now: it touched there (a card laid and left)
                track.contact = {before.grip: self._arrival(track.history[:-1])}
            elif not rest and not (stirring <= cfg.stir_share and grip in track.contact):
                # (a hand lying still on the zone it touches keeps the touch while only its tip jumps)
                track.contact.clear()
            over = tuple(hand.over) + tuple(z for z in track.contact if z not in hand.over)
            beneath = hand.beneath if self._spit & set(track.contact) else ()  # (where it rests on that pile)
            out.append(HandSeen(hand.side, over, dict(track.contact), (round(hand.tip[0], 2), round(hand.tip[1], 2)),
                                self._under(hand.side, track, t), beneath))
        for side, track in self._tracks.items():
            if side not in seen_sides and frame - track.seen_frame > 3:
                track.history.clear()
                track.contact.clear()
        return tuple(out)

    def _overrun(self, hand: Hand) -> bool:
        """Whether the other arm took, in this frame, at least `COVER_CM2` of `hand`'s pixels on the
        zone it grips and at least `COVER_ODDS` times as many as it gave back there. The pixels a hand
        loses so changed and are not counted in its stirring: what is left of it may lie still while
        it still moves (a hand slowing over the pile as the other arm reaches in beside or over it),
        so it does not come to rest in the first such frame (`_still_before`: it does in the next
        frame it is seen still on that zone; where it is not at rest in that next frame, moving on or
        its tip jumping, it touched the zone in the frame held back, and its contact is reported then,
        dated as it would have been).
        Where both arms give up pixels about equally (both moving, the split shifting between them)
        its stirring stands."""
        zone = hand.grip_zone
        taken = sum(n for (_, where), n in hand.covered.items() if where == zone)
        given = sum(n for other in self.hands if other.side != hand.side
                    for (side, where), n in other.covered.items() if side == hand.side and where == zone)
        return taken >= COVER_CM2 * self.config.px_per_cm**2 and taken >= COVER_ODDS * given

    def _slowing(self, track: _Track, hand: Hand) -> bool:
        """Whether `hand`'s side gripped the zone it grips now in each of the last `SLOWING_FRAMES`
        frames, stirring no more than `SLOWING_SHARE` of its pixels in each: a hand slowing over the
        pile (coming down flat, hovering, sliding on from where it laid a card) changes few of its
        pixels from frame to frame, and those are the pixels the other arm takes as it comes over
        it, so the rest of it may lie still while it still moves. A hand coming in fast (over half
        its pixels changing a few frames before) that lies still as the other arm reaches it has
        stopped: the first hand of a race, which the other arm then comes over."""
        steps = track.history[-SLOWING_FRAMES:]
        return len(steps) == SLOWING_FRAMES and all(
            step.grip == hand.grip_zone and step.stirring <= SLOWING_SHARE for step in steps)

    def _still_before(self, track: _Track, hand: Hand) -> bool:
        """Whether `hand`'s side was at rest in the frame before, or stirred no more than `stir_share`
        there on the zone it grips now (a hand lying on the pile that the other arm goes on sliding
        over: one frame held back is enough)."""
        if not track.history:
            return False
        last = track.history[-1]
        return last.rest or (last.stirring <= self.config.stir_share and last.grip == hand.grip_zone)

    def _under(self, side: str, track: _Track, t: float) -> tuple[str, ...]:
        """The sides whose hands lie over `side`'s where it touches: in the last `COVER_S` the
        other arm took at least `COVER_CM2` of its pixels on the zone it touches and `COVER_ODDS`
        times as many as it gave back there (a hand slapping a pile over the hand already on it)."""
        least = COVER_CM2 * self.config.px_per_cm**2
        under = []
        for other, theirs in self._tracks.items():
            if other == side:
                continue
            for zone in track.contact:
                taken = sum(step.covered.get((other, zone), 0) for step in track.history if step.t > t - COVER_S)
                given = sum(step.covered.get((side, zone), 0) for step in theirs.history if step.t > t - COVER_S)
                if taken >= least and taken >= COVER_ODDS * given:
                    under.append(other)
                    break
        return tuple(under)

    def _arrival(self, history: list[_Step]) -> float:
        """When a hand found at rest in the last frame came to rest. The frame-to-frame steps are
        measured by the share of its pixels that changed: the first frame of the run at rest shows
        the hand already resting in the frame before it, and the two steps before that date the
        arrival inside their interval (a minimum-jerk ending: the distance still to go falls as
        the cube of the time to go, so the ratio of the last step to the one before says how much
        of the interval the hand still moved in)."""
        j = len(history) - 1
        while j > 0 and history[j - 1].rest:
            j -= 1
        if j <= 1:
            return history[0].t
        t0, before = history[j - 2].t, history[j - 2].stirring
        t1, last = history[j - 1].t, history[j - 1].stirring
        if before <= 1e-6:
            return t1
        ratio = min(last / before, 1 / 7)
        s = (ratio / (1 + ratio)) ** (1 / 3)
        return t0 + s / (1 - s) * (t1 - t0)

    def _turned(self, history: list[_Step], zone: str) -> float:
        """When a hand found at rest in the last frame on a face-down card touched it: the card it
        turns over in place stirs under it until it lies turned, so the hand is at rest only then;
        between its reach and the turn it stirs least (its reach has ended, the card not yet begun
        to move). A dip is a frame of least stirring that rose again in the next frame, by `DIP`
        times on one side or the other (not a reach wavering on its way), in the `turn_s` before
        the run at rest on `zone` began and since the hand last rested elsewhere. The hand comes
        near a stop a second time in the turn, at the top of its lift, and that dip may be the
        deeper: of the dips stirring at most `NEAR_STOP` times the least, the first is the reach's
        end. With no dip, the first frame of the run at rest (the hand stopped on the card before
        turning it: its contact, found again once the card lies turned, is dated the same both times)."""
        j = len(history) - 1
        while j > 0 and history[j - 1].rest:
            j -= 1
        dips: list[_Step] = []
        for k in range(j - 2, -1, -1):
            step = history[k]
            if step.t < history[j].t - self.config.turn_s or (step.rest and step.grip != zone):
                break
            before = history[k - 1].stirring if k > 0 else step.stirring
            after = history[k + 1].stirring
            if step.stirring <= before and step.stirring < after and max(before, after) > DIP * step.stirring:
                dips.append(step)
        if not dips:
            return history[j].t
        least = min(step.stirring for step in dips)
        return min(step.t for step in dips if step.stirring <= NEAR_STOP * least)
