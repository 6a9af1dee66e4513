"""YOLO label lines derived from an annotation (a pure function, so other schemes can be derived too)."""

from __future__ import annotations

from typing import Final

from referee.synth.annotation import Annotation, CardLabel

CLASS_NAMES: Final = ("card", "back")
SCHEMES: Final = ("cards", "cards-obb")
DEFAULT_MIN_VISIBLE: Final = 0.5
DEFAULT_MIN_IN_FRAME: Final = 0.2


def class_of(card: CardLabel) -> int:
    """0 for a face-up card, 1 for a back."""
    return 1 if card.card == "back" else 0


def _clip(v: float) -> float:
    return min(1.0, max(0.0, v))


def labelled_cards(annotation: Annotation, min_visible: float = DEFAULT_MIN_VISIBLE,
                   min_in_frame: float = DEFAULT_MIN_IN_FRAME) -> list[CardLabel]:
    """The cards that get a label: at least `min_visible` of them not hidden by cards or hands
    and at least `min_in_frame` of them inside the frame."""
    out = []
    for card in annotation.cards:
        if card.visible < min_visible or card.in_frame < min_in_frame or len(card.corners) != 4:
            continue
        xs = [p[0] for p in card.corners]
        ys = [p[1] for p in card.corners]
        if max(xs) <= 0 or min(xs) >= annotation.width or max(ys) <= 0 or min(ys) >= annotation.height:
            continue
        out.append(card)
    return out


def yolo_boxes(annotation: Annotation, min_visible: float = DEFAULT_MIN_VISIBLE,
               min_in_frame: float = DEFAULT_MIN_IN_FRAME) -> list[tuple[int, float, float, float, float]]:
    """(class, x_centre, y_centre, width, height), normalised: the whole (amodal) card's
    axis-aligned box, clipped to the image."""
    w, h = annotation.width, annotation.height
    boxes = []
    for card in labelled_cards(annotation, min_visible, min_in_frame):
        x0 = _clip(min(p[0] for p in card.corners) / w)
        x1 = _clip(max(p[0] for p in card.corners) / w)
        y0 = _clip(min(p[1] for p in card.corners) / h)
        y1 = _clip(max(p[1] for p in card.corners) / h)
        if x1 - x0 > 0 and y1 - y0 > 0:
            boxes.append((class_of(card), (x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0))
    return boxes


def yolo_obb(annotation: Annotation, min_visible: float = DEFAULT_MIN_VISIBLE,
             min_in_frame: float = DEFAULT_MIN_IN_FRAME) -> list[tuple[int, tuple[float, ...]]]:
    """(class, (x1, y1, ..., x4, y4)) normalised: the card's four corners as printed (TL, TR, BR,
    BL), each coordinate clipped to the image (ultralytics fits a rotated box to them)."""
    w, h = annotation.width, annotation.height
    return [(class_of(card), tuple(v for x, y in card.corners for v in (_clip(x / w), _clip(y / h))))
            for card in labelled_cards(annotation, min_visible, min_in_frame)]


def yolo_text(annotation: Annotation, scheme: str = "cards", min_visible: float = DEFAULT_MIN_VISIBLE,
              min_in_frame: float = DEFAULT_MIN_IN_FRAME) -> str:
    """The label file of an image in one of SCHEMES ("cards": boxes, "cards-obb": oriented boxes)."""
    if scheme == "cards":
        rows = [(c, *box) for c, *box in yolo_boxes(annotation, min_visible, min_in_frame)]
    elif scheme == "cards-obb":
        rows = [(c, *pts) for c, pts in yolo_obb(annotation, min_visible, min_in_frame)]
    else:
        raise ValueError(f"unknown label scheme {scheme!r}; known: {', '.join(SCHEMES)}")
    return "".join(str(row[0]) + "".join(f" {v:.6f}" for v in row[1:]) + "\n" for row in rows)
