"""Going on with a game after a crash: its event log read back (a last line cut short by the crash left out) and the referee's position rebuilt by replaying the logged moves through the rules engine."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from referee.cards import FACE_DOWN, Card, parse_card
from referee.errors import BadEvent, IllegalMove, ImpossiblePosition, RefereeError
from referee.events import Event, EventLog, read_events
from referee.judge.spit.config import BENEATH, TOO_CLOSE, UNDERNEATH, layout_counts, spit_rules
from referee.judge.spit.referee import SpitReferee
from referee.rules.spit import (
    ChoosePile,
    MoveToSpace,
    Play,
    Refill,
    Slap,
    Spit,
    SpitMove,
    SpitRules,
    SpitState,
    StackEqual,
    TurnUp,
)

STATE_EVENTS: Final = ("layout", "resync", "play", "turn_up", "move_to_space", "stack_equal", "refill", "spit",
                       "slap", "choose_pile", "withdraw")
"""The calls that move the referee's position on; the others (illegal plays, races, "Spit!",
deal and game ends, overrules) leave it as it is, as they do live. A `resync` (the referee read
its position again from the table) sets the position it logged, as a `layout` does, and a play
found at that re-read (`resynced`, logged after it) is left to it. A `withdraw` undoes the play it
names, the moves logged since made again, as the referee does live; so does a play that the referee
found lying under the card it had played last on that pile (logged after it, dated before it), in a
log written before the referee logged its withdrawals."""


class BadLog(RefereeError):
    """A file to go on from that is missing or is not an event log."""


@dataclass(frozen=True)
class LoggedGame:
    """An event log read back: its complete `events`, the bytes of a last line cut short (`torn`,
    empty when none), and `size`, the length of the file up to its last complete line."""

    path: Path
    events: tuple[Event, ...]
    torn: bytes
    size: int
    newline_missing: bool = False
    """The last event is complete but its line end was not written."""

    @property
    def last_t(self) -> float:
        """The capture time of the last frame at which a call was made (0 for an empty log)."""
        return max((called_at(e) for e in self.events), default=0.0)

    def deal_t(self) -> float:
        """When the last deal's layout was called (0 before the first): no move is under way then."""
        return max((e.t for e in self.events if e.type == "layout"), default=0.0)

    def called_since(self, t: float) -> list[Event]:
        """The logged calls made at capture time `t` or later, in order."""
        return [e for e in self.events if called_at(e) >= t - TIME_EPS]

    def called_before(self, t: float) -> list[Event]:
        """The logged calls made before capture time `t`, in order."""
        return [e for e in self.events if called_at(e) < t - TIME_EPS]


TIME_EPS: Final = 1e-4
"""Logged times are rounded to microseconds; frames are far more than this apart."""


def called_at(event: Event) -> float:
    """The capture time of the frame at which a logged call was made (its `called_at`, else its time)."""
    return max(event.t, float(event.get("called_at", 0.0)))


def same_calls(made: Iterable[Event], logged: Iterable[Event]) -> bool:
    """Whether calls made again are the logged ones, field for field, in order."""
    return [e.as_dict() for e in made] == [e.as_dict() for e in logged]


@dataclass(frozen=True)
class Replay:
    """The referee's position after the logged moves: `state`, `deals` (layouts read so far: the
    deal number), `moves` replayed, the logged moves the engine refused (`refused`, each
    described with the reason: a log from before re-reads were logged, or of another rule set),
    `resyncs` (re-reads of the table replayed) and `counts_known` (False once a re-read has
    guessed face-down counts: later layouts are counted from the cards so guessed)."""

    state: SpitState
    deals: int
    moves: int
    refused: tuple[str, ...]
    resyncs: int = 0
    counts_known: bool = True


def load_log(path: str | os.PathLike[str]) -> LoggedGame:
    """Read an event log to go on from; a last line without its line end that is not a whole
    event (a write cut short) is left out. `BadLog` for a missing file or one that is not an
    event log (any complete line that is not an event)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise BadLog(f"{path}: no such event log") from None
    except OSError as exc:
        raise BadLog(f"{path}: cannot read the event log: {exc.strerror}") from None
    head, newline, tail = data.rpartition(b"\n")
    complete = head + newline
    try:
        events = list(read_events(complete.decode("utf-8").splitlines()))
    except (UnicodeDecodeError, BadEvent) as exc:
        raise BadLog(f"{path}: not an event log ({exc})") from None
    if tail.strip():
        try:
            last = Event.from_json(tail.decode("utf-8"))
        except (UnicodeDecodeError, BadEvent):
            return LoggedGame(path, tuple(events), tail, len(complete))
        return LoggedGame(path, (*events, last), b"", len(data), newline_missing=True)
    return LoggedGame(path, tuple(events), b"", len(data))


def reopen(game: LoggedGame) -> EventLog:
    """The game's log opened to append to: a torn last line cut off, a missing line end written."""
    with game.path.open("r+b") as handle:
        handle.truncate(game.size)
        if game.newline_missing:
            handle.seek(0, os.SEEK_END)
            handle.write(b"\n")
        handle.flush()
        os.fsync(handle.fileno())
    return EventLog(game.path)


def replay(events: Iterable[Event], rules: str | SpitRules = "classic") -> Replay:
    """The referee's position after the logged calls, from the game's start."""
    r = spit_rules(rules)
    state = SpitReferee(r).state
    deals = moves = resyncs = 0
    counts_known = True
    refused: list[str] = []
    applied: list[tuple[Event, SpitMove, SpitState]] = []  # the moves since the last layout or re-read, each
    # with the position before it
    for event in events:
        if event.type not in STATE_EVENTS or event.get("resynced"):
            continue
        try:
            if event.type == "layout":
                state = _layout(r, event)
                deals += 1
                applied.clear()
                continue
            if event.type == "resync":
                state = _resync(r, event)
                resyncs += 1
                counts_known = False
                applied.clear()
                continue
            if event.type == "withdraw":
                state = _withdrawn(applied, event)
                moves -= 1
                continue
            move = _move(event)
            try:
                after = state.apply(move)
            except IllegalMove:
                after = _played_under(applied, event, move)
                if after is None:
                    raise
                moves -= 1
            else:
                applied.append((event, move, state))
            state = after
            moves += 1
        except (IllegalMove, ImpossiblePosition, KeyError, TypeError, ValueError) as exc:
            refused.append(f"{event.type} at {event.t:g} s: {exc}")
    return Replay(state, deals, moves, tuple(refused), resyncs, counts_known)


def _played_under(applied: list[tuple[Event, SpitMove, SpitState]], event: Event, move: SpitMove) -> SpitState | None:
    """A play the engine refuses where the last play logged on its pile is dated after it: the
    referee found this card under that one once it was taken back (it came second, and was refused:
    its `illegal_play` follows), so that play is undone and this one made in its place, the moves
    logged since made again. None when that does not make it legal. `applied` loses the play undone."""
    if not isinstance(move, Play):
        return None
    k = next((k for k in range(len(applied) - 1, -1, -1)
              if isinstance(applied[k][1], Play) and applied[k][1].to == move.to), None)
    if k is None or applied[k][0].t <= event.t:
        return None
    try:
        state, remade = _made_again_without(applied, k)
        after = state.apply(move)
    except IllegalMove:
        return None
    applied[k:] = [*remade, (event, move, state)]
    return after


def _withdrawn(applied: list[tuple[Event, SpitMove, SpitState]], event: Event) -> SpitState:
    """The position with the play a `withdraw` names (its player, card, pile and time) left out and the
    moves logged since made again; `applied` loses it. Raises `KeyError` where no such play was logged
    since the last layout or re-read, `IllegalMove` where a later move cannot be made without it."""
    k = next((k for k in range(len(applied) - 1, -1, -1)
              if applied[k][0].type == "play" and applied[k][0].t == event.t
              and applied[k][0]["card"] == event["card"] and applied[k][0]["to"] == event["to"]), None)
    if k is None:
        raise KeyError(f"no play of {event['card']} onto {event['to']} at {event.t:g} s to withdraw")
    state, applied[k:] = _made_again_without(applied, k)
    return state


def _made_again_without(applied: list[tuple[Event, SpitMove, SpitState]],
                        k: int) -> tuple[SpitState, list[tuple[Event, SpitMove, SpitState]]]:
    """The position with the move `applied[k]` left out and those logged after it made again, and their
    entries rebuilt (each with its new position before it); `applied` as it was (`IllegalMove` where one of
    them cannot be made without it)."""
    state = applied[k][2]
    remade = []
    for logged, later, _ in applied[k + 1:]:
        remade.append((logged, later, state))
        state = state.apply(later)
    return state, remade


def _layout(rules: SpitRules, event: Event) -> SpitState:
    held = event["counts"]
    tops = event.get("tops") or {}
    stocks: dict[str, list[tuple[int, str | None]]] = {}
    spit_cards: dict[str, int] = {}
    for i, player in enumerate(rules.player_names):
        counts, spit_cards[player] = layout_counts(rules.layout, int(held[player]))
        stocks[player] = [(n, tops.get(zone) if n else None) for n, zone in zip(counts, rules.stock_names[i])]
    return SpitState.observed(rules, stocks, spit_cards)


def _resync(rules: SpitRules, event: Event) -> SpitState:
    """The position the referee read from the table, as its `resync` call logged it (between
    deals: the cards each player holds; a deal ended: the player whose stock is empty)."""
    held = event.get("held")
    if held is not None:
        return SpitState.position(rules, {}, phase="layout",
                                  held={player: " ".join([FACE_DOWN] * int(n)) for player, n in held.items()})
    places = event["stocks"]
    stocks = {player: [(int(places[zone][0]), places[zone][1]) if zone in places else (0, None)
                       for zone in rules.stock_names[i]]
              for i, player in enumerate(rules.player_names)}
    piles = {pile: (int(count), top) for pile, (count, top) in event["piles"].items()}
    spit_cards = {player: int(n) for player, n in event["spit_cards"].items()}
    return SpitState.observed(rules, stocks, spit_cards, piles, ended_by=event.get("ended_by"))


def _card(code: str) -> Card | None:
    return None if code == FACE_DOWN else parse_card(code)


def _move(event: Event) -> SpitMove:
    f = event.fields
    kind = event.type
    if kind == "play":
        return Play(f["player"], parse_card(f["card"]), f["from"], f["to"])
    if kind == "turn_up":
        return TurnUp(f["player"], f["pile"], _card(f["card"]))
    if kind == "move_to_space":
        return MoveToSpace(f["player"], parse_card(f["card"]), f["from"], f["to"])
    if kind == "stack_equal":
        return StackEqual(f["player"], parse_card(f["card"]), f["from"], f["to"])
    if kind == "refill":
        return Refill(f["player"], f["pile"], _card(f["card"]))
    if kind == "spit":
        return Spit(tuple((pile, _card(code)) for pile, code in f["cards"].items()))
    if kind == "choose_pile":
        return ChoosePile(f["player"], f["pile"])
    contact = f["contact"]
    piles = f.get("piles") or dict.fromkeys(contact, f["pile"])
    if f.get("verdict") in (TOO_CLOSE, UNDERNEATH, BENEATH):  # the referee's slap: both at the first contact, the winner underneath
        t0 = min(contact.values())
        return Slap(tuple((p, piles[p], t0) for p in sorted(contact)), underneath=f["winner"])
    return Slap(tuple((p, piles[p], contact[p]) for p in sorted(contact)))


__all__ = ["BadLog", "LoggedGame", "Replay", "STATE_EVENTS", "TIME_EPS", "called_at", "load_log", "reopen", "replay",
           "same_calls"]
