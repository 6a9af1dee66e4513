"""The web app of `referee serve`: the page, REST (/api/state, /api/events, /api/calibration, controls, overrules) and a WebSocket of frames where the newest frame wins."""

from __future__ import annotations

import asyncio
import json
import struct
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any, Final, Literal

from fastapi import FastAPI, HTTPException, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from referee.errors import RefereeError
from referee.events import Event
from referee.server.session import VERDICTS, BadRequest, FramePacket, Session, calibration_geometry, watchable_rules

STATIC_DIR: Final = Path(__file__).resolve().parent / "static"
MAX_BODY_BYTES: Final = 16 * 1024
"""Every request body the API takes is a few hundred bytes; anything over this is refused (413)."""
MAX_WS_MESSAGE_BYTES: Final = 4 * 1024
STATIC_TYPES: Final = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                       ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


# ---------------------------------------------------------------------------------- models

class Counts(BaseModel):
    total: int = Field(description="every card the player holds")
    stock: int = Field(description="cards in the player's stock piles")


class StateModel(BaseModel):
    """What the referee is doing now."""

    status: Literal["preparing", "looking", "calibrate", "running", "paused", "camera_lost", "ended", "error"] = Field(
        description="camera_lost: the camera gives no frames; it is opened again until it does, and the game goes on")
    message: str
    progress: float | None = Field(description="share of the demo rendered (while preparing)")
    source: str
    rules: str
    rule_sets: list[str]
    cards_read_by: str
    game: int
    t: float | None = Field(description="capture time of the newest frame, s from the source's start")
    frame: int | None
    events: int
    dropped_frames: int
    counts: dict[str, Counts]
    calibrated: bool
    events_log: str | None = Field(description="the file this game's event log is appended to")
    verdicts: dict[str, list[str]] = Field(description="the verdicts an overrule may give, per kind of call")


class EventModel(BaseModel):
    """One line of the event log (shared/INTERFACES.md): `t`, `type` and the type's fields."""

    model_config = ConfigDict(extra="allow")
    t: float
    type: str


class CalibrationModel(BaseModel):
    """The calibration in image px (what the page draws); `calibrated` false before there is one."""

    calibrated: bool
    source: Literal["markers", "manual"] | None = None
    image_size: list[int] | None = None
    play_area_px: list[list[float]] | None = None
    play_size_cm: list[float] | None = None
    zones: dict[str, list[list[float]]] = {}
    markers_px: dict[str, list[list[float]]] = {}
    rms_px: float | None = None


class ManualCalibration(BaseModel):
    """Four corners of the play area clicked in the frame (px), in the order far left, far right,
    near right, near left as player A sees them, and its size in cm."""

    model_config = ConfigDict(extra="forbid")
    corners_px: list[list[float]] = Field(min_length=4, max_length=4,
                                          description="[[x, y], ...] far left, far right, near right, near left")
    width_cm: float = Field(gt=10, le=400)
    depth_cm: float = Field(gt=10, le=400)

    def pairs(self) -> list[tuple[float, float]]:
        if any(len(p) != 2 for p in self.corners_px):
            raise BadRequest("each corner is a pair [x, y]")
        return [(p[0], p[1]) for p in self.corners_px]


class Control(BaseModel):
    """Pause, resume, or start a new game (optionally with another rule set)."""

    model_config = ConfigDict(extra="forbid")
    action: Literal["pause", "resume", "new_game"]
    rules: str | None = Field(default=None, max_length=40, pattern=r"^[a-z0-9-]+$")


class Overrule(BaseModel):
    """The players correct call `event` (its index in /api/events) with `verdict`."""

    model_config = ConfigDict(extra="forbid")
    event: int = Field(ge=0, le=1_000_000)
    verdict: str = Field(min_length=1, max_length=16, pattern=r"^[A-Za-z]+$")


# ---------------------------------------------------------------------------------- helpers

def _event_dict(index: int, event: Event) -> dict[str, Any]:
    """An event as sent to the page: the log line plus its index and, for a slap, the evidence URL."""
    out = {"index": index, **event.as_dict()}
    evidence = event.get("evidence")
    if isinstance(evidence, str) and evidence:
        out["evidence_url"] = f"/api/evidence/{Path(evidence).name}"
    return out


def _state(session: Session) -> StateModel:
    packet = session.latest
    return StateModel(
        status=session.status, message=session.message, progress=session.progress,
        source=session.settings.source.label, rules=session.rules, rule_sets=list(watchable_rules()),
        cards_read_by=session.reader_name, game=session.game,
        t=packet.t if packet else None, frame=packet.seq if packet else None,
        events=session.event_count(), dropped_frames=session.dropped,
        counts={p: Counts(**c) for p, c in (packet.counts if packet else {}).items()},
        calibrated=session.calibration is not None,
        events_log=str(session.events_path) if session.events_path else None,
        verdicts={k: list(v) for k, v in VERDICTS.items()},
    )


def _calibration(session: Session) -> CalibrationModel:
    calibration = session.calibration
    if calibration is None:
        return CalibrationModel(calibrated=False)
    return CalibrationModel(calibrated=True, **calibration_geometry(calibration))


def _frame_message(packet: FramePacket, jpeg: bytes, session: Session, events_from: int,
                   calibration: bool) -> tuple[bytes, int]:
    """One binary WebSocket message: a 4-byte big-endian length, the JSON overlay, then the JPEG."""
    events = session.events(events_from)
    overlay: dict[str, Any] = {
        "kind": "frame", "seq": packet.seq, "t": packet.t, "captured_ms": packet.captured_ms,
        "width": packet.width, "height": packet.height, "zones": packet.zones, "hands": packet.hands,
        "markers": packet.markers, "counts": packet.counts,
        "events_from": events_from, "events": [_event_dict(events_from + i, e) for i, e in enumerate(events)],
    }
    if calibration:
        overlay["calibration"] = _calibration(session).model_dump()
    header = json.dumps(overlay, ensure_ascii=False).encode()
    return struct.pack(">I", len(header)) + header + jpeg, events_from + len(events)


class BodyLimit:
    """ASGI middleware: a request body over `limit` bytes is refused with 413 before the app sees it."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length" and (not value.isdigit() or int(value) > self.limit):
                await _too_large(send, self.limit)
                return
        body = b""
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limit:
                await _too_large(send, self.limit)
                return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


async def _too_large(send: Send, limit: int) -> None:
    detail = json.dumps({"detail": f"request body over {limit} bytes"}).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(detail)).encode())]})
    await send({"type": "http.response.body", "body": detail})


# ---------------------------------------------------------------------------------- the app

def create_app(session: Session) -> FastAPI:
    """The app for one session (which the caller starts and stops)."""
    app = FastAPI(title="Spit referee", version="1",
                  description="The referee's calls over the live video: state, event log, calibration, "
                              "controls and overrules; frames over the WebSocket /ws.")
    static = {p.name: p for p in STATIC_DIR.iterdir() if p.is_file() and p.suffix in STATIC_TYPES}

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(static["index.html"], media_type=STATIC_TYPES[".html"],
                            headers={"Cache-Control": "no-cache"})

    @app.get("/static/{name}", include_in_schema=False)
    def static_file(name: str) -> FileResponse:
        path = static.get(name)  # only the package's own files, looked up by exact name
        if path is None:
            raise HTTPException(404, "no such file")
        return FileResponse(path, media_type=STATIC_TYPES[path.suffix], headers={"Cache-Control": "no-cache"})

    @app.get("/api/state", response_model=StateModel)
    def state() -> StateModel:
        return _state(session)

    @app.get("/api/events", response_model=list[EventModel])
    def events() -> list[dict[str, Any]]:
        return [e.as_dict() for e in session.events()]

    @app.get("/api/calibration", response_model=CalibrationModel)
    def get_calibration() -> CalibrationModel:
        return _calibration(session)

    @app.post("/api/calibration", response_model=CalibrationModel)
    def post_calibration(body: ManualCalibration) -> CalibrationModel:
        try:
            calibration = session.calibrate(body.pairs(), body.width_cm, body.depth_cm)
        except RefereeError as exc:
            raise HTTPException(400, str(exc)) from None
        return CalibrationModel(calibrated=True, **calibration_geometry(calibration))

    @app.post("/api/control", response_model=StateModel)
    def control(body: Control) -> StateModel:
        try:
            if body.action == "pause":
                session.pause()
            elif body.action == "resume":
                session.resume()
            else:
                session.new_game(body.rules)
        except RefereeError as exc:
            raise HTTPException(400, str(exc)) from None
        return _state(session)

    @app.post("/api/overrule", response_model=EventModel)
    def overrule(body: Overrule) -> dict[str, Any]:
        try:
            return session.overrule(body.event, body.verdict).as_dict()
        except RefereeError as exc:
            raise HTTPException(400, str(exc)) from None

    @app.get("/api/evidence/{name}", responses={200: {"content": {"image/png": {}}}})
    def evidence(name: str) -> Response:
        path = session.evidence_path(name)
        if path is None:
            raise HTTPException(404, "no such evidence strip")
        return FileResponse(path, media_type="image/png")

    @app.websocket("/ws")
    async def frames(websocket: WebSocket) -> None:
        await websocket.accept()
        loop = asyncio.get_running_loop()
        wake = asyncio.Event()
        wake.set()  # the state and the newest frame at once
        stop_listening = session.listen(lambda: loop.call_soon_threadsafe(wake.set))
        reader = asyncio.create_task(_drain(websocket))
        sent_seq, sent_version, sent_calibration, events_from, game = -1, -1, -1, 0, -1
        try:
            while not reader.done():
                waiter = asyncio.create_task(wake.wait())
                await asyncio.wait({waiter, reader}, return_when=asyncio.FIRST_COMPLETED)
                waiter.cancel()
                wake.clear()
                if session.game != game or session.version != sent_version:
                    if session.game != game:  # a new game: the page clears its log on this state message
                        game, events_from, sent_calibration = session.game, 0, -1
                    sent_version = session.version
                    await websocket.send_text(json.dumps({"kind": "state", **_state(session).model_dump()}))
                packet = session.latest  # only the newest frame is sent; frames that came meanwhile are dropped
                if packet is not None and packet.seq != sent_seq:
                    calibration = session.calibration_version
                    jpeg = await asyncio.to_thread(packet.jpeg)
                    message, events_from = _frame_message(packet, jpeg, session, events_from,
                                                          calibration != sent_calibration)
                    sent_calibration = calibration
                    sent_seq = packet.seq
                    await websocket.send_bytes(message)
                elif session.event_count() > events_from:  # paused: an overrule still reaches the page
                    events = [_event_dict(events_from + i, e) for i, e in enumerate(session.events(events_from))]
                    await websocket.send_text(json.dumps({"kind": "events", "events_from": events_from,
                                                          "events": events}, ensure_ascii=False))
                    events_from += len(events)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            stop_listening()
            reader.cancel()

    return app


async def _drain(websocket: WebSocket) -> None:
    """Read (and ignore) what the page sends until it goes; an oversized message closes the socket."""
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        data = message.get("bytes") or (message.get("text") or "").encode()
        if len(data) > MAX_WS_MESSAGE_BYTES:
            await websocket.close(code=1009)
            return


def build(session: Session) -> ASGIApp:
    """The app wrapped in the request-size limit: what uvicorn serves."""
    return BodyLimit(create_app(session))
