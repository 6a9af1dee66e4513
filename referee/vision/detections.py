"""The detector's currency: `Detections`, one validated `DetectedCard` per physical card in an image."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from referee.cards import FACE_DOWN, parse_code
from referee.errors import RefereeError

Box = tuple[float, float, float, float]
Quad = tuple[tuple[float, float], tuple[float, float], tuple[float, float], tuple[float, float]]


class BadDetection(RefereeError, ValueError):
    """A detection whose code, confidence, box or corners do not make sense."""


@dataclass(frozen=True)
class DetectedCard:
    """One physical card: its code (`QS`, `10H`, or `back` face down), confidence 0..1, box and corners.

    `box` is (x1, y1, x2, y2) in pixels of the image it was found in; `corners`, where the
    card's outline was found, are its four corners clockwise on screen, starting at a corner
    whose next edge is a short side (the printed top-left or bottom-right).
    """

    code: str
    confidence: float
    box: Box
    corners: Quad | None = None

    def __post_init__(self) -> None:
        parse_code(self.code)
        if self.code != FACE_DOWN and self.code != self.code.strip().upper():
            raise BadDetection(f"card code {self.code!r} is not in its canonical form")
        if not (isinstance(self.confidence, float) and 0.0 <= self.confidence <= 1.0):
            raise BadDetection(f"confidence must be a float in 0..1, not {self.confidence!r}")
        if len(self.box) != 4 or not all(math.isfinite(v) for v in self.box):
            raise BadDetection(f"box must be four finite numbers, not {self.box!r}")
        x1, y1, x2, y2 = self.box
        if not (x2 > x1 and y2 > y1):
            raise BadDetection(f"box {self.box!r} is empty")
        if self.corners is not None and (
            len(self.corners) != 4 or any(len(p) != 2 or not all(math.isfinite(v) for v in p) for p in self.corners)
        ):
            raise BadDetection(f"corners must be four finite points, not {self.corners!r}")

    @property
    def face_up(self) -> bool:
        return self.code != FACE_DOWN

    def to_json(self) -> dict[str, Any]:
        """The CLI's JSON shape: exactly card, confidence and box, rounded."""
        return {"card": self.code, "confidence": round(self.confidence, 3), "box": [round(v, 1) for v in self.box]}

    def shifted(self, dx: float, dy: float, scale: float = 1.0) -> "DetectedCard":
        """The same card in another image's pixels: `(p * scale) + (dx, dy)`."""
        box = (self.box[0] * scale + dx, self.box[1] * scale + dy, self.box[2] * scale + dx, self.box[3] * scale + dy)
        corners = None if self.corners is None else tuple((x * scale + dx, y * scale + dy) for x, y in self.corners)
        return DetectedCard(self.code, self.confidence, box, corners)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Detections:
    """The cards found in one image, most confident first; iterate, index or read arrays."""

    cards: tuple[DetectedCard, ...] = ()
    width: int = 0
    height: int = 0

    def __post_init__(self) -> None:
        if not all(isinstance(c, DetectedCard) for c in self.cards):
            raise BadDetection("Detections holds DetectedCard items only")
        if self.width < 0 or self.height < 0:
            raise BadDetection("image size cannot be negative")
        ordered = tuple(sorted(self.cards, key=lambda c: -c.confidence))
        if ordered != self.cards:
            object.__setattr__(self, "cards", ordered)

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self) -> Iterator[DetectedCard]:
        return iter(self.cards)

    def __getitem__(self, index: int) -> DetectedCard:
        return self.cards[index]

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(c.code for c in self.cards)

    @property
    def boxes(self) -> np.ndarray:
        """(N, 4) float32 x1, y1, x2, y2."""
        return np.array([c.box for c in self.cards], dtype=np.float32).reshape(-1, 4)

    @property
    def confidences(self) -> np.ndarray:
        return np.array([c.confidence for c in self.cards], dtype=np.float32)

    def face_up(self) -> "Detections":
        return Detections(tuple(c for c in self.cards if c.face_up), self.width, self.height)

    def above(self, confidence: float) -> "Detections":
        return Detections(tuple(c for c in self.cards if c.confidence >= confidence), self.width, self.height)
