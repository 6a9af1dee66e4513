"""Camera and sensor effects applied to a rendered frame: blur, noise, white balance, JPEG."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class SensorEffects:
    """What a cheap webcam does to a frame; all zero means a clean image."""

    motion_px: float = 0.0
    motion_angle: float = 0.0
    defocus_px: float = 0.0
    noise: float = 0.0
    """Standard deviation of the sensor noise in 0..1 units at mid grey."""
    saturation: float = 1.0
    gamma: float = 1.0
    jpeg_quality: int = 90
    downscale: float = 1.0
    """Render at this fraction of the size and scale back up (soft, low-resolution sensors)."""
    sharpen: float = 0.0
    """Unsharp-mask amount: webcams sharpen, leaving halos at edges."""
    stream_jpeg: int = 0
    """Quality of an earlier JPEG round trip (a webcam's MJPEG stream); 0 for none."""


def random_effects(rng: np.random.Generator) -> SensorEffects:
    return SensorEffects(
        motion_px=float(rng.uniform(1, 7)) if rng.random() < 0.2 else 0.0,
        motion_angle=float(rng.uniform(0, 180)),
        defocus_px=float(rng.uniform(0.5, 2.2)) if rng.random() < 0.35 else 0.0,
        noise=float(rng.uniform(0.0, 0.04)),
        saturation=float(rng.uniform(0.7, 1.2)),
        gamma=float(rng.uniform(0.8, 1.25)),
        jpeg_quality=int(rng.integers(35, 96)),
        downscale=float(rng.uniform(0.5, 0.9)) if rng.random() < 0.2 else 1.0,
        sharpen=float(rng.uniform(0.3, 1.5)) if rng.random() < 0.4 else 0.0,
        stream_jpeg=int(rng.integers(40, 90)) if rng.random() < 0.3 else 0,
    )


def apply_effects(image: np.ndarray, fx: SensorEffects, rng: np.random.Generator) -> np.ndarray:
    """The frame (float32 RGB 0..1) as the sensor records it: uint8 RGB, before JPEG."""
    img = image
    if fx.downscale < 1.0:
        h, w = img.shape[:2]
        small = cv2.resize(img, (max(8, int(w * fx.downscale)), max(8, int(h * fx.downscale))),
                           interpolation=cv2.INTER_AREA)
        img = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    if fx.defocus_px > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), fx.defocus_px)
    if fx.motion_px >= 1.5:
        n = int(round(fx.motion_px)) | 1
        kernel = np.zeros((n, n), np.float32)
        kernel[n // 2, :] = 1.0
        rot = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), fx.motion_angle, 1.0)
        kernel = cv2.warpAffine(kernel, rot, (n, n))
        img = cv2.filter2D(img, -1, kernel / max(kernel.sum(), 1e-6))
    if fx.sharpen > 0:
        img = cv2.addWeighted(img, 1.0 + fx.sharpen, cv2.GaussianBlur(img, (0, 0), 1.2), -fx.sharpen, 0.0)
    if fx.saturation != 1.0:
        grey = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
        img = cv2.addWeighted(img, fx.saturation, cv2.merge([grey, grey, grey]), 1.0 - fx.saturation, 0.0)
    out = cv2.convertScaleAbs(img, alpha=255.0)
    if fx.gamma != 1.0:
        lut = (np.power(np.arange(256) / 255.0, 1.0 / fx.gamma) * 255 + 0.5).astype(np.uint8)
        out = cv2.LUT(out, lut)
    if fx.noise > 0:
        h, w = out.shape[:2]
        # luminance noise per pixel, growing with the square root of brightness; blotchy chroma noise
        cv2.setRNGSeed(int(rng.integers(2**31)))
        shot = np.empty((h, w), np.float32)
        cv2.randn(shot, 0.0, 1.0)
        scale = (np.sqrt(np.maximum(np.arange(256), 5.0) * (2 / 255.0)) * 0.8 * fx.noise * 255).astype(np.float32)
        shot *= scale[cv2.cvtColor(out, cv2.COLOR_RGB2GRAY)]
        chroma = np.empty((h // 2 + 1, w // 2 + 1, 3), np.float32)
        cv2.randn(chroma, (0.0, 0.0, 0.0), (0.5 * fx.noise * 255,) * 3)
        noise = cv2.resize(chroma, (w, h), interpolation=cv2.INTER_LINEAR)
        noise += shot[..., None]
        out = cv2.add(out, noise, dtype=cv2.CV_8U)
    if fx.stream_jpeg:
        out = cv2.imdecode(np.frombuffer(encode_jpeg(out, fx.stream_jpeg), np.uint8), cv2.IMREAD_COLOR)[..., ::-1]
    return np.ascontiguousarray(out)


def encode_jpeg(rgb: np.ndarray, quality: int) -> bytes:
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise RuntimeError("OpenCV could not encode a JPEG")
    return buf.tobytes()
