"""The printable marker sheet and finding the markers' corners in an image."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from referee.vision import markers
from referee.vision.markers import (
    MarkerSheetError,
    find_markers,
    marker_image,
    refine_corners,
    sheet_pages,
    write_sheet,
)


def side_px(corners: np.ndarray) -> float:
    return float(np.mean(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)))


@pytest.mark.parametrize("size_cm", [5.0, 3.0, 8.0])
def test_marker_sheet_prints_markers_at_the_stated_size(tmp_path: Path, size_cm: float) -> None:
    (pdf, *pngs) = write_sheet(tmp_path / "markers", size_cm)
    pages = [np.asarray(Image.open(png).convert("L")) for png in pngs]
    assert all(page.shape == (3508, 2480) for page in pages)  # A4 at 300 dpi
    assert all(Image.open(png).info["dpi"] == pytest.approx((300, 300), abs=0.01) for png in pngs)
    media_box = re.findall(rb"/MediaBox \[ 0 0 ([\d.]+) ([\d.]+) \]", pdf.read_bytes())
    assert len(media_box) == len(pages)
    points_per_px = float(media_box[0][0]) / 2480
    assert float(media_box[0][1]) / 3508 == pytest.approx(points_per_px)
    found = {}
    for page in pages:
        found.update(find_markers(page))
    assert sorted(found) == [0, 1, 2, 3]
    for corners in found.values():
        printed_cm = side_px(corners) * points_per_px / 72 * 2.54
        assert printed_cm == pytest.approx(size_cm, abs=0.01)


def test_marker_sheet_fits_one_page_at_the_default_size() -> None:
    assert len(sheet_pages()) == 1


@pytest.mark.parametrize("size_cm", [0.0, -1.0, float("nan"), 30.0])
def test_a_marker_size_that_cannot_be_printed_is_refused(size_cm: float) -> None:
    with pytest.raises(MarkerSheetError):
        sheet_pages(size_cm)


def test_marker_image_is_the_dictionary_marker_at_exactly_the_asked_size() -> None:
    for side in (6, 59, 591):
        image = marker_image(2, side)
        assert image.shape == (side, side)
        assert (image[0] == 0).all() and (image[:, -1] == 0).all()  # the black border
    bits = marker_image(2, 6)
    assert np.array_equal(bits, cv2.aruco.generateImageMarker(markers.dictionary(), 2, 6))


def test_markers_command_writes_the_sheet(tmp_path: Path, capsys) -> None:
    parser = argparse.ArgumentParser()
    markers.configure(parser)
    assert markers.run(parser.parse_args(["--out", str(tmp_path / "sheet"), "--format", "png", "--size-cm", "4"])) == 0
    assert capsys.readouterr().out.split() == [str(tmp_path / "sheet.png")]


def test_edge_fitted_corners_are_sub_pixel_under_blur() -> None:
    truth = np.array([[102.3, 80.6], [171.9, 88.2], [166.4, 150.1], [97.8, 143.7]])
    square = np.array([[0, 0], [210, 0], [210, 210], [0, 210]], dtype=np.float32)
    paper = np.full((290, 290), 235, np.uint8)
    paper[40:250, 40:250] = np.where(marker_image(1, 210) > 0, 235, 25)
    to_frame = cv2.getPerspectiveTransform(square + 40 - 0.5, truth.astype(np.float32))
    frame = cv2.warpPerspective(paper, to_frame, (320, 240), flags=cv2.INTER_LINEAR, borderValue=120)
    frame = cv2.GaussianBlur(frame, (0, 0), 1.0)
    rough = truth + np.random.default_rng(0).uniform(-0.8, 0.8, truth.shape)
    refined = refine_corners(frame, rough)
    assert np.abs(refined - truth).max() < 0.15
    assert sorted(find_markers(frame)) == [1]
