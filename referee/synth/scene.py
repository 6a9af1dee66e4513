"""Scene description (cards, markers, hands, lighting on the table plane) and its rendering to an image."""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from referee.synth.annotation import Annotation, CardLabel, HandLabel, MarkerLabel
from referee.synth.camera import Camera
from referee.synth.faces import CARD_H_CM, CARD_W_CM, FACE_H, FACE_W, FaceSource
from referee.synth.hands import HandPose, hand_parts
from referee.synth.props import Prop, prop_raster
from referee.synth.table import FINE_KINDS, TableStyle, render_table

BACK = "back"
CARD_THICKNESS_CM = 0.03
INDEX_REGION = (0.03, 0.03, 0.22, 0.27)
"""The top-left index corner as fractions of the card (left, top, right, bottom)."""
_OWNER_HAND = -2
_OWNER_NONE = -1
_OWNER_MARKER = -10
"""Marker m owns its pixels as _OWNER_MARKER - m."""


@dataclass(frozen=True)
class CardPlacement:
    """A card on the table: face `code` (or "back"), centre (x, y) cm, turned `angle` degrees
    counter-clockwise from upright for player A (0: the card's top edge towards player B),
    lying `height` cm above the table; higher `z` is drawn on top. `zone`: a pile name or None.
    `lift` cm: how far it floats above what is under it (casts the shadow; a card held in a
    hand has a large lift)."""

    code: str
    x: float
    y: float
    angle: float = 0.0
    z: int = 0
    height: float = 0.0
    zone: str | None = None
    lift: float = 0.04
    shade: float = 0.0
    """Brightness change from the card's left to its right edge (a slightly bent card), e.g. -0.1..0.1."""
    motion_cm: float = 0.0
    motion_angle: float = 0.0
    """How far and which way (degrees, 0 = +y) the card moves while the shutter is open; the
    annotation gives its place in the middle of that movement."""
    tilt: float = 0.0
    """Degrees the card turns about its middle line parallel to its top edge, lifting the top
    edge (a card being picked up or turned over; 180 shows its other side)."""
    roll: float = 0.0
    """Degrees the card turns about its middle line parallel to its side edges, lifting its right edge."""


@dataclass(frozen=True)
class MarkerPlacement:
    """An ArUco marker (DICT_4X4_50) printed on a white square, centre (x, y) cm, side `size` cm,
    upright for player A (its top towards player B) and turned `angle` degrees."""

    marker_id: int
    x: float
    y: float
    size: float = 5.0
    angle: float = 0.0


@dataclass(frozen=True)
class GlareSpot:
    """A lamp's reflection: where on the table plane it shows, its radius (cm) and strength."""

    x: float
    y: float
    radius: float
    strength: float


@dataclass(frozen=True)
class Lighting:
    """Room light: the key light's direction, shadow strength, a brightness ramp, glare, colour."""

    azimuth: float = 135.0
    """Compass direction the light comes from, degrees (0: from player B's side)."""
    elevation: float = 60.0
    shadow: float = 0.45
    ambient_ramp: float = 0.15
    ramp_angle: float = 0.0
    brightness: float = 1.0
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)
    vignette: float = 0.15
    glare: tuple[GlareSpot, ...] = ()
    gloss: float = 0.6
    """How much glare shows on cards (and a quarter of it on the table)."""


@dataclass(frozen=True, eq=False)
class Deck:
    """The look of the cards in a scene: a face source and one back image (RGBA, FACE_H x FACE_W)."""

    faces: FaceSource
    back: np.ndarray
    back_name: str = "back"


@dataclass(frozen=True)
class Scene:
    """Everything on and over the table; rendering it with a camera gives an image and its labels."""

    cards: tuple[CardPlacement, ...]
    table: TableStyle
    hands: tuple[HandPose, ...] = ()
    markers: tuple[MarkerPlacement, ...] = ()
    lighting: Lighting = field(default_factory=Lighting)
    props: tuple[Prop, ...] = ()
    """Other things on the table, under the cards; not annotated."""


@dataclass(frozen=True, eq=False)
class Rendered:
    """A rendered frame (float32 RGB 0..1, before sensor effects) with its exact annotation."""

    image: np.ndarray
    annotation: Annotation


def card_corners_table(card: CardPlacement) -> np.ndarray:
    """The card's corners on the table frame (4 x 3, cm): top-left, top-right, bottom-right, bottom-left as printed."""
    w, h = CARD_W_CM / 2, CARD_H_CM / 2
    return _card_points(card, np.array([[-w, h], [w, h], [w, -h], [-w, -h]]))


def _card_rotation(angle: float, tilt: float = 0.0, roll: float = 0.0) -> np.ndarray:
    """3x3 rotation from card coordinates (x to its right edge, y to its top edge, z out of its
    face) to the table frame."""
    a, t, r = (math.radians(v) for v in (angle, tilt, roll))
    rz = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    rx = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
    ry = np.array([[math.cos(r), 0, -math.sin(r)], [0, 1, 0], [math.sin(r), 0, math.cos(r)]])
    return rz @ rx @ ry


def _card_points(card: CardPlacement, local: np.ndarray) -> np.ndarray:
    """Points given in card coordinates (N x 2, cm from its centre) on the table frame (N x 3)."""
    rot = _card_rotation(card.angle, card.tilt, card.roll)
    return local @ rot[:, :2].T + (card.x, card.y, card.height)


def _faces_camera(card: CardPlacement, camera: Camera) -> bool:
    """Whether the camera looks at the card's printed side (for a back: at the back)."""
    normal = _card_rotation(card.angle, card.tilt, card.roll)[:, 2]
    return float(normal @ (camera.centre - (card.x, card.y, card.height))) >= 0


def _place(local: np.ndarray, x: float, y: float, angle: float, z: float) -> np.ndarray:
    """Points of something flat (N x 2, cm from its centre), turned `angle` and put at (x, y, z)."""
    return local @ _card_rotation(angle)[:, :2].T + (x, y, z)


def _raster_to_world(w_cm: float, h_cm: float, cols: int, rows: int, centre: tuple[float, float, float],
                     rotation: np.ndarray) -> np.ndarray:
    """4x3 map from raster pixel indices (col, row, 1) of a face to homogeneous table-frame points."""
    to_local = np.array([[w_cm / cols, 0, (0.5 * w_cm / cols) - w_cm / 2],
                         [0, -h_cm / rows, h_cm / 2 - 0.5 * h_cm / rows], [0, 0, 1]])
    out = np.zeros((4, 3))
    out[:3, :] = np.column_stack([rotation[:, 0], rotation[:, 1], np.array(centre)]) @ to_local
    out[3, :] = to_local[2]
    return out


def _flat(angle: float, x: float, y: float, z: float, w_cm: float, h_cm: float, cols: int, rows: int) -> np.ndarray:
    return _raster_to_world(w_cm, h_cm, cols, rows, (x, y, z), _card_rotation(angle))


_MIPS: dict[int, tuple[np.ndarray, list[np.ndarray]]] = {}


def _mip(raster: np.ndarray, level: int) -> np.ndarray:
    """The raster halved `level` times (cached per raster object, for cached faces and backs)."""
    entry = _MIPS.get(id(raster))
    if entry is None or entry[0] is not raster:
        if len(_MIPS) > 600:
            _MIPS.clear()
        entry = (raster, [raster])
        _MIPS[id(raster)] = entry
    levels = entry[1]
    while len(levels) <= level:
        levels.append(cv2.pyrDown(levels[-1]))
    return levels[level]


_TO_INDEX = np.array([[1, 0, -0.5], [0, 1, -0.5], [0, 0, 1.0]])
"""Continuous image coordinates to OpenCV pixel indices."""
_STEP = 8
"""Smooth light fields are computed every _STEP pixels and resized."""


class Canvas:
    """A frame drawn in layers, the way `render_scene` draws a scene: the table with its markers and
    props when made, then cards (`draw_cards`), then hands (`draw_hand`, `draw_hands`), then the light
    and the annotation (`finish`).

    `image` is the frame so far (float32 RGB 0..1, before the light); a caller may copy parts of one
    canvas's image into another's. `copy()` gives a canvas to go on drawing on, leaving this one as it
    is: a video renderer keeps canvases as layers (the bare table, the cards lying still) and draws
    only what changed on a copy. With `labels=False` the canvas keeps no record of what shows where
    (a little faster, for frames annotated elsewhere; `finish` then refuses)."""

    def __init__(self, camera: Camera, table: TableStyle, lighting: Lighting, deck: Deck,
                 markers: Sequence[MarkerPlacement] = (), props: Sequence[Prop] = (), labels: bool = True) -> None:
        self.camera, self.table, self.lighting, self.deck = camera, table, lighting, deck
        self.markers = tuple(markers)
        self.w, self.h = camera.width, camera.height
        self.image = _table_image(camera, table)
        self._owner = np.full((self.h, self.w), _OWNER_NONE, np.int16) if labels else None
        """Which card (its index in `_cards`) or marker shows at each pixel."""
        self._drawn: dict[int, int] = {}
        """Pixels each card covered when it was drawn (inside the frame, before anything hid it)."""
        self._cards: list[CardPlacement] = []
        self._hands: list[HandLabel] = []
        az, el = math.radians(lighting.azimuth), math.radians(max(lighting.elevation, 10.0))
        # shadows fall away from the light: a point at height z lands this far along the table per cm
        self._shadow_dir = -np.array([math.sin(az), math.cos(az)]) / math.tan(el)
        for m, marker in enumerate(self.markers):
            rgba, paper_cm = _marker_raster(marker)
            to_world = _flat(marker.angle, marker.x, marker.y, 0.0, paper_cm, paper_cm, rgba.shape[1], rgba.shape[0])
            self._paste(rgba, to_world, _OWNER_MARKER - m, lighting.shadow * 0.5, 0.02)
        for prop in props:
            rgba = prop_raster(prop.kind, prop.color, prop.seed)
            w_cm, h_cm, height = prop.size
            to_world = _flat(prop.angle, prop.x, prop.y, height, w_cm, h_cm, rgba.shape[1], rgba.shape[0])
            self._paste(rgba, to_world, None, lighting.shadow * 0.8, max(height, 0.02))

    def copy(self) -> Canvas:
        """A canvas with this one's drawing (and labels) to go on drawing on; this one stays as it is."""
        out = copy.copy(self)
        out.image = self.image.copy()
        if self._owner is not None:
            out._owner, out._drawn = self._owner.copy(), dict(self._drawn)
            out._cards, out._hands = list(self._cards), list(self._hands)
        return out

    def draw_cards(self, cards: Sequence[CardPlacement]) -> None:
        """Draw cards over what is drawn, each with its shadow, in stacking order (higher `z` on top;
        of equal `z`, the later one); a card turned away from the camera shows its other side."""
        first = len(self._cards)
        if self._owner is not None:
            self._cards.extend(cards)
        shadow = self.lighting.shadow
        for k in sorted(range(len(cards)), key=lambda k: (cards[k].z, k)):
            card = cards[k]
            owner = first + k if self._owner is not None else None
            rotation = _card_rotation(card.angle, card.tilt, card.roll)
            face_up = card.code != BACK
            if not _faces_camera(card, self.camera):  # turned over: the other side shows, mirrored
                face_up = not face_up
                rotation = rotation @ np.diag([-1.0, 1.0, -1.0])
            raster = self.deck.faces.face(card.code) if face_up and card.code != BACK else self.deck.back
            drop = max(card.lift, 0.02)
            to_world = _raster_to_world(CARD_W_CM, CARD_H_CM, FACE_W, FACE_H, (card.x, card.y, card.height), rotation)
            blur = None
            if card.motion_cm > 0:
                a = math.radians(card.motion_angle)
                dx, dy = card.motion_cm * math.sin(a) / 2, card.motion_cm * math.cos(a) / 2
                ends = self.camera.project(np.array([[card.x - dx, card.y - dy, card.height],
                                                     [card.x + dx, card.y + dy, card.height]]))
                blur = np.nan_to_num(ends[1] - ends[0])
            if drop < 0.3 and card.tilt == 0 and card.roll == 0:
                self._paste(raster, to_world, owner, shadow * 0.7, drop, card.shade, blur)
            else:
                self._shadow(card_corners_table(card), drop, shadow)
                self._paste(raster, to_world, owner, shade=card.shade, blur=blur)

    def draw_hand(self, pose: HandPose) -> None:
        """Draw a hand and its arm over what is drawn, with its shadow."""
        outline = self._hand(pose)
        if self._owner is not None and len(outline) >= 3:
            self._hands.append(HandLabel(pose.side, _points(outline)))

    def draw_hands(self, poses: Sequence[HandPose]) -> None:
        """Draw hands over what is drawn, the lower ones first (labelled in the given order)."""
        outlines = {k: self._hand(poses[k]) for k in sorted(range(len(poses)), key=lambda k: poses[k].height)}
        if self._owner is not None:
            self._hands.extend(HandLabel(pose.side, _points(outlines[k])) for k, pose in enumerate(poses)
                               if len(outlines[k]) >= 3)

    def _roi(self, pts: np.ndarray, pad: float) -> tuple[int, int, int, int] | None:
        if not np.all(np.isfinite(pts)):
            return None
        x0, y0 = np.floor(pts.min(axis=0) - pad).astype(int)
        x1, y1 = np.ceil(pts.max(axis=0) + pad).astype(int)
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, self.w), min(y1, self.h)
        if x1 <= x0 or y1 <= y0:
            return None
        return x0, y0, x1, y1

    def _shadow_shift(self, centre: np.ndarray, drop: float) -> np.ndarray:
        """Where (in whole pixels) the shadow of a point (x, y, z cm) lands relative to the point itself."""
        x, y, z = centre
        dx, dy = self._shadow_dir * drop
        p = self.camera.project(np.array([[x, y, z], [x + dx, y + dy, max(z - drop, 0.0)]]))
        return np.nan_to_num(np.round(p[1] - p[0])).astype(int)

    def _shadow(self, outline: np.ndarray, drop: float, strength: float) -> None:
        """Darken what lies under an outline (N x 3 cm) lifted `drop` cm above it (or above the table)."""
        shifted = outline.copy()
        shifted[:, 2] = np.maximum(outline[:, 2] - drop, 0.0)
        shifted[:, :2] += self._shadow_dir * (outline[:, 2:3] - shifted[:, 2:3])
        pts = self.camera.project(shifted)
        ppc = self.camera.pixels_per_cm(float(outline[:, 0].mean()), float(outline[:, 1].mean()))
        sigma = max(0.6, (0.07 + 0.22 * drop) * ppc)
        box = self._roi(pts, 3 * sigma + 2)
        if box is None:
            return
        x0, y0, x1, y1 = box
        mask = np.zeros((y1 - y0, x1 - x0), np.float32)
        cv2.fillPoly(mask, [np.round((pts - 0.5 - (x0, y0)) * 16).astype(np.int32)], 1.0, cv2.LINE_8, shift=4)
        mask = _blur_small(mask, sigma)
        self.image[y0:y1, x0:x1] *= (1 - strength * mask)[..., None]

    def _soft_shadow(self, outlines: list[np.ndarray], strength: float) -> None:
        """The shadow of several raised outlines (N x 3 cm each) on the table, drawn at a quarter
        of the resolution (it is blurred by several centimetres anyway)."""
        f = 4
        mask = np.zeros((self.h // f + 2, self.w // f + 2), np.float32)
        drops = []
        for outline in outlines:
            drop = float(outline[:, 2].mean())
            shifted = outline.copy()
            shifted[:, :2] += self._shadow_dir * outline[:, 2:3]
            shifted[:, 2] = 0.0
            pts = self.camera.project(shifted)
            if not np.all(np.isfinite(pts)):
                continue
            poly = np.round(np.clip(pts / f, -1e4, 1e4) * 16).astype(np.int32)
            cv2.fillPoly(mask, [poly], 1.0, cv2.LINE_8, shift=4)
            drops.append(drop)
        if not drops:
            return
        centre = np.mean([o[:, :2].mean(axis=0) for o in outlines], axis=0)
        ppc = self.camera.pixels_per_cm(float(centre[0]), float(centre[1]))
        sigma = max(1.2, (0.07 + 0.12 * float(np.median(drops))) * ppc / f)
        mask = cv2.GaussianBlur(mask, (0, 0), sigma)
        ys, xs = np.nonzero(mask > 0.004)
        if len(xs) == 0:
            return
        mx0, my0, mx1, my1 = xs.min(), ys.min(), xs.max() + 1, ys.max() + 1
        x0, y0, x1, y1 = mx0 * f, my0 * f, min(mx1 * f, self.w), min(my1 * f, self.h)
        if x1 <= x0 or y1 <= y0:
            return
        part = cv2.resize(mask[my0:my1, mx0:mx1], ((mx1 - mx0) * f, (my1 - my0) * f), interpolation=cv2.INTER_LINEAR)
        self.image[y0:y1, x0:x1] *= cv2.merge([1 - strength * part[:y1 - y0, :x1 - x0]] * 3)

    def _paste(self, rgba: np.ndarray, to_world: np.ndarray, owner: int | None,
              contact_shadow: float = 0.0, drop: float = 0.04, shade: float = 0.0,
              blur: np.ndarray | None = None) -> None:
        """Warp an RGBA raster whose pixels map to the table frame by `to_world` (4 x 3),
        first darkening what is under it with a soft contact shadow of strength `contact_shadow`
        (for things lying `drop` cm above what is under them); `shade` brightens the raster's
        right edge against its left; `blur` smears it along an image vector (pixels)."""
        rows, cols = rgba.shape[:2]
        H = _TO_INDEX @ self.camera.projection() @ to_world
        corners = np.array([[-0.5, -0.5, 1], [cols - 0.5, -0.5, 1], [cols - 0.5, rows - 0.5, 1], [-0.5, rows - 0.5, 1]])
        img_pts = corners @ H.T
        if np.any(img_pts[:, 2] <= 0):
            return
        pts = img_pts[:, :2] / img_pts[:, 2:]
        area = abs(cv2.contourArea(pts.astype(np.float32)))
        world_area = float(np.linalg.norm(np.cross(to_world[:3, 0], to_world[:3, 1]))) * rows * cols
        ppc = math.sqrt(area / max(world_area, 1e-9))
        sigma = max(0.6, (0.07 + 0.22 * drop) * ppc)
        shift = self._shadow_shift(to_world[:3] @ np.array([(cols - 1) / 2, (rows - 1) / 2, 1.0]), drop)
        smear = blur if blur is not None and float(np.abs(blur).max()) >= 1.0 else None
        pad = int(3 * sigma + 2 + np.abs(shift).max()) if contact_shadow > 0 else 2
        if smear is not None:
            pad += int(np.ceil(np.abs(smear).max() / 2)) + 1
        box = self._roi(pts + 0.5, pad)
        if box is None:
            return
        # shrink the raster first when the card is small in the frame, so it does not alias
        scale = math.sqrt(area / (rows * cols))
        level = 0
        while scale < 0.6 ** (level + 1) and level < 3:
            level += 1
        if level:
            small = _mip(rgba, level)
            sx, sy = cols / small.shape[1], rows / small.shape[0]
            H = H @ np.array([[sx, 0, 0.5 * sx - 0.5], [0, sy, 0.5 * sy - 0.5], [0, 0, 1]])
            rgba = small
        x0, y0, x1, y1 = box
        M = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]]) @ H
        warped = cv2.warpPerspective(rgba, M, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
        alpha = warped[..., 3].astype(np.float32) * (1 / 255)
        region = self.image[y0:y1, x0:x1]
        if contact_shadow > 0:
            mask = _blur_small(_shifted(alpha, int(shift[0]), int(shift[1])), sigma)
            region *= cv2.merge([1 - contact_shadow * mask] * 3)
        rgb = warped[..., :3].astype(np.float32) * (1 / 255)
        if shade:
            mid = (pts[[1, 2]].mean(axis=0) - pts[[0, 3]].mean(axis=0))
            centre = pts.mean(axis=0) - (x0, y0)
            gx, gy = shade * mid / max(float(mid @ mid), 1e-6)
            xs = np.arange(x1 - x0, dtype=np.float32) - np.float32(centre[0])
            ys = np.arange(y1 - y0, dtype=np.float32) - np.float32(centre[1])
            rgb *= (1.0 + gx * xs[None, :] + gy * ys[:, None])[..., None]
        if smear is not None:
            premultiplied = _motion_blur(rgb * alpha[..., None], smear)
            alpha = _motion_blur(alpha, smear)
            region *= 1 - alpha[..., None]
            region += premultiplied
        else:
            self.image[y0:y1, x0:x1] = cv2.blendLinear(region, rgb, 1 - alpha, alpha)
        if owner is not None and self._owner is not None:
            drawn = alpha >= 0.5
            self._owner[y0:y1, x0:x1][drawn] = owner
            self._drawn[owner] = self._drawn.get(owner, 0) + int(np.count_nonzero(drawn))

    def _hand(self, pose: HandPose) -> np.ndarray:
        """Draw a hand with its shadow; returns its outline in the image (N x 2, clipped to the frame;
        none without labels)."""
        parts = hand_parts(pose)
        outlines = [self.camera.project(p.points) for p in parts]
        self._soft_shadow([p.points for p in parts], self.lighting.shadow * 0.9)
        finite = [o for o in outlines if np.all(np.isfinite(o))]
        blur = np.zeros(2)
        if pose.motion_cm > 0:
            a = math.radians(pose.motion_angle)
            ends = self.camera.project(np.array([[pose.x, pose.y, pose.height],
                                                 [pose.x + pose.motion_cm * math.sin(a),
                                                  pose.y + pose.motion_cm * math.cos(a), pose.height]]))
            blur = np.nan_to_num(ends[1] - ends[0])
        box = self._roi(np.concatenate(finite), 3 + float(np.abs(blur).max())) if finite else None
        if box is None:
            return np.zeros((0, 2))
        x0, y0, x1, y1 = box
        az = math.radians(self.lighting.azimuth)
        ends = self.camera.project(np.array([[pose.x, pose.y, pose.height],
                                             [pose.x + math.sin(az), pose.y + math.cos(az), pose.height]]))
        towards_light = np.nan_to_num(ends[1] - ends[0])
        towards_light /= max(float(np.hypot(*towards_light)), 1e-6)
        # a big hand is drawn at a lower resolution: it is smooth, and the saving is large
        f = 1 if (x1 - x0) * (y1 - y0) < 150_000 else 2
        lw, lh = -(-(x1 - x0) // f), -(-(y1 - y0) // f)
        layer = np.zeros((lh, lw, 4), np.float32)  # premultiplied colour and alpha
        for part, pts in zip(parts, outlines):
            if not np.all(np.isfinite(pts)):
                continue
            local = (pts - (x0, y0)) / f  # continuous coordinates in the layer
            px0, py0 = np.maximum(np.floor(local.min(axis=0) - 2).astype(int), 0)
            px1, py1 = np.minimum(np.ceil(local.max(axis=0) + 2).astype(int), (lw, lh))
            if px1 <= px0 or py1 <= py0:
                continue
            poly = np.round((local - 0.5 - (px0, py0)) * 16).astype(np.int32)
            mask = _fill(poly, (py1 - py0, px1 - px0))
            size = max(1.0, math.sqrt(max(cv2.contourArea(local.astype(np.float32)), 1.0)))
            # rounded shading: darker towards the part's edges, brightest a little towards the light
            lit = np.round(towards_light * size * 0.12).astype(int)
            shade = _blur_small(_shifted(mask, int(lit[0]), int(lit[1])), max(0.8, size * 0.2))
            np.minimum(shade * 1.6, 1.0, out=shade)
            base = np.array(part.color, np.float32) / 255
            weight = (0.55 + 0.55 * shade) * mask
            tone = cv2.merge([weight * float(b) for b in base])
            for detail in part.details[:-1]:  # finger creases
                line = np.round(((self.camera.project(detail) - (x0, y0)) / f - 0.5 - (px0, py0)) * 16).astype(np.int32)
                cv2.polylines(tone, [line], False, tuple(float(v) * 0.45 for v in base), 1, cv2.LINE_AA, shift=4)
            if part.details:  # the nail: paler and a little glossy
                nail = np.round(((self.camera.project(part.details[-1]) - (x0, y0)) / f - 0.5 - (px0, py0))
                                * 16).astype(np.int32)
                nail_colour = 0.55 * base + 0.45 * np.array((0.93, 0.78, 0.74))
                cv2.fillPoly(tone, [nail], tuple(float(v) for v in nail_colour), cv2.LINE_AA, shift=4)
            if part.kind.startswith("finger") or part.kind == "thumb":
                cv2.polylines(tone, [poly], True, tuple(float(v) * 0.5 for v in base), 1, cv2.LINE_AA, shift=4)
            sub = layer[py0:py1, px0:px1]
            cv2.multiply(tone, cv2.merge([(mask > 0).astype(np.float32)] * 3), dst=tone)
            cv2.multiply(sub, cv2.merge([1 - mask] * 4), dst=sub)
            cv2.add(sub, cv2.merge([tone, mask]), dst=sub)
        if np.abs(blur).max() >= 1.0:
            layer = _motion_blur(layer, blur / f)
        colour, alpha = cv2.cvtColor(layer, cv2.COLOR_RGBA2RGB), cv2.extractChannel(layer, 3)
        if f > 1:
            colour = cv2.resize(colour, (lw * f, lh * f), interpolation=cv2.INTER_LINEAR)[:y1 - y0, :x1 - x0]
            alpha = cv2.resize(alpha, (lw * f, lh * f), interpolation=cv2.INTER_LINEAR)[:y1 - y0, :x1 - x0]
        region = self.image[y0:y1, x0:x1]
        cv2.multiply(region, cv2.cvtColor(1 - alpha, cv2.COLOR_GRAY2RGB), dst=region)
        cv2.add(region, colour, dst=region)
        if self._owner is None:
            return np.zeros((0, 2))
        inside = alpha >= 0.5
        self._owner[y0:y1, x0:x1][inside] = _OWNER_HAND
        contours, _ = cv2.findContours(inside.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if not contours:
            return np.zeros((0, 2))
        outline = cv2.approxPolyDP(max(contours, key=cv2.contourArea), 1.0, True)[:, 0, :]
        return outline.astype(np.float64) + (x0 + 0.5, y0 + 0.5)

    def gain(self) -> np.ndarray:
        """What `finish` does to the bare table, as one per-pixel factor (float32 H x W x 3): the
        light ramp, vignetting and white balance, and the glare as it shows on a table of brightness
        0.25. Multiplying a frame by it lights it at once (video frames: cards then shine like the table)."""
        grey = 0.25
        image = np.full((self.h, self.w, 3), grey, np.float32)
        glare = self._glare()
        if glare is not None:
            image += (glare * np.float32(self.lighting.gloss * 0.25))[..., None]
        image *= self._light()
        return image * (1 / grey)

    def finish(self) -> Rendered:
        """The frame under the light (glare, ramp, vignetting, white balance) with its exact annotation."""
        if self._owner is None:
            raise ValueError("a canvas made with labels=False cannot be annotated")
        L = self.lighting
        image = self.image.copy()
        glare = self._glare()
        if glare is not None:
            gloss = np.where(self._owner >= 0, L.gloss, L.gloss * 0.25).astype(np.float32)
            image += (glare * gloss)[..., None]
        image *= self._light()
        return Rendered(np.clip(image, 0, 1, out=image), self._annotation(self._owner))

    def _grid(self) -> tuple[np.ndarray, np.ndarray]:
        """Pixel coordinates every `_STEP` pixels (from pixel 0), for smooth fields."""
        ys, xs = np.mgrid[0:self.h + _STEP:_STEP, 0:self.w + _STEP:_STEP].astype(np.float32)
        return xs, ys

    def _glare(self) -> np.ndarray | None:
        """The lamps' reflections' strength at each pixel (float32 H x W), None without any."""
        if not self.lighting.glare:
            return None
        xs, ys = self._grid()
        glare = np.zeros(xs.shape, np.float32)
        for spot in self.lighting.glare:
            c = self.camera.project(np.array([[spot.x, spot.y, 0.0]]))[0]
            if not np.all(np.isfinite(c)):
                continue
            r = spot.radius * self.camera.pixels_per_cm(spot.x, spot.y)
            glare += spot.strength * np.exp(-((xs - c[0]) ** 2 + (ys - c[1]) ** 2) / (2 * r * r))
        return _upsample(glare, _STEP, self.w, self.h)

    def _light(self) -> np.ndarray:
        """The light ramp, vignetting and white balance as a per-pixel factor (float32 H x W x 3)."""
        L = self.lighting
        xs, ys = self._grid()
        a = math.radians(L.ramp_angle)
        u = ((xs / self.w - 0.5) * math.cos(a) + (ys / self.h - 0.5) * math.sin(a))
        r2 = ((xs / self.w - 0.5) ** 2 + (ys / self.h - 0.5) ** 2) * 2
        light = L.brightness * (1 + L.ambient_ramp * 2 * u) * (1 - L.vignette * r2)
        light_rgb = light[..., None] * np.array(L.white_balance, np.float32)
        return _upsample(light_rgb.astype(np.float32), _STEP, self.w, self.h)

    def _annotation(self, owner: np.ndarray) -> Annotation:
        """What shows where in the frame drawn so far (see `referee.synth`), from its `owner` map."""
        camera = self.camera
        markers: list[MarkerLabel] = []
        for m, marker in enumerate(self.markers):
            corners = camera.project(marker_corners_table(marker))
            if np.all(np.isfinite(corners)):
                s_ = marker.size / 2
                grid = np.linspace(-s_ * 0.9, s_ * 0.9, 6)
                samples = camera.project(_place(np.array([(u, v) for u in grid for v in grid]), marker.x, marker.y,
                                                marker.angle, 0.0))
                seen = _owned(owner, samples, _OWNER_MARKER - m)
                markers.append(MarkerLabel(marker.marker_id, _points(corners), round(seen / len(samples), 3)))
        shown = owner[owner >= 0]
        seen_counts = np.bincount(shown.astype(np.int64), minlength=len(self._cards))
        labels = []
        for k, card in enumerate(self._cards):
            corners = camera.project(card_corners_table(card))
            if not np.all(np.isfinite(corners)):
                continue  # partly behind the camera: never in the frame
            area = abs(cv2.contourArea(corners.astype(np.float32)))
            drawn = self._drawn.get(k, 0)
            visible = min(1.0, int(seen_counts[k]) / drawn) if drawn > 0 else 0.0
            in_frame = min(1.0, drawn / area) if area > 0 else 0.0
            index = [False, False]
            shows_face = card.code != BACK and _faces_camera(card, camera)
            if shows_face:
                for side in (0, 1):
                    pts = camera.project(_index_points(card, side == 1))
                    index[side] = bool(_owned(owner, pts, k) >= 0.75 * len(pts))
            labels.append(CardLabel(card.code if shows_face else BACK, _points(corners), round(visible, 4),
                                    (index[0], index[1]),
                                    card.z, card.zone, round(in_frame, 4)))
        return Annotation(camera.width, camera.height, tuple(labels), tuple(self._hands), tuple(markers),
                          tuple(tuple(round(float(v), 8) for v in row) for row in camera.homography(0.0)),
                          round(camera.tilt_deg, 3), self.table.kind, self.deck.faces.name, self.deck.back_name)


def _upsample(field: np.ndarray, step: int, w: int, h: int) -> np.ndarray:
    """A smooth field sampled every `step` pixels (from pixel 0), resized to the full frame."""
    big = cv2.resize(field, (field.shape[1] * step, field.shape[0] * step), interpolation=cv2.INTER_LINEAR)
    off = step // 2
    return big[off:off + h, off:off + w] if big.ndim == 2 else big[off:off + h, off:off + w, :]


def _fill(poly: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """An anti-aliased polygon mask (float32 0..1); `poly` in 1/16 pixels (OpenCV draws smooth
    edges only into 8-bit images)."""
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [poly], 255, cv2.LINE_AA, shift=4)
    return mask.astype(np.float32) * (1 / 255)


def _motion_blur(layer: np.ndarray, blur: np.ndarray) -> np.ndarray:
    """Smear a layer along the image vector `blur` (pixels): the mean of copies shifted along it
    (zeros coming in), taken at a lower resolution for long smears (which hide the detail anyway)."""
    length = float(np.hypot(*blur))
    f = min(3, max(1, int(length // 16)))
    h, w = layer.shape[:2]
    small = cv2.resize(layer, (max(1, w // f), max(1, h // f)), interpolation=cv2.INTER_AREA) if f > 1 else layer
    d = blur / f
    steps = int(min(16, max(2, np.ceil(length / f / 1.5))))
    out = np.zeros_like(small)
    sh, sw = small.shape[:2]
    for t in np.linspace(-0.5, 0.5, steps):
        dx, dy = int(round(t * d[0])), int(round(t * d[1]))
        if abs(dx) < sw and abs(dy) < sh:
            out[max(dy, 0):sh + min(dy, 0), max(dx, 0):sw + min(dx, 0)] += \
                small[max(-dy, 0):sh + min(-dy, 0), max(-dx, 0):sw + min(-dx, 0)]
    out *= 1.0 / steps
    return cv2.resize(out, (w, h), interpolation=cv2.INTER_LINEAR) if f > 1 else out


def _shifted(mask: np.ndarray, dx: int, dy: int) -> np.ndarray:
    """The mask (or image) moved by whole pixels, zeros coming in."""
    out = np.zeros_like(mask)
    h, w = mask.shape[:2]
    if abs(dx) >= w or abs(dy) >= h:
        return out
    out[max(dy, 0):h + min(dy, 0), max(dx, 0):w + min(dx, 0)] = mask[max(-dy, 0):h + min(-dy, 0), max(-dx, 0):w + min(-dx, 0)]
    return out


def _blur_small(mask: np.ndarray, sigma: float) -> np.ndarray:
    """A Gaussian blur of a mask, done at a lower resolution when the blur is wide."""
    f = int(sigma // 3)
    if f < 2:
        return cv2.GaussianBlur(mask, (0, 0), sigma)
    h, w = mask.shape
    small = cv2.resize(mask, (max(1, w // f), max(1, h // f)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / f)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _table_image(camera: Camera, table: TableStyle) -> np.ndarray:
    """The table surface seen by the camera (float32 RGB)."""
    Hinv = np.linalg.inv(camera.homography(0.0))
    w, h = camera.width, camera.height
    border = np.array([[x, y, 1.0] for x in np.linspace(0, w, 5) for y in np.linspace(0, h, 5)])
    pts = border @ Hinv.T
    pts = pts[:, :2] / np.where(pts[:, 2:] > 1e-9, pts[:, 2:], np.nan)
    pts = np.nan_to_num(pts, nan=0.0)
    cx, cy = camera.centre[:2]
    pts = np.clip(pts, (cx - 250, cy - 250), (cx + 250, cy + 250))
    x0, y0 = np.floor(pts.min(axis=0))
    x1, y1 = np.ceil(pts.max(axis=0))
    ppc_max = max(camera.pixels_per_cm(float(x), float(y)) for x, y in pts[::3])
    fine = table.kind in FINE_KINDS
    ppc = min(ppc_max * (0.8 if fine else 0.6), (800.0 if fine else 560.0) / max(x1 - x0, y1 - y0, 1.0))
    ppc = max(ppc, 0.5)
    size = (max(2, int((y1 - y0) * ppc)), max(2, int((x1 - x0) * ppc)))
    texture = render_table(table, float(x0), float(y0), ppc, size)
    to_table = np.array([[1 / ppc, 0, x0 + 0.5 / ppc], [0, 1 / ppc, y0 + 0.5 / ppc], [0, 0, 1]])
    M = _TO_INDEX @ camera.homography(0.0) @ to_table
    return cv2.warpPerspective(texture, M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101)


def _marker_raster(marker: MarkerPlacement) -> tuple[np.ndarray, float]:
    """The printed marker on its white paper square (RGBA) and the paper's side in cm."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    cells = 6  # 4x4 bits and a one-cell black border
    px = 16 * cells
    code = cv2.aruco.generateImageMarker(dictionary, marker.marker_id, px)
    pad = px // 3
    paper = np.full((px + 2 * pad, px + 2 * pad), 242, np.uint8)
    paper[pad:pad + px, pad:pad + px] = np.where(code > 127, 242, 20)
    rgba = np.dstack([paper, paper, paper, np.full_like(paper, 255)])
    return rgba, marker.size * (px + 2 * pad) / px


def marker_corners_table(marker: MarkerPlacement) -> np.ndarray:
    """The black square's corners (4 x 3 cm) in ArUco order: top-left, top-right, bottom-right, bottom-left."""
    s = marker.size / 2
    return _place(np.array([[-s, s], [s, s], [s, -s], [-s, -s]]), marker.x, marker.y, marker.angle, 0.0)


def _index_points(card: CardPlacement, bottom_right: bool) -> np.ndarray:
    """Sample points (12 x 3 cm) over one index corner of a card."""
    l, t, r, b = INDEX_REGION
    us, vs = np.meshgrid(np.linspace(l, r, 3), np.linspace(t, b, 4))
    u, v = us.ravel(), vs.ravel()
    if bottom_right:
        u, v = 1 - u, 1 - v
    return _card_points(card, np.column_stack([(u - 0.5) * CARD_W_CM, (0.5 - v) * CARD_H_CM]))


def render_scene(scene: Scene, camera: Camera, deck: Deck) -> Rendered:
    """Draw a scene as the camera sees it; the annotation is exact (see `referee.synth`)."""
    canvas = Canvas(camera, scene.table, scene.lighting, deck, scene.markers, scene.props)
    canvas.draw_cards(scene.cards)
    canvas.draw_hands(scene.hands)
    return canvas.finish()


def _owned(owner: np.ndarray, pts: np.ndarray, who: int) -> int:
    """How many of the image points (N x 2) fall on pixels that `who` shows (inside the frame)."""
    pts = np.nan_to_num(pts, nan=-1.0)
    cols, rows = np.floor(pts[:, 0]).astype(int), np.floor(pts[:, 1]).astype(int)
    h, w = owner.shape
    inside = (cols >= 0) & (cols < w) & (rows >= 0) & (rows < h)
    return int(np.count_nonzero(owner[rows[inside], cols[inside]] == who))


def _points(pts: np.ndarray) -> tuple[tuple[float, float], ...]:
    return tuple((round(float(x), 2), round(float(y), 2)) for x, y in pts)
