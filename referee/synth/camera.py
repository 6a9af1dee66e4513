"""A pinhole webcam above the table: table-plane centimetres (x right, y away from player A, z up) to pixels."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class Camera:
    """Intrinsics `K`, world-to-camera rotation `R` and translation `t` (cm); image of width x height.

    Image coordinates are continuous pixels with (0, 0) at the top-left corner of the top-left
    pixel, so the centre of pixel (col, row) is (col + 0.5, row + 0.5).
    """

    width: int
    height: int
    K: np.ndarray
    R: np.ndarray
    t: np.ndarray
    tilt_deg: float

    @staticmethod
    def look_at(width: int, height: int, target: tuple[float, float], distance_cm: float,
                tilt_deg: float, yaw_deg: float, hfov_deg: float = 65.0, roll_deg: float = 0.0) -> "Camera":
        """A camera `distance_cm` from `target` (on the table), tilted `tilt_deg` from straight down.

        `yaw_deg` is the compass direction the camera looks along: 0 looks from player A's seat
        towards player B (+y), 90 looks towards +x. At tilt 0 the same yaw puts +y at the top.
        """
        tilt, yaw, roll = (math.radians(a) for a in (tilt_deg, yaw_deg, roll_deg))
        forward = np.array([math.sin(tilt) * math.sin(yaw), math.sin(tilt) * math.cos(yaw), -math.cos(tilt)])
        ahead = np.array([math.sin(yaw), math.cos(yaw), 0.0])
        down = -(ahead - ahead.dot(forward) * forward)
        down /= np.linalg.norm(down)
        right = np.cross(down, forward)
        c, s = math.cos(roll), math.sin(roll)
        right, down = c * right + s * down, -s * right + c * down
        R = np.stack([right, down, forward])
        centre = np.array([target[0], target[1], 0.0]) - distance_cm * forward
        f = (width / 2) / math.tan(math.radians(hfov_deg) / 2)
        K = np.array([[f, 0, width / 2], [0, f, height / 2], [0, 0, 1.0]])
        return Camera(width, height, K, R, -R @ centre, float(tilt_deg))

    @property
    def centre(self) -> np.ndarray:
        """The camera's position on the table frame (cm)."""
        return -self.R.T @ self.t

    def homography(self, z_cm: float = 0.0) -> np.ndarray:
        """The 3x3 map from the plane at height `z_cm` (x, y in cm) to image pixels, scaled so that
        its bottom-right entry is 1 or -1: points in front of the camera keep a positive third
        coordinate even when the plane's origin lies behind it."""
        Rt = np.column_stack([self.R[:, 0], self.R[:, 1], self.R[:, 2] * z_cm + self.t])
        H = self.K @ Rt
        return H / abs(H[2, 2])

    def projection(self) -> np.ndarray:
        """The 3x4 map from homogeneous table-frame points (cm) to homogeneous image points."""
        return self.K @ np.column_stack([self.R, self.t])

    def project(self, points: np.ndarray) -> np.ndarray:
        """Image points (N x 2) of table-frame points (N x 3, cm); points behind the camera get NaN."""
        cam = np.asarray(points, np.float64) @ self.R.T + self.t
        z = cam[:, 2:3]
        uv = (cam @ self.K.T)[:, :2] / np.where(z > 1e-6, z, np.nan)
        return uv

    def pixels_per_cm(self, x: float, y: float, z_cm: float = 0.0) -> float:
        """The local image scale of the table plane around a point (geometric mean of both axes)."""
        p = self.project(np.array([[x, y, z_cm], [x + 1, y, z_cm], [x, y + 1, z_cm]]))
        a, b = p[1] - p[0], p[2] - p[0]
        return float(math.sqrt(abs(a[0] * b[1] - a[1] * b[0])))

    def to_dict(self) -> dict[str, object]:
        return {
            "width": self.width, "height": self.height, "tilt_deg": round(self.tilt_deg, 3),
            "K": np.round(self.K, 4).tolist(), "R": np.round(self.R, 6).tolist(),
            "t": np.round(self.t, 4).tolist(),
        }
