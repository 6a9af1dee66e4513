"""Replaying a ground-truth log through its engine: every move the log records must be legal where it lies."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from referee.cards import FACE_DOWN
from referee.errors import RefereeError
from referee.events import Event
from referee.rules.base import GameState
from referee.simulate.adapter import Adapter
from referee.simulate.engines import adapter

NOT_MOVES: Final = frozenset({"illegal_play", "race", "spit_call", "premature_spit", "deal_end", "game_end"})
"""Event types that record what happened or what the referee said without changing the cards
(unless the engine lists a move of that type, as the own-deck games' count is a `game_end`)."""


class ReplayError(RefereeError):
    """A log that does not replay: a move that is not legal where the log puts it."""


def replay(rules: Any, events: Iterable[Event]) -> GameState:
    """The final state after every move of a simulated log, which starts with its `layout` event.

    Each event is matched to a legal move of the engine whose own event fields it carries (extra
    fields such as `start` or `contact` aside); where the engine reports what a move did (its
    state's `last_events`, e.g. a named suit and a burn in Speahx) the next events must say so too. Raises `ReplayError` for an event
    that is neither a legal move nor one of `NOT_MOVES`, and for an `illegal_play` without a reason.
    """
    log = list(events)
    if not log or log[0].type != "layout":
        raise ReplayError("a simulated log starts with its layout event")
    ops = adapter(rules)
    state = ops.restart(rules, log[0].fields)
    i = 1
    while i < len(log):
        event = log[i]
        found = find_move(state, ops, log, i)
        if found is None:
            if event.type not in NOT_MOVES:
                raise ReplayError(f"event {i + 1} ({event.type} at {event.t} s) is not a legal move there")
            if event.type == "illegal_play" and not event["reason"]:
                raise ReplayError(f"event {i + 1}: an illegal play without a reason")
            i += 1
            continue
        state, used = found
        i += used
    return state


def find_move(state: GameState, ops: Adapter, log: Sequence[Event], i: int) -> tuple[GameState, int] | None:
    """The state after the legal move that `log[i]` records, and how many events that move
    accounts for (with the consequences its engine reports); None if no legal move fits. A move
    the adapter rebuilds from the event (a shuffled layout, a slap at its times) comes first."""
    event = log[i]
    rebuilt = ops.move_from_event(state, event.type, event.fields)
    candidates = [rebuilt] if rebuilt is not None else [
        move for move in state.legal_moves(event.get("player"))
        if move.player == event.get("player") and _fits(event, *move.event(), unseen=FACE_DOWN)
    ]
    for move in candidates:
        after = state.apply(move)
        produced = getattr(after, "last_events", ())
        if all(i + k < len(log) and _fits(log[i + k], kind, fields) for k, (kind, fields) in enumerate(produced)):
            return after, max(1, len(produced))
    return None


def _fits(event: Event, kind: str, fields: Mapping[str, Any], unseen: str | None = None) -> bool:
    """`event` is of type `kind` and carries every one of `fields` with the same value (any value
    where the field's is `unseen`: a move may leave a card face down that its event then names)."""
    return event.type == kind and all(v == unseen or event.get(k) == v for k, v in fields.items())
