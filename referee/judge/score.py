"""Scoring a referee's calls against a simulated game's ground truth: matching events, recall, precision, time errors, latency.

Events are matched type by type on the fields that identify them (a play's player, card, source
and pile; a spit's cards; a slap by time alone, its verdict checked apart), each judged event
to the nearest unmatched true one within `tolerance_s`. A "Spit!" call is judged by when it was
made (`called_at`), as the players hear it: it is right when made during a true stalemate (from
the true `spit_call` to the first spit card laid after it, or the next deal), and made while a
move existed when it falls in no true stalemate.

A stretch of a game cut at `until` (a clip's end) scores the true events up to `until`; a true
event after it is optional: a call matching it is neither counted nor extra (without this, a
play made just after the cut and called at once would count against the referee).

>>> from referee.events import Event
>>> truth = [Event.make("play", 1.000, player="A", card="7C", **{"from": "A3", "to": "L"})]
>>> judged = [Event.make("play", 1.0333, player="A", card="7C", called_at=1.2, **{"from": "A3", "to": "L"})]
>>> s = score(truth, judged)
>>> s.recall("play"), s.precision("play"), round(max(s.time_errors["play"]) * 1000, 1)
(1.0, 1.0, 33.3)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from referee.events import Event

KEYS: Final[dict[str, tuple[str, ...]]] = {
    "play": ("player", "card", "from", "to"),
    "illegal_play": ("player", "card", "to"),
    "turn_up": ("player", "pile", "card"),
    "move_to_space": ("player", "card", "from", "to"),
    "stack_equal": ("player", "card", "from", "to"),
    "spit": ("cards",),
    "spit_call": (),
    "premature_spit": ("player",),
    "race": ("pile", "first", "second"),
    "slap": (),
    "deal_end": ("player", "counts"),
    "layout": ("counts",),
    "choose_pile": ("player", "pile"),
    "game_end": ("winner",),
}
"""The fields that identify an event of each scored type."""
FLAGS: Final = ("illegal_play", "premature_spit")
"""Calls against a player: a judged one with no true event is a false flag."""
SPIT_CALL_BOUND_S: Final = 0.5
"""The target for a "Spit!" call: made within this long of the true stalemate. A call made later,
while the stalemate still stands (the spit cards not laid yet), is matched but late."""


@dataclass
class Score:
    """Counts of true, judged and matched events per type; matched events' time errors (s) and
    call latencies (s from the true time to the frame the call was made); slap verdicts on true
    margins of at least one frame (`slaps_decidable`, `slaps_right`); "Spit!" calls made while a
    move existed (`spits_while_move`: a judged `spit_call` made in no true stalemate); plays the referee
    withdrew (`withdrawn`: its `withdraw` calls; each play stays counted as called, a player saw it)."""

    truth: dict[str, int] = field(default_factory=dict)
    judged: dict[str, int] = field(default_factory=dict)
    matched: dict[str, int] = field(default_factory=dict)
    time_errors: dict[str, list[float]] = field(default_factory=dict)
    latencies: dict[str, list[float]] = field(default_factory=dict)
    slaps_decidable: int = 0
    slaps_right: int = 0
    slaps_close: int = 0
    spits_while_move: int = 0
    withdrawn: int = 0
    games: int = 0

    def recall(self, kind: str) -> float:
        n = self.truth.get(kind, 0)
        return self.matched.get(kind, 0) / n if n else 1.0

    def precision(self, kind: str) -> float:
        n = self.judged.get(kind, 0)
        return self.matched.get(kind, 0) / n if n else 1.0

    def spits_in_time(self, bound_s: float = SPIT_CALL_BOUND_S) -> int:
        """Matched "Spit!" calls made within `bound_s` of their true stalemate (the others were late)."""
        return sum(latency <= bound_s + 1e-9 for latency in self.latencies.get("spit_call", []))

    def unmatched(self, kind: str) -> int:
        """Judged events of `kind` with no true one."""
        return self.judged.get(kind, 0) - self.matched.get(kind, 0)

    @property
    def false_flags(self) -> int:
        return sum(self.unmatched(kind) for kind in FLAGS)

    def add(self, other: "Score") -> None:
        """Adds another game's score to this one."""
        for mine, theirs in ((self.truth, other.truth), (self.judged, other.judged), (self.matched, other.matched)):
            for kind, n in theirs.items():
                mine[kind] = mine.get(kind, 0) + n
        for mine_l, theirs_l in ((self.time_errors, other.time_errors), (self.latencies, other.latencies)):
            for kind, values in theirs_l.items():
                mine_l.setdefault(kind, []).extend(values)
        self.slaps_decidable += other.slaps_decidable
        self.slaps_right += other.slaps_right
        self.slaps_close += other.slaps_close
        self.spits_while_move += other.spits_while_move
        self.withdrawn += other.withdrawn
        self.games += other.games


def _key(event: Event) -> tuple[Any, ...]:
    values = (event.get(name) for name in KEYS[event.type])
    return tuple(repr(sorted(v.items()) if isinstance(v, Mapping) else v) for v in values)


def score(truth: Sequence[Event], judged: Sequence[Event], *, tolerance_s: float = 0.25,
          frame_interval_s: float = 1 / 30, until: float = math.inf) -> Score:
    """The score of `judged` against `truth` (one game), the true events after `until` optional."""
    result = Score(games=1, withdrawn=sum(event.type == "withdraw" for event in judged))
    pool: dict[tuple[str, tuple[Any, ...]], list[Event]] = {}
    for event in judged:
        if event.type in KEYS:
            result.judged[event.type] = result.judged.get(event.type, 0) + 1
            pool.setdefault((event.type, _key(event)), []).append(event)
    _spit_calls(result, truth, pool.pop(("spit_call", ()), []), frame_interval_s, until)
    for event in truth:
        if event.type not in KEYS or event.type == "spit_call":
            continue
        if event.t > until:
            _drop_match(result, event, pool.get((event.type, _key(event)), []), tolerance_s)
            continue
        result.truth[event.type] = result.truth.get(event.type, 0) + 1
        candidates = pool.get((event.type, _key(event)), [])
        best = min(candidates, key=lambda e: abs(e.t - event.t), default=None)
        if event.type == "slap":
            _slap(result, event, best, frame_interval_s)
        if best is None or abs(best.t - event.t) > tolerance_s:
            continue
        candidates.remove(best)
        result.matched[event.type] = result.matched.get(event.type, 0) + 1
        result.time_errors.setdefault(event.type, []).append(abs(best.t - event.t))
        if "called_at" in best.fields:
            result.latencies.setdefault(event.type, []).append(best["called_at"] - event.t)
    return result


def _drop_match(result: Score, optional: Event, candidates: list[Event], tolerance_s: float) -> None:
    """Takes the call matching an optional true event out of the judged ones."""
    best = min(candidates, key=lambda e: abs(e.t - optional.t), default=None)
    if best is not None and abs(best.t - optional.t) <= tolerance_s:
        candidates.remove(best)
        result.judged[optional.type] -= 1


STALEMATE_ENDS: Final = frozenset({"spit", "layout", "deal_end", "game_end"})
"""True events that end a stalemate: the spit cards laid, or the deal over."""


def _stalemates(truth: Sequence[Event]) -> list[tuple[Event, float]]:
    """Each true `spit_call` with the time its stalemate ended (the first spit card laid after
    it, or the next deal; infinity when the log ends first)."""
    spans = []
    for i, event in enumerate(truth):
        if event.type != "spit_call":
            continue
        end = next((min(e.get("contact", {}).values(), default=e.t) for e in truth[i + 1 :]
                    if e.type in STALEMATE_ENDS and e.t >= event.t), float("inf"))
        spans.append((event, end))
    return spans


def _spit_calls(result: Score, truth: Sequence[Event], judged: list[Event], frame: float, until: float) -> None:
    """Matches each true stalemate to the first "Spit!" called during it (give or take a frame at
    each end, for the capture clock's rounding); the calls in no stalemate were made while a move
    existed. A stalemate after `until` is optional: the calls during it are not counted."""
    calls = sorted(judged, key=lambda e: e.get("called_at", e.t))
    inside: set[int] = set()
    for event, end in _stalemates(truth):
        during = [i for i, call in enumerate(calls) if event.t - frame <= call.get("called_at", call.t) <= end + frame]
        inside.update(during)
        if event.t > until:
            result.judged["spit_call"] = result.judged.get("spit_call", 0) - len(during)
            continue
        result.truth["spit_call"] = result.truth.get("spit_call", 0) + 1
        if not during:
            continue
        call = calls[during[0]]
        result.matched["spit_call"] = result.matched.get("spit_call", 0) + 1
        result.time_errors.setdefault("spit_call", []).append(abs(call.t - event.t))
        result.latencies.setdefault("spit_call", []).append(call.get("called_at", call.t) - event.t)
    result.spits_while_move += len(calls) - len(inside)


def _slap(result: Score, truth: Event, judged: Event | None, frame: float) -> None:
    contact = truth["contact"]
    piles = truth.get("piles", {})
    times = sorted(contact.values())
    same_pile = len(set(piles.values())) == 1
    if same_pile and len(times) == 2 and times[1] - times[0] < frame - 1e-9:
        result.slaps_close += 1
        return
    result.slaps_decidable += 1
    if judged is None:
        return
    if same_pile and judged["winner"] == truth["winner"] and judged["pile"] == truth["pile"]:
        result.slaps_right += 1
    elif not same_pile and judged.get("piles") == piles:  # each takes the pile they slapped
        result.slaps_right += 1
