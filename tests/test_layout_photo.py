"""`referee layout`: a dealt layout in a photo without markers, its zones fitted to the cards and their tops read."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.cli import main
from referee.render.geometry import TableGeometry
from referee.synth import (BUILTIN_BACKS, BUILTIN_STYLES, BuiltinFaces, Camera, CardPlacement, Deck, Lighting, Scene,
                           TableStyle, builtin_back, render_scene)
from referee.synth.annotation import Annotation
from referee.vision.calibrate_fit import project, rectangle, solve_rectangles
from referee.vision.detections import DetectedCard, Detections
from referee.vision.detector import CardDetector
from referee.vision.layout_photo import (LayoutNotFitted, NoCardsFound, PhotoLayout, fit_photo_layout, read_layout,
                                         table_plane)
from referee.vision.zones import CARD_SIZE_CM

TOPS = {"A1": "7H", "A2": "QS", "A3": "2D", "A4": "10C", "A5": "KH",
        "B1": "AS", "B2": "5D", "B3": "9C", "B4": "JH", "B5": "3S", "L": "8D", "R": "4C"}
TILTS = (0.0, 40.0)
RIGHT_TOPS_AT_LEAST = 10
"""Of the 12 tops the committed detector read 12 right seen from above and 11 at 40 degrees (one
far card read `empty`), and no card wrong with confidence 0.3 or more."""


def _dealt(seed: int = 7) -> tuple[CardPlacement, ...]:
    """A classic deal as dealt: stock piles of 1..5 cards, only the top face up and upright for its
    owner, one card on each spit pile, and each player's face-down spit cards turned sideways beside
    their row; every card a little off its place."""
    rng = np.random.default_rng(seed)
    geometry = TableGeometry()
    cards, z = [], 0
    for player, angle in (("A", 0.0), ("B", 180.0)):
        for k in range(1, 6):
            x, y = geometry.pile(f"{player}{k}") + rng.normal(0, 0.6, 2)
            turn = angle + float(rng.normal(0, 2))
            for j in range(k):
                code = TOPS[f"{player}{k}"] if j == k - 1 else "back"
                cards.append(CardPlacement(code, float(x) + 0.05 * j, float(y) + 0.04 * j, turn, z, 0.03 * j,
                                           f"{player}{k}"))
                z += 1
        x, y = geometry.stack(player)
        cards.append(CardPlacement("back", x, y, angle + 90, z))
        z += 1
    for name, angle in (("L", 4.0), ("R", 176.0)):
        x, y = geometry.pile(name) + rng.normal(0, 0.8, 2)
        cards.append(CardPlacement(TOPS[name], float(x), float(y), angle, z, 0.0, name))
        z += 1
    return tuple(cards)


def _photo(tilt: float, cards: tuple[CardPlacement, ...] = ()) -> tuple[np.ndarray, Annotation]:
    """A 1280 x 720 photo (BGR) of the deal without markers, from player A's side, and its truth."""
    camera = Camera.look_at(1280, 720, (0.0, -4.0 if tilt else 0.0), 95.0 if tilt else 80.0, tilt, 0.0)
    scene = Scene(cards or _dealt(), TableStyle("wood", (150, 104, 64), (112, 74, 42), seed=3), lighting=Lighting())
    rendered = render_scene(scene, camera, Deck(BuiltinFaces(BUILTIN_STYLES[0]), builtin_back(BUILTIN_BACKS[0])))
    rgb = (np.clip(rendered.image, 0, 1) * 255).round().astype(np.uint8)
    return np.ascontiguousarray(rgb[:, :, ::-1]), rendered.annotation


@pytest.fixture(scope="module")
def photos() -> dict[float, tuple[np.ndarray, Annotation]]:
    return {tilt: _photo(tilt) for tilt in TILTS}


@pytest.fixture(scope="module")
def detector() -> CardDetector:
    return CardDetector()


def true_detections(annotation: Annotation, keep_corners: int | None = None) -> Detections:
    """The truth as the detector would say it: every card mostly in sight with its true code and
    corners (only the first `keep_corners` of them with corners, the rest with boxes only)."""
    cards = []
    for n, card in enumerate(c for c in annotation.cards if c.visible > 0.5):
        corners = np.array(card.corners)
        box = (*corners.min(0), *corners.max(0))
        outline = tuple(map(tuple, corners)) if keep_corners is None or n < keep_corners else None
        cards.append(DetectedCard(card.card, 1.0, tuple(float(v) for v in box), outline))  # type: ignore[arg-type]
    return Detections(tuple(cards), annotation.width, annotation.height)


def _dealt_centres(annotation: Annotation) -> dict[str, np.ndarray]:
    """Each pile's top card's centre in the photo (px)."""
    return {c.zone: np.mean(c.corners, axis=0) for c in annotation.cards if c.zone and c.visible > 0.5}


def _assert_each_card_in_its_zone(photo: PhotoLayout, annotation: Annotation) -> None:
    calibration = photo.calibration
    centres = _dealt_centres(annotation)
    assert set(centres) == set(TOPS)
    for name, centre in centres.items():
        assert calibration.layout.locate(calibration.to_table(centre)) == name, name


@pytest.mark.parametrize("tilt", TILTS)
def test_zones_fitted_to_the_true_cards_hold_each_dealt_card(photos, tilt):
    image, annotation = photos[tilt]
    photo = fit_photo_layout(true_detections(annotation))
    assert photo.plane == "cards" and photo.plane_cards == 14 and photo.rms_px < 0.5
    _assert_each_card_in_its_zone(photo, annotation)
    assert photo.calibration.layout.predicted == ()


@pytest.mark.parametrize("tilt", TILTS)
def test_the_plane_from_the_true_cards_is_the_cameras(photos, tilt):
    _, annotation = photos[tilt]
    plane, how, used, _ = table_plane(true_detections(annotation))
    truth = np.array(annotation.homography)
    # the fitted plane is the table in another frame: distances between cards on it are the table's
    centres_px = np.array(list(_dealt_centres(annotation).values()))
    on_fit = project(np.linalg.inv(plane), centres_px)
    on_table = project(np.linalg.inv(truth), centres_px)
    distances = lambda p: np.linalg.norm(p[:, None] - p[None], axis=-1)  # noqa: E731
    assert how == "cards" and used == 14
    assert np.abs(distances(on_fit) - distances(on_table)).max() < 0.2  # cm, across a 60 cm deal


def test_too_few_card_corners_fall_back_to_a_top_down_plane(photos):
    image, annotation = photos[0.0]
    photo = fit_photo_layout(true_detections(annotation, keep_corners=2))
    assert photo.plane == "top-down" and photo.plane_cards == 0
    _assert_each_card_in_its_zone(photo, annotation)


@pytest.mark.parametrize("tilt", TILTS)
def test_the_detector_reads_the_dealt_tops(photos, detector, tilt):
    image, annotation = photos[tilt]
    reading = read_layout(image, detector)
    assert reading.layout.plane == "cards"
    _assert_each_card_in_its_zone(reading.layout, annotation)
    tops = {zone.name: zone for zone in reading.zones}
    assert list(tops)[:2] == ["L", "R"] and set(tops) == set(TOPS)
    right = [name for name, zone in tops.items() if zone.top == TOPS[name]]
    assert len(right) >= RIGHT_TOPS_AT_LEAST, {n: (z.top, z.confidence) for n, z in tops.items()}
    wrong_cards = [n for n, z in tops.items() if z.top not in (TOPS[n], "empty") and z.confidence >= 0.3]
    assert not wrong_cards


def test_solve_rectangles_finds_cards_of_known_size_at_unknown_places():
    camera = Camera.look_at(1280, 720, (0.0, 0.0), 90.0, 45.0, 20.0)
    truth = camera.homography()
    poses = [(-20.0, -10.0, 0.1), (0.0, 5.0, 1.7), (18.0, 12.0, -0.4), (5.0, -15.0, 3.0)]
    local = rectangle(*CARD_SIZE_CM)
    on_table = {n: local @ np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]]) + (x, y)
                for n, (x, y, a) in enumerate(poses)}
    seen = {n: project(truth, corners) for n, corners in on_table.items()}
    homography, on_plane = solve_rectangles(seen, CARD_SIZE_CM)
    for n in seen:
        assert np.abs(project(homography, on_plane[n]) - seen[n]).max() < 1e-4
        assert np.linalg.norm(on_plane[n].mean(0) - on_plane[0].mean(0)) == pytest.approx(
            np.linalg.norm(on_table[n].mean(0) - on_table[0].mean(0)), abs=1e-4)


def test_no_cards_or_too_few_face_up_cards_are_refused(photos):
    _, annotation = photos[0.0]
    with pytest.raises(NoCardsFound, match="no card"):
        fit_photo_layout(Detections((), 1280, 720))
    two = Detections(tuple(c for c in true_detections(annotation) if c.code in ("7H", "QS") or not c.face_up),
                     1280, 720)
    with pytest.raises(NoCardsFound, match="2 face-up cards"):
        fit_photo_layout(two)


def test_a_layout_the_cards_cannot_make_is_refused(photos):
    _, annotation = photos[0.0]
    with pytest.raises(LayoutNotFitted, match="60 stock places"):
        fit_photo_layout(true_detections(annotation), stock_places=60)
    a_row = [TOPS[f"A{k}"] for k in range(1, 6)]
    one_row = Detections(tuple(c for c in true_detections(annotation) if c.code in a_row), 1280, 720)
    with pytest.raises(LayoutNotFitted, match="of the layout's 12 places hold a face-up card"):
        fit_photo_layout(one_row)


@pytest.fixture(scope="module")
def photo_files(photos, tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("layout")
    files = {"tilted": folder / "tilted.png", "bare": folder / "bare.png", "broken": folder / "broken.jpg"}
    cv2.imwrite(str(files["tilted"]), photos[40.0][0])
    bare, _ = _photo(0.0, (CardPlacement("back", 500.0, 500.0),))  # the only card far outside the photo
    cv2.imwrite(str(files["bare"]), bare)
    files["broken"].write_bytes(b"not an image")
    return files


def test_cli_prints_each_zone_and_its_top(photo_files, capsys):
    assert main(["layout", str(photo_files["tilted"])]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "plane from" in lines[0] and lines[1].startswith("L: 8D") and lines[3].startswith("A1: 7H")
    assert len(lines) == 13


def test_cli_json_and_preview(photo_files, tmp_path, capsys):
    preview = tmp_path / "zones.png"
    assert main(["layout", str(photo_files["tilted"]), "--json", "--preview", str(preview)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["image"] == str(photo_files["tilted"]) and data["plane"] == "cards"
    assert set(data["zones"]) == set(TOPS) and data["zones"]["A1"]["top"] == "7H"
    assert len(data["zones"]["A1"]["polygon"]) == 4 and len(data["play_area"]) == 4
    assert cv2.imread(str(preview)).shape == (720, 1280, 3)


def test_cli_bad_photos_are_one_line_each_and_the_others_still_read(photo_files, capsys):
    paths = [str(photo_files[k]) for k in ("broken", "tilted", "bare")] + ["missing.png"]
    assert main(["layout", *paths, "--json"]) == 2
    out, err = capsys.readouterr()
    assert [json.loads(line)["image"] for line in out.splitlines()] == [str(photo_files["tilted"])]
    errors = err.splitlines()
    assert len(errors) == 3 and all(line.startswith("referee layout: error: ") for line in errors)
    assert "not an image" in errors[0] and "no card found" in errors[1] and "missing.png" in errors[2]


def test_cli_refuses_a_rule_set_it_cannot_lay_out(photo_files, capsys):
    assert main(["layout", str(photo_files["tilted"]), "--rules", "speahx"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
