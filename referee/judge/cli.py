"""`referee judge OBSERVATIONS.jsonl`: referee a game from a per-frame observation stream, events out as JSON Lines.

`--from-log` reads a simulator's ground-truth log instead and films it with the perfect camera
first (`--faults`, `--seed`; `--write-observations` keeps the stream). Calls go to stderr as
they are made; the event log to `--events` (appended and flushed) or to stdout.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from dataclasses import replace

from referee.events import Event, EventLog, read_events
from referee.judge.camera import CameraConfig, Faults, header, observe_log
from referee.judge.judge import Judge
from referee.observations import Observation, ObservationStream, StreamHeader
from referee.tracker import TrackerConfig

FAULTS = {"none": Faults(), "realistic": Faults.realistic(), "harsh": Faults.harsh()}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", help="observation stream (JSON Lines; '-' for stdin), or with --from-log a simulator log")
    parser.add_argument("--rules", default=None, help="rule set (default: the stream header's, else classic)")
    parser.add_argument("--events", metavar="OUT.jsonl", help="append the event log here (default: stdout)")
    parser.add_argument("--settle", type=int, default=TrackerConfig().settle_frames, metavar="K",
                        help="frames a new zone state must be seen before it counts (default: %(default)s)")
    parser.add_argument("--quiet", action="store_true", help="do not print the calls on stderr")
    parser.add_argument("--from-log", action="store_true", help="SOURCE is a simulator log: film it with the perfect camera")
    parser.add_argument("--faults", choices=sorted(FAULTS), default="realistic", help="camera faults with --from-log")
    parser.add_argument("--seed", type=int, default=0, help="the camera's faults seed with --from-log")
    parser.add_argument("--write-observations", metavar="OBS.jsonl", help="with --from-log: save the observation stream")


def describe(event: Event) -> str:
    """A call in a player's words."""
    f = event.fields
    kind = event.type
    if kind == "play":
        return f"{f['player']} plays {f['card']} from {f['from']} onto {f['to']}"
    if kind == "illegal_play":
        return f"ILLEGAL: {f['player']}'s {f['card']} on {f['to']}: {f['reason']}"
    if kind == "turn_up":
        return f"{f['player']} turns up {f['card']} on {f['pile']}"
    if kind == "move_to_space":
        return f"{f['player']} moves {f['card']} from {f['from']} into {f['to']}"
    if kind == "spit_call":
        return "Spit! (nobody can move)"
    if kind == "spit":
        return "spit: " + ", ".join(f"{card} onto {pile}" for pile, card in f["cards"].items())
    if kind == "premature_spit":
        return f"TOO EARLY: {f['player']} spat while a move existed: {f['move']}"
    if kind == "race":
        later = "later" if f["margin_ms"] is None else f"{f['margin_ms']:.0f} ms later"
        return f"race on {f['pile']}: {f['first']} first, {f['second']} {later}"
    if kind == "slap":
        verdict = f" ({f['verdict']})" if "verdict" in f else ""
        return f"slap: {f['winner']} takes {f['pile']}{verdict}"
    if kind == "deal_end":
        return f"deal over: {f['player']} ({f.get('reason', '')}); cards held {f['counts']}"
    if kind == "game_end":
        return f"game over: {f['winner'] or 'a tie'} wins"
    if kind == "layout":
        return f"new layout read: cards held {f['counts']}"
    if kind == "withdraw":
        return f"WITHDRAWN: {f['player']}'s {f['card']} onto {f['to']} ({f['call'].replace('_', ' ')}): {f['reason']}"
    if kind == "resync":
        return f"position read again from the table ({', '.join(f.get('unexplained', ())) or 'unexplained'})"
    return f"{kind} " + " ".join(f"{k}={v}" for k, v in f.items() if k not in ("frame", "called_at"))


def _observations(args: argparse.Namespace) -> tuple[Iterable[Observation], str | None, float | None]:
    if args.from_log:
        events = list(read_events(args.source))
        rules = args.rules or "classic"
        camera = CameraConfig(faults=FAULTS[args.faults], seed=args.seed)
        stream: Iterable[Observation] = observe_log(events, rules, camera)
        if args.write_observations:
            stream = _saved(stream, args.write_observations, header(rules, camera, args.source))
        return stream, rules, camera.fps
    source = ObservationStream(sys.stdin if args.source == "-" else args.source)
    iterator = iter(source)
    first = next(iterator, None)
    head = source.header
    rules = args.rules or (head.rules if head is not None else None)
    fps = head.fps if head is not None else None

    def chained() -> Iterator[Observation]:
        if first is not None:
            yield first
            yield from iterator

    return chained(), rules, fps


def _saved(stream: Iterable[Observation], path: str, head: StreamHeader) -> Iterator[Observation]:
    with open(path, "w", encoding="utf-8") as out:
        out.write(head.to_json() + "\n")
        for obs in stream:
            out.write(obs.to_json() + "\n")
            yield obs


def run(args: argparse.Namespace) -> int:
    stream, rules, fps = _observations(args)
    log = EventLog(args.events, fsync=False) if args.events else None

    def called(event: Event) -> None:
        if log is not None:
            log.append(event)
        else:
            sys.stdout.write(event.to_json() + "\n")
            sys.stdout.flush()
        if not args.quiet:
            print(f"{event.t:9.3f} s  {describe(event)}", file=sys.stderr, flush=True)

    tracker = replace(TrackerConfig(), settle_frames=args.settle)
    judge = Judge(rules or "classic", tracker=tracker, fps=fps, on_event=called)
    try:
        for obs in stream:
            judge.feed(obs)
        judge.finish()
    finally:
        if log is not None:
            log.close()
    return 0
