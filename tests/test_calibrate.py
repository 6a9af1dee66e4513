"""Table calibration on synthetic frames: markers on a table seen by a camera of known pose, blurred and noisy."""

from __future__ import annotations

import argparse
import json
import math
import time

import cv2
import numpy as np
import pytest

from referee.vision import calibrate as cal_module
from referee.vision.calibrate import (
    BadCalibrationFile,
    CalibrationError,
    MarkersNotFound,
    calibrate_manual,
    calibrate_markers,
    check_markers,
    load_calibration,
)
from referee.vision.calibrate_fit import fit_homography, project
from referee.vision.markers import marker_image

WIDTH, DEPTH, SIDE = 80.0, 60.0, 5.0
FRAME = (1280, 720)
TEXTURE_PX_PER_CM = 20
SUPERSAMPLE = 3
GRID = np.array([[x, y] for x in np.linspace(0, WIDTH, 9) for y in np.linspace(0, DEPTH, 7)])
TRUE_PLAY_AREA = np.array([[0, DEPTH], [WIDTH, DEPTH], [WIDTH, 0], [0, 0]])
CARDS = ((30.0, 8.0), (50.0, 52.0), (40.0, 30.0))
"""Card centres drawn on the table (6.3 x 8.8 cm, white with a dark '7')."""


def camera(tilt_deg: float, yaw_deg: float = 0.0, distance_cm: float = 120.0, focal_px: float = 1000.0) -> np.ndarray:
    """The homography table cm -> image px of a pinhole camera aimed at the play area's middle from
    `distance_cm`, tilted `tilt_deg` from straight above towards player A, turned `yaw_deg` round the table."""
    tilt, yaw = math.radians(tilt_deg), math.radians(yaw_deg)
    target = np.array([WIDTH / 2, DEPTH / 2, 0.0])
    back = np.array([math.sin(yaw) * math.sin(tilt), -math.cos(yaw) * math.sin(tilt), math.cos(tilt)])
    eye = target + distance_cm * back
    z = (target - eye) / distance_cm
    x = np.array([math.cos(yaw), math.sin(yaw), 0.0])
    x = (x - z * np.dot(x, z)) / np.linalg.norm(x - z * np.dot(x, z))
    rotation = np.stack([x, np.cross(z, x), z])
    intrinsics = np.array([[focal_px, 0, FRAME[0] / 2 - 0.5], [0, focal_px, FRAME[1] / 2 - 0.5], [0, 0, 1]])
    h = intrinsics @ np.column_stack([rotation[:, 0], rotation[:, 1], -rotation @ eye])
    return h / h[2, 2]


def scene(homography: np.ndarray, seed: int = 0, hide: tuple[int, ...] = (), turns: dict[int, int] | None = None,
          ids: tuple[int, int, int, int] = (0, 1, 2, 3), moved: dict[int, tuple[float, float]] | None = None,
          blur: float = 0.8, noise: float = 3.0) -> np.ndarray:
    """A BGR frame of the table: markers of SIDE cm just outside the play area's corners (`ids` for
    far left, far right, near right, near left; `turns` quarter-turns a marker; `moved` moves one
    by (dx, dy) cm; `hide` covers one with a hand-coloured blob), three cards, a lighting
    gradient, then blur and noise."""
    margin = 12.0
    x_min, y_max = -margin, DEPTH + margin
    width, height = int((WIDTH + 2 * margin) * TEXTURE_PX_PER_CM), int((DEPTH + 2 * margin) * TEXTURE_PX_PER_CM)
    texture = (np.full((height, width), 105.0) + np.linspace(0, 30, width)[None, :]).astype(np.uint8)
    side = int(SIDE * TEXTURE_PX_PER_CM)
    quiet = side // 5
    lows = ((-SIDE, DEPTH), (WIDTH, DEPTH), (WIDTH, -SIDE), (-SIDE, -SIDE))  # lower-left corner of each place
    for marker_id, (x, y) in zip(ids, lows):
        dx, dy = (moved or {}).get(marker_id, (0.0, 0.0))
        x, y = x + dx, y + dy
        u, v = round((x - x_min) * TEXTURE_PX_PER_CM), round((y_max - y - SIDE) * TEXTURE_PX_PER_CM)
        texture[v - quiet:v + side + quiet, u - quiet:u + side + quiet] = 235
        bits = np.rot90(marker_image(marker_id, side), (turns or {}).get(marker_id, 0))
        texture[v:v + side, u:u + side] = np.where(bits > 0, 235, 25)
        if marker_id in hide:
            cv2.ellipse(texture, (u + side // 2, v + side // 2), (side, side // 2 + quiet), 30, 0, 360, 170, -1)
    for cx, cy in CARDS:
        u, v = round((cx - x_min) * TEXTURE_PX_PER_CM), round((y_max - cy) * TEXTURE_PX_PER_CM)
        half_w, half_h = round(3.15 * TEXTURE_PX_PER_CM), round(4.4 * TEXTURE_PX_PER_CM)
        texture[v - half_h:v + half_h, u - half_w:u + half_w] = 240
        cv2.putText(texture, "7", (u - 40, v + 30), cv2.FONT_HERSHEY_SIMPLEX, 3, 30, 8)
    to_texture = np.array([[TEXTURE_PX_PER_CM, 0, -x_min * TEXTURE_PX_PER_CM - 0.5],
                           [0, -TEXTURE_PX_PER_CM, y_max * TEXTURE_PX_PER_CM - 0.5], [0, 0, 1]])
    s = SUPERSAMPLE
    upscale = np.array([[s, 0, (s - 1) / 2], [0, s, (s - 1) / 2], [0, 0, 1]])
    big = cv2.warpPerspective(texture, upscale @ homography @ np.linalg.inv(to_texture), (FRAME[0] * s, FRAME[1] * s),
                              flags=cv2.INTER_LINEAR, borderValue=90)
    image = cv2.resize(big, FRAME, interpolation=cv2.INTER_AREA).astype(float)
    image = cv2.GaussianBlur(image, (0, 0), blur) + np.random.default_rng(seed).normal(0, noise, image.shape)
    return cv2.cvtColor(np.clip(image, 0, 255).astype(np.uint8), cv2.COLOR_GRAY2BGR)


def grid_error_px(calibration: cal_module.Calibration, truth: np.ndarray) -> float:
    """The largest distance (px) between where the calibration and the true camera put table points."""
    return float(np.linalg.norm(calibration.to_image(GRID) - project(truth, GRID), axis=1).max())


@pytest.fixture(scope="module")
def above() -> tuple[np.ndarray, np.ndarray, cal_module.Calibration]:
    truth = camera(20)
    frame = scene(truth)
    return truth, frame, calibrate_markers(frame, SIDE)


def test_four_markers_give_the_table_scale_in_cm() -> None:
    truth = camera(0)
    calibration = calibrate_markers(scene(truth), SIDE)
    assert np.abs(calibration.play_area_cm - TRUE_PLAY_AREA).max() < 0.2
    for corners in calibration.markers_cm.values():
        sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
        assert sides == pytest.approx([SIDE] * 4, abs=0.02)
    assert calibration.rms_px < 0.2 and calibration.rms_cm < 0.05
    assert grid_error_px(calibration, truth) < 1.5


@pytest.mark.parametrize("tilt, yaw", [(30, 0), (45, 10), (60, 0), (60, -8)])
def test_tilted_camera_up_to_60_degrees_is_calibrated(tilt: float, yaw: float) -> None:
    truth = camera(tilt, yaw)
    calibration = calibrate_markers(scene(truth, seed=tilt), SIDE)
    assert sorted(calibration.markers_cm) == [0, 1, 2, 3]
    assert grid_error_px(calibration, truth) < 2.5
    assert np.abs(calibration.to_table(project(truth, GRID)) - GRID).max() < 0.5  # cm
    assert calibration.rms_px < 0.3


def test_table_frame_is_player_as_even_with_the_camera_behind_player_b() -> None:
    truth = camera(35, yaw_deg=180)
    calibration = calibrate_markers(scene(truth), SIDE)
    assert np.abs(calibration.to_table(project(truth, GRID)) - GRID).max() < 0.3
    assert calibration.layout.locate((WIDTH / 2 - 5, DEPTH / 2)) == "L"


def test_markers_in_any_rotation_are_calibrated() -> None:
    truth = camera(30)
    calibration = calibrate_markers(scene(truth, turns={0: 1, 1: 2, 2: 3}), SIDE)
    assert np.abs(calibration.play_area_cm - TRUE_PLAY_AREA).max() < 0.3


def test_markers_laid_mirror_wise_are_refused() -> None:
    with pytest.raises(CalibrationError, match="mirror-wise"):
        calibrate_markers(scene(camera(20), ids=(1, 0, 3, 2)), SIDE)


def test_manual_corners_give_the_same_homography_as_markers(above) -> None:
    truth, _, by_markers = above
    manual = calibrate_manual(FRAME, project(truth, TRUE_PLAY_AREA), WIDTH, DEPTH)
    assert manual.source == "manual"
    assert grid_error_px(manual, truth) < 1e-3
    assert float(np.linalg.norm(manual.to_image(GRID) - by_markers.to_image(GRID), axis=1).max()) < 1.0


def test_manual_corners_given_mirror_wise_are_refused(above) -> None:
    truth = above[0]
    with pytest.raises(CalibrationError, match="mirror-wise"):
        calibrate_manual(FRAME, project(truth, TRUE_PLAY_AREA[[1, 0, 3, 2]]), WIDTH, DEPTH)


def test_a_hidden_marker_is_placed_from_the_previous_calibration(above) -> None:
    _, _, previous = above
    truth = camera(22, yaw_deg=2)
    calibration = calibrate_markers(scene(truth, seed=3, hide=(2,)), SIDE, previous=previous)
    assert sorted(calibration.markers_px) == [0, 1, 3]
    assert grid_error_px(calibration, truth) < 1.5
    assert calibration.layout is previous.layout


def test_three_markers_without_a_previous_calibration_complete_the_play_area() -> None:
    truth = camera(20)
    calibration = calibrate_markers(scene(truth, hide=(0,)), SIDE)
    assert sorted(calibration.markers_cm) == [1, 2, 3]
    assert np.abs(calibration.play_area_cm - TRUE_PLAY_AREA).max() < 0.5
    assert grid_error_px(calibration, truth) < 2.0


def test_two_markers_without_a_previous_calibration_are_refused() -> None:
    with pytest.raises(MarkersNotFound, match=r"saw markers \[1, 2\]"):
        calibrate_markers(scene(camera(20), hide=(0, 3)), SIDE)


def test_a_frame_without_markers_is_refused() -> None:
    with pytest.raises(MarkersNotFound, match="none"):
        calibrate_markers(np.full((720, 1280, 3), 128, np.uint8))


def test_unmoved_camera_is_not_recalibrated(above) -> None:
    _, frame, calibration = above
    check = check_markers(scene(camera(20), seed=9), calibration)
    assert not check.moved and check.calibration is calibration
    assert check.seen == (0, 1, 2, 3) and check.shift_px < 0.3


def test_nudged_camera_is_recalibrated(above) -> None:
    _, _, calibration = above
    nudged = camera(21.5, yaw_deg=1.0, distance_cm=121)
    check = check_markers(scene(nudged, seed=4), calibration)
    assert check.moved and check.shift_px > 5
    assert grid_error_px(check.calibration, nudged) < 1.5
    assert check.calibration.layout is calibration.layout
    assert all(np.array_equal(check.calibration.markers_cm[i], calibration.markers_cm[i]) for i in range(4))


def test_a_marker_bumped_on_the_table_is_not_a_move(above) -> None:
    truth, _, calibration = above
    check = check_markers(scene(truth, seed=6, moved={1: (2.0, 1.0)}), calibration)
    assert not check.moved and check.shift_px > 10 and check.calibration is calibration


def test_markers_laid_afresh_are_fitted_afresh(above) -> None:
    truth, _, calibration = above
    relaid = calibrate_markers(scene(truth, seed=7, moved={1: (-10.0, 0.0), 2: (-10.0, 0.0), 3: (0.0, 3.0)}),
                               previous=calibration)
    assert relaid.play_size_cm == pytest.approx((70.0, 58.5), abs=0.3)
    assert relaid.layout is calibration.layout


def test_a_hand_over_a_marker_is_not_a_move(above) -> None:
    _, _, calibration = above
    check = check_markers(scene(camera(20), seed=5, hide=(1,)), calibration)
    assert not check.moved and check.seen == (0, 2, 3)


def test_the_check_wants_a_frame_of_the_calibrated_size(above) -> None:
    with pytest.raises(CalibrationError, match="640x360"):
        check_markers(np.zeros((360, 640, 3), np.uint8), above[2])


def test_calibration_file_round_trips(above, tmp_path) -> None:
    _, _, calibration = above
    path = tmp_path / "table.json"
    calibration.save(path)
    loaded = load_calibration(path)
    assert np.allclose(loaded.homography, calibration.homography)
    assert loaded.layout == calibration.layout
    assert sorted(loaded.markers_cm) == sorted(calibration.markers_cm)
    assert np.allclose(loaded.markers_px[2], calibration.markers_px[2])
    assert (loaded.source, loaded.marker_size_cm, loaded.timestamp) == ("markers", SIDE, calibration.timestamp)
    data = json.loads(path.read_text())
    assert data["schema_version"] == 1 and data["image_size"] == list(FRAME)


def _written(tmp_path, above, change) -> str:
    data = above[2].to_dict()
    change(data)
    path = tmp_path / "table.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_calibration_file_of_another_schema_version_is_refused(above, tmp_path) -> None:
    path = _written(tmp_path, above, lambda d: d.update(schema_version=2))
    with pytest.raises(BadCalibrationFile, match="schema_version 2"):
        load_calibration(path)


def test_corrupt_calibration_file_is_refused(tmp_path) -> None:
    path = tmp_path / "table.json"
    path.write_text('{"schema_version": 1, "homography": [[1, 0')
    with pytest.raises(BadCalibrationFile, match="not JSON"):
        load_calibration(path)


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(homography=[[1, 0, 0], [0, 1, 0]]), r"homography must have shape \(3, 3\)"),
    (lambda d: d["markers"]["1"].update(table_cm=[[0, 0]] * 3), r"markers_cm\[1\] must have shape \(4, 2\)"),
    (lambda d: d.update(image_size=[1280]), "image_size"),
    (lambda d: d.pop("layout"), "missing layout"),
    (lambda d: d["layout"]["piles"].update(Q1=[[0, 0], [1, 0], [0, 1]]), "layout: 'Q1'"),
    (lambda d: d.update(source="guess"), "source must be"),
])
def test_calibration_file_with_a_bad_field_names_it(above, tmp_path, change, message) -> None:
    path = _written(tmp_path, above, change)
    with pytest.raises(BadCalibrationFile, match=message):
        load_calibration(path)


def test_rectified_zone_shows_the_table_top_down_at_8_px_per_cm(above) -> None:
    _, frame, calibration = above
    top = calibration.rectify(frame, ((34, 22), (46, 22), (46, 38), (34, 38)))
    assert top.image.shape[:2] == (16 * 8, 12 * 8)
    white = np.argwhere(cv2.cvtColor(top.image, cv2.COLOR_BGR2GRAY) > 200)
    (v0, u0), (v1, u1) = white.min(0), white.max(0)
    assert (u1 - u0 + 1) / 8 == pytest.approx(6.3, abs=0.3) and (v1 - v0 + 1) / 8 == pytest.approx(8.8, abs=0.3)
    centre = top.to_table(np.array([(u0 + u1) / 2, (v0 + v1) / 2]))
    assert centre == pytest.approx(CARDS[2], abs=0.3)
    assert top.to_pixels(top.to_table(np.array([3.0, 7.0]))) == pytest.approx([3.0, 7.0])


def test_zones_are_projected_into_the_image_and_found_from_a_pixel(above) -> None:
    truth, frame, calibration = above
    polygon = calibration.image_polygon("A1")
    assert polygon.shape == (4, 2)
    assert calibration.locate_pixel(polygon.mean(0)) == "A1"
    assert calibration.locate_pixel(project(truth, np.array([WIDTH / 2, DEPTH / 2 - 10]))) is None
    assert calibration.rectify(frame, "B3").image.shape[1] == pytest.approx(9.3 * 0.95 * 8, abs=2)


def _run(args: list[str]) -> int:
    parser = argparse.ArgumentParser()
    cal_module.configure(parser)
    return cal_module.run(parser.parse_args(args))


def test_calibrate_command_writes_the_calibration_and_a_preview(above, tmp_path, capsys) -> None:
    _, frame, _ = above
    cv2.imwrite(str(tmp_path / "frame.png"), frame)
    out, preview = tmp_path / "table.json", tmp_path / "preview.png"
    assert _run([str(tmp_path / "frame.png"), "--out", str(out), "--preview", str(preview)]) == 0
    assert "from 4 markers: play area 80.0 x 60.0 cm" in capsys.readouterr().out
    assert load_calibration(out).source == "markers"
    assert cv2.imread(str(preview)).shape == frame.shape


def test_calibrate_command_takes_corners_by_hand(above, tmp_path) -> None:
    truth, frame, _ = above
    cv2.imwrite(str(tmp_path / "frame.png"), frame)
    corners = " ".join(f"{x:.3f},{y:.3f}" for x, y in project(truth, TRUE_PLAY_AREA))
    out = tmp_path / "table.json"
    assert _run([str(tmp_path / "frame.png"), "--out", str(out), "--corners", corners, "--area-cm", "80x60",
                 "--stock-places", "4"]) == 0
    loaded = load_calibration(out)
    assert loaded.source == "manual" and loaded.layout.zone("A4") and grid_error_px(loaded, truth) < 0.01
    with pytest.raises(CalibrationError, match="four x,y pairs"):
        _run([str(tmp_path / "frame.png"), "--corners", "1,2 3,4", "--area-cm", "80x60"])


def test_accuracy_and_cost_figures_of_docs_calibration_md() -> None:
    """The figures of docs/calibration.md (run with -s to see them): fit and true errors by tilt, and
    the cost of one marker check on a 1280x720 frame. The bounds are the documented ones."""
    print("\ntilt  fit rms px  fit rms cm  worst vs truth px  worst vs truth cm  check ms (cpu)")
    for tilt in (0, 30, 45, 60):
        rows = []
        for seed in (1, 2):
            truth = camera(tilt, yaw_deg=4 * seed - 6)
            frame = scene(truth, seed=seed)
            calibration = calibrate_markers(frame, SIDE)
            start = time.process_time()
            for _ in range(5):
                check_markers(frame, calibration)
            rows.append((calibration.rms_px, calibration.rms_cm, grid_error_px(calibration, truth),
                         float(np.abs(calibration.to_table(project(truth, GRID)) - GRID).max()),
                         (time.process_time() - start) / 5 * 1000))
        fit_px, fit_cm, true_px, true_cm, check_ms = np.max(rows, axis=0)
        print(f"{tilt:4}  {fit_px:10.3f}  {fit_cm:10.4f}  {true_px:17.2f}  {true_cm:17.2f}  {check_ms:14.1f}")
        assert fit_px < 0.1 and true_px < 2.5 and true_cm < 0.5 and check_ms < 200


def test_a_corner_under_a_finger_does_not_bend_the_refit(above) -> None:
    truth, _, calibration = above
    seen = {i: calibration.to_image(c) for i, c in calibration.markers_cm.items() if i != 0}
    seen[2] = seen[2] + [[0, 0], [6.0, -4.0], [0, 0], [0, 0]]
    refit = fit_homography(seen, calibration.markers_cm)
    assert np.linalg.norm(project(refit, GRID) - calibration.to_image(GRID), axis=1).max() < 0.01
