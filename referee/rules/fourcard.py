"""Four-card layout Spit (seed 003): play a row of four face-up cards, refilling each gap from the deck.

Rules (RULES.md): each player has their own deck and lays out their top four cards face up in a
row; the deck stays in hand. Layout cards are played to the two centre piles (adjacent rank,
ace high or low) and each gap is refilled at once from the deck; at most four layout cards.
When both play on the same pile, the first to arrive keeps the play and the other takes their
card back (`resolve`). All stuck: "ready, spit" and each turns a new starter onto the centre
piles. A player whose deck is empty plays on from the layout alone and cannot spit. Going out
wins; if both decks are empty and all are stuck, the player with fewer cards left wins.

Choices the rules leave open (besides those of `referee.rules.owndeck`):

- The layout is dealt from the top of the deck, then the opening spit turns the next card.
- Refilling is a move of its own (`Refill`, carrying the card the camera sees), and "at once"
  means before that player plays another card; `refill_at_once=False` follows the Swedish
  page's "may be replaced" and lets gaps wait.
- Equal counts when all are stuck with empty decks are a tie, as in full-deck Spit.

>>> from referee.cards import full_deck, parse_card
>>> def deck(*top):  # one whole deck with these cards on top
...     first = [parse_card(c) for c in top]
...     return first + [c for c in full_deck() if c not in first]
>>> state = FourCardRules().deal(deck("9S", "5H", "KD", "2C", "8D", "QH"),
...                             deck("3C", "3D", "3H", "3S", "10C"))
>>> print(state)
L: - (0)  R: - (0)
A: deck 48, layout 9♠ 5♥ K♦ 2♣
B: deck 48, layout 3♣ 3♦ 3♥ 3♠
>>> state = state.apply(next(state.legal_moves()))  # the opening spit
>>> state.top("L"), state.top("R")
(Card('8D'), Card('10C'))
>>> state = state.apply(Play("A", "9S", "A1", "L"))
>>> state.check(Play("A", "5H", "A2", "R"))
'fill the gap at A1 from your deck before playing another card'
>>> state.apply(Refill("A", "QH", "A1")).layout("A")["A1"]
Card('QH')
>>> Refill("A", "QH", "A1").event()
('refill', {'player': 'A', 'pile': 'A1', 'card': 'QH'})
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from referee.cards import Card, is_adjacent
from referee.errors import ContradictoryOptions
from referee.rules import register
from referee.rules.base import Move
from referee.rules.owndeck import (
    PILES,
    PLAYERS,
    EndGame,
    OwnDeckRules,
    OwnDeckState,
    Outcome,
    Play,
    Race,
    Spit,
    _CardField,
    _put,
    resolve,
)

__all__ = [
    "EndGame", "FourCardRules", "FourCardState", "Outcome", "Play", "Race", "Refill", "Spit", "resolve",
]


@dataclass(frozen=True)
class Refill(_CardField):
    """`player` fills the gap at layout place `place` with `card`, the top card of their deck."""

    player: str
    card: Card
    place: str

    def describe(self) -> str:
        return f"{self.player} fills {self.place} with {self.card} from the deck"

    def event(self) -> tuple[str, dict[str, Any]]:
        return "refill", {"player": self.player, "pile": self.place, "card": self.card.code}


@dataclass(frozen=True)
class FourCardState(OwnDeckState):
    """A position of four-card layout Spit."""

    game: ClassVar[str] = "four-card layout Spit"

    @classmethod
    def _dealt(cls, rules: Any, decks: tuple[tuple[Card, ...], ...]) -> FourCardState:
        n = rules.places
        return cls(rules, tuple(d[n:] for d in decks), tuple(d[:n] for d in decks))

    def _gap(self, i: int) -> int | None:
        """The first empty layout place of player i that their deck can refill, if any."""
        if not self.decks[i] or None not in self.layouts[i]:
            return None
        return self.layouts[i].index(None)

    def _can_move(self, i: int) -> bool:
        return self._gap(i) is not None or self._layout_reaches(i)

    def _player_moves(self, i: int) -> Iterator[Move]:
        player = PLAYERS[i]
        if self._gap(i) is not None:
            options = self._next_options(i)
            for k, there in enumerate(self.layouts[i]):
                if there is None:
                    for card in options:
                        yield Refill(player, card, f"{player}{k + 1}")
            if self.rules.refill_at_once:
                return
        for k, card in enumerate(self.layouts[i]):
            if card is not None:
                for pile in PILES:
                    if is_adjacent(card, self.top(pile)):  # type: ignore[arg-type]
                        yield Play(player, card, f"{player}{k + 1}", pile)

    def _layout_play_block(self, i: int) -> str | None:
        gap = self._gap(i)
        if gap is None or not self.rules.refill_at_once:
            return None
        return f"fill the gap at {PLAYERS[i]}{gap + 1} from your deck before playing another card"

    def _check_own(self, move: Any, i: int) -> str | None:
        if isinstance(move, Refill):
            slot = self._slot(i, move.place)
            if slot is None:
                return self._no_slot(i, move.place)
            there = self.layouts[i][slot]
            if there is not None:
                return f"{move.place} already holds {there}"
            if not self.decks[i]:
                return f"{move.player}'s deck is empty: play on from the layout alone"
            return self._reveal_reason(i, move.card)
        if isinstance(move, Play):
            return f"in {self.game} cards are played from the layout, not from the hand"
        return super()._check_own(move, i)

    def _after_own(self, move: Any, i: int) -> FourCardState:
        slot = self._slot(i, move.place)
        layouts = _put(self.layouts, i, _put(self.layouts[i], slot, move.card))
        return replace(self, decks=_put(self.decks, i, self.decks[i][1:]), layouts=layouts)


@dataclass(frozen=True)
class FourCardRules(OwnDeckRules):
    """Four-card layout Spit: `places` layout cards each (4), and whether a gap must be refilled
    before the player plays another card (`refill_at_once`, on: RULES.md's "at once")."""

    name: str = "four-card"
    refill_at_once: bool = True

    state_class: ClassVar[type[OwnDeckState]] = FourCardState

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.refill_at_once, bool):
            raise ContradictoryOptions(
                f"{self.name}: refill_at_once is true or false, not {self.refill_at_once!r}"
            )

    def from_table(
        self,
        *,
        decks: Mapping[str, int],
        tops: Mapping[str, Card | str] | None = None,
        layout: Mapping[str, Card | str | None] | None = None,
        pile_sizes: Mapping[str, int] | None = None,
    ) -> FourCardState:
        """The state a camera sees: deck sizes (cards unknown), the play piles' top cards and the
        layout places; the rest of the 104 cards lie buried in the play piles (split as
        `pile_sizes` says, else evenly)."""
        state: FourCardState = self._from_table(decks, layout or {}, tops or {}, pile_sizes, {})
        return state


register("four-card", FourCardRules)
