"""The live loop: frames -> calibration (markers found, re-checked, found again when the frame size changes, layout fitted per deal) -> observations -> judge -> events, slap evidence strips kept."""

from __future__ import annotations

import collections
import gc
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from referee.events import Event
from referee.judge.camera import spit_rules
from referee.judge.judge import Judge
from referee.observations import Observation
from referee.pipeline.memory import GIVE_BACK_FRAMES, give_back, tune_malloc
from referee.pipeline.sources import CapturedFrame
from referee.tracker import TrackerConfig
from referee.vision.calibrate import Calibration, CalibrationError, MarkersNotFound, calibrate_markers, check_markers
from referee.vision.markers import DEFAULT_SIZE_CM
from referee.vision.observe import ObserveConfig, Observer, ZoneReader
from referee.vision.zones import default_layout


@dataclass(frozen=True)
class PipelineConfig:
    """`rules`: the rule set; `marker_size_cm`; `find_markers_frames`: frames in which the markers
    are looked for before giving up; `check_every`: frames between marker checks (0: never);
    `fit_retry`: frames between tries to fit a deal's layout, `fit_tries` how many; `settle_frames`
    and `min_confidence`: the tracker's (a zone's reads already agree when they reach it);
    `evidence_frames`: frames kept for slap evidence; `observe`: the vision settings."""

    rules: str = "classic"
    marker_size_cm: float = DEFAULT_SIZE_CM
    find_markers_frames: int = 30
    check_every: int = 30
    fit_retry: int = 15
    fit_tries: int = 4
    settle_frames: int = 2
    min_confidence: float = 0.3
    evidence_frames: int = 90
    observe: ObserveConfig = field(default_factory=ObserveConfig)

    def __post_init__(self) -> None:
        if self.find_markers_frames < 1 or self.check_every < 0 or self.fit_retry < 1 or self.fit_tries < 0:
            raise CalibrationError("find_markers_frames and fit_retry must be >= 1, check_every and fit_tries >= 0")
        if self.settle_frames < 1 or self.evidence_frames < 1:
            raise CalibrationError("settle_frames and evidence_frames must be >= 1")


class FrameSizeChanged(CalibrationError):
    """The source's frames changed size mid-stream and the table cannot be found again in them."""


class Pipeline:
    """Feeds captured frames (`feed`) through vision and the judge; returns the calls made at each
    frame (slap calls with their evidence strip written under `evidence_dir`). Making one sets the
    process's malloc for a long run of frames (`tune_malloc`); every `GIVE_BACK_FRAMES` frames fed
    the free memory goes back to the system."""

    def __init__(self, reader: ZoneReader, config: PipelineConfig = PipelineConfig(),
                 calibration: Calibration | None = None, *, fps: float | None = None,
                 evidence_dir: str | Path | None = None,
                 on_observation: Callable[[Observation], None] | None = None) -> None:
        tune_malloc()
        self.rules = spit_rules(config.rules)
        self.reader = reader
        self.config = config
        self.evidence_dir = Path(evidence_dir) if evidence_dir is not None else None
        self.on_observation = on_observation
        self._fps = fps
        self.judge = self._new_judge()
        self.observer: Observer | None = None
        self._given = calibration
        self._misses = 0
        self._resize_misses = 0
        self._checked = 0
        self._fit_wanted = True
        self._fit_tries = 0
        self._fit_next = 0
        self._recent: collections.deque[tuple[int, float, np.ndarray]] = collections.deque(maxlen=config.evidence_frames)
        self.recalibrations = 0
        self._fed = 0

    def _new_judge(self) -> Judge:
        tracker = TrackerConfig(settle_frames=self.config.settle_frames, min_confidence=self.config.min_confidence)
        return Judge(self.rules, tracker=tracker, fps=self._fps)

    def new_game(self) -> None:
        """Referee a new game from the next frame on: a fresh judge, the deal's layout fitted again;
        the calibration, the view and the evidence go on. The old judge is let go at once (a full
        collection: any reference cycle it lies in would otherwise wait for Python's collector,
        which a loop that frees what it allocates runs only now and then)."""
        self.judge = self._new_judge()
        self._fit_wanted, self._fit_tries, self._fit_next = True, 0, 0
        gc.collect()

    def _start(self, frame: CapturedFrame) -> bool:
        """Calibrate (or check the given calibration) on this frame; False while the markers are not found."""
        height, width = frame.image.shape[:2]
        calibration = self._given
        if calibration is None:
            try:
                calibration = calibrate_markers(frame.image, self.config.marker_size_cm,
                                                players=self.rules.players, stock_places=self.rules.places)
            except MarkersNotFound as exc:
                self._misses += 1
                if self._misses >= self.config.find_markers_frames:
                    raise MarkersNotFound(f"no table markers in the first {self._misses} frames ({exc}); "
                                          "without them a --calibration file is needed") from None
                return False
        elif calibration.image_size != (width, height):
            raise CalibrationError(f"the calibration was made on {calibration.image_size[0]}x"
                                   f"{calibration.image_size[1]} px frames but the source gives {width}x{height}")
        names = {z.name for z in calibration.layout.piles}
        wanted = set(self.rules.spit_pile_names) | {n for row in self.rules.stock_names for n in row}
        if not wanted <= names:
            calibration = replace(calibration, layout=default_layout(
                *calibration.play_size_cm, players=self.rules.players, stock_places=self.rules.places))
        self.observer = Observer(calibration, self.reader, self.rules.player_names, self.config.observe)
        self._checked = frame.index
        return True

    def _resized(self, frame: CapturedFrame, observer: Observer) -> bool:
        """The source's frames changed size: calibrate again from the markers (their places and the
        layout kept); False while they are not found in the new frames, which are then skipped."""
        height, width = frame.image.shape[:2]
        calibration = observer.calibration
        before = f"{calibration.image_size[0]}x{calibration.image_size[1]}"
        if calibration.source != "markers":
            raise FrameSizeChanged(f"frame {frame.index} is {width}x{height} px but the source's frames were {before} "
                                   "px, which the calibration made by hand is for: calibrate the table again for "
                                   "the new size")
        try:
            moved = calibrate_markers(frame.image, previous=calibration)
        except MarkersNotFound as exc:
            self._resize_misses += 1
            if self._resize_misses >= self.config.find_markers_frames:
                raise FrameSizeChanged(f"the source's frames changed from {before} to {width}x{height} px and no "
                                       f"table markers were found in {self._resize_misses} frames of the new size "
                                       f"({exc}): calibrate the table again for the new size") from None
            return False
        self._resize_misses = 0
        observer.set_calibration(moved)
        self.recalibrations += 1
        self._checked = frame.index
        return True

    def _maintain(self, frame: CapturedFrame, observer: Observer) -> None:
        """Every `check_every` frames look whether the camera moved; fit a deal's layout when wanted
        and no hand is over the table."""
        cfg = self.config
        calibration = observer.calibration
        if cfg.check_every and frame.index - self._checked >= cfg.check_every and calibration.source == "markers":
            self._checked = frame.index
            try:
                check = check_markers(frame.image, calibration)
            except CalibrationError:
                check = None
            if check is not None and check.moved:
                observer.set_calibration(check.calibration)
                self.recalibrations += 1
        if self._fit_wanted and frame.index >= self._fit_next and not observer.hands.hands:
            self._fit_tries += 1
            self._fit_next = frame.index + cfg.fit_retry
            if observer.fit_layout(frame.image, self.rules.places) or self._fit_tries >= cfg.fit_tries:
                self._fit_wanted = False

    def feed(self, frame: CapturedFrame) -> list[Event]:
        """One captured frame in; the calls made at it."""
        self._fed += 1
        if self._fed % GIVE_BACK_FRAMES == 0:
            give_back()
        if self.observer is None and not self._start(frame):
            return []
        observer = self.observer
        assert observer is not None
        height, width = frame.image.shape[:2]
        if (width, height) != observer.calibration.image_size and not self._resized(frame, observer):
            return []
        self._maintain(frame, observer)
        obs = observer.observe(frame.image, frame.t, frame.index)
        assert observer.view_image is not None
        self._recent.append((frame.index, frame.t, observer.view_image))
        if self.on_observation is not None:
            self.on_observation(obs)
        # An exception kept with its traceback (the judge's rule checks raise many) holds this
        # call's frame and its locals until Python next collects cycles, tens of seconds in a
        # loop that frees what it allocates: the camera frame (2.7 MB at 720p) is not among them.
        del frame
        calls = []
        for event in self.judge.feed(obs):
            if event.type == "layout":
                self._fit_wanted, self._fit_tries, self._fit_next = True, 0, obs.frame
            if event.type == "slap":
                event = self.with_evidence(event)
            calls.append(event)
        return calls

    def finish(self) -> list[Event]:
        """The source has ended: the calls still waiting for frames, drawn from what was seen."""
        return [self.with_evidence(event) if event.type == "slap" else event for event in self.judge.finish()]

    def with_evidence(self, event: Event) -> Event:
        """The slap call with the path of its evidence strip (the frames around both first contacts)."""
        if self.evidence_dir is None or self.observer is None or not self._recent:
            return event
        frames: Mapping[str, int] = event.get("frames") or {}
        first = min(frames.values(), default=self._recent[-1][0])
        last = max(frames.values(), default=first)
        chosen = [item for item in self._recent if first - 2 <= item[0] <= last + 2][-12:]
        if not chosen:
            return event
        view = self.observer.view
        piles = set((event.get("piles") or {}).values()) | {event["pile"]}
        boxes = [view.boxes[p] for p in piles if p in view.boxes]
        height, width = chosen[0][2].shape[:2]
        if boxes:
            grow = int(10 * view.px_per_cm)
            x0 = max(0, min(b[0] for b in boxes) - grow)
            y0 = max(0, min(b[1] for b in boxes) - grow)
            x1 = min(width, max(b[0] + b[2] for b in boxes) + grow)
            y1 = min(height, max(b[1] + b[3] for b in boxes) + grow)
        else:
            x0, y0, x1, y1 = 0, 0, width, height
        tiles = []
        contact_frames = set(frames.values())
        for index, t, image in chosen:
            tile = cv2.copyMakeBorder(image[y0:y1, x0:x1], 18, 2, 2, 2, cv2.BORDER_CONSTANT,
                                      value=(0, 0, 255) if index in contact_frames else (40, 40, 40))
            cv2.putText(tile, f"#{index} {t:.3f}s", (4, 13), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (255, 255, 255), 1,
                        cv2.LINE_AA)
            tiles.append(tile)
        self.evidence_dir.mkdir(parents=True, exist_ok=True)
        path = self.evidence_dir / f"slap-{event['pile']}-{event.t:.3f}.png"
        cv2.imwrite(str(path), np.hstack(tiles))
        return Event.make(event.type, event.t, **{**event.fields, "evidence": str(path)})


def run_frames(frames: Iterable[CapturedFrame], pipeline: Pipeline,
               on_event: Callable[[Event], None]) -> int:
    """Feeds every frame of a source through the pipeline, passing each call to `on_event` as it
    is made (and, once the source ends, the calls still waiting for frames); returns the number of
    frames fed. A source that ends before the table was found raises `MarkersNotFound`."""
    count = 0
    for frame in frames:
        for event in pipeline.feed(frame):
            on_event(event)
        count += 1
    for event in pipeline.finish():
        on_event(event)
    if count and pipeline.observer is None:
        raise MarkersNotFound(f"no table markers in the {count} frames of the source; without them a --calibration "
                              "file is needed")
    return count
