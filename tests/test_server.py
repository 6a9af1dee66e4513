"""The web app of `referee serve` through FastAPI's TestClient: state, events, calibration, controls, overrules, input limits, static files and the WebSocket."""

from __future__ import annotations

import json
import socket
import struct
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")
from fastapi.testclient import TestClient  # noqa: E402

from referee import cli  # noqa: E402
from referee.events import read_events  # noqa: E402
from referee.server import cli as serve_cli  # noqa: E402
from referee.server.app import MAX_BODY_BYTES, build  # noqa: E402
from referee.server.demo import DEMO_OPTIONS, ensure_demo  # noqa: E402
from referee.server.session import JPEG_MAX_WIDTH, FramePacket, Session, SessionSettings, parse_source  # noqa: E402


@pytest.fixture(scope="module")
def client(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The demo, refereed live (the demo video is rendered once and kept in pytest's cache)."""
    assert pytestconfig.cache is not None
    cache = pytestconfig.cache.mkdir("spit-referee-demo")
    ensure_demo(cache)
    session = Session(SessionSettings(source=parse_source("demo"), games_dir=tmp_path_factory.mktemp("games"),
                                      cache=cache, cards="truth"))
    session.start()
    with TestClient(build(session)) as test_client:
        yield test_client
    session.stop()


def wait_for(get: Callable[[], Any], ok: Callable[[Any], bool], timeout: float = 40.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = get()
        if ok(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.1)


def test_state_follows_the_demo_game(client: TestClient) -> None:
    state = wait_for(lambda: client.get("/api/state").json(),
                     lambda s: s["status"] in ("running", "ended") and s["events"] >= 3)
    assert state["status"] in ("running", "ended")
    assert state["source"] == "demo game" and state["rules"] == "classic"
    assert "classic" in state["rule_sets"] and "speahx" not in state["rule_sets"]
    assert state["calibrated"] is True and state["t"] > 0
    assert set(state["counts"]) == {"A", "B"}
    assert state["verdicts"]["illegal_play"] == ["legal", "void"]


def test_events_are_the_games_log(client: TestClient) -> None:
    events = wait_for(lambda: client.get("/api/events").json(),
                      lambda e: any(x["type"] == "spit_call" for x in e))
    assert [e["type"] for e in events][:2] == ["layout", "spit"]
    assert any(e["type"] == "spit_call" for e in events)
    log = client.get("/api/state").json()["events_log"]
    logged = [e.as_dict() for e in read_events(log)]
    assert logged[:len(events)] == events


def test_calibration_from_the_markers(client: TestClient) -> None:
    calibration = wait_for(lambda: client.get("/api/calibration").json(), lambda c: c["calibrated"])
    assert calibration["calibrated"] is True and calibration["source"] == "markers"
    assert calibration["image_size"] == [DEMO_OPTIONS.width, DEMO_OPTIONS.height]
    assert len(calibration["play_area_px"]) == 4
    assert {"L", "R", "A1", "A5", "B1", "B5"} <= set(calibration["zones"])
    assert set(calibration["markers_px"]) == {"0", "1", "2", "3"}


@pytest.mark.parametrize("body", [
    {"corners_px": [[0, 0], [10, 0], [10, 10]], "width_cm": 76, "depth_cm": 56},
    {"corners_px": [[0, 0], [10, 0], [10, 10], [0, 10], [5, 5]], "width_cm": 76, "depth_cm": 56},
    {"corners_px": [[0, 0], [10, 0], [10, 10], [0, 10]], "width_cm": -1, "depth_cm": 56},
    {"corners_px": [[0, 0], [10, 0], [10, 10], [0, 10]], "width_cm": 76, "depth_cm": 1e9},
    {"corners_px": [[0, "a"], [10, 0], [10, 10], [0, 10]], "width_cm": 76, "depth_cm": 56},
    {"corners_px": [[0, 0], [10, 0], [10, 10], [0, 10]], "width_cm": 76},
    {"corners_px": [[0, 0], [10, 0], [10, 10], [0, 10]], "width_cm": 76, "depth_cm": 56, "path": "/etc"},
])
def test_manual_calibration_of_the_wrong_shape_is_refused(client: TestClient, body: dict[str, Any]) -> None:
    response = client.post("/api/calibration", json=body)
    assert response.status_code == 422
    assert client.get("/api/calibration").json()["source"] == "markers"


@pytest.mark.parametrize(("corners", "words"), [
    ([[100, 50], [540, 50], [600, 330], [40, 330, 7]], "pair"),
    ([[100, 50], [540, 50], [40, 330], [600, 330]], "convex"),
    ([[40, 330], [600, 330], [540, 50], [100, 50]], "mirror"),
    ([[100, 50], [540, 50], [600, 330], [40, 5000]], "outside"),
])
def test_manual_calibration_that_makes_no_sense_is_explained(client: TestClient, corners: list[list[float]],
                                                             words: str) -> None:
    response = client.post("/api/calibration", json={"corners_px": corners, "width_cm": 76, "depth_cm": 56})
    assert response.status_code == 400
    assert words in response.json()["detail"]


def test_invalid_and_oversized_input_is_refused(client: TestClient) -> None:
    assert client.post("/api/calibration", content=b"{not json", headers={"content-type": "application/json"}
                       ).status_code == 422
    big = {"corners_px": [[0, 0]] * 4, "width_cm": 76, "depth_cm": 56, "pad": "x" * MAX_BODY_BYTES}
    response = client.post("/api/calibration", json=big)
    assert response.status_code == 413
    assert client.post("/api/control", json={"action": "explode"}).status_code == 422
    assert client.post("/api/control", json={"action": "new_game", "rules": "../../etc"}).status_code == 422
    assert client.post("/api/overrule", json={"event": -1, "verdict": "legal"}).status_code == 422
    assert client.post("/api/overrule", json={"event": 0, "verdict": "x" * 100}).status_code == 422


def test_paths_outside_the_static_folder_are_refused(client: TestClient) -> None:
    assert client.get("/static/app.js").status_code == 200
    assert "text/css" in client.get("/static/style.css").headers["content-type"]
    for url in ("/static/..%2F..%2F..%2Fpyproject.toml", "/static/%2E%2E/app.py", "/static/..%2Fapp.py",
                "/static/__init__.py", "/api/evidence/..%2Fevents.jsonl", "/api/evidence/%2Fetc%2Fpasswd",
                "/api/evidence/slap-L-1.000.png"):
        response = client.get(url)
        assert response.status_code == 404, url
        assert b"import" not in response.content and b"root:" not in response.content


def test_the_page_and_the_api_docs_are_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "Spit referee" in page.text and "/static/app.js" in page.text
    schema = client.get("/openapi.json").json()
    assert {"/api/state", "/api/events", "/api/calibration", "/api/control", "/api/overrule"} <= set(schema["paths"])
    assert "post" in schema["paths"]["/api/calibration"] and "get" in schema["paths"]["/api/calibration"]
    assert client.get("/docs").status_code == 200


def test_frames_come_over_the_websocket_with_their_capture_time(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        state = json.loads(ws.receive_text())
        assert state["kind"] == "state"
        message = ws.receive_bytes()
    length = struct.unpack(">I", message[:4])[0]
    overlay = json.loads(message[4:4 + length])
    jpeg = message[4 + length:]
    assert jpeg[:2] == b"\xff\xd8" and jpeg[-2:] == b"\xff\xd9"
    assert overlay["kind"] == "frame" and (overlay["width"], overlay["height"]) == (DEMO_OPTIONS.width,
                                                                                   DEMO_OPTIONS.height)
    assert abs(overlay["captured_ms"] / 1000 - time.time()) < 60
    assert overlay["events_from"] == 0 and overlay["events"][0]["type"] == "layout"
    assert overlay["calibration"]["calibrated"] is True


def test_players_overrule_a_call(client: TestClient) -> None:
    events = wait_for(lambda: client.get("/api/events").json(),
                      lambda e: any(x["type"] == "illegal_play" for x in e))
    index = next(i for i, e in enumerate(events) if e["type"] == "illegal_play")
    assert client.post("/api/overrule", json={"event": index, "verdict": "illegal"}).status_code == 400
    response = client.post("/api/overrule", json={"event": index, "verdict": "legal"})
    assert response.status_code == 200
    overrule = response.json()
    assert overrule["type"] == "overrule" and overrule["corrects"] == index and overrule["verdict"] == "legal"
    assert overrule in client.get("/api/events").json()
    again = client.post("/api/overrule", json={"event": index, "verdict": "void"})
    assert again.status_code == 400 and "already" in again.json()["detail"]
    assert client.post("/api/overrule", json={"event": 99999, "verdict": "void"}).status_code == 400
    logged = list(read_events(client.get("/api/state").json()["events_log"]))
    assert any(e.type == "overrule" and e["corrects"] == index and e["verdict"] == "legal" for e in logged)


def test_pause_resume_and_rule_sets(client: TestClient) -> None:
    paused = client.post("/api/control", json={"action": "pause"}).json()["status"]
    assert paused in ("paused", "ended")
    resumed = client.post("/api/control", json={"action": "resume"}).json()["status"]
    assert resumed in (("ended",) if paused == "ended" else ("looking", "running", "ended"))  # as before the pause
    refused = client.post("/api/control", json={"action": "new_game", "rules": "speahx"})
    assert refused.status_code == 400 and "classic" in refused.json()["detail"]


def test_a_manual_calibration_starts_a_new_game_with_it(client: TestClient) -> None:
    game = client.get("/api/state").json()["game"]
    corners = [[100, 50], [540, 50], [600, 330], [40, 330]]
    response = client.post("/api/calibration", json={"corners_px": corners, "width_cm": 76, "depth_cm": 56})
    assert response.status_code == 200 and response.json()["source"] == "manual"
    state = wait_for(lambda: client.get("/api/state").json(), lambda s: s["game"] > game and s["calibrated"])
    assert state["game"] == game + 1
    calibration = client.get("/api/calibration").json()
    assert calibration["source"] == "manual"
    assert calibration["play_area_px"] == [[float(x), float(y)] for x, y in corners]


# ------------------------------------------------------------------------------ the command


def test_serve_binds_this_machine_only_by_default() -> None:
    import argparse

    parser = argparse.ArgumentParser()
    serve_cli.configure(parser)
    args = parser.parse_args([])
    assert (args.host, args.port, args.source, args.rules) == ("127.0.0.1", 8000, "demo", "classic")


def test_binding_elsewhere_warns(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("0.0.0.0", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code = cli.main(["serve", "--host", "0.0.0.0", "--port", str(port), "--cards", "truth"])
    err = capsys.readouterr().err
    assert code == 2
    assert "warning: listening on 0.0.0.0" in err
    assert f"cannot listen on 0.0.0.0:{port}" in err and "Traceback" not in err


@pytest.mark.parametrize(("argv", "words"), [
    (["--source", "nonsense.mp4"], "not demo, camera:N or an existing video file"),
    (["--source", "camera:x"], "camera:N"),
    (["--rules", "speahx"], "speahx"),
    (["--rules", "no-such-rules"], "no-such-rules"),
])
def test_bad_arguments_are_one_line(argv: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["serve", *argv]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert words in err and "Traceback" not in err


def test_a_bad_port_is_an_argument_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["serve", "--port", "70000"])
    assert exit_.value.code == 2
    assert "1..65535" in capsys.readouterr().err


def test_the_demo_is_read_by_the_detector_unless_no_model_is_installed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse

    import referee.vision.detector as detector

    parser = argparse.ArgumentParser()
    serve_cli.configure(parser)
    args = parser.parse_args(["--cache", str(tmp_path)])
    models = detector.MODELS_DIR
    if (models / detector.DETECTOR_MODEL).is_file() and (models / detector.INDEX_MODEL).is_file():
        assert serve_cli.settings_from(args).cards == "detector"
    monkeypatch.setattr(detector, "MODELS_DIR", tmp_path / "no-models")
    assert serve_cli.settings_from(args).cards == "truth"
    with pytest.raises(serve_cli.BadSource, match="model is not installed"):
        serve_cli.settings_from(parser.parse_args(["--cache", str(tmp_path), "--cards", "detector"]))


def test_the_demo_read_by_the_detector_makes_no_false_call(pytestconfig: pytest.Config) -> None:
    """The demo as a new user sees it (cards read by the detector) has its "Spit!" and an illegal
    play called, and no call against a player that the game's truth does not have."""
    from referee.judge.score import score
    from referee.pipeline import Pipeline, PipelineConfig, VideoFile
    from referee.vision.detector import DETECTOR_MODEL, INDEX_MODEL, MODELS_DIR, CardDetector, DetectorSettings
    from referee.vision.observe import DetectorReader

    if not ((MODELS_DIR / DETECTOR_MODEL).is_file() and (MODELS_DIR / INDEX_MODEL).is_file()):
        pytest.skip("no card detector model installed")
    assert pytestconfig.cache is not None
    demo = ensure_demo(pytestconfig.cache.mkdir("spit-referee-demo"))
    pipeline = Pipeline(DetectorReader(CardDetector(MODELS_DIR, DetectorSettings(threads=1))), PipelineConfig(),
                        fps=DEMO_OPTIONS.fps)
    calls = [event for frame in VideoFile(demo.video) for event in pipeline.feed(frame)]
    result = score(demo.truth, calls)
    assert result.false_flags == 0, [e.to_json() for e in calls if e.type in ("illegal_play", "premature_spit")]
    assert result.unmatched("spit_call") == 0
    assert result.matched.get("spit_call", 0) >= 1 and result.matched.get("illegal_play", 0) >= 1
    # Two of the demo's plays are out of reach: A's 7C is turned up and played onto R wholly under
    # A's hand and covered at once by B's refused 7H, so no camera sees it; the judge does not
    # rebuild the position once 7C shows, so B's later 7H is taken as played already.
    assert result.matched.get("play", 0) >= result.truth["play"] - 2


def test_the_demo_cards_go_only_with_the_demo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    video = tmp_path / "clip.mp4"
    video.write_bytes(b"not a video")
    assert cli.main(["serve", "--source", str(video), "--cards", "truth"]) == 2
    assert "only with --source demo" in capsys.readouterr().err


class EmptyTable:
    """A card reader for a table with no cards (the calibration tests need no detector)."""

    def read(self, frame: Any, calibration: Any, zones: Any) -> dict[str, Any]:
        from referee.observations import EMPTY, ZoneReading
        return {zone: ZoneReading(EMPTY) for zone in zones}

    def table_cards(self, frame: Any, calibration: Any) -> list[Any]:
        return []


def test_a_video_without_markers_asks_for_the_corners(tmp_path: Path) -> None:
    import cv2
    import numpy as np

    video = tmp_path / "bare.mp4"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), 30.0, (320, 240))
    rng = np.random.default_rng(0)
    for _ in range(60):
        writer.write(rng.integers(60, 90, (240, 320, 3), dtype=np.uint8))
    writer.release()
    session = Session(SessionSettings(source=parse_source(str(video)), games_dir=tmp_path / "games",
                                      cards="detector", reader_factory=EmptyTable))
    session.start()
    try:
        with TestClient(build(session)) as client:
            state = wait_for(lambda: client.get("/api/state").json(), lambda s: s["status"] == "calibrate", 20)
            assert state["status"] == "calibrate" and "Click the play area's four corners" in state["message"]
            assert client.get("/api/calibration").json()["calibrated"] is False
            corners = [[40, 30], [280, 30], [300, 220], [20, 220]]
            assert client.post("/api/calibration", json={"corners_px": corners, "width_cm": 76,
                                                         "depth_cm": 56}).status_code == 200
            state = wait_for(lambda: client.get("/api/state").json(),  # the new game's status comes just after
                             lambda s: s["calibrated"] and s["status"] != "calibrate", 20)
            assert state["calibrated"] and state["game"] == 2 and state["status"] in ("running", "ended")
    finally:
        session.stop()


def test_evidence_strips_are_served_from_the_games_folder(client: TestClient) -> None:
    log = Path(client.get("/api/state").json()["events_log"])
    strip = log.parent / "evidence" / "slap-L-12.345.png"
    strip.parent.mkdir(exist_ok=True)
    strip.write_bytes(b"\x89PNG\r\n\x1a\nstrip")
    response = client.get("/api/evidence/slap-L-12.345.png")
    assert response.status_code == 200 and response.headers["content-type"] == "image/png"
    assert response.content == strip.read_bytes()
    assert client.get("/api/evidence/slap-L-12.345.png.bak").status_code == 404


def test_an_oversized_websocket_message_closes_the_socket(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_text()
        ws.send_text("x" * 10_000)
        for _ in range(1000):
            message = ws.receive()
            if message["type"] == "websocket.close":
                break
    assert message == {"type": "websocket.close", "code": 1009, "reason": ""}


def test_a_full_hd_frame_is_sent_to_the_page_shrunk_with_the_overlay_in_its_own_pixels() -> None:
    import cv2
    import numpy as np

    image = np.zeros((1080, 1920, 3), np.uint8)
    cv2.rectangle(image, (960, 540), (1919, 1079), (255, 255, 255), -1)
    packet = FramePacket(1, 0.0, 0.0, image, {}, [], {}, {})
    sent = cv2.imdecode(np.frombuffer(packet.jpeg(), np.uint8), cv2.IMREAD_COLOR)
    assert sent.shape[:2] == (720, JPEG_MAX_WIDTH)
    assert (packet.width, packet.height) == (1920, 1080)
    assert sent[700, 1270].min() > 200 and sent[300, 600].max() < 50
