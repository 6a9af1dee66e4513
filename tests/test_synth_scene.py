"""Rendered scenes agree with their annotations: corners, visibility, index corners, markers."""

import cv2
import numpy as np
import pytest

from referee.synth import (BUILTIN_BACKS, BUILTIN_STYLES, Annotation, BuiltinFaces, Camera, Canvas, CardPlacement, Deck,
                           GlareSpot, HandPose, Lighting, PlayArea, Scene, TableStyle, builtin_back, render_scene,
                           yolo_boxes, yolo_obb)

TABLE = TableStyle("felt", (30, 110, 60), (25, 90, 50), seed=5)
DECK = Deck(BuiltinFaces(BUILTIN_STYLES[0]), builtin_back(BUILTIN_BACKS[0]))
FLAT = Lighting(shadow=0.0, ambient_ramp=0.0, vignette=0.0)


def _render(cards, camera=None, hands=(), markers=()):
    camera = camera or Camera.look_at(640, 480, (0, 0), 60, 0, 0)
    return render_scene(Scene(tuple(cards), TABLE, tuple(hands), tuple(markers), FLAT), camera, DECK)


def test_corners_project_where_the_card_is():
    camera = Camera.look_at(800, 600, (2, 1), 70, 35, 20)
    out = _render([CardPlacement("2C", 3, 2, 25, 0)], camera)
    card = out.annotation.cards[0]
    corners = np.array(card.corners, np.float32)
    inside = np.zeros((600, 800), np.uint8)
    cv2.fillConvexPoly(inside, np.round(corners - 0.5).astype(np.int32), 1)
    white = out.image.min(axis=2) > 0.6  # card stock; the felt is dark
    assert white[inside.astype(bool)].mean() > 0.75
    ring = cv2.dilate(inside, np.ones((9, 9), np.uint8)) - cv2.dilate(inside, np.ones((5, 5), np.uint8))
    assert white[ring.astype(bool)].mean() < 0.02
    assert card.visible == pytest.approx(1.0, abs=0.03)
    assert card.index_visible == (True, True)


def test_printed_corner_order_follows_the_face():
    # a card turned 180 degrees (upright for player B) seen from player A's side
    out = _render([CardPlacement("AS", 0, 0, 180, 0)])
    tl, tr, br, bl = out.annotation.cards[0].corners
    assert tl[1] > bl[1] and tl[0] > tr[0]  # its printed top is at the bottom of the image


def test_card_under_another_is_not_visible():
    out = _render([CardPlacement("2C", 0, 0, 0, 0), CardPlacement("back", 0.05, 0, 0, 1, 0.03)])
    under, top = out.annotation.cards
    assert under.visible < 0.03 and under.index_visible == (False, False)
    assert top.visible > 0.97
    assert [b[0] for b in yolo_boxes(out.annotation)] == [1]


def test_shifted_card_shows_its_index():
    out = _render([CardPlacement("9D", 0, 0, 0, 0), CardPlacement("9S", 2.5, -2.5, 0, 1, 0.03)])
    under = out.annotation.cards[0]
    assert under.index_visible == (True, False)
    assert 0.2 < under.visible < 0.6


def test_hand_covers_cards():
    hand = HandPose("A", 0, 0, 0, height=1.0, skin=(120, 74, 46))
    out = _render([CardPlacement("5H", 0, 0, 0, 0)], hands=[hand])
    assert out.annotation.cards[0].visible < 0.5
    assert out.annotation.hands[0].side == "A" and len(out.annotation.hands[0].polygon) >= 3


def test_markers_are_found_where_annotated():
    camera = Camera.look_at(1280, 720, (0, 0), 95, 20, 0)
    out = _render([], camera, markers=PlayArea().markers())
    gray = cv2.cvtColor((out.image * 255).astype(np.uint8), cv2.COLOR_RGB2GRAY)
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    corners, ids, _ = detector.detectMarkers(gray)
    assert ids is not None and sorted(ids.ravel().tolist()) == [0, 1, 2, 3]
    truth = {m.marker_id: np.array(m.corners) for m in out.annotation.markers}
    assert all(m.visible == 1.0 for m in out.annotation.markers)
    for found, marker_id in zip(corners, ids.ravel()):
        # OpenCV gives pixel-centre coordinates; the annotation's are continuous (+0.5)
        assert np.abs(found[0] + 0.5 - truth[marker_id]).max() < 1.5
    # INTERFACES.md: id 0 far left, 1 far right, 2 near right, 3 near left (seen from player A)
    centres = {i: c.mean(axis=0) for i, c in truth.items()}
    assert centres[0][0] < centres[1][0] and centres[0][1] < centres[3][1] and centres[2][1] > centres[1][1]


def test_a_hand_over_a_marker_hides_it():
    marker = PlayArea().markers()[3]
    hand = HandPose("A", marker.x, marker.y, 0, height=1.0, skin=(200, 150, 120))
    out = _render([], Camera.look_at(640, 480, (marker.x, marker.y), 40, 0, 0), hands=[hand], markers=[marker])
    assert out.annotation.markers[0].visible < 0.3


def test_annotation_round_trips_and_labels_are_clipped():
    camera = Camera.look_at(640, 480, (0, 0), 50, 0, 0)
    out = _render([CardPlacement("QD", 31, 0, 30, 0)], camera)  # partly out of the frame
    ann = out.annotation
    assert Annotation.from_dict(ann.to_dict()) == ann
    card = ann.cards[0]
    assert card.visible > 0.97 and 0.1 < card.in_frame < 0.9  # cut by the frame, hidden by nothing
    (cls, xc, yc, w, h), = yolo_boxes(ann)
    assert cls == 0 and xc + w / 2 == pytest.approx(1.0) and 0 < w < 1
    (cls, pts), = yolo_obb(ann)
    assert len(pts) == 8 and all(0.0 <= v <= 1.0 for v in pts)
    assert yolo_boxes(ann, min_in_frame=0.95) == []


def test_a_card_turned_over_shows_its_back():
    out = _render([CardPlacement("JH", 0, 0, 0, 0, height=2.0, lift=2.0, tilt=180)])
    card = out.annotation.cards[0]
    assert card.card == "back" and card.index_visible == (False, False) and card.visible > 0.97
    tl, tr, br, bl = card.corners  # turned about its middle line: its printed top is now near player A
    assert tl[1] > bl[1] and tl[0] < tr[0]
    tilted = _render([CardPlacement("JH", 0, 0, 0, 0, height=2.0, lift=2.0, tilt=60)]).annotation.cards[0]
    assert tilted.card == "JH"
    width = abs(tilted.corners[1][0] - tilted.corners[0][0])
    height = abs(tilted.corners[3][1] - tilted.corners[0][1])
    assert height < 0.6 * width * 8.8 / 6.3  # seen from above, a tilted card looks shorter


def test_a_canvas_draws_render_scenes_frame_step_by_step():
    camera = Camera.look_at(640, 480, (0, 0), 60, 20, 0)
    lighting = Lighting(glare=(GlareSpot(3, 4, 8, 0.3),))
    cards = (CardPlacement("QS", -4, 0, 10, 0), CardPlacement("7H", 3, 1, -20, 1), CardPlacement("back", 0, 2, 5, 2))
    hands = (HandPose("A", 2, -4, 0, 3.0, (200, 150, 120)), HandPose("B", -2, 4, 180, 1.0, (120, 80, 60)))
    scene = Scene(cards, TABLE, hands, PlayArea().markers(), lighting)
    exact = render_scene(scene, camera, DECK)
    table = Canvas(camera, TABLE, lighting, DECK, scene.markers)
    below = table.copy()
    below.draw_cards(cards[:2])
    above = below.copy()  # drawing on a copy leaves the canvas it came from as it was
    above.draw_cards(cards[2:])
    above.draw_hands(hands)
    rendered = above.finish()
    assert np.array_equal(rendered.image, exact.image) and rendered.annotation == exact.annotation
    assert len(below.finish().annotation.cards) == 2 and np.array_equal(table.finish().image, table.finish().image)
    bare = Canvas(camera, TABLE, lighting, DECK, labels=False)
    with pytest.raises(ValueError):
        bare.finish()
    # the gain lights a bare table as finish does, but for the glare (taken as it shows on a table of brightness 0.25)
    lit = Canvas(camera, TABLE, lighting, DECK).finish().image
    assert np.abs(lit - np.clip(bare.image * bare.gain(), 0, 1)).max() < 0.05


def test_a_low_camera_with_the_table_origin_behind_it_still_renders_the_card_in_front():
    camera = Camera.look_at(640, 480, (40, 0), 20, 50, 90)  # looks along +x from about (25, 0, 13)
    assert (camera.R @ np.zeros(3) + camera.t)[2] < 0  # the table's origin is behind the camera
    out = _render([CardPlacement("2C", 40, 0, 0, 0)], camera)
    corners = np.array(out.annotation.cards[0].corners, np.float32)
    assert np.isfinite(out.image).all() and (corners.min(axis=0) > 0).all() and (corners.max(axis=0) < (640, 480)).all()
