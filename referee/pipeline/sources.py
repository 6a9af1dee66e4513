"""Frame sources with capture times: a video file at its own frame timestamps, or a live camera whose newest frame is kept by a grabber thread."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from referee.errors import RefereeError


class SourceError(RefereeError):
    """A frame source that cannot be used."""


class CameraNotFound(SourceError):
    """A camera index with no camera behind it (or one that gives no frames)."""


class UnreadableVideo(SourceError):
    """A video file that is missing, not a video, corrupt, or cut short."""


@dataclass(frozen=True)
class CapturedFrame:
    """One frame: its index in the source (frames a live camera dropped leave gaps), its capture
    time `t` (s from the source's start, never the time it was processed) and the BGR image."""

    index: int
    t: float
    image: np.ndarray = field(repr=False)

    def __post_init__(self) -> None:
        if self.index < 0 or not math.isfinite(self.t) or self.t < 0:
            raise SourceError(f"a frame needs an index >= 0 and a capture time >= 0, not {self.index}, {self.t}")
        if not isinstance(self.image, np.ndarray) or self.image.ndim != 3 or self.image.dtype != np.uint8:
            raise SourceError("a frame is a BGR uint8 image")


class VideoFile:
    """The frames of a video file in order, each at the file's own timestamp (CAP_PROP_POS_MSEC);
    `fps` the file's nominal rate. A file that cannot be opened, has no frame, or stops well
    short of the frame count it declares raises `UnreadableVideo`."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.name = str(path)
        if not self.path.is_file():
            raise UnreadableVideo(f"{path}: no such video file")
        self._capture = cv2.VideoCapture(str(self.path))
        if not self._capture.isOpened():
            self._capture.release()
            raise UnreadableVideo(f"{path}: not a video OpenCV can open (corrupt, truncated or of an unknown format)")
        rate = self._capture.get(cv2.CAP_PROP_FPS)
        self.fps: float | None = rate if math.isfinite(rate) and 0 < rate < 1000 else None
        count = self._capture.get(cv2.CAP_PROP_FRAME_COUNT)
        self.frame_count = int(count) if math.isfinite(count) and count > 0 else None

    def __iter__(self) -> Iterator[CapturedFrame]:
        capture = self._capture
        index = 0
        last_t = -1.0
        try:
            while True:
                ok, image = capture.read()
                if not ok or image is None:
                    break
                t = capture.get(cv2.CAP_PROP_POS_MSEC) / 1000.0
                if not math.isfinite(t) or t <= last_t:  # a backend without timestamps: the nominal rate
                    t = index / self.fps if self.fps else last_t + 1 / 30
                t = round(t, 6)
                last_t = t
                yield CapturedFrame(index, t, image)
                index += 1
        finally:
            capture.release()
        if index == 0:
            raise UnreadableVideo(f"{self.name}: no frame could be decoded")
        if self.frame_count is not None and index < self.frame_count - 1:
            raise UnreadableVideo(f"{self.name}: the video breaks off after frame {index} of the "
                                  f"{self.frame_count} it declares (corrupt or truncated)")

    def close(self) -> None:
        self._capture.release()


class LiveCamera:
    """A camera by index: a grabber thread reads frames as they come and keeps only the newest,
    stamped with the moment it was grabbed (s since the first frame), so a slow consumer drops
    frames instead of falling behind. `dropped` counts frames never handed out."""

    def __init__(self, index: int, first_frame_timeout_s: float = 5.0) -> None:
        self.name = f"camera {index}"
        self.fps: float | None = None
        self._capture = cv2.VideoCapture(index)
        if not self._capture.isOpened():
            self._capture.release()
            raise CameraNotFound(f"camera {index}: no camera with this index can be opened")
        self._lock = threading.Condition()
        self._newest: CapturedFrame | None = None
        self._handed = -1
        self._running = True
        self._failed = False
        self.dropped = 0
        self._start: float | None = None
        self._thread = threading.Thread(target=self._grab, name=f"grabber-{index}", daemon=True)
        self._thread.start()
        with self._lock:
            self._lock.wait_for(lambda: self._newest is not None or self._failed, timeout=first_frame_timeout_s)
            started = self._newest is not None
        if not started:
            self.close()
            raise CameraNotFound(f"camera {index}: opened but gave no frame within {first_frame_timeout_s:g} s")

    def _grab(self) -> None:
        index = 0
        while self._running:
            if not self._capture.grab():
                with self._lock:
                    self._failed = True
                    self._lock.notify_all()
                return
            now = time.monotonic()
            ok, image = self._capture.retrieve()
            if not ok:
                continue
            if self._start is None:
                self._start = now
            frame = CapturedFrame(index, round(now - self._start, 6), image)
            index += 1
            with self._lock:
                if self._newest is not None and self._newest.index > self._handed:
                    self.dropped += 1
                self._newest = frame
                self._lock.notify_all()

    def __iter__(self) -> Iterator[CapturedFrame]:
        while True:
            with self._lock:
                self._lock.wait_for(lambda: (self._newest is not None and self._newest.index > self._handed)
                                    or self._failed or not self._running)
                frame = self._newest
                if frame is None or frame.index <= self._handed:
                    return
                self._handed = frame.index
            yield frame

    def close(self) -> None:
        self._running = False
        with self._lock:
            self._lock.notify_all()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=2.0)
        self._capture.release()


def open_source(spec: str) -> VideoFile | LiveCamera:
    """A camera for a whole number (`0`), else a video file."""
    if spec.isdigit():
        return LiveCamera(int(spec))
    return VideoFile(spec)
