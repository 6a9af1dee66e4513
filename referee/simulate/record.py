"""The ground-truth recorder of a simulated game: counts every event and, when asked, keeps the log."""

from __future__ import annotations

from collections import Counter
from typing import Any

from referee.events import Event, register_event_type

register_event_type("layout", ("counts",))
"""A new layout on the table (the first of a game and after every deal end), with what a renderer
needs to lay it out (`stock`, `piles`, each game's own hidden cards); see docs/event-log.md. Spit's
engine registers the same type with the same required fields for its `Layout` move."""


class Recorder:
    """Collects a game's events at integer-millisecond times; `events()` gives them in time order.

    With `keep=False` only the per-type counts are kept (fast summaries of many games).
    """

    def __init__(self, keep: bool) -> None:
        self.keep = keep
        self.counts: Counter[str] = Counter()
        self._rows: list[tuple[int, int, str, dict[str, Any]]] = []

    def add(self, t_ms: int, type: str, **fields: Any) -> None:
        """Record one event of `type` at `t_ms` milliseconds from the start."""
        self.counts[type] += 1
        if self.keep:
            self._rows.append((t_ms, len(self._rows), type, fields))

    def events(self) -> list[Event]:
        """The kept events, validated, sorted by time (ties in the order they were recorded)."""
        rows = sorted(self._rows, key=lambda row: (row[0], row[1]))
        return [Event.make(type, t_ms / 1000, **fields) for t_ms, _, type, fields in rows]


def seconds(t_ms: int) -> float:
    """A log time in seconds from integer milliseconds."""
    return t_ms / 1000
