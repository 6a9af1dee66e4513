"""Measuring the detector on labelled photos: card recall at IoU 0.5 and rank accuracy of matched cards."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from referee.vision.detections import Detections
from referee.vision.detector import CardDetector, read_image
from referee.vision.realset import LabelledCard, LabelledPhoto

MATCH_IOU = 0.5
MIN_VISIBLE = 0.5
MIN_IN_FRAME = 0.2


def seen_enough(card: dict[str, Any]) -> bool:
    """Whether a synthetic annotation's card counts as one to find: half of it unhidden, a fifth in frame.

    Annotations of older generator versions have no `in_frame` (their `visible` counted the frame too).
    """
    return card["visible"] >= MIN_VISIBLE and card.get("in_frame", 1.0) >= MIN_IN_FRAME


def iou(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    """Intersection over union of two (x1, y1, x2, y2) boxes."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


class HasBox(Protocol):
    box: tuple[float, float, float, float]


def match(truth: Iterable[HasBox], found: Detections) -> list[tuple[int, int]]:
    """Pairs (truth index, detection index): detections by confidence take the best free box at IoU >= 0.5."""
    truth = list(truth)
    used: set[int] = set()
    pairs = []
    for d, card in enumerate(found):
        scores = [(iou(t.box, card.box), i) for i, t in enumerate(truth) if i not in used]
        if not scores:
            break
        best, i = max(scores)
        if best >= MATCH_IOU:
            used.add(i)
            pairs.append((i, d))
    return pairs


def rank_of(code: str) -> str:
    """The rank part of a card code (`10` of `10H`); `back` for a face-down card."""
    return code if code == "back" else code[:-1]


@dataclass
class RealScore:
    """Counts over a set of photos; the figures of the model card come from here."""

    photos: int = 0
    cards: int = 0
    matched: int = 0
    rank_correct: int = 0
    extra: int = 0
    misses: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.matched / self.cards if self.cards else float("nan")

    @property
    def rank_accuracy(self) -> float:
        return self.rank_correct / self.matched if self.matched else float("nan")

    def add(self, photo: LabelledPhoto, found: Detections) -> None:
        pairs = match(photo.cards, found)
        self.photos += 1
        self.cards += len(photo.cards)
        self.matched += len(pairs)
        self.extra += len(found) - len(pairs)
        for t, d in pairs:
            if rank_of(found[d].code) == photo.cards[t].rank:
                self.rank_correct += 1
            else:
                self.misses.append(f"{photo.path.name}: {photo.cards[t].rank} read as {found[d].code}")
        matched_truth = {t for t, _ in pairs}
        for t, card in enumerate(photo.cards):
            if t not in matched_truth:
                self.misses.append(f"{photo.path.name}: {card.rank} at {[round(v) for v in card.box]} not found")

    def summary(self) -> dict[str, float | int]:
        return {
            "photos": self.photos,
            "cards": self.cards,
            "recall_iou50": round(self.recall, 4),
            "rank_accuracy": round(self.rank_accuracy, 4),
            "extra_detections": self.extra,
        }


def synth_truth(synth_dir: Path, split: str = "val") -> list[tuple[Path, list[tuple[str, tuple[float, float, float, float]]]]]:
    """Images of a `referee synth-data` split with (code, whole-card box) of each card `seen_enough`."""
    out = []
    for note_path in sorted((synth_dir / "annotations" / split).glob("*.json")):
        note = json.loads(note_path.read_text())
        width, height = note["image"]["width"], note["image"]["height"]
        cards = []
        for card in note["cards"]:
            if not seen_enough(card):
                continue
            pts = np.array(card["corners"], dtype=np.float64)
            x1, y1 = np.clip(pts.min(axis=0), 0, (width, height))
            x2, y2 = np.clip(pts.max(axis=0), 0, (width, height))
            if x2 > x1 and y2 > y1:
                cards.append((card["card"], (float(x1), float(y1), float(x2), float(y2))))
        out.append((synth_dir / "images" / split / (note_path.stem + ".jpg"), cards))
    return out


@dataclass
class SynthScore:
    """Whole-pipeline counts on synthetic images: cards found (IoU 0.5) and found cards with the right code."""

    images: int = 0
    cards: int = 0
    matched: int = 0
    code_correct: int = 0
    rank_correct: int = 0
    extra: int = 0

    def add(self, truth: list[tuple[str, tuple[float, float, float, float]]], found: Detections) -> None:
        pairs = match([_Boxed(box) for _, box in truth], found)
        self.images += 1
        self.cards += len(truth)
        self.matched += len(pairs)
        self.extra += len(found) - len(pairs)
        for t, d in pairs:
            self.code_correct += found[d].code == truth[t][0]
            self.rank_correct += rank_of(found[d].code) == rank_of(truth[t][0])

    def summary(self) -> dict[str, float | int]:
        return {
            "images": self.images,
            "cards": self.cards,
            "recall_iou50": round(self.matched / max(1, self.cards), 4),
            "code_accuracy": round(self.code_correct / max(1, self.matched), 4),
            "rank_accuracy": round(self.rank_correct / max(1, self.matched), 4),
            "extra_detections": self.extra,
        }


@dataclass(frozen=True)
class _Boxed:
    box: tuple[float, float, float, float]


def score_synth(detector: CardDetector, synth_dir: Path, split: str = "val", limit: int | None = None) -> SynthScore:
    """Run the detector on a synthetic split (the first `limit` images) and count."""
    score = SynthScore()
    for path, truth in synth_truth(synth_dir, split)[:limit]:
        score.add(truth, detector.detect(read_image(path)))
    return score


def score_photos(detector: CardDetector, photos: Iterable[LabelledPhoto], min_confidence: float = 0.0) -> RealScore:
    """Run the detector on every photo and count."""
    score = RealScore()
    for photo in photos:
        score.add(photo, detector.detect(read_image(photo.path)).above(min_confidence))
    return score


def draw(image: np.ndarray, found: Detections, truth: Iterable[LabelledCard] = ()) -> np.ndarray:
    """A copy of the image with detections (green boxes, blue outlines, codes) and truth boxes (red)."""
    out = image.copy()
    thick = max(1, round(max(image.shape[:2]) / 500))
    for card in truth:
        x1, y1, x2, y2 = (round(v) for v in card.box)
        cv2.rectangle(out, (x1, y1), (x2, y2), (0, 0, 255), thick)
        cv2.putText(out, card.rank, (x1, y2 - 4), cv2.FONT_HERSHEY_SIMPLEX, 0.4 * thick, (0, 0, 255), thick)
    for card in found:
        x1, y1, x2, y2 = (round(v) for v in card.box)
        cv2.rectangle(out, (x1, y1), (x2, y2), (0, 200, 0), thick)
        if card.corners is not None:
            cv2.polylines(out, [np.round(np.array(card.corners)).astype(np.int32)], True, (255, 128, 0), thick)
        label = f"{card.code} {card.confidence:.2f}"
        cv2.putText(out, label, (x1, max(12, y1 + 14 * thick)), cv2.FONT_HERSHEY_SIMPLEX, 0.45 * thick, (0, 200, 0), thick)
    return out
