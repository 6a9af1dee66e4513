"""Video frames of a table, fast: the table and markers drawn once, cards lying still only when they change, per frame only what moves.

It draws with `referee.synth.Canvas`, the code path of `referee.synth.render_scene`, but keeps
what does not change between frames: the table with its markers, the light (`Canvas.gain`), the
layer of cards lying still (a card landing on top of a pile is drawn onto that layer; a card taken
away or turned redraws that part of it) and hands held still. The sensor is a fixed webcam:
sharpening and noise from a seeded bank of noise images.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from referee.render.timeline import Frame
from referee.synth import Camera, Canvas, CardPlacement, Deck, HandPose, Lighting, MarkerPlacement, TableStyle
from referee.synth.faces import CARD_H_CM, CARD_W_CM
from referee.synth.scene import card_corners_table

_NOISE_BANK = 7
_CACHE_AFTER = 3
"""Frames a hand must hold still before its drawing is cached."""


@dataclass
class _HandCache:
    pose: HandPose
    frames: int
    layer: tuple[tuple[int, int, int, int], np.ndarray, np.ndarray] | None = None


@dataclass(frozen=True)
class Webcam:
    """What the sensor adds: sharpening (an unsharp mask of `sharpen` over a blur of `blur_px`, the
    halos a webcam leaves at edges) and noise (0..1 standard deviation, grain plus blotchy colour)."""

    sharpen: float = 0.4
    blur_px: float = 1.2
    noise: float = 0.012


class FrameRenderer:
    """Draws `Frame`s of one table under one camera as uint8 BGR images (for `cv2.VideoWriter`)."""

    def __init__(self, camera: Camera, table: TableStyle, lighting: Lighting, markers: Sequence[MarkerPlacement],
                 deck: Deck, webcam: Webcam, seed: int) -> None:
        self.camera, self.webcam = camera, webcam
        self._table = Canvas(camera, table, lighting, deck, markers, labels=False)
        self._light = self._table.gain() * 255
        self._still: frozenset[CardPlacement] = frozenset()
        self._still_layer = self._table.copy()
        self._scratch = self._table.copy()
        self._footprints: dict[CardPlacement, tuple[int, int, int, int]] = {}
        rng = np.random.default_rng([seed, 5])
        h, w = camera.height, camera.width
        self._noise: list[tuple[np.ndarray, np.ndarray]] = []
        for _ in range(_NOISE_BANK):
            grain = rng.normal(0.0, webcam.noise * 255, (h, w, 1)).astype(np.float32)
            chroma = cv2.resize(rng.normal(0.0, webcam.noise * 128, (h // 2, w // 2, 3)).astype(np.float32), (w, h))
            noise = np.round(grain + chroma)
            self._noise.append((np.clip(noise, 0, 255).astype(np.uint8), np.clip(-noise, 0, 255).astype(np.uint8)))
        self._hands: dict[tuple[str, bool], _HandCache] = {}
        self.redraws = 0

    def forget(self) -> None:
        """Drop what was kept from earlier frames (the cards lying still, hands held still)."""
        self._still = frozenset()
        self._still_layer = self._table.copy()
        self._hands.clear()

    def _still_cards(self, still: tuple[CardPlacement, ...]) -> Canvas:
        """The table with the cards lying still. Cards put on top since the last frame are drawn onto
        it; where cards were taken away or turned, that part of the frame is drawn again."""
        cards = frozenset(still)
        if cards == self._still:
            return self._still_layer
        gone = self._still - cards
        if not gone:
            self._still_layer.draw_cards([c for c in still if c not in self._still])
        else:
            boxes = [self._footprint(c) for c in gone | (cards - self._still)]
            x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
            x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
            scratch = self._scratch
            scratch.image[y0:y1, x0:x1] = self._table.image[y0:y1, x0:x1]
            scratch.draw_cards([c for c in still if _overlaps(self._footprint(c), (x0, y0, x1, y1))])
            self._still_layer.image[y0:y1, x0:x1] = scratch.image[y0:y1, x0:x1]
            self.redraws += 1
        self._still = cards
        return self._still_layer

    def _footprint(self, card: CardPlacement) -> tuple[int, int, int, int]:
        """The pixels a card lying still can change (its shadow included), clipped to the frame."""
        box = self._footprints.get(card)
        if box is None:
            corners = card_corners_table(card)
            centre = corners.mean(axis=0)
            grown = centre + (corners - centre) * np.array([(CARD_W_CM + 2.0) / CARD_W_CM, (CARD_H_CM + 2.0) / CARD_H_CM, 1.0])
            u, v = self.camera.project(grown).T
            w, h = self.camera.width, self.camera.height
            box = (int(np.clip(np.floor(u.min()), 0, w)), int(np.clip(np.floor(v.min()), 0, h)),
                   int(np.clip(np.ceil(u.max()) + 1, 0, w)), int(np.clip(np.ceil(v.max()) + 1, 0, h)))
            if len(self._footprints) > 4096:
                self._footprints.clear()
            self._footprints[card] = box
        return box

    def _draw_hand(self, canvas: Canvas, pose: HandPose) -> None:
        """Draw a hand; a hand held still for a few frames is drawn from its cached effect on what
        lies under it (the shadow's gain and the hand's colour: drawing is linear in the background)."""
        seen = self._hands.get((pose.side, pose.right))
        if seen is None or seen.pose != pose:
            self._hands[(pose.side, pose.right)] = _HandCache(pose, 1)
            canvas.draw_hand(pose)
            return
        seen.frames += 1
        if seen.frames < _CACHE_AFTER:
            canvas.draw_hand(pose)
            return
        if seen.frames == _CACHE_AFTER:
            seen.layer = self._hand_layer(pose)
        if seen.layer is not None:
            (x0, y0, x1, y1), gain, colour = seen.layer
            region = canvas.image[y0:y1, x0:x1]
            cv2.multiply(region, gain, dst=region)
            cv2.add(region, colour, dst=region)

    def _hand_layer(self, pose: HandPose) -> tuple[tuple[int, int, int, int], np.ndarray, np.ndarray] | None:
        """The hand drawn over black and over white: where it changes the frame, the gain and the colour."""
        black, white = self._table.copy(), self._table.copy()
        black.image[:] = 0.0
        white.image[:] = 1.0
        black.draw_hand(pose)
        white.draw_hand(pose)
        colour = black.image
        gain = white.image - colour
        ys, xs = np.nonzero(np.any((gain < 0.9999) | (colour > 1e-4), axis=2))
        if len(xs) == 0:
            return None
        x0, y0, x1, y1 = int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1
        return (x0, y0, x1, y1), gain[y0:y1, x0:x1].copy(), colour[y0:y1, x0:x1].copy()

    def render(self, frame: Frame, index: int) -> np.ndarray:
        """Frame number `index` (which picks its sensor noise) as a uint8 BGR image."""
        canvas = self._still_cards(frame.still).copy()
        canvas.draw_cards(frame.moving)
        for pose in frame.hands:
            self._draw_hand(canvas, pose)
        image = cv2.multiply(canvas.image, self._light, dst=canvas.image)
        out = cv2.convertScaleAbs(image)
        fx = self.webcam
        if fx.sharpen > 0:
            out = cv2.addWeighted(out, 1.0 + fx.sharpen, cv2.GaussianBlur(out, (0, 0), fx.blur_px), -fx.sharpen, 0.0)
        if fx.noise > 0:
            up, down = self._noise[index % _NOISE_BANK]
            cv2.add(out, up, dst=out)
            cv2.subtract(out, down, dst=out)
        return cv2.cvtColor(out, cv2.COLOR_RGB2BGR)


def _overlaps(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
