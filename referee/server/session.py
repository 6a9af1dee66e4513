"""One refereed game at a time: a background thread runs a frame source through the pipeline, keeps the newest frame (JPEG) with its overlay, and the event log with players' overrules; a lost camera is waited for, a crashed game gone on with from its log."""

from __future__ import annotations

import logging
import math
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Final, Literal

import cv2
import numpy as np

from referee.errors import RefereeError
from referee.events import Event, EventLog
from referee.judge.resume import TIME_EPS, LoggedGame, reopen, replay, same_calls
from referee.judge.spit.config import spit_rules
from referee.judge.spit.referee import SpitReferee
from referee.observations import Observation
from referee.pipeline import Pipeline, PipelineConfig
from referee.pipeline.sources import CapturedFrame, CaptureFactory, LiveCamera, Reconnect, VideoFile
from referee.rules import rule_set_names
from referee.render.truth import TruthReader
from referee.server.demo import DemoGame, ensure_demo
from referee.vision.calibrate import Calibration, MarkersNotFound, calibrate_manual
from referee.vision.markers import find_markers
from referee.vision.observe import ZoneReader

log = logging.getLogger(__name__)

"""A player's correction of a call: `corrects` (the index of the call in the log), `call` (its
type) and `verdict` (what the players agreed instead, see `VERDICTS`)."""

VERDICTS: Final[dict[str, tuple[str, ...]]] = {
    "play": ("illegal", "void"),
    "move_to_space": ("illegal", "void"),
    "turn_up": ("void",),
    "illegal_play": ("legal", "void"),
    "premature_spit": ("legal", "void"),
    "spit_call": ("void",),
    "spit": ("void",),
    "race": ("A", "B", "void"),
    "slap": ("A", "B", "void"),
    "deal_end": ("void",),
    "game_end": ("A", "B", "void"),
}
"""The verdicts players may give instead of each kind of call: `legal`/`illegal`, the player
who really won a race or slap (or a game), or `void` (the call should not have been made)."""

_CAMERA: Final = re.compile(r"^camera:(\d{1,2})$")
_EVIDENCE_NAME: Final = re.compile(r"^slap-[A-Z0-9]{1,3}-\d{1,6}\.\d{3}\.png$")
Status = Literal["preparing", "looking", "calibrate", "running", "paused", "camera_lost", "ended", "error"]
CAMERA_LOST: Final = "Camera lost — reconnecting…"
NO_MARKERS: Final = ("No table markers found (calibrating from them needs three of the markers 0-3). Click the play "
                     "area's four corners to calibrate by hand.")
WARM_UP_S: Final = 3.0
"""A resumed video starts at least this long before the calls it judges again: the vision learns
the still table (a hand over it in the first frame is forgotten after 90 still frames)."""
REJUDGE_S: Final = 120.0
"""A resumed video whose last deal was laid out at most this long before its last call is judged
again, unshown, from `WARM_UP_S` before that layout (from the start for the first deal), where no
move is under way: when its calls there are the log's, the judge that made them goes on, as if
the referee had never stopped. Otherwise (a longer deal, or other calls) the video starts
`WARM_UP_S` before the last call, whose calls are dropped, and a fresh judge goes on from the
position replayed from the log."""


class BadSource(RefereeError, ValueError):
    """A --source that names neither the demo, a camera nor a video file."""


class BadRequest(RefereeError, ValueError):
    """A request the session refuses (an unknown rule set, an event that cannot be overruled, ...)."""


@dataclass(frozen=True)
class SourceSpec:
    """Where frames come from: the built-in demo, a camera by index, or a video file."""

    kind: Literal["demo", "camera", "file"]
    camera: int = 0
    path: Path | None = None

    @property
    def label(self) -> str:
        if self.kind == "demo":
            return "demo game"
        if self.kind == "camera":
            return f"camera {self.camera}"
        assert self.path is not None
        return self.path.name


def parse_source(text: str) -> SourceSpec:
    """`demo`, `camera:N` or the path of a video file; `BadSource` otherwise."""
    if text == "demo":
        return SourceSpec("demo")
    match = _CAMERA.match(text)
    if match:
        return SourceSpec("camera", camera=int(match.group(1)))
    if text.startswith("camera"):
        raise BadSource(f"{text!r}: a camera is camera:N with N a camera number such as 0")
    path = Path(text)
    if not path.is_file():
        raise BadSource(f"{text!r} is not demo, camera:N or an existing video file")
    return SourceSpec("file", path=path)


def watchable_rules() -> tuple[str, ...]:
    """The rule sets the camera referee watches (two-player, one-deck Spit)."""
    names = []
    for name in rule_set_names():
        try:
            rules = spit_rules(name)
        except RefereeError:
            continue
        if rules.decks == 1:
            names.append(name)
    return tuple(names)


JPEG_MAX_WIDTH: Final = 1280
"""Frames sent to the page are at most this wide (the overlay's coordinates stay the frame's)."""


@dataclass(frozen=True)
class FramePacket:
    """The newest processed frame: its number in this session, capture time `t` (s from the source
    start), the wall-clock capture moment (ms since the epoch, for the page's latency), the image
    and what the overlay draws on it (in the frame's pixels). The JPEG is made only when a page
    asks for the frame, shrunk to at most `JPEG_MAX_WIDTH` pixels wide: the page scales it to its
    canvas, and a full-HD frame costs the server about twice the encoding time."""

    seq: int
    t: float
    captured_ms: float
    image: np.ndarray = field(repr=False)
    zones: dict[str, str]
    hands: list[dict[str, Any]]
    markers: dict[str, list[list[float]]]
    counts: dict[str, dict[str, int]]
    jpeg_quality: int = 75
    _jpeg: list[bytes] = field(default_factory=list, repr=False)

    @property
    def width(self) -> int:
        return int(self.image.shape[1])

    @property
    def height(self) -> int:
        return int(self.image.shape[0])

    def jpeg(self) -> bytes:
        """The frame as JPEG, encoded once (frames no page asks for are never encoded)."""
        if not self._jpeg:
            image = self.image
            if self.width > JPEG_MAX_WIDTH:
                size = (JPEG_MAX_WIDTH, round(self.height * JPEG_MAX_WIDTH / self.width))
                image = cv2.resize(image, size, interpolation=cv2.INTER_LINEAR)  # 2 ms at 1080p; INTER_AREA took 9
            ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, self.jpeg_quality])
            if not ok:
                raise RefereeError("a frame could not be encoded as JPEG")
            self._jpeg.append(data.tobytes())
        return self._jpeg[0]


@dataclass
class SessionSettings:
    """What the session runs: the source, the rule set, where games are written, how cards are
    read (`truth`: the demo's true cards; `detector`: the card detector), the demo's cache folder
    and the JPEG quality of the frames sent."""

    source: SourceSpec
    rules: str = "classic"
    games_dir: Path = Path("games")
    cards: Literal["truth", "detector"] = "truth"
    cache: Path | None = None
    jpeg_quality: int = 75
    reader_factory: Callable[[], ZoneReader] | None = None
    """Makes the card reader instead of `cards` (another reader, e.g. for a table known to be empty)."""
    resume: LoggedGame | None = None
    """The log of a game to go on with (`referee serve --resume`): its first game appends to it."""
    open_capture: CaptureFactory = cv2.VideoCapture
    """Opens a camera by index (a fake camera in tests)."""
    reconnect: Reconnect = field(default_factory=Reconnect)
    """When a camera counts as lost, and how often it is opened again."""
    camera_clock: Callable[[], float] = time.monotonic
    """The clock a camera's frames are stamped with when grabbed (a fake camera's own in tests)."""


class Session:
    """Runs games one after another in a background thread (`start`, `stop`); the web app reads
    its state and newest frame, and calls `pause`, `resume`, `new_game`, `calibrate` and
    `overrule`. Listeners (`listen`) are called from the thread whenever anything changed.

    A camera that is lost makes the status `camera_lost` until its frames come back; the game
    goes on. With `settings.resume` the first game goes on with that log: its events are shown
    again, the referee's position is rebuilt from them, a video goes on from the last call's
    time (a camera live), and new calls are appended to the same file."""

    def __init__(self, settings: SessionSettings) -> None:
        spit_rules(settings.rules)
        self.settings = settings
        self.rules = settings.rules
        self.status: Status = "preparing"
        self.message = ""
        self.progress: float | None = None
        self.game = 0
        self.dropped = 0
        self.latest: FramePacket | None = None
        self.calibration: Calibration | None = None
        self.calibration_version = 0
        self.version = 0
        self.reader_name = "card detector" if settings.cards == "detector" else "demo ground truth"
        self._manual: Calibration | None = None
        self._events: list[Event] = []
        self._log: EventLog | None = None
        self._game_dir: Path | None = None
        self._lock = threading.RLock()
        self._wake = threading.Condition(self._lock)
        self._paused = False
        self._resume_as: Status = "running"
        self._restart = False
        self._stopping = False
        self._listeners: list[Callable[[], None]] = []
        self._thread = threading.Thread(target=self._main, name="referee-session", daemon=True)
        self._demo: DemoGame | None = None
        self._last_t = 0.0
        self._resumed: LoggedGame | None = None
        self._lost_from: tuple[Status, str] | None = None
        self._camera: LiveCamera | None = None

    # ------------------------------------------------------------------ control (any thread)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        with self._lock:
            self._stopping = True
            self._wake.notify_all()
            camera = self._camera
        if camera is not None:  # the thread may be waiting for a lost camera's frames
            camera.close()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=5.0)

    def listen(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call `callback` (from the session's thread) on every change; returns the function that stops it."""
        with self._lock:
            self._listeners.append(callback)

        def remove() -> None:
            with self._lock:
                if callback in self._listeners:
                    self._listeners.remove(callback)
        return remove

    def pause(self) -> None:
        with self._lock:
            if self.status in ("running", "looking", "calibrate", "camera_lost"):
                self._paused = True
                self._resume_as = self.status
                self._changed("paused")

    def resume(self) -> None:
        with self._lock:
            if self._paused:
                self._paused = False
                self._wake.notify_all()
                self._changed(self._resume_as)

    def new_game(self, rules: str | None = None) -> None:
        """Start again from the source's beginning (a camera goes on; a lost one once it is back),
        with another rule set if given."""
        if rules is not None:
            if rules not in watchable_rules():
                raise BadRequest(f"unknown rule set {rules!r}; the referee watches: {', '.join(watchable_rules())}")
        with self._lock:
            if rules is not None:
                self.rules = rules
            self._restart = True
            self._paused = False
            self._wake.notify_all()

    def calibrate(self, corners_px: Sequence[Sequence[float]], width_cm: float, depth_cm: float) -> Calibration:
        """Calibrate from four clicked corners (far left, far right, near right, near left as
        player A sees them) and start a new game with it."""
        with self._lock:
            packet = self.latest
        if packet is None:
            raise BadRequest("no frame has been seen yet: wait for the video before calibrating")
        for x, y in corners_px:
            if not (0 <= x <= packet.width and 0 <= y <= packet.height):
                raise BadRequest(f"corner ({x:g}, {y:g}) lies outside the {packet.width}x{packet.height} px frame")
        rules = spit_rules(self.rules)
        calibration = calibrate_manual((packet.width, packet.height), corners_px, width_cm, depth_cm,
                                       players=rules.players, stock_places=rules.places)
        with self._lock:
            self._manual = calibration
            self._restart = True
            self._paused = False
            self._wake.notify_all()
        return calibration

    def overrule(self, index: int, verdict: str) -> Event:
        """Log the players' correction of call `index` of this game's log."""
        with self._lock:
            if not 0 <= index < len(self._events):
                raise BadRequest(f"there is no call {index} in this game's log ({len(self._events)} events)")
            target = self._events[index]
            allowed = VERDICTS.get(target.type)
            if allowed is None:
                raise BadRequest(f"a {target.type} cannot be overruled")
            if verdict not in allowed:
                raise BadRequest(f"a {target.type} can be overruled only as: {', '.join(allowed)}")
            if any(e.type == "overrule" and e["corrects"] == index for e in self._events):
                raise BadRequest(f"call {index} has already been overruled")
            event = Event.make("overrule", max(self._last_t, target.t), corrects=index, call=target.type,
                               verdict=verdict)
            self._append(event)
            self._changed()
            return event

    # ------------------------------------------------------------------ reading (any thread)

    def events(self, start: int = 0) -> list[Event]:
        with self._lock:
            return self._events[start:]

    def event_count(self) -> int:
        with self._lock:
            return len(self._events)

    def evidence_path(self, name: str) -> Path | None:
        """The evidence strip `name` of this game, if the name is one the pipeline writes and the file is there."""
        if not _EVIDENCE_NAME.match(name):
            return None
        with self._lock:
            game_dir = self._game_dir
        if game_dir is None:
            return None
        folder = (game_dir / "evidence").resolve()
        path = (folder / name).resolve()
        if path.parent != folder or not path.is_file():
            return None
        return path

    @property
    def events_path(self) -> Path | None:
        with self._lock:
            return self._log.path if self._log is not None else None

    # ------------------------------------------------------------------ the thread

    def _changed(self, status: Status | None = None, message: str | None = None) -> None:
        with self._lock:
            if status is not None:
                self.status = status
            if message is not None:
                self.message = message
            self.version += 1
            listeners = list(self._listeners)
        for callback in listeners:
            callback()

    def _main(self) -> None:
        try:
            if self.settings.source.kind == "demo":
                self._changed("preparing", "Rendering the demo game (first run only)…")
                self._demo = ensure_demo(self.settings.cache, self._progress)
                self.progress = None
            while not self._stopping:
                self._play_game()
                with self._lock:
                    self._wake.wait_for(lambda: self._restart or self._stopping)
        except RefereeError as exc:
            self._changed("error", str(exc))
        except Exception as exc:  # the page shows one line; the server log keeps the traceback
            log.exception("the referee session failed")
            self._changed("error", f"internal error: {exc}")
        finally:
            self._close_log()

    def _progress(self, share: float) -> None:
        self.progress = share
        self._changed()

    def _notify(self) -> None:
        """A new frame (the state as such is unchanged)."""
        with self._lock:
            listeners = list(self._listeners)
        for callback in listeners:
            callback()

    def _open_game(self) -> None:
        self._close_log()
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        with self._lock:
            self.game += 1
            self._restart = False
            self.latest = None
            self.calibration = self._manual
            self.calibration_version += 1
            self.dropped = 0
            self._lost_from = None
            self._resumed = self.settings.resume if self.game == 1 else None
            if self._resumed is not None:
                self._events = list(self._resumed.events)
                self._last_t = self._resumed.last_t
                self._game_dir = self._resumed.path.parent
                self._log = reopen(self._resumed)
                return
            self._events = []
            self._last_t = 0.0
            self._game_dir = self.settings.games_dir / f"{stamp}-game{self.game}"
            self._game_dir.mkdir(parents=True, exist_ok=True)
            self._log = EventLog(self._game_dir / "events.jsonl")

    def _close_log(self) -> None:
        with self._lock:
            if self._log is not None:
                self._log.close()
                self._log = None

    def _append(self, event: Event) -> None:
        """Log the event (written, flushed and fsynced), then show it: nothing shown can be lost."""
        if self._log is not None:
            self._log.append(event)
        self._events.append(event)

    def _reader(self) -> ZoneReader:
        if self.settings.reader_factory is not None:
            return self.settings.reader_factory()
        if self.settings.cards == "truth":
            if self._demo is None:
                raise BadSource("the demo's true cards can be read only with the demo source")
            return TruthReader(self._demo.truth, self._demo.seed)
        from referee.vision.detector import MODELS_DIR, CardDetector, DetectorSettings
        from referee.vision.observe import DetectorReader
        return DetectorReader(CardDetector(MODELS_DIR, DetectorSettings(threads=1)))

    def _source(self) -> LiveCamera | VideoFile:
        """The game's frames: a resumed game's video from where it is judged again
        (`REJUDGE_S`), its camera's clock going on from its last call."""
        spec = self.settings.source
        t0 = self._resumed.last_t if self._resumed is not None else 0.0
        if spec.kind == "camera":
            return LiveCamera(spec.camera, t0=t0, open_capture=self.settings.open_capture,
                              reconnect=self.settings.reconnect, on_lost=self._camera_lost,
                              clock=self.settings.camera_clock)
        path = self._demo.video if spec.kind == "demo" and self._demo is not None else spec.path
        assert path is not None
        return VideoFile(path, start_s=self._rejudged_from())

    def _rejudged_from(self) -> float:
        """Where a resumed game's video starts (`REJUDGE_S`); 0 for a game not resumed."""
        if self._resumed is None:
            return 0.0
        deal, last = self._resumed.deal_t(), self._resumed.last_t
        return max(0.0, (deal if last - deal <= REJUDGE_S else last) - WARM_UP_S)

    def _camera_lost(self, lost: bool) -> None:
        """The camera stopped giving frames (`lost`) or gives them again: the status says so
        (and what it was is restored), a pause meanwhile going on as a pause."""
        with self._lock:
            paused = self.status == "paused"
            if lost and self._lost_from is None:
                if paused:
                    self._lost_from = (self._resume_as, self.message)
                    self._resume_as = "camera_lost"
                    self._changed(None, CAMERA_LOST)
                elif self.status in ("running", "looking", "calibrate"):
                    self._lost_from = (self.status, self.message)
                    self._changed("camera_lost", CAMERA_LOST)
            elif not lost and self._lost_from is not None:
                status, message = self._lost_from
                self._lost_from = None
                if paused:
                    self._resume_as = status
                    self._changed(None, message)
                elif self.status == "camera_lost":
                    self._changed(status, message)

    def _warm_up(self, pipeline: Pipeline | None, reader: ZoneReader,
                 frame: CapturedFrame) -> tuple[Pipeline | None, list[Event]]:
        """A frame of a resumed video up to its last call: the vision sees it (and learns the
        table) and the judge judges it again; its calls, made before the crash, are not logged
        or shown (they are returned). Not paced."""
        if pipeline is None:
            return None, []
        if isinstance(reader, TruthReader):
            reader.at(frame.t)
        try:
            return pipeline, pipeline.feed(frame)
        except MarkersNotFound:
            self._changed("calibrate", NO_MARKERS)
            return None, []

    def _judge_again(self, pipeline: Pipeline, t: float) -> None:
        """The judge of a resumed video's first frame (at `t`) starts from the position of the
        calls logged before it (a fresh game's judge at the video's start)."""
        assert self._resumed is not None
        before = self._resumed.called_before(t)
        referee = pipeline.judge.referee
        if before and isinstance(referee, SpitReferee):
            rebuilt = replay(before, self.rules)
            referee.resume(rebuilt.state, t, counts_known=rebuilt.counts_known)

    def _go_on_with(self, pipeline: Pipeline, rejudged: list[Event], since: float) -> None:
        """At a resumed game's first frame after its last call: the judge that judged the video
        again goes on if its calls since `since` are the log's; else `_go_on`."""
        assert self._resumed is not None
        logged = self._resumed.called_since(since)
        if same_calls(rejudged, logged):
            log.info("%s: judged again from %.3f s, the same %d calls: going on with that judge",
                     self._resumed.path, since, len(logged))
            return
        log.warning("%s: judged again from %.3f s, %d calls where the log has %d (or they differ): going on "
                    "from the position the log replays to", self._resumed.path, since, len(rejudged), len(logged))
        self._go_on(pipeline)

    def _go_on(self, pipeline: Pipeline) -> None:
        """From a resumed game's last call on: a new judge (its tracker reading the table afresh,
        the layout fitted again) whose referee goes on from the position replayed from the log."""
        assert self._resumed is not None
        rebuilt = replay(self._resumed.events, self.rules)
        for refused in rebuilt.refused:
            log.warning("%s: a logged call could not be replayed: %s", self._resumed.path, refused)
        pipeline.new_game()
        referee = pipeline.judge.referee
        if isinstance(referee, SpitReferee):
            referee.resume(rebuilt.state, self._resumed.last_t, counts_known=rebuilt.counts_known)

    def _play_game(self) -> None:
        self._open_game()
        rules = self.rules
        reader = self._reader()
        source = self._source()
        with self._lock:
            self._camera = source if isinstance(source, LiveCamera) else None
        fps = source.fps
        period = 1.0 / fps if fps else 1.0 / 30
        zones: dict[str, str] = {}
        hands: list[dict[str, Any]] = []

        def observed(obs: Observation) -> None:
            for name, reading in obs.zones.items():
                zones[name] = reading.seen
            hands[:] = [{"side": h.side, "over": list(h.over), "touching": sorted(h.contact)} for h in obs.hands]

        assert self._game_dir is not None
        pipeline: Pipeline | None = Pipeline(
            reader, PipelineConfig(rules=rules), self.calibration, fps=fps,
            evidence_dir=self._game_dir / "evidence", on_observation=observed)
        resume_at = self._resumed.last_t if self._resumed is not None else None
        rejudged: list[Event] = []
        since: float | None = None
        judging = ""
        self._changed("looking" if self.calibration is None else "running",
                      "Looking for the four table markers…" if self.calibration is None else "")
        start = time.monotonic()
        epoch = 0.0
        seq = 0
        try:
            for frame in source:
                with self._lock:
                    if self._paused:
                        paused_at = time.monotonic()
                        self._wake.wait_for(lambda: not self._paused or self._restart or self._stopping)
                        start += time.monotonic() - paused_at
                    if self._restart or self._stopping:
                        return
                if resume_at is not None:
                    if since is None:
                        since = frame.t
                        judging = f"Going on with the logged game: judging its last {resume_at - since:.0f} s of video again…"
                        self._changed(None, judging)
                        if pipeline is not None:
                            self._judge_again(pipeline, since)
                    if frame.t <= resume_at + TIME_EPS:
                        pipeline, made = self._warm_up(pipeline, reader, frame)
                        rejudged.extend(made)
                        continue
                    resume_at = None
                    if self.message == judging:
                        self._changed(None, "")
                    if pipeline is not None:
                        self._go_on_with(pipeline, rejudged, since)
                if isinstance(source, VideoFile):
                    # A file plays in real time, every frame refereed: when the referee falls behind,
                    # the video slows down; a frame is captured when it is taken from the file.
                    if seq == 0:  # (a resumed game's video starts later than 0 s)
                        start = time.monotonic() - frame.t
                    late = time.monotonic() - (start + frame.t)
                    if late < 0:
                        with self._lock:
                            if self._wake.wait_for(lambda: self._restart or self._stopping, timeout=-late):
                                return
                    elif late > period:
                        start += late
                    captured_ms = time.time() * 1000.0
                else:
                    if seq == 0:  # the camera's clock starts at its first frame
                        epoch = time.time() - frame.t
                    captured_ms = (epoch + frame.t) * 1000.0
                    self.dropped = source.dropped
                self._last_t = frame.t
                markers: dict[str, list[list[float]]] = {}
                if pipeline is not None:
                    if isinstance(reader, TruthReader):
                        reader.at(frame.t)
                    try:
                        calls = pipeline.feed(frame)
                    except MarkersNotFound:
                        pipeline = None
                        calls = []
                        self._changed("calibrate", NO_MARKERS)
                    if pipeline is not None and pipeline.observer is not None and self.calibration is None:
                        with self._lock:
                            self.calibration = pipeline.observer.calibration
                            self.calibration_version += 1
                        self._changed("running", "")
                    elif pipeline is not None and pipeline.observer is not None \
                            and pipeline.observer.calibration is not self.calibration:
                        with self._lock:  # re-checked markers or a fitted layout
                            self.calibration = pipeline.observer.calibration
                            self.calibration_version += 1
                    with self._lock:
                        for event in calls:
                            self._append(event)
                if self.calibration is None and seq % 3 == 0:
                    markers = {str(i): c.round(1).tolist() for i, c in find_markers(frame.image).items()}
                elif self.latest is not None and self.calibration is None:
                    markers = self.latest.markers
                seq += 1
                with self._lock:
                    self.latest = FramePacket(seq, frame.t, captured_ms, frame.image, dict(zones), list(hands),
                                              markers, _counts(pipeline), self.settings.jpeg_quality)
                self._notify()
        finally:
            source.close()
        with self._lock:
            ended = not (self._restart or self._stopping)
        if ended:
            if pipeline is not None:  # the calls still waiting for frames, drawn from what was seen
                calls = pipeline.finish()
                with self._lock:
                    for event in calls:
                        self._append(event)
            self._changed("ended", "The video has ended: press New game to watch it again.")


def _counts(pipeline: Pipeline | None) -> dict[str, dict[str, int]]:
    """Each player's cards as the referee tracks them: all they hold, and in their stock piles."""
    if pipeline is None or pipeline.observer is None:
        return {}
    state = getattr(pipeline.judge.referee, "state", None)
    if state is None or getattr(state, "phase", "") == "layout":
        return {}
    return {p: {"total": state.held_count(p), "stock": state.stock_count(p)} for p in state.players}


def calibration_geometry(calibration: Calibration) -> dict[str, Any]:
    """The calibration as the page draws it: image px polygons of the play area and every zone."""
    def px(points: np.ndarray) -> list[list[float]]:
        return [[round(float(x), 1), round(float(y), 1)] for x, y in points]

    width_cm, depth_cm = calibration.play_size_cm
    return {
        "source": calibration.source,
        "image_size": list(calibration.image_size),
        "play_area_px": px(calibration.to_image(calibration.play_area_cm)),
        "play_size_cm": [round(width_cm, 1), round(depth_cm, 1)],
        "zones": {z.name: px(calibration.image_polygon(z.name)) for z in calibration.layout.piles},
        "markers_px": {str(i): px(c) for i, c in calibration.markers_px.items()},
        "rms_px": round(calibration.rms_px, 3) if math.isfinite(calibration.rms_px) else None,
    }


__all__ = [
    "BadRequest", "BadSource", "FramePacket", "Session", "SessionSettings", "SourceSpec",
    "VERDICTS", "calibration_geometry", "parse_source", "watchable_rules",
]
