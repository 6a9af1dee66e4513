"""Card reading on onnxruntime: an oriented-box YOLO finds whole cards, a tiny CNN reads both index corners of each."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

import cv2
import numpy as np

from referee.cards import FACE_DOWN, RANKS, SUITS
from referee.errors import RefereeError
from referee.vision.corners import READ_SCALES, card_quads_at_corners, index_crops_of, order_quad, outline_in_box, scaled_quad
from referee.vision.detections import DetectedCard, Detections

if TYPE_CHECKING:
    import onnxruntime

MODELS_DIR: Final = Path(__file__).resolve().parents[2] / "models"
DETECTOR_MODEL: Final = "card-detector.onnx"
INDEX_MODEL: Final = "card-index.onnx"
NO_INDEX: Final = "none"
RANK_CLASSES: Final = (*RANKS, NO_INDEX)
"""Classes of the index classifier's rank output; `none` is a corner that shows no readable index."""
SUIT_CLASSES: Final = SUITS
DETECTOR_CLASSES: Final = ("card", "back")
STRIDE: Final = 32
"""The detector's coarsest feature step: its input sides are multiples of it."""
MAX_SIDE: Final = 1600
"""Larger images are shrunk to this longest side first: cards stay big enough and time stays flat."""


class ModelMissing(RefereeError):
    """A model file that is not there or that onnxruntime cannot load."""


class UnreadableImage(RefereeError):
    """An image file that does not exist or cannot be decoded."""


def read_image(path: str | Path) -> np.ndarray:
    """A BGR image from a file, turned as its EXIF orientation says; raises `UnreadableImage`."""
    path = Path(path)
    if not path.is_file():
        raise UnreadableImage(f"{path}: no such file")
    data = np.fromfile(path, dtype=np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise UnreadableImage(f"{path}: not an image that can be decoded")
    return image


@dataclass(frozen=True)
class DetectorSettings:
    """Thresholds of `CardDetector`: boxes kept above `min_box_score`, rotated NMS at `nms_iou`;
    a card whose index reading (P(rank) x P(suit) x visibility) is below `sure_reading` is read again
    at more sizes and as a partly hidden card (`READ_SCALES`); `threads` for onnxruntime."""

    min_box_score: float = 0.3
    nms_iou: float = 0.6
    sure_reading: float = 0.5
    threads: int = 2

    def __post_init__(self) -> None:
        if not 0.0 < self.min_box_score < 1.0 or not 0.0 < self.nms_iou <= 1.0 or not 0.0 <= self.sure_reading <= 1.0:
            raise RefereeError("min_box_score must be in (0, 1), nms_iou in (0, 1] and sure_reading in [0, 1]")
        if self.threads < 1:
            raise RefereeError("threads must be at least 1")


def _session(path: Path, threads: int) -> "onnxruntime.InferenceSession":
    import onnxruntime as ort

    if not path.is_file():
        raise ModelMissing(f"model {path} is missing (train one with `referee train`)")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")  # no busy-waiting on shared cores
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own untyped errors
        raise ModelMissing(f"model {path} cannot be loaded: {exc}") from exc


def _trained_size(session: "onnxruntime.InferenceSession") -> int:
    """The longest input side a model with free input sizes was trained at (ultralytics writes it
    into the file as `imgsz`; 320 when it is not there)."""
    sizes = [int(n) for n in session.get_modelmeta().custom_metadata_map.get("imgsz", "").strip("[]").split(",") if n.strip().isdigit()]
    return max(sizes, default=320)


def _channels(session: "onnxruntime.InferenceSession") -> int | None:
    """Values per anchor of a box model's output: its fixed size, or for a model exported with
    free sizes, 4 box values + one per class (from the `names` ultralytics writes) + the angle."""
    size = session.get_outputs()[0].shape[1]
    if isinstance(size, int):
        return size
    meta = session.get_modelmeta().custom_metadata_map
    names = meta.get("names", "").strip("{}")
    return 4 + len(names.split(",")) + 1 if meta.get("task") == "obb" and names else None


def _input_side(side: int, size: int) -> int:
    """An input side for `side` pixels of view: a grey border of a `STRIDE` on both ends, rounded
    up to a multiple of the stride, at most the trained `size` (the square a view was padded to
    before). Fitted tight, without the border, the detector missed more cards: it was trained
    on views with grey around them."""
    return min(size, -(-(side + 2 * STRIDE) // STRIDE) * STRIDE)


def _covariance(boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Second moments (a, b, c) of rotated boxes (N, 5: cx, cy, w, h, angle) seen as uniform rectangles."""
    a0, b0 = boxes[:, 2] ** 2 / 12, boxes[:, 3] ** 2 / 12
    cos, sin = np.cos(boxes[:, 4]), np.sin(boxes[:, 4])
    return a0 * cos**2 + b0 * sin**2, a0 * sin**2 + b0 * cos**2, (a0 - b0) * cos * sin


def probiou(box: np.ndarray, others: np.ndarray, eps: float = 1e-7) -> np.ndarray:
    """Probabilistic IoU (1 - Hellinger distance of Gaussians) of one rotated box with many; as ultralytics' NMS."""
    return _probiou_table(box[None], others, eps)[0]


def _probiou_table(boxes: np.ndarray, others: np.ndarray, eps: float = 1e-7) -> np.ndarray:
    """`probiou` of each of M rotated boxes with each of N others, (M, N), in one pass of array arithmetic."""
    a1, b1, c1 = (v[:, None] for v in _covariance(boxes))
    a2, b2, c2 = _covariance(others)
    dx, dy = boxes[:, None, 0] - others[:, 0], boxes[:, None, 1] - others[:, 1]
    a, b, c = a1 + a2, b1 + b2, c1 + c2
    det = a * b - c**2
    t1 = (a * dy**2 + b * dx**2) / (det + eps) * 0.25
    t2 = (c * -dx * dy) / (det + eps) * 0.5
    t3 = 0.5 * np.log(det / (4 * np.sqrt(np.clip(a1 * b1 - c1**2, 0, None) * np.clip(a2 * b2 - c2**2, 0, None)) + eps) + eps)
    distance = np.clip(t1 + t2 + t3, eps, 100.0)
    return 1.0 - np.sqrt(1.0 - np.exp(-distance) + eps)


NMS_ROWS: Final = 256


def rotated_nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    """Indices of rotated boxes (N, 5) kept by greedy NMS on probabilistic IoU, best first (the
    overlaps of all pairs are computed at once, `NMS_ROWS` boxes' rows at a time so that a frame
    with thousands of candidate boxes stays small in memory, then suppressed in score order)."""
    order = np.argsort(-scores)
    ranked = boxes[order]
    overlaps = np.zeros((len(order), len(order)), dtype=bool)
    for start in range(0, len(order), NMS_ROWS):
        overlaps[start : start + NMS_ROWS] = _probiou_table(ranked[start : start + NMS_ROWS], ranked) > iou
    suppressed = np.zeros(len(order), dtype=bool)
    keep = []
    for k in range(len(order)):
        if not suppressed[k]:
            keep.append(order[k])
            suppressed |= overlaps[k]
    return np.array(keep, dtype=np.int64)


def _one_box_per_back(boxes: np.ndarray, classes: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """Drop a face-down box whose centre lies inside a better face-down box: the model sometimes
    finds one back twice, the second box turned by 90 degrees, which NMS keeps (face-down cards
    show only their top one, so nothing real is lost)."""
    back = DETECTOR_CLASSES.index(FACE_DOWN)
    out: list[int] = []
    for i in kept:  # best first
        if classes[i] == back and any(classes[j] == back and _inside(boxes[i, :2], boxes[j]) for j in out):
            continue
        out.append(int(i))
    return np.array(out, dtype=np.int64)


def _inside(point: np.ndarray, box: np.ndarray) -> bool:
    """Whether a point lies inside a rotated box (cx, cy, w, h, angle)."""
    cx, cy, w, h, angle = box
    dx, dy = point[0] - cx, point[1] - cy
    c, s = math.cos(angle), math.sin(angle)
    return abs(dx * c + dy * s) <= w / 2 and abs(-dx * s + dy * c) <= h / 2


class CardDetector:
    """Reads cards in BGR images of any size or in crops of them; thread-compatible, not thread-safe."""

    def __init__(self, models_dir: Path = MODELS_DIR, settings: DetectorSettings | None = None) -> None:
        self.settings = settings or DetectorSettings()
        boxes_path, index_path = Path(models_dir) / DETECTOR_MODEL, Path(models_dir) / INDEX_MODEL
        self._boxes = _session(boxes_path, self.settings.threads)
        self._index = _session(index_path, self.settings.threads)
        shape = self._boxes.get_inputs()[0].shape
        self.rectangular = len(shape) == 4 and not isinstance(shape[2], int)
        """The model takes any height and width (multiples of `STRIDE`): a wide frame is fed as a
        wide input rather than padded to a square, which costs less for the same view."""
        self.input_size = int(shape[2]) if not self.rectangular else _trained_size(self._boxes)
        self._box_input = self._boxes.get_inputs()[0].name
        outputs = self._boxes.get_outputs()
        if len(outputs) != 1 or len(outputs[0].shape) != 3 or _channels(self._boxes) != 4 + len(DETECTOR_CLASSES) + 1:
            raise ModelMissing(f"model {boxes_path} is not an oriented-box model of {len(DETECTOR_CLASSES)} classes")
        outputs = self._index.get_outputs()
        if [o.shape[-1] if o.shape else None for o in outputs] != [len(RANK_CLASSES), len(SUIT_CLASSES)]:
            raise ModelMissing(f"model {index_path} is not a card-index model (rank and suit of a corner crop)")
        self._index_input = self._index.get_inputs()[0].name

    def _find_boxes(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Rotated boxes (N, 5: cx, cy, w, h, angle in radians) in image pixels, scores (N,), classes (N,)."""
        height, width = image.shape[:2]
        size = self.input_size
        scale = min(size / width, size / height, 1.0)  # never enlarged: a card filling a small image stays card-sized
        new_w, new_h = max(1, round(width * scale)), max(1, round(height * scale))
        in_w, in_h = (_input_side(new_w, size), _input_side(new_h, size)) if self.rectangular else (size, size)
        pad_x, pad_y = (in_w - new_w) // 2, (in_h - new_h) // 2
        canvas = np.full((in_h, in_w, 3), 114, dtype=np.uint8)
        canvas[pad_y : pad_y + new_h, pad_x : pad_x + new_w] = cv2.resize(
            image, (new_w, new_h), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
        )
        blob = cv2.dnn.blobFromImage(canvas, 1.0 / 255.0, swapRB=True)  # 1x3xHxW RGB 0..1, one pass
        output = self._boxes.run(None, {self._box_input: blob})[0][0]  # (4 + classes + 1, anchors)
        class_scores = output[4 : 4 + len(DETECTOR_CLASSES)]
        classes = class_scores.argmax(axis=0)
        scores = class_scores[classes, np.arange(class_scores.shape[1])]
        keep = scores >= self.settings.min_box_score
        boxes = output[[0, 1, 2, 3, -1]][:, keep].T.astype(np.float64)
        boxes[:, :2] = (boxes[:, :2] - (pad_x, pad_y)) / scale
        boxes[:, 2:4] /= scale
        scores, classes = scores[keep], classes[keep]
        kept = rotated_nms(boxes, scores, self.settings.nms_iou)
        kept = _one_box_per_back(boxes, classes, kept)
        return boxes[kept], scores[kept], classes[kept]

    def _read_indices(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rank and suit probabilities of index crops (N, H, W, 3) uint8."""
        blob = crops.transpose(0, 3, 1, 2).astype(np.float32) / 255.0
        rank, suit = self._index.run(None, {self._index_input: blob})
        return rank, suit

    def read_crops(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rank (N, 14) and suit (N, 4) probabilities of index crops (N, 56, 32, 3) uint8 BGR, as `index_crops` cuts them."""
        return self._read_indices(crops)

    def _read_again(self, image: np.ndarray, unsure: list[tuple[int, list[np.ndarray]]],
                    read: dict[int, tuple[np.ndarray, np.ndarray]], codes: dict[int, tuple[str, float]]) -> None:
        """Cards read below `sure_reading` are read again from their quads shrunk and grown
        (`READ_SCALES`: a box a few percent off cuts the index off-centre) and from a whole card's
        quad at each corner (`card_quads_at_corners`: the box of a card partly hidden covers only
        what shows). All crops are merged."""
        if not unsure:
            return
        groups = []
        for _, group in unsure:
            scaled = index_crops_of(image, [scaled_quad(q, f) for q in group for f in READ_SCALES[1:]])
            corners = index_crops_of(image, [card for q in group for card in card_quads_at_corners(q)], both=False)
            groups.append(np.concatenate([scaled, corners]))
        rank, suit = self._read_indices(np.concatenate(groups))
        start = 0
        for (i, _), crops in zip(unsure, groups):
            end = start + len(crops)
            codes[i] = merge_corners(np.concatenate([read[i][0], rank[start:end]]), np.concatenate([read[i][1], suit[start:end]]))
            start = end

    def detect(self, image: np.ndarray) -> Detections:
        """Every card in a BGR image (or crop), one entry per physical card, most confident first."""
        if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
            raise RefereeError("detect() takes a BGR image as a uint8 array of shape (height, width, 3)")
        height, width = image.shape[:2]
        scale = min(1.0, MAX_SIDE / max(height, width))
        work = image if scale == 1.0 else cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        rotated, scores, classes = self._find_boxes(work)
        limit = np.array([work.shape[1], work.shape[0]], dtype=np.float64)
        face_up = [i for i, c in enumerate(classes) if DETECTOR_CLASSES[c] == "card"]
        outlines: list[tuple[np.ndarray, np.ndarray | None]] = []  # (oriented box, outline found in it)
        for i, b in enumerate(rotated):
            quad = order_quad(cv2.boxPoints(((b[0], b[1]), (b[2], b[3]), float(np.degrees(b[4])))))
            outlines.append((quad, outline_in_box(work, quad) if i in face_up else None))
        codes: dict[int, tuple[str, float]] = {}
        if face_up:
            groups = [[q for q in outlines[i] if q is not None] for i in face_up]
            crops = index_crops_of(work, [q for group in groups for q in group])
            rank, suit = self._read_indices(crops)
            start = 0
            read: dict[int, tuple[np.ndarray, np.ndarray]] = {}
            for i, group in zip(face_up, groups):
                end = start + 2 * len(group)
                read[i] = rank[start:end], suit[start:end]
                codes[i] = merge_corners(*read[i])
                start = end
            self._read_again(work, [(i, g) for i, g in zip(face_up, groups) if codes[i][1] < self.settings.sure_reading],
                             read, codes)
        cards = []
        for i, (quad, refined) in enumerate(outlines):
            code, reading = codes.get(i, (FACE_DOWN, 1.0))
            outline = quad if refined is None else refined
            x1, y1 = np.clip(outline.min(axis=0), 0, limit)
            x2, y2 = np.clip(outline.max(axis=0), 0, limit)
            if x2 - x1 < 1 or y2 - y1 < 1:
                continue
            corners = tuple((float(x), float(y)) for x, y in outline)
            card = DetectedCard(code, float(scores[i]) * reading, (float(x1), float(y1), float(x2), float(y2)), corners)
            cards.append(card if scale == 1.0 else card.shifted(0.0, 0.0, 1.0 / scale))
        return Detections(tuple(cards), width, height)


def merge_corners(rank: np.ndarray, suit: np.ndarray) -> tuple[str, float]:
    """One card code and its probability from index-corner crops' rank (N, 14) and suit (N, 4) probabilities.

    The crops are a card's two index corners, cut from its oriented box and, where found, from
    its outline too (and, read again, at more sizes and corners). Each crop counts by the square
    of how much it believes it shows an index at all, so corners hidden under another card or a
    thumb, or cut where no index is, weigh little against one that can be read, even several.
    """
    none = RANK_CLASSES.index(NO_INDEX)
    visible = 1.0 - rank[:, none]
    weight = visible**2
    if weight.sum() < 1e-6:
        weight = np.ones_like(weight)
    ranks = np.delete(rank, none, axis=1)
    ranks = ranks / np.maximum(ranks.sum(axis=1, keepdims=True), 1e-9)
    merged_rank = (weight[:, None] * ranks).sum(axis=0) / weight.sum()
    merged_suit = (weight[:, None] * suit).sum(axis=0) / weight.sum()
    r, s = int(merged_rank.argmax()), int(merged_suit.argmax())
    return RANKS[r] + SUIT_CLASSES[s], float(merged_rank[r] * merged_suit[s] * visible.max())


def default_threads() -> int:
    """Threads for onnxruntime: the REFEREE_THREADS environment variable, else 2."""
    value = os.environ.get("REFEREE_THREADS", "2")
    return int(value) if value.isdigit() and int(value) > 0 else 2
