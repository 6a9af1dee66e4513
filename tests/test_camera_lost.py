"""A camera that stops giving frames mid-game (unplugged) is reported lost, opened again until it comes back, and the game, its clock and its log go on: the camera alone, the session through /api/state, and the page."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from referee.events import read_events
from referee.pipeline.sources import LiveCamera, Reconnect
from referee.render.truth import TruthReader
from referee.server.demo import DemoGame, ensure_demo
from referee.server.session import CAMERA_LOST, Session, SessionSettings, parse_source

FAST = Reconnect(stall_s=0.6, failed_grabs=18, first_s=0.05, max_s=0.3)


class Feed:
    """One camera's picture on the camera's own clock (`now`, given to `LiveCamera` as its clock):
    each grab that gives a picture takes one frame period of it (and as long in real time), so the
    picture keeps pace with the grabber however loaded the machine is; `frame_at(s)` is the image
    `s` seconds in. While unplugged (`unplug` to `plug`, or until the camera was tried `opens`
    times) grabs fail and the camera cannot be opened; plugged in again, its clock has gone on by
    the time it was off. `open` is the capture factory; `given` counts the frames its captures gave."""

    def __init__(self, frame_at: Callable[[float], np.ndarray | None], fps: float = 30.0) -> None:
        self.frame_at = frame_at
        self.period = 1.0 / fps
        self.ticks = 0
        self.skipped = 0.0
        self.opened = 0
        self.given = 0
        self.pulled = threading.Event()
        self.off_s = 0.0
        self.opens_left: int | None = None
        self.held = threading.Event()
        self.holding = threading.Event()
        self.lock = threading.Lock()

    def now(self) -> float:
        with self.lock:
            return self.ticks * self.period + self.skipped

    def skip(self, seconds: float) -> None:
        """The camera's clock goes on by `seconds` between two grabs (the grabber given no CPU meanwhile)."""
        with self.lock:
            self.skipped += seconds

    def unplug(self, off_s: float = 0.8, opens: int | None = None) -> None:
        self.off_s, self.opens_left = off_s, opens
        self.pulled.set()

    def plug(self) -> None:
        self.skip(self.off_s)
        self.pulled.clear()

    def hold(self) -> None:
        """The next grab waits (the camera gives nothing, its driver never times out) until `release`."""
        self.holding.clear()
        self.held.set()

    def release(self) -> None:
        self.held.clear()

    def open(self, index: int) -> "FakeCapture":
        self.opened += 1
        if self.pulled.is_set() and self.opens_left is not None:
            if self.opens_left <= 0:
                self.plug()
            self.opens_left -= 1
        return FakeCapture(self, opened=not self.pulled.is_set())


class FakeCapture:
    """`cv2.VideoCapture`'s grab / retrieve / isOpened / release over a `Feed`."""

    def __init__(self, feed: Feed, opened: bool) -> None:
        self.feed = feed
        self.opened = opened
        self.image: np.ndarray | None = None

    def isOpened(self) -> bool:
        return self.opened

    def grab(self) -> bool:
        time.sleep(self.feed.period)
        while self.feed.held.is_set():
            self.feed.holding.set()
            time.sleep(0.01)
        if not self.opened or self.feed.pulled.is_set():
            self.opened = False
            return False
        with self.feed.lock:
            self.feed.ticks += 1
        self.image = self.feed.frame_at(self.feed.now())
        return True

    def retrieve(self) -> tuple[bool, np.ndarray | None]:
        if self.image is not None:
            self.feed.given += 1
        return self.image is not None, self.image

    def release(self) -> None:
        self.opened = False


def plain(t: float) -> np.ndarray:
    return np.full((48, 64, 3), int(t * 10) % 256, np.uint8)


def wait_for(get: Callable[[], Any], ok: Callable[[Any], bool], timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = get()
        if ok(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def test_a_camera_that_drops_out_is_lost_then_back_with_its_clock_going_on() -> None:
    feed = Feed(plain)
    changes: list[bool] = []
    camera = LiveCamera(0, open_capture=feed.open, reconnect=FAST, on_lost=changes.append, clock=feed.now)
    frames = []
    try:
        for frame in camera:
            frames.append(frame)
            if frame.t > 0.5 and feed.opened == 1:
                feed.unplug(off_s=0.8, opens=2)  # back at the third try to open it again
            if frame.t > 2.0:
                break
    finally:
        camera.close()
    assert changes == [True, False] and camera.reconnects == 1 and not camera.lost
    assert feed.opened == 4  # opened again (backing off) until it could be
    times = [f.t for f in frames]
    indices = [f.index for f in frames]
    assert times == sorted(times) and len(set(times)) == len(times) and indices == sorted(indices)
    gap = max(b - a for a, b in zip(times, times[1:]))
    assert 0.8 < gap <= 1.5  # the time without frames shows in the capture times


def test_a_camera_that_gives_no_frame_for_a_while_is_lost() -> None:
    frozen = threading.Event()

    def frame_at(t: float) -> np.ndarray | None:
        return None if frozen.is_set() else plain(t)  # grabbed, but nothing to retrieve

    feed = Feed(frame_at)
    changes: list[bool] = []
    camera = LiveCamera(0, open_capture=feed.open, reconnect=FAST, on_lost=changes.append, clock=feed.now)
    try:
        frames = iter(camera)
        next(frames)
        frozen.set()
        assert wait_for(lambda: list(changes), lambda c: c == [True]) == [True] and camera.lost
        frozen.clear()
        assert next(frames).t > 0.5  # after at least `failed_grabs` grabs that gave nothing
        assert wait_for(lambda: list(changes), lambda c: len(c) >= 2) == [True, False]
    finally:
        camera.close()


def test_a_consumer_that_falls_behind_does_not_lose_the_camera() -> None:
    feed = Feed(plain)
    changes: list[bool] = []
    camera = LiveCamera(0, open_capture=feed.open, reconnect=FAST, on_lost=changes.append, clock=feed.now)
    try:
        frames = iter(camera)
        first = next(frames)
        feed.skip(10.0)  # the machine gave our process no time for 10 s: the camera was not asked for frames
        later = next(frames)
        while later.t < first.t + 10.0:
            later = next(frames)
        assert later.t >= first.t + 10.0 and changes == [] and not camera.lost
    finally:
        camera.close()


def test_a_grab_that_waits_too_long_loses_the_camera() -> None:
    feed = Feed(plain)
    changes: list[bool] = []
    camera = LiveCamera(0, open_capture=feed.open, reconnect=FAST, on_lost=changes.append, clock=feed.now)
    got: list[float] = []
    reader = threading.Thread(target=lambda: got.extend(f.t for f in camera), daemon=True)
    try:
        reader.start()
        feed.hold()
        assert feed.holding.wait(timeout=30)
        assert changes == []
        feed.skip(1.0)  # the grab has waited longer than `stall_s` by the camera's clock
        assert wait_for(lambda: list(changes), lambda c: c == [True]) == [True] and camera.lost
        feed.release()
        assert wait_for(lambda: list(changes), lambda c: len(c) >= 2) == [True, False] and not camera.lost
    finally:
        camera.close()
        reader.join(timeout=3)


def test_a_lost_camera_does_not_hold_up_stopping() -> None:
    feed = Feed(plain)
    camera = LiveCamera(0, open_capture=feed.open, reconnect=FAST, clock=feed.now)
    got = []
    reader = threading.Thread(target=lambda: got.extend(camera), daemon=True)
    reader.start()
    wait_for(lambda: len(got), lambda n: n > 0)
    feed.unplug()
    assert wait_for(lambda: camera.lost, bool)
    began = time.monotonic()
    camera.close()
    reader.join(timeout=3)
    assert not reader.is_alive() and time.monotonic() - began < 3 and got


# ------------------------------------------------------------------------------ the session and the page

@pytest.fixture(scope="module")
def demo(pytestconfig: pytest.Config) -> DemoGame:
    assert pytestconfig.cache is not None
    return ensure_demo(pytestconfig.cache.mkdir("spit-referee-demo"))


class DemoCamera:
    """The demo video as a live camera would show the table: the frame of the moment (the
    video's own time is the camera's clock), frames skipped while unplugged."""

    def __init__(self, video: Path) -> None:
        self.capture = cv2.VideoCapture(str(video))
        self.t = -1.0
        self.image: np.ndarray | None = None

    def __call__(self, t: float) -> np.ndarray | None:
        while self.t < t:
            ok, image = self.capture.read()
            if not ok:
                return None
            self.image = image
            self.t = self.capture.get(cv2.CAP_PROP_POS_MSEC) / 1000.0
        return self.image


@pytest.fixture(scope="module")
def unplugged(demo: DemoGame, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Session, Feed]]:
    """A session watching the demo through a camera the test unplugs and plugs in again."""
    feed = Feed(DemoCamera(demo.video))
    session = Session(SessionSettings(
        source=parse_source("camera:0"), games_dir=tmp_path_factory.mktemp("games"), cards="detector",
        reader_factory=lambda: TruthReader(demo.truth, demo.seed), open_capture=feed.open,
        reconnect=FAST, camera_clock=feed.now))
    session.start()
    yield session, feed
    session.stop()


def test_the_session_shows_the_camera_lost_and_the_game_goes_on(unplugged: tuple[Session, Feed]) -> None:
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from referee.server.app import build

    session, feed = unplugged
    with TestClient(build(session)) as client:
        # Unplugged once the layout and the first Spit are called: the demo is 12 s of video, played in
        # real time, and on a loaded machine the calls come seconds late; the game must go on after.
        state = wait_for(lambda: client.get("/api/state").json(), lambda s: s["events"] >= 2)
        assert state["status"] == "running" and state["events"] >= 2
        feed.unplug(off_s=1.5)
        # Lost, and every frame grabbed before the unplug judged: handed out (shown) or dropped.
        state = wait_for(lambda: client.get("/api/state").json(), lambda s: s["status"] == "camera_lost"
                         and s["frame"] + s["dropped_frames"] == feed.given)
        assert state["status"] == "camera_lost" and state["message"] == CAMERA_LOST
        assert state["frame"] + state["dropped_frames"] == feed.given
        before = client.get("/api/events").json()
        lost_at, game, log = state["t"], state["game"], state["events_log"]
        assert [e["type"] for e in before][:2] == ["layout", "spit"] and len(before) == state["events"]
        time.sleep(1.5)
        assert wait_for(lambda: feed.opened, lambda n: n >= 3) >= 3  # opened again (backing off) while unplugged
        assert client.get("/api/state").json()["status"] == "camera_lost"
        feed.plug()

        state = wait_for(lambda: client.get("/api/state").json(), lambda s: s["status"] == "running")
        assert state["status"] == "running" and state["message"] == ""
        assert state["game"] == game and state["events_log"] == log  # the same game, not a new one
        after = wait_for(lambda: client.get("/api/events").json(), lambda e: len(e) >= len(before) + 2)
        back = client.get("/api/state").json()
    assert back["t"] >= lost_at + 1.5  # the clock went on through the time without frames
    assert after[:len(before)] == before and len(after) >= len(before) + 2
    assert all(e["t"] >= lost_at - 1.5 for e in after[len(before):])
    assert [e.as_dict() for e in read_events(log)][:len(after)] == after


def test_a_new_game_asked_for_while_the_camera_is_unplugged_starts_when_it_is_back(tmp_path: Path) -> None:
    feed = Feed(plain)
    session = Session(SessionSettings(
        source=parse_source("camera:0"), games_dir=tmp_path, cards="detector",
        reader_factory=NoCards, open_capture=feed.open, reconnect=FAST,
        camera_clock=feed.now))
    session.start()
    try:
        wait_for(lambda: session.status, lambda s: s == "calibrate", timeout=10)
        feed.unplug()
        session.new_game()
        assert wait_for(lambda: session.status, lambda s: s == "camera_lost", timeout=10) == "camera_lost"
        time.sleep(0.5)
        assert session.status == "camera_lost" and session.game == 1
        feed.plug()
        assert wait_for(lambda: session.game, lambda g: g == 2, timeout=10) == 2
        assert wait_for(lambda: session.status, lambda s: s == "calibrate", timeout=10) == "calibrate"
    finally:
        session.stop()


CHROMIUM = Path("/usr/bin/chromium")


class NoCards:
    """A card reader for a table with no cards."""

    def read(self, frame: Any, calibration: Any, zones: Any) -> dict[str, Any]:
        from referee.observations import EMPTY, ZoneReading
        return {zone: ZoneReading(EMPTY) for zone in zones}

    def table_cards(self, frame: Any, calibration: Any) -> list[Any]:
        return []


def test_the_page_covers_the_video_while_the_camera_is_lost(tmp_path: Path) -> None:
    pytest.importorskip("uvicorn")
    playwright_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.is_file():
        pytest.skip("Chromium is not installed at /usr/bin/chromium")
    import socket

    import uvicorn

    from referee.server.app import build

    feed = Feed(plain)
    session = Session(SessionSettings(source=parse_source("camera:0"), games_dir=tmp_path / "games",
                                      cards="detector", reader_factory=NoCards, open_capture=feed.open,
                                      reconnect=FAST, camera_clock=feed.now))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(build(session), host="127.0.0.1", port=port, log_level="warning",
                                           lifespan="off"))
    serving = threading.Thread(target=server.run, daemon=True)
    session.start()
    serving.start()
    try:
        with playwright_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                                 args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"http://127.0.0.1:{port}/")
            page.wait_for_function("window.spitStats.frames > 0", timeout=20_000)
            assert page.locator("#camera-lost").is_hidden()
            feed.unplug()
            page.wait_for_selector("#camera-lost:not(.hidden)", timeout=10_000)
            assert page.inner_text("#camera-lost-text") == CAMERA_LOST
            assert page.get_attribute("#status", "data-status") == "camera_lost"
            assert page.inner_text("#status") == "Camera lost"
            page.screenshot(path=tmp_path / "camera-lost.png")
            frames = page.evaluate("window.spitStats.frames")
            feed.plug()
            page.wait_for_selector("#camera-lost.hidden", state="attached", timeout=10_000)
            page.wait_for_function(f"window.spitStats.frames > {frames}", timeout=10_000)
            assert page.get_attribute("#status", "data-status") in ("looking", "calibrate")
            browser.close()
    finally:
        server.should_exit = True
        serving.join(timeout=10)
        session.stop()
