"""Unit tests of referee.vision that need no model: detections, corner geometry, merging, NMS, the real split."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from referee.vision import corners
from referee.vision.corners import (
    CARD_ASPECT, CROP_SIZE, box_quad, card_quads_at_corners, index_crops, index_crops_of, order_quad, scaled_quad,
)
from referee.vision.detections import BadDetection, DetectedCard, Detections
from referee.vision.detector import NO_INDEX, RANK_CLASSES, SUIT_CLASSES, merge_corners, probiou, rotated_nms
from referee.vision.evaluate import iou, match
from referee.vision.realset import LabelledCard, split_of


def _probs(rank: str, suit: str | None, p: float = 0.9) -> tuple[np.ndarray, np.ndarray]:
    r = np.full(len(RANK_CLASSES), (1 - p) / (len(RANK_CLASSES) - 1), np.float32)
    r[RANK_CLASSES.index(rank)] = p
    s = np.full(len(SUIT_CLASSES), 0.25, np.float32)
    if suit is not None:
        s[:] = (1 - p) / 3
        s[SUIT_CLASSES.index(suit)] = p
    return r, s


def test_detected_card_is_validated() -> None:
    card = DetectedCard("QS", 0.9, (1.0, 2.0, 30.0, 40.0))
    assert card.face_up and card.to_json() == {"card": "QS", "confidence": 0.9, "box": [1.0, 2.0, 30.0, 40.0]}
    assert not DetectedCard("back", 0.5, (0.0, 0.0, 1.0, 1.0)).face_up
    with pytest.raises(Exception):
        DetectedCard("ZZ", 0.9, (0.0, 0.0, 1.0, 1.0))
    with pytest.raises(BadDetection):
        DetectedCard("qs", 0.9, (0.0, 0.0, 1.0, 1.0))
    with pytest.raises(BadDetection):
        DetectedCard("QS", 1.5, (0.0, 0.0, 1.0, 1.0))
    with pytest.raises(BadDetection):
        DetectedCard("QS", 0.5, (5.0, 0.0, 1.0, 1.0))
    with pytest.raises(BadDetection):
        DetectedCard("QS", 0.5, (0.0, 0.0, 1.0, 1.0), ((0.0, 0.0), (1.0, 0.0), (1.0, float("nan")), (0.0, 1.0)))


def test_detections_sorted_filtered_and_shifted() -> None:
    low = DetectedCard("2H", 0.3, (0.0, 0.0, 10.0, 10.0))
    high = DetectedCard("back", 0.8, (5.0, 5.0, 15.0, 15.0), ((5.0, 5.0), (15.0, 5.0), (15.0, 15.0), (5.0, 15.0)))
    found = Detections((low, high), 100, 50)
    assert found.codes == ("back", "2H") and len(found) == 2 and found[0] is high
    assert found.boxes.shape == (2, 4) and found.confidences.tolist() == pytest.approx([0.8, 0.3])
    assert found.face_up().codes == ("2H",) and found.above(0.5).codes == ("back",)
    moved = high.shifted(10.0, 20.0, 2.0)
    assert moved.box == (20.0, 30.0, 40.0, 50.0) and moved.corners[0] == (20.0, 30.0)
    with pytest.raises(BadDetection):
        Detections(("QS",))  # type: ignore[arg-type]


def test_order_quad_is_clockwise_from_a_short_edge() -> None:
    portrait = np.array([[10, 10], [70, 10], [70, 100], [10, 100]], np.float32)
    for shift in range(4):
        q = order_quad(np.roll(portrait, shift, axis=0)[::-1])
        assert q[0].tolist() == [10, 10] and q[1].tolist() == [70, 10]
    landscape = box_quad((0, 0, 90, 60))
    assert np.linalg.norm(landscape[1] - landscape[0]) == pytest.approx(60)
    cross = np.cross(np.append(landscape[1] - landscape[0], 0), np.append(landscape[2] - landscape[1], 0))[2]
    assert cross > 0  # clockwise on screen (y down)


def test_index_crops_turn_the_opposite_corner_upright() -> None:
    image = np.full((200, 140, 3), 255, np.uint8)
    image[10:40, 10:30] = (0, 0, 255)  # a red mark in the top-left corner
    image[160:190, 110:130] = (0, 0, 255)  # and in the bottom-right one
    crops = index_crops(image, order_quad(np.array([[0, 0], [140, 0], [140, 200], [0, 200]], np.float32)))
    assert crops.shape == (2, CROP_SIZE[1], CROP_SIZE[0], 3)
    assert np.abs(crops[0].astype(int) - crops[1].astype(int)).mean() < 8
    assert crops[0][CROP_SIZE[1] // 3, CROP_SIZE[0] // 2, 2] == 255 and crops[0][CROP_SIZE[1] // 3, CROP_SIZE[0] // 2, 0] < 60


def test_the_opposite_index_crop_is_the_first_crop_of_the_quad_turned_by_two_corners() -> None:
    image = np.random.default_rng(4).integers(0, 256, (300, 240, 3), dtype=np.uint8)
    card = order_quad(np.array([[30, 20], [170, 40], [150, 250], [10, 230]], np.float32))
    opposite, turned = index_crops(image, card)[1], index_crops(image, np.roll(card, -2, axis=0))[0]
    assert np.abs(opposite.astype(int) - turned.astype(int)).max() <= 1  # the same warp up to rounding


def test_index_crops_of_many_quads_are_each_quads_crops_in_order() -> None:
    rng = np.random.default_rng(5)
    image = rng.integers(0, 256, (900, 700, 3), dtype=np.uint8)
    card = order_quad(np.array([[100, 80], [400, 120], [360, 560], [60, 520]], np.float32))  # large: warped at 2x, then shrunk
    quads = [card, scaled_quad(card, 0.3), *card_quads_at_corners(scaled_quad(card, 0.5))]
    each = [index_crops(image, q) for q in quads]
    assert np.array_equal(index_crops_of(image, quads), np.concatenate(each))
    assert np.array_equal(index_crops_of(image, quads, both=False), np.stack([pair[0] for pair in each]))
    assert index_crops_of(image, []).shape == (0, CROP_SIZE[1], CROP_SIZE[0], 3)


def test_a_card_shaped_quad_is_its_own_card_at_each_corner() -> None:
    card = order_quad(np.array([[10, 20], [110, 20], [110, 20 + 100 * CARD_ASPECT], [10, 20 + 100 * CARD_ASPECT]], np.float32))
    whole = card_quads_at_corners(card)
    assert np.allclose(whole[0], card, atol=1e-3)
    assert np.allclose(whole[2], np.roll(card, -2, axis=0), atol=1e-3)  # the opposite corner, turned by 180°


def test_a_strip_of_a_partly_hidden_card_is_read_at_a_whole_cards_index_size() -> None:
    image = np.full((200, 140, 3), 255, np.uint8)
    image[10:40, 10:30] = (0, 0, 255)  # the index in the top-left corner of a 140 x 200 card
    strip = order_quad(np.array([[0, 0], [40, 0], [40, 200], [0, 200]], np.float32))  # all that shows of it
    squeezed = index_crops(image, strip)[0]
    whole = index_crops(image, card_quads_at_corners(strip)[0])[0]
    expected = index_crops(image, order_quad(np.array([[0, 0], [140, 0], [140, 200], [0, 200]], np.float32)))[0]
    assert np.abs(whole.astype(int) - expected.astype(int)).mean() < 8
    assert np.abs(squeezed.astype(int) - expected.astype(int)).mean() > 30


def test_the_corner_geometry_examples_run() -> None:
    assert doctest.testmod(corners).failed == 0


def test_a_corner_that_shows_its_index_outweighs_several_that_mostly_do_not() -> None:
    clear_rank, clear_suit = _probs("J", "S", 0.95)
    crops = [(clear_rank, clear_suit)]
    for _ in range(4):  # corners cut where no index is: mostly `none`, the rest a 3
        rank = np.full(len(RANK_CLASSES), 0.01, np.float32)
        rank[RANK_CLASSES.index(NO_INDEX)], rank[RANK_CLASSES.index("3")] = 0.6, 0.4 - 0.01 * (len(RANK_CLASSES) - 2)
        crops.append((rank, _probs("3", "S")[1]))
    code, _ = merge_corners(np.stack([r for r, _ in crops]), np.stack([s for _, s in crops]))
    assert code == "JS"


def test_two_corners_merge_into_one_code() -> None:
    a_rank, a_suit = _probs("Q", "S")
    b_rank, b_suit = _probs("Q", "S", 0.7)
    code, p = merge_corners(np.stack([a_rank, b_rank]), np.stack([a_suit, b_suit]))
    assert code == "QS" and 0.5 < p <= 1.0
    hidden_rank, hidden_suit = _probs(NO_INDEX, None, 0.95)  # a thumb over the second corner
    code, p_hidden = merge_corners(np.stack([a_rank, hidden_rank]), np.stack([a_suit, hidden_suit]))
    assert code == "QS" and p_hidden > 0.6
    wrong_rank, wrong_suit = _probs("8", "H", 0.6)
    code, p_disagree = merge_corners(np.stack([a_rank, wrong_rank]), np.stack([a_suit, wrong_suit]))
    assert code == "QS" and p_disagree < p


def test_rotated_nms_keeps_one_box_per_card() -> None:
    boxes = np.array([[50, 50, 40, 60, 0.3], [51, 50, 40, 61, 0.32], [150, 50, 40, 60, 0.0]], np.float64)
    keep = rotated_nms(boxes, np.array([0.9, 0.8, 0.7]), 0.6)
    assert keep.tolist() == [0, 2]
    assert probiou(boxes[0], boxes[:1])[0] == pytest.approx(1.0, abs=1e-3)


def test_rotated_nms_keeps_what_suppressing_one_box_at_a_time_in_score_order_keeps() -> None:
    rng = np.random.default_rng(8)
    for n in (0, 1, 40):
        boxes = np.column_stack([rng.uniform(0, 200, n), rng.uniform(0, 200, n), rng.uniform(20, 60, n),
                                 rng.uniform(20, 60, n), rng.uniform(-1.5, 1.5, n)])
        scores = rng.uniform(0.3, 1.0, n)
        order, expected = list(np.argsort(-scores)), []
        while order:
            best = order.pop(0)
            expected.append(best)
            order = [i for i in order if probiou(boxes[best], boxes[i : i + 1])[0] <= 0.6]
        assert rotated_nms(boxes, scores, 0.6).tolist() == expected


def test_matching_and_iou() -> None:
    assert iou((0, 0, 10, 10), (5, 0, 15, 10)) == pytest.approx(1 / 3)
    truth = [LabelledCard("Q", (0, 0, 10, 10)), LabelledCard("9", (20, 0, 30, 10))]
    found = Detections((DetectedCard("QH", 0.9, (1.0, 0.0, 10.0, 10.0)), DetectedCard("9S", 0.2, (40.0, 0.0, 50.0, 10.0))))
    assert match(truth, found) == [(0, 0)]


def test_real_split_is_fixed_blocks() -> None:
    splits = [split_of(i) for i in range(80)]
    assert splits[:8] == ["train"] * 8 and splits[8:16] == ["holdout"] * 8
    assert splits.count("holdout") == 32
