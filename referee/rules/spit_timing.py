"""Simultaneous play in Spit: moves applied in touch-time order, same-pile races, one-hand checks, and the events a transition makes.

A card counts the moment it touches its pile: moves are judged in the order of their touch
times, so a second card on the same spit pile is judged against the card that landed first.

>>> from referee.cards import parse_card as c
>>> from referee.rules.spit_options import SpitRules
>>> from referee.rules.spit_moves import Play
>>> from referee.rules.spit_state import SpitState
>>> s = SpitState.position(SpitRules(), {"A": ["8C", "QH"], "B": ["8D", "6H"]}, piles={"L": "7S", "R": "KD"})
>>> result = resolve_simultaneous(s, [(3.04, Play("B", c("8D"), "B1", "L")), (3.00, Play("A", c("8C"), "A1", "L"))])
>>> [(o.move.player, o.legal, o.reason) for o in result.outcomes]
[('A', True, None), ('B', False, '8♦ is not next to 8♣')]
>>> result.outcomes[1].race
Race(pile='L', first='A', second='B', margin_ms=40.0)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from referee.rules.spit_moves import HandPlay, Play, Spit, SpitMove
from referee.rules.spit_state import SpitState


@dataclass(frozen=True)
class Race:
    """Two cards of different players landed on one spit pile within the race window."""

    pile: str
    first: str
    second: str
    margin_ms: float

    def event(self) -> tuple[str, dict[str, Any]]:
        return "race", {"pile": self.pile, "first": self.first, "second": self.second, "margin_ms": self.margin_ms}


@dataclass(frozen=True)
class Outcome:
    """What became of one timed move: `reason` is None when it was legal (and applied); `race`
    is set when it landed on a spit pile shortly after another player's card."""

    t: float
    move: SpitMove
    reason: str | None
    race: Race | None = None

    @property
    def legal(self) -> bool:
        return self.reason is None


@dataclass(frozen=True)
class Resolution:
    """The state after the legal moves, and every move's outcome in touch-time order."""

    state: SpitState
    outcomes: tuple[Outcome, ...]


def resolve_simultaneous(
    state: SpitState,
    timed_moves: Iterable[tuple[float, SpitMove]],
    *,
    race_window_s: float = 0.5,
    motion_s: float = 0.15,
) -> Resolution:
    """Applies `(touch time in s, move)` pairs in touch-time order (ties keep the given order).

    An illegal move changes nothing and gets its reason. Two cards of different players landing
    on one spit pile less than `race_window_s` apart make a race, reported on the second card.
    A player's moves closer together than `motion_s` need more than one hand: with one hand
    (`rules.hands`) the second is refused, with two hands the third."""
    ordered = sorted(timed_moves, key=lambda item: item[0])
    hands = state.rules.hands
    landed: dict[str, tuple[float, str]] = {}
    recent: dict[str, list[float]] = {}
    outcomes = []
    for t, move in ordered:
        player = move.player
        reason = None
        if player is not None:
            busy = [u for u in recent.get(player, []) if t - u < motion_s]
            if len(busy) >= hands:
                reason = ("one hand, one card at a time" if hands == 1
                          else "two hands at most, one card in each")
            recent[player] = busy + [t]
        race = None
        to = move.to if isinstance(move, (Play, HandPlay)) else None
        if to is not None and to in landed:
            t0, first = landed[to]
            if first != player and t - t0 < race_window_s:
                race = Race(to, first, str(player), round((t - t0) * 1000, 3))
        if reason is None:
            reason = state.check(move)
            if reason is None:
                state = state.apply(move)
                if to is not None:
                    landed[to] = (t, str(player))
        outcomes.append(Outcome(t, move, reason, race))
    return Resolution(state, tuple(outcomes))


def transition_events(before: SpitState, move: SpitMove, after: SpitState) -> list[tuple[str, dict[str, Any]]]:
    """The events of applying `move` to `before` giving `after`: the move's own event, then
    `spit_call` when a Spit is due (play has just become stuck, a deal is laid out, or a Spit
    left play stuck), `deal_end` when the deal has just been settled
    (its `player` emptied their stock first, or chose first; `reason` says which) and `game_end`.

    >>> from referee.rules.spit_options import SpitRules
    >>> import random
    >>> s = SpitRules().new_game(random.Random(3))
    >>> spit = next(s.legal_moves())
    >>> [kind for kind, _ in transition_events(s, spit, s.apply(spit))]
    ['spit']
    """
    events = [move.event()]
    if after.is_stalemate() and (isinstance(move, Spit) or not before.is_stalemate()):
        events.append(("spit_call", {}))
    if after.phase in ("layout", "over") and before.phase not in ("layout", "over"):
        ender = after.deal_ender()
        if ender is not None:
            player, reason = ender
            fields: dict[str, Any] = {"player": player, "counts": after.counts(), "reason": reason}
            if after.rules.five_card_hand:
                fields["scores"] = after.scores
            events.append(("deal_end", fields))
    if after.is_over() and not before.is_over():
        events.append(("game_end", {"winner": after.winner()}))
    return events
