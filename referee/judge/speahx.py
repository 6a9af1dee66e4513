"""Speahx's pile referee: the camera watches the single play pile `P` and checks every card laid on it with `judge_lay`.

What a camera can and cannot know (docs/observations.md says more):

- It sees the top card of `P` and the hands over it: each new top is a lay by the side whose
  hand touched `P` last; it is judged by `referee.rules.speahx_judge.judge_lay` against the
  pile as seen so far (top first).
- Several cards of one rank laid together show as their top card only: the lay is judged on
  that card. A four of a kind completed by such a lay shows as the pile being cleared right
  after a card of that rank: it is called a burn by four of a kind, not a pick-up.
- The suit named with a 2 is spoken, not seen: the referee gives the benefit of the doubt (the
  next card is taken to follow the named suit) and marks that call `"certain": false`.
- A pile cleared after a ten or a completed four of a kind is the burn; cleared otherwise, it
  was picked up by the side whose hand took it; cleared after a joker, it was given to them.
- Hands, chance cards and face-down table cards are not watched: only what lands on `P`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from referee.cards import Card, parse_card
from referee.events import Event
from referee.observations import CARD_CODES, EMPTY
from referee.rules.speahx_judge import TWO, Effect, judge_lay
from referee.tracker import Snapshot, Touch

PILE = "P"


def is_speahx(rules: Any) -> bool:
    """`rules` is a Speahx rule set (watched on its play pile only)."""
    return type(rules).__module__ == "referee.rules.speahx"


class SpeahxReferee:
    """Referees the play pile `P` of a Speahx game from tracker snapshots (`update`)."""

    def __init__(self, rules: Any, on_event: Callable[[Event], None] | None = None) -> None:
        self.rules = rules
        self.on_event = on_event
        self.frame_interval = 1 / 30  # the stream's time resolution (set by `Judge`)
        self.pile: list[Card] = []
        self._last: tuple[str, Card, Effect] | None = None
        self._flagged: str | None = None
        self._touches: list[Touch] = []
        self._now = (0.0, 0)
        self._out: list[Event] = []

    def finish(self) -> list[Event]:
        """The stream has ended: nothing waits for more frames here (each card is judged as it settles)."""
        return []

    def update(self, snap: Snapshot) -> list[Event]:
        """Take one frame's snapshot; the calls it makes."""
        self._now = (snap.t, snap.frame)
        self._out = []
        for touch in snap.touches:
            if touch.zone == PILE and touch.contact:
                self._touches = self._touches[-15:] + [touch]
        for change in snap.changes:
            if change.zone == PILE:
                self._changed(change.after, (change.seen_t, change.seen_frame))
        return self._out

    def _emit(self, kind: str, when: tuple[float, int], **fields: Any) -> None:
        event = Event.make(kind, round(when[0], 6), **fields, frame=when[1], called_at=round(self._now[0], 6))
        self._out.append(event)
        if self.on_event is not None:
            self.on_event(event)

    def _touch(self, seen: tuple[float, int]) -> tuple[str, tuple[float, int]]:
        """The side of the hand that touched `P` last before `seen`, and when ("A" and `seen` if none)."""
        for touch in reversed(self._touches):
            if touch.t <= seen[0]:
                return touch.side, (touch.t, touch.frame)
        return "A", seen

    def _changed(self, seen: str, when: tuple[float, int]) -> None:
        top = self.pile[0] if self.pile else None
        if seen == EMPTY:
            self._flagged = None
            if self.pile:
                self._cleared(when)
            return
        if seen not in CARD_CODES or (top is not None and seen == top.code) or seen == self._flagged:
            if top is not None and seen == top.code:
                self._flagged = None
            return
        card = parse_card(seen)
        player, touched = self._touch(when)
        certain = True
        named = None
        if top is not None and top.rank == TWO:
            named, certain = card.suit, False
        new_suit = card.suit if card.rank == TWO else None
        verdict = judge_lay(tuple(self.pile), (card,), named, new_suit=new_suit)
        if not verdict.legal:
            self._flagged = seen
            self._emit("illegal_play", touched, player=player, card=seen, to=PILE, reason=str(verdict.reason),
                       certain=certain)
            return
        self._emit("play", touched, player=player, card=seen, to=PILE, cards=[seen], certain=certain,
                   **{"from": "hand"})
        effect = verdict.effect or Effect.NEXT
        self._last = (player, card, effect)
        if effect in (Effect.BURN_TEN, Effect.BURN_FOUR, Effect.BURN_PART):
            by = "ten" if effect is Effect.BURN_TEN else "four of a kind"
            self._emit("burn", touched, player=player, pile=PILE, by=by, count=len(verdict.discarded))
        self.pile = [card, *verdict.given] if effect is Effect.GIVE else list(verdict.pile)

    def _cleared(self, when: tuple[float, int]) -> None:
        """`P` was seen empty: a burn (already called), a four of a kind completed by cards
        laid together, a pile given away after a joker, or a pick-up."""
        side, touched = self._touch(when)
        last = self._last
        count = len(self.pile)
        self.pile = []
        self._last = None
        if last is None:
            self._emit("pick_up", touched, player=side, pile=PILE, count=count)
            return
        player, card, effect = last
        if effect in (Effect.BURN_TEN, Effect.BURN_FOUR, Effect.BURN_PART):
            return
        if effect is Effect.GIVE:
            if side != player:
                self._emit("give_pile", touched, player=player, receiver=side, count=count - 1)
            return
        if side == player and not card.is_joker:
            self._emit("burn", touched, player=player, pile=PILE, by="four of a kind", count=count,
                       certain=False)
            return
        self._emit("pick_up", touched, player=side, pile=PILE, count=count)
