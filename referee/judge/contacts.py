"""Scoring the hands' first contacts (what the hand finder dates) against a game's true touches: found on the right zone, and how far off in time.

A true touch is a card landing on a place (`play`, `illegal_play`, `move_to_space`,
`stack_equal`, `refill`: the hand at the card's destination at `t`), a face-down card turned in
place (`turn_up`: the hand at the pile at `t`) or a slap (each hand at its pile at its contact
time). A contact matches a touch when the same side's hand was reported touching the same zone
with a first-contact time within `tolerance_s` of it.

>>> from referee.events import Event
>>> from referee.observations import HandSeen, Observation
>>> truth = [Event.make("play", 1.0, player="A", card="7C", **{"from": "A3", "to": "L"})]
>>> seen = [Observation(1.0333, 31, {}, hands=(HandSeen("A", ("L",), {"L": 1.0333}),))]
>>> s = score_contacts(truth, seen)
>>> s.found["landing"], s.touches["landing"], round(s.errors["landing"][0] * 1000, 1)
(1, 1, 33.3)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Final

from referee.events import Event
from referee.observations import Observation

LANDINGS: Final = ("play", "illegal_play", "move_to_space", "stack_equal", "refill")
"""True events whose hand lays a card on the place named `to` (`pile` for a refill) at `t`."""


@dataclass
class ContactScore:
    """Per kind of touch (`landing`, `turn_up`, `slap`): true touches, those found, and the
    found contacts' signed time errors (s, contact minus truth)."""

    touches: dict[str, int] = field(default_factory=dict)
    found: dict[str, int] = field(default_factory=dict)
    errors: dict[str, list[float]] = field(default_factory=dict)

    def add(self, other: "ContactScore") -> None:
        """Adds another game's score to this one."""
        for kind, n in other.touches.items():
            self.touches[kind] = self.touches.get(kind, 0) + n
        for kind, n in other.found.items():
            self.found[kind] = self.found.get(kind, 0) + n
        for kind, values in other.errors.items():
            self.errors.setdefault(kind, []).extend(values)


def true_touches(truth: Iterable[Event]) -> Iterator[tuple[str, str, str, float]]:
    """(kind, side, zone, time) of each touch in a game's true log."""
    for event in truth:
        if event.type in LANDINGS:
            zone = event.get("to") or event.get("pile")
            if zone:
                yield "landing", event["player"], zone, event.t
        elif event.type == "turn_up":
            yield "turn_up", event["player"], event["pile"], event.t
        elif event.type == "slap":
            piles = event.get("piles") or {}
            for side, t in event["contact"].items():
                yield "slap", side, piles.get(side, event.get("pile")), float(t)


def score_contacts(truth: Sequence[Event], observations: Iterable[Observation], *,
                   tolerance_s: float = 0.25) -> ContactScore:
    """How the contacts reported in `observations` meet the true touches of `truth` (one game;
    truth after the last observation is left out)."""
    contacts: dict[tuple[str, str], set[float]] = {}
    last = 0.0
    for obs in observations:
        last = obs.t
        for hand in obs.hands:
            for zone, t in hand.contact.items():
                contacts.setdefault((hand.side, zone), set()).add(round(t, 6))
    result = ContactScore()
    for kind, side, zone, t in true_touches(truth):
        if t > last:
            continue
        result.touches[kind] = result.touches.get(kind, 0) + 1
        near = [c for c in contacts.get((side, zone), ()) if abs(c - t) <= tolerance_s]
        if near:
            best = min(near, key=lambda c: abs(c - t))
            result.found[kind] = result.found.get(kind, 0) + 1
            result.errors.setdefault(kind, []).append(best - t)
    return result


__all__ = ["ContactScore", "LANDINGS", "score_contacts", "true_touches"]
