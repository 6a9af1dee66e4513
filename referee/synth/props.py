"""Things besides cards on a card table (paper, sticky notes, phones, coins, pens, coasters): distractors."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np
from PIL import Image, ImageDraw

from referee.synth.faces import RGB, font

KINDS: Final = ("paper", "note", "phone", "coin", "pen", "coaster", "box")
_PX_PER_CM: Final = 16
_SIZES: Final = {  # width, length, height above the table (cm)
    "paper": (14.8, 21.0, 0.01), "note": (7.6, 7.6, 0.01), "phone": (7.1, 14.7, 0.8),
    "coin": (2.3, 2.3, 0.2), "pen": (1.0, 14.0, 0.9), "coaster": (10.0, 10.0, 0.4),
    "box": (16.0, 22.0, 0.3),
}
_WORDS: Final = ("STARTER KIT", "HD VIDEO", "CAPTURE", "GAME NIGHT", "SCORE", "PLAYER", "ROUND", "NEW", "2-IN-1",
                 "CLASSIC", "PREMIUM", "POKER", "BRIDGE", "MADE IN", "SERIES", "PROJECT", "TEA", "COFFEE")


@dataclass(frozen=True)
class Prop:
    """One object on the table: its kind, centre (cm), turn (degrees), colour and a seed for its details."""

    kind: str
    x: float
    y: float
    angle: float
    color: RGB
    seed: int = 0

    @property
    def size(self) -> tuple[float, float, float]:
        """(width, length, height) in cm."""
        return _SIZES[self.kind]


@functools.lru_cache(maxsize=64)
def prop_raster(kind: str, color: RGB, seed: int) -> np.ndarray:
    """The top view of a prop, RGBA at 16 px per cm."""
    w_cm, h_cm, _ = _SIZES[kind]
    w, h = max(4, round(w_cm * _PX_PER_CM)), max(4, round(h_cm * _PX_PER_CM))
    rng = np.random.default_rng(seed)
    c = np.array(color, np.float32)
    rgb = np.empty((h, w, 3), np.float32)
    rgb[:] = c
    alpha = np.zeros((h, w), np.float32)
    if kind in ("paper", "note"):
        alpha[:] = 1
        if kind == "paper":  # lines of handwriting-like strokes: score keeping
            for row in range(int(2.0 * _PX_PER_CM), h - 16, int(0.8 * _PX_PER_CM)):
                x = int(rng.integers(12, 30))
                while x < w - 20 and rng.random() < 0.93:
                    n = int(rng.integers(8, 40))
                    cv2.line(rgb, (x, row), (min(x + n, w - 12), row + int(rng.integers(-2, 3))),
                             (60.0, 60.0, 90.0), 2, cv2.LINE_AA)
                    x += n + int(rng.integers(6, 14))
    elif kind == "phone":
        cv2.rectangle(alpha, (0, 0), (w - 1, h - 1), 1.0, -1)
        rgb[:] = c * 0.35
        screen = rng.uniform(0.05, 0.9, 3).astype(np.float32) * 255 if rng.random() < 0.5 else np.full(3, 12.0)
        cv2.rectangle(rgb, (5, 14), (w - 6, h - 15), tuple(float(v) for v in screen), -1)
    elif kind in ("coin", "coaster"):
        cv2.circle(alpha, (w // 2, h // 2), w // 2 - 1, 1.0, -1, cv2.LINE_AA)
        cv2.circle(rgb, (w // 2, h // 2), int(w * 0.4), tuple(float(v) for v in c * 0.8), 2, cv2.LINE_AA)
    elif kind == "box":  # a printed box lid or magazine: text, a panel and a picture
        alpha[:] = 1
        img = Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8))
        draw = ImageDraw.Draw(img)
        ink = tuple(int(v) for v in (255 - c if c.mean() < 128 else c * 0.2))
        panel = tuple(int(v) for v in rng.uniform(0, 255, 3))
        draw.rectangle([w * 0.1, h * 0.45, w * 0.9, h * 0.85], fill=panel)
        draw.ellipse([w * 0.3, h * 0.52, w * 0.7, h * 0.78], fill=tuple(int(v) for v in rng.uniform(0, 255, 3)))
        y = int(h * 0.06)
        for _ in range(int(rng.integers(2, 5))):
            word = _WORDS[int(rng.integers(len(_WORDS)))]
            size = int(rng.integers(14, 34))
            draw.text((int(w * 0.08), y), word, fill=ink, font=font("DejaVuSans-Bold.ttf", size))
            y += size + 6
        rgb = np.asarray(img).astype(np.float32)
    else:  # pen
        cv2.rectangle(alpha, (0, 4), (w - 1, h - 5), 1.0, -1)
        cv2.ellipse(alpha, (w // 2, 4), (w // 2, 4), 0, 180, 360, 1.0, -1)
        cv2.rectangle(rgb, (0, 0), (w, h // 5), (200.0, 200.0, 205.0), -1)
    rgb = rgb * (1 + 0.03 * rng.standard_normal((h, w, 1)).astype(np.float32))
    if kind in ("phone", "pen", "coin"):  # shiny: a soft highlight
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        rgb += 80 * np.exp(-((xs - w * 0.3) ** 2 + (ys - h * 0.25) ** 2) / (2 * (0.25 * max(w, h)) ** 2))[..., None]
    out = np.dstack([np.clip(rgb, 0, 255), alpha * 255]).astype(np.uint8)
    out.setflags(write=False)
    return out


def random_props(rng: np.random.Generator, half_width: float, half_depth: float) -> tuple[Prop, ...]:
    """Zero to four props, mostly outside the middle of the table."""
    props = []
    for _ in range(int(rng.choice(5, p=[0.45, 0.25, 0.15, 0.1, 0.05]))):
        kind = KINDS[int(rng.choice(len(KINDS), p=[0.2, 0.17, 0.17, 0.13, 0.11, 0.07, 0.15]))]
        if kind in ("paper", "note"):
            color = (np.array([(250, 250, 245), (250, 240, 120), (250, 190, 200), (170, 220, 250)][
                0 if kind == "paper" else int(rng.integers(1, 4))]) * rng.uniform(0.9, 1.0))
        elif kind == "coin":
            color = np.array([(200, 170, 90), (190, 190, 195)][int(rng.integers(2))], float)
        else:
            color = rng.uniform(20, 230, 3)
        r, g, b = (int(v) for v in np.clip(color, 0, 255))
        side = rng.choice([-1.0, 1.0])
        x = float(side * rng.uniform(0.55, 1.3) * half_width)
        y = float(rng.uniform(-1.2, 1.2) * half_depth)
        props.append(Prop(kind, x, y, float(rng.uniform(0, 360)), (r, g, b), int(rng.integers(2**31))))
    return tuple(props)
