"""Frame sources with capture times: a video file at its own frame timestamps, or a live camera whose newest frame is kept by a grabber thread."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

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
    """The frames of a video file in order, each at the file's own timestamp (CAP_PROP_POS_MSEC),
    from `start_s` on (a seek, then any frame before it read past); `fps` the file's nominal
    rate. A file that cannot be opened, has no frame (after `start_s`), or stops well short of
    the frame count it declares raises `UnreadableVideo`."""

    def __init__(self, path: str | Path, start_s: float = 0.0) -> None:
        if not (math.isfinite(start_s) and start_s >= 0):
            raise SourceError(f"a video is read from a time >= 0 s, not {start_s}")
        self.path = Path(path)
        self.name = str(path)
        self.start_s = start_s
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
        if self.start_s and capture.set(cv2.CAP_PROP_POS_MSEC, self.start_s * 1000.0):
            index = max(0, int(capture.get(cv2.CAP_PROP_POS_FRAMES)))
        last_t = -1.0
        given = 0
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
                index += 1
                if t >= self.start_s - 1e-6:
                    given += 1
                    yield CapturedFrame(index - 1, t, image)
        finally:
            capture.release()
        if given == 0:
            after = f" at or after {self.start_s:g} s" if self.start_s else ""
            raise UnreadableVideo(f"{self.name}: no frame{after} could be decoded")
        if self.frame_count is not None and index < self.frame_count - 1:
            raise UnreadableVideo(f"{self.name}: the video breaks off after frame {index} of the "
                                  f"{self.frame_count} it declares (corrupt or truncated)")

    def close(self) -> None:
        self._capture.release()


class Capture(Protocol):
    """What `LiveCamera` reads frames through (`cv2.VideoCapture`, or a fake one in tests)."""

    def isOpened(self) -> bool: ...
    def grab(self) -> bool: ...
    def retrieve(self) -> tuple[bool, np.ndarray | None]: ...
    def release(self) -> None: ...


CaptureFactory = Callable[[int], Capture]
"""Opens the camera of an index (default `cv2.VideoCapture`)."""


@dataclass(frozen=True)
class Reconnect:
    """How a live camera that stops giving frames is handled. Only the camera's own failure to
    deliver counts, never the consumer falling behind: it is lost when a grab fails (unplugged, or
    the driver's wait for a frame timed out), when `failed_grabs` grabs in a row give no frame, or
    when one grab has waited `stall_s` by the camera's clock; it is then opened again after
    `first_s`, then at doubling intervals up to `max_s`, until it gives frames again."""

    stall_s: float = 2.0
    failed_grabs: int = 60
    first_s: float = 0.25
    max_s: float = 4.0

    def __post_init__(self) -> None:
        if not (self.stall_s > 0 and self.failed_grabs >= 1 and 0 < self.first_s <= self.max_s):
            raise SourceError("a camera's stall time, failed grabs and retry intervals must be positive, "
                              "the first retry <= the longest")


class LiveCamera:
    """A camera by index: a grabber thread reads frames as they come and keeps only the newest,
    stamped with the moment it was grabbed by `clock` (s since the first frame, plus `t0`), so a
    slow consumer drops frames instead of falling behind. `dropped` counts frames never handed out.

    A camera that stops giving frames (unplugged; see `Reconnect` for what counts) is `lost`:
    `on_lost(True)` is called and the same index is opened again until frames come back, then
    `on_lost(False)` (from the grabber thread). A consumer that takes no frame for a while (its
    own work slow, the machine loaded) loses none. Its frames go on with capture times that keep
    increasing (the grab moment from the same start), so a game and its log go on; `reconnects`
    counts the returns."""

    def __init__(self, index: int, first_frame_timeout_s: float = 5.0, *, t0: float = 0.0,
                 open_capture: CaptureFactory = cv2.VideoCapture, reconnect: Reconnect = Reconnect(),
                 on_lost: Callable[[bool], None] | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.name = f"camera {index}"
        self.index = index
        self.fps: float | None = None
        self.reconnect = reconnect
        self.on_lost = on_lost
        self._open = open_capture
        self._clock = clock
        self._capture = open_capture(index)
        if not self._capture.isOpened():
            self._capture.release()
            raise CameraNotFound(f"camera {index}: no camera with this index can be opened")
        self._lock = threading.Condition()
        self._newest: CapturedFrame | None = None
        self._handed = -1
        self._running = True
        self._lost = False
        self._t0 = t0
        self._start: float | None = None
        self._grab_began: float | None = None
        """When (by `clock`) the grab under way began; None between grabs."""
        self.dropped = 0
        self.reconnects = 0
        self._thread = threading.Thread(target=self._grab, name=f"grabber-{index}", daemon=True)
        self._thread.start()
        with self._lock:
            self._lock.wait_for(lambda: self._newest is not None or self._lost, timeout=first_frame_timeout_s)
            started = self._newest is not None
        if not started:
            self.close()
            raise CameraNotFound(f"camera {index}: opened but gave no frame within {first_frame_timeout_s:g} s")

    @property
    def lost(self) -> bool:
        with self._lock:
            return self._lost

    def _grab(self) -> None:
        index = 0
        retry = self.reconnect.first_s
        capture = self._capture
        empty = 0  # grabs in a row that gave no frame
        while self._running:
            with self._lock:
                self._grab_began = self._clock()
            grabbed = capture.grab()
            now = self._clock()
            with self._lock:
                self._grab_began = None
            ok, image = capture.retrieve() if grabbed else (False, None)
            if ok and image is not None:
                if self._start is None:
                    self._start = now
                frame = CapturedFrame(index, round(self._t0 + now - self._start, 6), image)
                index += 1
                retry = self.reconnect.first_s
                empty = 0
                with self._lock:
                    if self._newest is not None and self._newest.index > self._handed:
                        self.dropped += 1
                    self._newest = frame
                    self._lock.notify_all()
                self._set_lost(False)
                continue
            empty += 1
            if grabbed and empty < self.reconnect.failed_grabs:
                continue  # a frame that could not be decoded is skipped
            empty = 0
            self._set_lost(True)
            capture.release()
            with self._lock:
                if self._lock.wait_for(lambda: not self._running, timeout=retry):
                    return
            retry = min(2 * retry, self.reconnect.max_s)
            capture = self._open(self.index)
            with self._lock:
                self._capture = capture

    def _set_lost(self, lost: bool) -> None:
        with self._lock:
            if self._lost == lost:
                return
            self._lost = lost
            if not lost:
                self.reconnects += 1
            self._lock.notify_all()
            tell = self.on_lost if self._start is not None else None  # (none before the first frame)
        if tell is not None:
            tell(lost)

    def _fresh(self) -> bool:
        return self._newest is not None and self._newest.index > self._handed

    def _grab_stalled(self) -> bool:
        """The grab under way has waited `stall_s` by the camera's clock (the camera gives nothing,
        and its driver does not time out)."""
        return self._grab_began is not None and self._clock() - self._grab_began >= self.reconnect.stall_s

    def __iter__(self) -> Iterator[CapturedFrame]:
        stall_s = self.reconnect.stall_s
        while True:
            stalled = False
            with self._lock:
                while self._running and not self._fresh() and not stalled:
                    self._lock.wait(timeout=stall_s / 4)
                    stalled = not self._lost and self._grab_stalled()
                if not self._running:
                    return
                frame = self._newest if self._fresh() else None
                if frame is not None:
                    self._handed = frame.index
            if frame is not None:
                yield frame
            elif stalled:
                self._set_lost(True)

    def close(self) -> None:
        with self._lock:
            self._running = False
            self._lock.notify_all()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=2.0)
        with self._lock:
            self._capture.release()


def open_source(spec: str) -> VideoFile | LiveCamera:
    """A camera for a whole number (`0`), else a video file."""
    if spec.isdigit():
        return LiveCamera(int(spec))
    return VideoFile(spec)
