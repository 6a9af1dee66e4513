"""`referee serve`: the referee's calls drawn over the live video in the browser (FastAPI under uvicorn, 127.0.0.1:8000 by default)."""

from __future__ import annotations

import argparse
import ipaddress
import socket
import sys
from pathlib import Path
from typing import Literal

from referee.errors import RefereeError
from referee.judge.resume import LoggedGame, load_log
from referee.judge.spit.config import spit_rules
from referee.pipeline.memory import tune_malloc
from referee.pipeline.sources import LiveCamera, VideoFile
from referee.server.demo import cache_folder
from referee.server.session import BadSource, Session, SessionSettings, SourceSpec, parse_source, watchable_rules

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


class CannotListen(RefereeError):
    """The address and port cannot be listened on."""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", default="demo", metavar="demo|camera:N|FILE",
                        help="the built-in demo game (default; rendered once into the cache folder), a camera "
                             "by number, or a video file")
    parser.add_argument("--rules", default="classic", help=f"rule set ({', '.join(watchable_rules())}); default classic")
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=_port, default=DEFAULT_PORT, help="port (default 8000)")
    parser.add_argument("--cards", choices=("auto", "detector", "truth"), default="auto",
                        help="how cards are read: the card detector, or (demo only) the demo's true cards; "
                             "auto (default): the detector, or the demo's true cards for the demo when no "
                             "detector model is installed")
    parser.add_argument("--games-dir", type=Path, metavar="DIR",
                        help="where each game's event log and evidence go (default: CACHE/games)")
    parser.add_argument("--cache", type=Path, metavar="DIR",
                        help="where the demo is rendered (default: $SPIT_REFEREE_CACHE or ~/.cache/spit-referee)")
    parser.add_argument("--resume", type=Path, metavar="LOG",
                        help="go on with the game of this event log (after a crash): its calls are shown and "
                             "replayed, new ones appended to it; a video goes on from the last call, a camera "
                             "live. Give the game's --source and --rules")


def settings_from(args: argparse.Namespace) -> SessionSettings:
    """The session the arguments ask for; one-line errors (`RefereeError`) for bad ones."""
    source = parse_source(args.source)
    spit_rules(args.rules)
    cache = args.cache or cache_folder()
    cards = _cards(args.cards, source)
    resume = load_log(args.resume) if args.resume is not None else None
    _check_source(source, resume.last_t if resume is not None else 0.0)
    return SessionSettings(source=source, rules=args.rules, games_dir=args.games_dir or cache / "games",
                           cards=cards, cache=cache, resume=resume)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from referee.server.app import MAX_WS_MESSAGE_BYTES, build

    settings = settings_from(args)
    if not _is_loopback(args.host):
        print(f"referee serve: warning: listening on {args.host}: anyone who can reach this machine can see "
              "the table and change the referee's calls (there is no login)", file=sys.stderr)
    _check_bind(args.host, args.port)
    if settings.resume is not None:
        _report_resume(settings.resume)
    tune_malloc()  # before the session's and the web server's threads start, so they share the capped arenas
    session = Session(settings)
    session.start()
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"referee serve: {settings.source.label}, rules {settings.rules}: open http://{shown}:{args.port}/ "
          f"(API docs at /docs); Ctrl-C stops", file=sys.stderr, flush=True)
    config = uvicorn.Config(build(session), host=args.host, port=args.port, log_level="warning",
                            ws_max_size=MAX_WS_MESSAGE_BYTES, ws_ping_interval=20.0, lifespan="off")
    try:
        uvicorn.Server(config).run()
    finally:
        session.stop()
    return 0


def _report_resume(game: LoggedGame) -> None:
    if game.torn:
        print(f"referee serve: warning: {game.path}: its last line was cut short ({len(game.torn)} bytes) and is "
              "left out", file=sys.stderr)
    print(f"referee serve: going on with {game.path}: {len(game.events)} calls, the last at {game.last_t:.2f} s",
          file=sys.stderr, flush=True)


def _cards(choice: str, source: SourceSpec) -> Literal["truth", "detector"]:
    from referee.vision.detector import DETECTOR_MODEL, INDEX_MODEL, MODELS_DIR

    if choice == "truth":
        if source.kind != "demo":
            raise BadSource("--cards truth reads the demo game's true cards: it goes only with --source demo")
        return "truth"
    if not ((MODELS_DIR / DETECTOR_MODEL).is_file() and (MODELS_DIR / INDEX_MODEL).is_file()):
        if choice == "auto" and source.kind == "demo":
            return "truth"
        raise BadSource(f"the card detector's model is not installed in {MODELS_DIR} (train one with "
                        "`referee train`); only the demo can be watched without it")
    return "detector"


def _check_source(source: SourceSpec, start_s: float) -> None:
    """Open the camera or video once (from `start_s`, where a resumed game goes on) so that a bad
    one is a one-line error before the server starts."""
    if source.kind == "camera":
        LiveCamera(source.camera).close()
    elif source.kind == "file":
        assert source.path is not None
        video = VideoFile(source.path, start_s=start_s)
        try:
            next(iter(video))
        finally:
            video.close()


def _check_bind(host: str, port: int) -> None:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        raise CannotListen(f"{host!r} is not an address or host name") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            raise CannotListen(f"cannot listen on {host}:{port}: {exc.strerror}") from None


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError("a port lies in 1..65535")
    return value
