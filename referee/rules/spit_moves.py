"""The explicit moves of Spit (a player's card motions and what the table does), each with its event.

Every move is a frozen dataclass with `player` (None for a move of the whole table),
`describe()` in a player's words and `event()` giving the `(type, fields)` of its log event
(`referee.events.Event.make(type, t, **fields)`). A card the state cannot know (a face-down card
turned up, a spit card, a card drawn into a hidden hand) is named by the move; `None` leaves it
unknown where the rules allow.

>>> from referee.cards import parse_card as c
>>> m = Play("A", c("7C"), "A3", "L")
>>> m.describe(), m.event()
('A plays 7♣ from A3 onto L', ('play', {'player': 'A', 'card': '7C', 'from': 'A3', 'to': 'L'}))
>>> Spit((("L", c("KD")), ("R", c("2S")))).describe()
'Spit! K♦ onto L, 2♠ onto R'
>>> Slap((("A", "L", 12.30), ("B", "L", 12.34))).event()[1]["margin_ms"]
40.0
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Union

from referee.cards import FACE_DOWN, Card
from referee.events import register_event_type
from referee.rules.spit_options import PLAYER_LETTERS

NEW_EVENT_TYPES: Final[dict[str, tuple[str, ...]]] = {
    "stack_equal": ("player", "card", "from", "to"),
    "refill": ("player", "pile", "card"),
    "hand_play": ("player", "card", "to"),
    "draw": ("player",),
    "reshuffle": ("cards",),
    "choose_pile": ("player", "pile"),
    "layout": ("counts",),
    "deal": ("cards",),
}
"""Event types Spit's variants add to INTERFACES.md's, with their required fields."""

for _name, _required in NEW_EVENT_TYPES.items():
    register_event_type(_name, _required)


def _code(card: Card | None) -> str:
    return FACE_DOWN if card is None else card.code


def _say(card: Card | None) -> str:
    return "a face-down card" if card is None else str(card)


@dataclass(frozen=True, slots=True)
class Play:
    """Play the face-up top `card` of stock pile `source` onto spit pile `to`."""

    player: str
    card: Card
    source: str
    to: str

    def describe(self) -> str:
        return f"{self.player} plays {self.card} from {self.source} onto {self.to}"

    def event(self) -> tuple[str, dict[str, Any]]:
        return "play", {"player": self.player, "card": self.card.code, "from": self.source, "to": self.to}


@dataclass(frozen=True, slots=True)
class TurnUp:
    """Turn the face-down top of stock pile `pile` face up; `card` is the card revealed."""

    player: str
    pile: str
    card: Card | None = None

    def describe(self) -> str:
        shown = "" if self.card is None else f" ({self.card})"
        return f"{self.player} turns up the top of {self.pile}{shown}"

    def event(self) -> tuple[str, dict[str, Any]]:
        return "turn_up", {"player": self.player, "pile": self.pile, "card": _code(self.card)}


@dataclass(frozen=True, slots=True)
class MoveToSpace:
    """Move the face-up top `card` of stock pile `source` into the empty stock space `to`."""

    player: str
    card: Card
    source: str
    to: str

    def describe(self) -> str:
        return f"{self.player} moves {self.card} from {self.source} into the empty space {self.to}"

    def event(self) -> tuple[str, dict[str, Any]]:
        return "move_to_space", {"player": self.player, "card": self.card.code, "from": self.source, "to": self.to}


@dataclass(frozen=True, slots=True)
class StackEqual:
    """Stack equal ranks: move the face-up top `card` of `source` onto own stock pile `to`."""

    player: str
    card: Card
    source: str
    to: str

    def describe(self) -> str:
        return f"{self.player} stacks {self.card} from {self.source} onto {self.to}"

    def event(self) -> tuple[str, dict[str, Any]]:
        return "stack_equal", {"player": self.player, "card": self.card.code, "from": self.source, "to": self.to}


@dataclass(frozen=True, slots=True)
class Refill:
    """Refilled singles: fill the empty stock space `pile` with the next card from the hand."""

    player: str
    pile: str
    card: Card | None = None

    def describe(self) -> str:
        shown = "" if self.card is None else f" with {self.card}"
        return f"{self.player} refills {self.pile}{shown}"

    def event(self) -> tuple[str, dict[str, Any]]:
        return "refill", {"player": self.player, "pile": self.pile, "card": _code(self.card)}


@dataclass(frozen=True, slots=True)
class HandPlay:
    """Five-card hand: play `card` from the hidden hand onto spit pile `to`."""

    player: str
    card: Card
    to: str

    def describe(self) -> str:
        return f"{self.player} plays {self.card} from the hand onto {self.to}"

    def event(self) -> tuple[str, dict[str, Any]]:
        return "hand_play", {"player": self.player, "card": self.card.code, "to": self.to}


@dataclass(frozen=True, slots=True)
class Draw:
    """Five-card hand: draw the top card of the stock into the hand (`card` when known)."""

    player: str
    card: Card | None = None

    def describe(self) -> str:
        return f"{self.player} draws a card"

    def event(self) -> tuple[str, dict[str, Any]]:
        fields: dict[str, Any] = {"player": self.player}
        if self.card is not None:
            fields["card"] = self.card.code
        return "draw", fields


@dataclass(frozen=True, slots=True)
class Spit:
    """Spit!: `cards` pairs each spit pile with the card turned onto it (by the player who started
    that pile, or by the solo spitter; in the five-card hand, from the reserve beside it)."""

    cards: tuple[tuple[str, Card | None], ...]
    player: None = None

    def describe(self) -> str:
        return "Spit! " + ", ".join(f"{_say(card)} onto {pile}" for pile, card in self.cards)

    def event(self) -> tuple[str, dict[str, Any]]:
        return "spit", {"cards": {pile: _code(card) for pile, card in self.cards}}


@dataclass(frozen=True, slots=True)
class Reshuffle:
    """Five-card hand: the reserves ran out; all but the top of each centre pile, shuffled, make
    the new reserves `left` (beside L) and `right` (beside R), next card last."""

    left: tuple[Card | None, ...]
    right: tuple[Card | None, ...]
    player: None = None

    def describe(self) -> str:
        return f"the centre piles are reshuffled into reserves of {len(self.left)} and {len(self.right)} cards"

    def event(self) -> tuple[str, dict[str, Any]]:
        return "reshuffle", {"cards": len(self.left) + len(self.right)}


@dataclass(frozen=True, slots=True)
class Slap:
    """End of a deal: each `(player, pile, contact time in s)`; `underneath` names whose hand is
    underneath when two hands reach one pile in the same instant; `evidence` a frame strip path."""

    touches: tuple[tuple[str, str, float], ...]
    underneath: str | None = None
    evidence: str = ""
    player: None = None

    def describe(self) -> str:
        return ", ".join(f"{p} slaps {pile} at {t:.2f} s" for p, pile, t in self.touches)

    def event(self) -> tuple[str, dict[str, Any]]:
        ordered = sorted(self.touches, key=lambda touch: touch[2])
        first, pile, t0 = ordered[0]
        on_pile = [touch for touch in ordered if touch[1] == pile]
        winner = self.underneath if len(on_pile) > 1 and on_pile[1][2] == t0 and self.underneath else first
        margin = round((on_pile[1][2] - t0) * 1000, 3) if len(on_pile) > 1 else None
        return "slap", {
            "pile": pile,
            "contact": {p: t for p, _, t in self.touches},
            "winner": winner,
            "margin_ms": margin,
            "evidence": self.evidence,
            "piles": {p: s for p, s, _ in self.touches},
        }


@dataclass(frozen=True, slots=True)
class ChoosePile:
    """End of a deal without a slap: `player` takes spit pile `pile` (free choice, first choice
    when both are out of spit cards, or a player out of stock with more than two players)."""

    player: str
    pile: str

    def describe(self) -> str:
        return f"{self.player} takes {self.pile}"

    def event(self) -> tuple[str, dict[str, Any]]:
        return "choose_pile", {"player": self.player, "pile": self.pile}


@dataclass(frozen=True, slots=True)
class Layout:
    """A new deal: `cards[i]` is the i-th player's (A, B, ...) shuffled packet in the order dealt; the first
    cards go into the stock piles row by row, the rest are that player's spit cards (next first)."""

    cards: tuple[tuple[Card | None, ...], ...]
    player: None = None

    def describe(self) -> str:
        return "new layout: " + ", ".join(f"{len(packet)} cards" for packet in self.cards)

    def event(self) -> tuple[str, dict[str, Any]]:
        return "layout", {"counts": {PLAYER_LETTERS[i]: len(packet) for i, packet in enumerate(self.cards)}}


@dataclass(frozen=True, slots=True)
class Deal:
    """Five-card hand: a new deal of the whole shuffled deck `cards`: A's stock (its last
    `hand_size` cards are A's hand), B's stock, then the left and the right reserve, each of
    `reserve_size` cards and a starter card last (every pile listed bottom to top)."""

    cards: tuple[Card, ...]
    player: None = None

    def describe(self) -> str:
        return f"new deal of {len(self.cards)} cards"

    def event(self) -> tuple[str, dict[str, Any]]:
        return "deal", {"cards": len(self.cards)}


SpitMove = Union[
    Play, TurnUp, MoveToSpace, StackEqual, Refill, HandPlay, Draw, Spit, Reshuffle, Slap, ChoosePile, Layout, Deal
]
"""Any move of Spit."""

TABLE_MOVES: Final = (Spit, Reshuffle, Slap, Layout, Deal)
"""Moves of the whole table (their `player` is None)."""
