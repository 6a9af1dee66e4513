"""Fitting the table plane to seen corners: rectangles of known size at unknown places, or markers at known places."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import TypeVar

import cv2
import numpy as np

from referee.errors import RefereeError

_OUTLIER_PX = 2.0  # a marker fitting worse than this, and far worse than the others, is left out
_OUTLIER_RATIO = 5.0
_RANSAC_PX = 2.0

K = TypeVar("K", bound=Hashable)


class CalibrationError(RefereeError):
    """A table that cannot be calibrated from what was given (markers laid mirror-wise, bad corners)."""


class MarkersNotFound(CalibrationError):
    """Too few of the table markers 0-3 in sight to calibrate."""


def rectangle(width_cm: float, height_cm: float) -> np.ndarray:
    """A rectangle's corners in its own frame (cm, y up), clockwise from the top-left as seen from
    above (ArUco's corner order): the first edge is the side of `width_cm`."""
    w, h = width_cm / 2, height_cm / 2
    return np.array([[-w, h], [w, h], [w, -h], [-w, -h]])


def project(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Points (..., 2) mapped through a 3x3 homography."""
    points = np.asarray(points, dtype=float)
    flat = points.reshape(-1, 2) @ homography[:, :2].T + homography[:, 2]
    return (flat[:, :2] / flat[:, 2:3]).reshape(points.shape)


def _placed(poses: np.ndarray, local: np.ndarray) -> np.ndarray:
    """Corners (k, 4, 2) of rectangles at poses (k, 3) = centre x, y and angle."""
    c, s = np.cos(poses[:, 2]), np.sin(poses[:, 2])
    rot = np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)
    return np.einsum("kij,nj->kni", rot, local) + poses[:, None, :2]


def _rigid(model: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """The pose (x, y, angle) putting the rectangle `model` (4, 2) best onto the points `seen` (Procrustes)."""
    mc, sc = model.mean(0), seen.mean(0)
    cross = (model - mc).T @ (seen - sc)
    angle = np.arctan2(cross[0, 1] - cross[1, 0], cross[0, 0] + cross[1, 1])
    c, s = np.cos(angle), np.sin(angle)
    centre = sc - np.array([[c, -s], [s, c]]) @ mc
    return np.array([centre[0], centre[1], angle])


def _homography_of(poses: np.ndarray, local: np.ndarray, seen: np.ndarray) -> np.ndarray:
    homography, _ = cv2.findHomography(_placed(poses, local).reshape(-1, 2), seen.reshape(-1, 2), 0)
    return homography / homography[2, 2]


def _solve(seen: np.ndarray, local: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Homography (plane cm -> px) and poses (k, 3) of k rectangles with corners `seen` (k, 4, 2) px,
    in the frame of rectangle 0 (pose 0, 0, 0): block steps to start, then Levenberg-Marquardt on all."""
    k = len(seen)
    poses = np.zeros((k, 3))
    homography = cv2.getPerspectiveTransform(local.astype(np.float32), seen[0].astype(np.float32)).astype(float)
    for _ in range(4):
        inverse = np.linalg.inv(homography)
        for i in range(1, k):
            poses[i] = _rigid(local, project(inverse, seen[i]))
        homography = _homography_of(poses, local, seen)

    base = homography

    def unpack(params: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        update = np.eye(3) + np.append(params[:8], 0.0).reshape(3, 3)
        return base @ update, np.vstack([np.zeros(3), params[8:].reshape(k - 1, 3)])

    def residual(params: np.ndarray) -> np.ndarray:
        h, p = unpack(params)
        return (project(h, _placed(p, local)) - seen).ravel()

    params = np.concatenate([np.zeros(8), poses[1:].ravel()])
    r = residual(params)
    cost, damping = float(r @ r), 1e-3
    for _ in range(100):
        jac = np.empty((r.size, params.size))
        for j in range(params.size):
            step = 1e-7 * max(1.0, abs(params[j]))
            moved = params.copy()
            moved[j] += step
            jac[:, j] = (residual(moved) - r) / step
        normal, gradient = jac.T @ jac, jac.T @ r
        while True:
            delta = np.linalg.solve(normal + damping * np.diag(np.diag(normal) + 1e-12), -gradient)
            trial = params + delta
            r_trial = residual(trial)
            cost_trial = float(r_trial @ r_trial)
            if cost_trial < cost:
                converged = cost - cost_trial < 1e-10 * cost
                params, r, cost, damping = trial, r_trial, cost_trial, damping / 3
                break
            damping *= 4
            if damping > 1e8:
                converged = True
                break
        if converged:
            break
    homography, poses = unpack(params)
    return homography / homography[2, 2], poses


def solve_rectangles(corners: Mapping[K, np.ndarray],
                     size_cm: tuple[float, float]) -> tuple[np.ndarray, dict[K, np.ndarray]]:
    """Fit one plane to rectangles of `size_cm` (width, height) lying anywhere on it at any angle,
    each seen as four corners clockwise on screen starting at one whose next edge is a width side
    (either of the two): returns the homography (plane cm -> image px) and each rectangle's corners
    on the plane (cm), in the frame of the largest-looking one. A rectangle fitting far worse than
    the others (bent, lifted, half hidden) is left out when three others remain."""
    keys = sorted(corners, key=lambda i: -cv2.contourArea(np.asarray(corners[i], np.float32)))
    if not keys:
        raise CalibrationError("no corners to fit the table plane to")
    local = rectangle(*size_cm)
    seen = np.stack([np.asarray(corners[i], float) for i in keys])
    homography, poses = _solve(seen, local)
    placed = _placed(poses, local)
    errors = np.sqrt(((project(homography, placed) - seen) ** 2).sum(-1).mean(-1))
    worst = int(np.argmax(errors))
    others = np.delete(errors, worst)
    if len(keys) >= 4 and errors[worst] > max(_OUTLIER_PX, _OUTLIER_RATIO * float(np.median(others))):
        return solve_rectangles({i: corners[i] for i in keys if i != keys[worst]}, size_cm)
    return homography, {key: placed[n] for n, key in enumerate(keys)}


def solve_markers(corners: Mapping[int, np.ndarray], size_cm: float) -> tuple[np.ndarray, dict[int, np.ndarray]]:
    """Fit one plane to markers of side `size_cm` lying anywhere on it at any angle (`solve_rectangles`):
    returns the homography (plane cm -> image px) and each marker's corners on the plane (cm), in
    the frame of the largest-looking marker; a marker fitting far worse than the others is left out."""
    if not corners:
        raise MarkersNotFound("no table marker (ArUco DICT_4X4_50, ids 0-3) in sight")
    return solve_rectangles(corners, (size_cm, size_cm))


def fit_homography(corners: Mapping[int, np.ndarray], markers_cm: Mapping[int, np.ndarray]) -> np.ndarray:
    """The homography (table cm -> image px) from the seen corners of markers whose table places are
    known: RANSAC over every corner (a corner off by more than `_RANSAC_PX`, under a finger, say,
    is left out), then least squares on the others. Needs two markers."""
    ids = [i for i in corners if i in markers_cm]
    if len(ids) < 2:
        raise MarkersNotFound(f"two markers of known place are needed, saw {sorted(ids)}")
    table = np.concatenate([markers_cm[i] for i in ids])
    image = np.concatenate([np.asarray(corners[i], float) for i in ids])
    homography, _ = cv2.findHomography(table, image, cv2.RANSAC, _RANSAC_PX, maxIters=2000, confidence=0.999)
    if homography is None:
        raise CalibrationError("the seen markers give no homography")
    return homography / homography[2, 2]


def inner_corners(markers_cm: Mapping[int, np.ndarray]) -> np.ndarray:
    """The play area's corners (4, 2) in marker-id order: each marker's corner nearest the middle;
    one missing marker's corner completes the parallelogram of the other three."""
    present = [i for i in range(4) if i in markers_cm]
    if len(present) < 3:
        raise MarkersNotFound(f"three of the markers 0-3 are needed to place the play area, saw {present}")
    centres = {i: np.asarray(markers_cm[i]).mean(0) for i in present}
    if len(present) == 3:
        (missing,) = set(range(4)) - set(present)
        centres[missing] = centres[(missing + 1) % 4] + centres[(missing + 3) % 4] - centres[(missing + 2) % 4]
    middle = np.mean(list(centres.values()), axis=0)
    inner = {i: markers_cm[i][np.argmin(np.linalg.norm(markers_cm[i] - middle, axis=1))] for i in present}
    if len(present) == 3:
        inner[missing] = inner[(missing + 1) % 4] + inner[(missing + 3) % 4] - inner[(missing + 2) % 4]
    return np.array([inner[i] for i in range(4)], dtype=float)


def table_frame(play_area: np.ndarray) -> np.ndarray:
    """The map (3x3) from the table frame to the plane the play area's corners (id order) are given
    in: origin at marker 3's inner corner, x towards marker 2's, y towards player B. Refuses markers
    laid mirror-wise (B's side on A's right)."""
    origin, x_axis = play_area[3], play_area[2] - play_area[3]
    x_axis = x_axis / np.linalg.norm(x_axis)
    y_axis = np.array([-x_axis[1], x_axis[0]])
    if np.dot(play_area[0] - origin, y_axis) <= 0:
        raise CalibrationError("the markers are laid mirror-wise: seen from player A, 0 is far left, "
                               "1 far right, 2 near right, 3 near left")
    return np.array([[x_axis[0], y_axis[0], origin[0]], [x_axis[1], y_axis[1], origin[1]], [0.0, 0.0, 1.0]])
