"""Full-deck Spit (seed 001): each player draws from their own deck and plays or lays out the card.

Rules (RULES.md): each player has their own full 52-card deck, held face down. Both turn one
card onto the table to start the two play piles. A player draws the top card of their deck and
either plays it onto a play pile (adjacent rank) or puts it into one of at most four layout
places, one card each; layout cards are played onto the piles too. A player who empties deck
and layout places first wins; both at once: first card on the table wins (`resolve`). Both
stuck: both turn a new card from their decks onto the play piles. Both stuck with empty decks:
fewer cards in layout places wins; equal is a tie.

Choices the rules leave open (besides those of `referee.rules.owndeck`):

- One hand moves cards: a drawn card must be played or put into an empty layout place before
  the player draws again or plays a layout card.
- A drawn card that could be played may still go into a layout place ("either ... or"); the
  option `must_play_drawn=True` makes playing it compulsory.
- A player may draw with a full layout; a drawn card that then fits nowhere stays in hand until
  a pile changes, and at the next spit it is the card that player turns (it is their next card).
- "Stuck" means no legal move: a player with an empty hand and cards in the deck can always
  draw, so a stalemate comes when each player holds a card that fits nowhere or has no deck.

>>> from referee.cards import full_deck, parse_card
>>> def deck(*top):  # one whole deck with these cards on top
...     first = [parse_card(c) for c in top]
...     return first + [c for c in full_deck() if c not in first]
>>> state = FullDeckRules().deal(deck("KD", "6D", "9S"), deck("5H", "QC"))
>>> state.is_stalemate()  # before the opening spit
True
>>> state = state.apply(Spit((("A", "L", "KD"), ("B", "R", "5H"))))
>>> state = state.apply(Draw("A", "6D"))
>>> state.check(Play("A", "6D", HAND, "L"))
'6♦ is not next to K♦ on L'
>>> state = state.apply(Play("A", "6D", HAND, "R"))
>>> state.check(Place("A", "9S", "A1"))
'draw a card before placing one'
>>> state = state.apply(Draw("A", "9S")).apply(Place("A", "9S", "A1"))
>>> print(state)
L: K♦ (1)  R: 6♦ (2)
A: deck 49, layout 9♠ · · ·
B: deck 51, layout · · · ·
>>> Play("A", "6D", HAND, "R").event()
('play_drawn', {'player': 'A', 'card': '6D', 'to': 'R'})

A camera that sees the table but not the decks builds the state with `from_table`; the move
that reveals a card carries it:

>>> seen = FullDeckRules().from_table(decks={"A": 3, "B": 0}, tops={"L": "7C", "R": "2D"},
...                                    layout={"A1": "9S", "B1": "KH"}, held={"B": "5S"})
>>> seen.can_move("A"), seen.can_move("B"), seen.unknown()
(True, True, 99)
>>> seen.apply(Draw("A", "9S"))
Traceback (most recent call last):
...
referee.errors.IllegalMove: A's 9♠ is already out of the deck
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
    HAND,
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
    "HAND", "Draw", "EndGame", "FullDeckRules", "FullDeckState", "Outcome", "Place", "Play", "Race",
    "Spit", "resolve",
]


@dataclass(frozen=True)
class Draw(_CardField):
    """`player` draws `card`, the top card of their deck, into their playing hand."""

    player: str
    card: Card

    def describe(self) -> str:
        return f"{self.player} draws {self.card}"

    def event(self) -> tuple[str, dict[str, Any]]:
        return "draw", {"player": self.player, "card": self.card.code}


@dataclass(frozen=True)
class Place(_CardField):
    """`player` puts the drawn `card` into their empty layout place `place`."""

    player: str
    card: Card
    place: str

    def describe(self) -> str:
        return f"{self.player} puts the drawn {self.card} into {self.place}"

    def event(self) -> tuple[str, dict[str, Any]]:
        return "place_drawn", {"player": self.player, "card": self.card.code, "to": self.place}


@dataclass(frozen=True)
class FullDeckState(OwnDeckState):
    """A position of full-deck Spit; `hands[i]` is the card player i has drawn (None if none)."""

    hands: tuple[Card | None, ...] = (None, None)

    game: ClassVar[str] = "full-deck Spit"

    def _held(self, i: int) -> Card | None:
        return self.hands[i]

    def _without_next(self, i: int) -> FullDeckState:
        if self.hands[i] is not None:
            return replace(self, hands=_put(self.hands, i, None))
        return super()._without_next(i)

    def _fits(self, card: Card) -> bool:
        return self._reach() >> card.rank & 1 == 1

    def _can_move(self, i: int) -> bool:
        held = self.hands[i]
        if held is not None:
            return None in self.layouts[i] or self._fits(held)
        return bool(self.decks[i]) or self._layout_reaches(i)

    def _player_moves(self, i: int) -> Iterator[Move]:
        player = PLAYERS[i]
        held = self.hands[i]
        if held is not None:
            playable = False
            for pile in PILES:
                if is_adjacent(held, self.top(pile)):  # type: ignore[arg-type]
                    playable = True
                    yield Play(player, held, HAND, pile)
            if not (playable and self.rules.must_play_drawn):
                for k, card in enumerate(self.layouts[i]):
                    if card is None:
                        yield Place(player, held, f"{player}{k + 1}")
            return
        for k, card in enumerate(self.layouts[i]):
            if card is not None:
                for pile in PILES:
                    if is_adjacent(card, self.top(pile)):  # type: ignore[arg-type]
                        yield Play(player, card, f"{player}{k + 1}", pile)
        if self.decks[i]:
            for card in self._next_options(i):
                yield Draw(player, card)

    def _layout_play_block(self, i: int) -> str | None:
        held = self.hands[i]
        return None if held is None else f"play or place the {held} you drew first"

    def _check_own(self, move: Any, i: int) -> str | None:
        held = self.hands[i]
        if isinstance(move, Draw):
            if held is not None:
                return f"play or place the {held} you drew before drawing again"
            if not self.decks[i]:
                return f"{move.player}'s deck is empty"
            return self._reveal_reason(i, move.card)
        if isinstance(move, (Play, Place)):
            if held is None:
                return f"draw a card before {'playing' if isinstance(move, Play) else 'placing'} one"
            if held is not move.card:
                return f"{move.player} drew {held}, not {move.card}"
            if isinstance(move, Play):
                return self._check_target(move)
            slot = self._slot(i, move.place)
            if slot is None:
                return self._no_slot(i, move.place)
            there = self.layouts[i][slot]
            if there is not None:
                return f"{move.place} already holds {there}"
            if self.rules.must_play_drawn and self._fits(held):
                return f"{held} can be played onto a play pile: play it"
            return None
        return super()._check_own(move, i)

    def _after_own(self, move: Any, i: int) -> FullDeckState:
        if isinstance(move, Draw):
            decks = _put(self.decks, i, self.decks[i][1:])
            return replace(self, decks=decks, hands=_put(self.hands, i, move.card))
        state = replace(self, hands=_put(self.hands, i, None))
        if isinstance(move, Play):
            return state._onto(move)
        slot = self._slot(i, move.place)
        return replace(state, layouts=_put(self.layouts, i, _put(self.layouts[i], slot, move.card)))


@dataclass(frozen=True)
class FullDeckRules(OwnDeckRules):
    """Full-deck Spit: `places` layout places each (4), and whether a drawn card that can be
    played must be played (`must_play_drawn`, off: RULES.md lets the player choose)."""

    name: str = "full-deck"
    must_play_drawn: bool = False

    state_class: ClassVar[type[OwnDeckState]] = FullDeckState

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.must_play_drawn, bool):
            raise ContradictoryOptions(
                f"{self.name}: must_play_drawn is true or false, not {self.must_play_drawn!r}"
            )

    def from_table(
        self,
        *,
        decks: Mapping[str, int],
        tops: Mapping[str, Card | str] | None = None,
        layout: Mapping[str, Card | str | None] | None = None,
        held: Mapping[str, Card | str] | None = None,
        pile_sizes: Mapping[str, int] | None = None,
    ) -> FullDeckState:
        """The state a camera sees: deck sizes (cards unknown), the play piles' top cards, the
        layout places, the cards players hold drawn; the rest of the 104 cards lie buried in the
        play piles (split as `pile_sizes` says, else evenly)."""
        state: FullDeckState = self._from_table(decks, layout or {}, tops or {}, pile_sizes, held or {})
        return state


register("full-deck", FullDeckRules)
