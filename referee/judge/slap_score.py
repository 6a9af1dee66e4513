"""Slap verdicts read from the hands' first contacts, scored against the true slaps: which hand first touched which spit pile after the deal's end, the verdict that follows, and each contact's time error.

The verdict is the referee's (`referee.judge.spit.deals`): each player's first contact with a
spit pile after the touch that ended the deal is their slap; on one pile the earlier hand wins,
and two contacts less than half a frame interval apart are too close to time: the hand seen
lying under the other takes the pile, else (too close to call) the player who emptied their
stock first; but on one pile, a hand the frames after both contacts saw lying beneath the other
arm takes it (`referee.judge.spit.config.beneath_votes`, `lying_beneath`). A true slap is decidable when its hands reached
different piles or one pile at least a frame interval apart (as `referee.judge.score` counts it).

>>> from referee.events import Event
>>> truth = Event.make("slap", 2.1, pile="L", contact={"A": 2.0, "B": 2.1}, winner="A", margin_ms=100.0, evidence="",
...                    piles={"A": "L", "B": "L"})
>>> seen = [("A", "L", 1.0), ("A", "L", 2.01), ("B", "L", 2.12)]
>>> result = score_slap(truth, first_slaps(seen, ("L", "R"), after=1.0), 1 / 30, ender="A")
>>> result.decidable, result.right, result.cause, [round(e, 2) for e in result.errors.values()]
(True, True, None, [0.3, 0.6])
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from referee.events import Event
from referee.judge.spit.config import BENEATH, TOO_CLOSE, UNDERNEATH, lying_beneath, slap_winner

Contact = tuple[str, str, float]
"""A hand's first contact as the vision reported it: (side, zone, time s)."""

MISSED = "hand missed"
WRONG_PILE = "contact on the wrong pile"
WRONG_PILE_SHARED = "contact on the wrong pile (two hands on one pile)"
ORDER = "contacts dated in the wrong order"
CLOSE_CALLED = "too close wrongly called"


@dataclass(frozen=True)
class Verdict:
    """A slap as judged from first contacts: the winner (who took the pile the first hand reached),
    each player's pile, whether it was too close to call, and the margin (ms, one pile only);
    `underneath`: too close to time, the hand seen underneath won; `beneath`: the hand the frames
    after both contacts saw lying beneath the other arm won (`BENEATH`)."""

    winner: str
    piles: Mapping[str, str]
    too_close: bool
    margin_ms: float | None
    underneath: bool = False
    beneath: bool = False


@dataclass(frozen=True)
class SlapResult:
    """One true slap against what the contacts gave: `decidable` (true margin at least a frame, or
    different piles), `right` (the verdict the truth gives), `cause` of a wrong one, the verdict
    (None when a hand was missed), and each player's contact time error in frames (contact minus
    truth; only for contacts on the true pile)."""

    decidable: bool
    right: bool
    cause: str | None
    verdict: Verdict | None
    true_margin_ms: float
    errors: dict[str, float] = field(default_factory=dict)


def landing_contact(contacts: Iterable[Contact], side: str, zone: str, t: float, tolerance_s: float = 0.25) -> float:
    """The time the vision dated the touch of `side` laying a card on `zone` at true time `t` (the
    deal's last card: the referee's deal end), else `t` when no contact lies within `tolerance_s`."""
    near = [c for s, z, c in contacts if s == side and z == zone and abs(c - t) <= tolerance_s]
    return min(near, key=lambda c: abs(c - t)) if near else t


def first_slaps(contacts: Iterable[Contact], piles: Collection[str], after: float) -> dict[str, tuple[str, float]]:
    """Each side's first contact with one of `piles` dated after `after` (the deal's end): its slap."""
    first: dict[str, tuple[str, float]] = {}
    for side, zone, t in contacts:
        if zone in piles and t > after and (side not in first or t < first[side][1]):
            first[side] = (zone, t)
    return first


def verdict(first: Mapping[str, tuple[str, float]], frame_interval: float, ender: str,
            under: Mapping[str, Collection[str]] | None = None, votes: Sequence[Collection[str]] = ()) -> Verdict:
    """The referee's verdict on two players' first slap contacts; `under`: per player, the sides
    whose hands lay over theirs at that contact (`HandSeen.under`); `votes`: on one pile, the
    `beneath_votes` of the frames after both contacts (`referee.judge.spit.config`)."""
    (a, (pile_a, t_a)), (b, (pile_b, t_b)) = sorted(first.items())
    piles = {a: pile_a, b: pile_b}
    margin = round(abs(t_b - t_a) * 1000, 3) if pile_a == pile_b else None
    under = under or {}
    winner, settled = slap_winner(a, pile_a, t_a, under.get(a, ()), b, pile_b, t_b, under.get(b, ()),
                                  frame_interval, ender, lying_beneath(a, b, votes))
    return Verdict(winner, piles, settled == TOO_CLOSE, margin, underneath=settled == UNDERNEATH,
                   beneath=settled == BENEATH)


def score_slap(truth: Event, first: Mapping[str, tuple[str, float]], frame_interval: float, ender: str,
               under: Mapping[str, Collection[str]] | None = None, votes: Sequence[Collection[str]] = ()) -> SlapResult:
    """One true `slap` event against the first contacts found (`first_slaps`); `ender` emptied
    their stock (the fallback's winner); `under` and `votes` as `verdict`'s."""
    contact: Mapping[str, float] = truth["contact"]
    piles: Mapping[str, str] = truth.get("piles") or {p: truth["pile"] for p in contact}
    times = sorted(contact.values())
    shared = len(set(piles.values())) == 1
    margin = (times[-1] - times[0]) * 1000
    decidable = not (shared and margin < frame_interval * 1000 - 1e-6)
    errors = {side: (first[side][1] - t) / frame_interval for side, t in contact.items()
              if side in first and first[side][0] == piles[side]}
    if len(first) < len(contact):
        return SlapResult(decidable, False, MISSED, None, margin, errors)
    judged = verdict(first, frame_interval, ender, under, votes)
    if shared:
        right = dict(judged.piles) == dict(piles) and judged.winner == truth["winner"]
    else:
        right = dict(judged.piles) == dict(piles)
    cause = None
    if not right:
        if dict(judged.piles) != dict(piles):
            cause = WRONG_PILE_SHARED if shared else WRONG_PILE
        elif judged.too_close:
            cause = CLOSE_CALLED
        else:
            cause = ORDER
    return SlapResult(decidable, right, cause, judged, margin, errors)


__all__ = ["CLOSE_CALLED", "Contact", "MISSED", "ORDER", "SlapResult", "Verdict", "WRONG_PILE", "WRONG_PILE_SHARED",
           "first_slaps", "landing_contact", "score_slap", "verdict"]
