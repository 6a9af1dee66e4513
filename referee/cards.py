"""Card codes of INTERFACES.md (`AS`, `10H`, `back`, `JK`), decks, spit-pile adjacency and colours.

>>> c = parse_card("10H")
>>> c.rank, c.suit, c.code, str(c)
(10, 'H', '10H', '10♥')
>>> is_adjacent(parse_card("AS"), parse_card("KD")), is_adjacent(parse_card("AS"), parse_card("2C"))
(True, True)
>>> is_adjacent(parse_card("7C"), parse_card("7D"))
False
"""

from __future__ import annotations

from typing import Final

from referee.errors import BadCardCode

RANKS: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: Final = ("S", "H", "D", "C")
SUIT_GLYPHS: Final = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RED_SUITS: Final = frozenset({"H", "D"})
FACE_DOWN: Final = "back"
"""The code for a face-down card: a camera sees a card but not its face."""
JOKER_CODE: Final = "JK"


class Card:
    """One playing card; instances are interned, so `parse_card("AS") is parse_card("AS")`.

    `rank` is 1 (ace) to 13 (king), 0 for a joker; `suit` is one of `SUITS`, "" for a joker.
    `index` is a dense number 0..52 (52 is the joker), handy for tables and arrays.
    """

    __slots__ = ("rank", "suit", "code", "index", "red")

    rank: int
    suit: str
    code: str
    index: int
    red: bool

    def __new__(cls, rank: int, suit: str) -> "Card":
        key = (rank, suit)
        try:
            return _INTERNED[key]
        except KeyError:
            pass
        if rank == 0 and suit == "":
            code, index = JOKER_CODE, 52
        elif 1 <= rank <= 13 and suit in SUITS:
            code, index = RANKS[rank - 1] + suit, SUITS.index(suit) * 13 + rank - 1
        else:
            raise BadCardCode(f"no card has rank {rank!r} and suit {suit!r}")
        card = object.__new__(cls)
        object.__setattr__(card, "rank", rank)
        object.__setattr__(card, "suit", suit)
        object.__setattr__(card, "code", code)
        object.__setattr__(card, "index", index)
        object.__setattr__(card, "red", suit in RED_SUITS)
        _INTERNED[key] = card
        return card

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("cards are immutable")

    def __reduce__(self) -> tuple[object, tuple[int, str]]:
        return (Card, (self.rank, self.suit))

    def __repr__(self) -> str:
        return f"Card({self.code!r})"

    def __str__(self) -> str:
        """The card as a player reads it: `7♣`, `10♥`, `joker`."""
        return "joker" if self.rank == 0 else RANKS[self.rank - 1] + SUIT_GLYPHS[self.suit]

    def __lt__(self, other: "Card") -> bool:
        return self.index < other.index

    @property
    def is_joker(self) -> bool:
        return self.rank == 0

    @property
    def rank_name(self) -> str:
        return "joker" if self.rank == 0 else RANKS[self.rank - 1]


_INTERNED: dict[tuple[int, str], Card] = {}


def parse_card(code: str) -> Card:
    """The card for a code such as `AS`, `10H`, `qd` or `JK`; raises `BadCardCode` otherwise.

    `back` is not a card (it says a card is face down): use `parse_code` where it may occur.
    """
    if not isinstance(code, str):
        raise BadCardCode(f"a card code must be text, not {type(code).__name__}")
    text = code.strip().upper()
    if text == JOKER_CODE:
        return Card(0, "")
    if text == FACE_DOWN.upper():
        raise BadCardCode("'back' is a face-down card, not a card that can be named here")
    rank_text, suit = text[:-1], text[-1:]
    if rank_text == "1":
        rank_text = "A"
    if rank_text == "T":
        rank_text = "10"
    if suit not in SUITS or rank_text not in RANKS:
        raise BadCardCode(
            f"{code!r} is not a card code: write rank then suit, e.g. AS, 10H, QD (or JK, back)"
        )
    return Card(RANKS.index(rank_text) + 1, suit)


def parse_code(code: str) -> Card | None:
    """A card for a card code, or None for `back` (a face-down card)."""
    if isinstance(code, str) and code.strip().lower() == FACE_DOWN:
        return None
    return parse_card(code)


def is_adjacent(a: Card, b: Card) -> bool:
    """One rank up or down, suits ignored, turning the corner K-A-2; equal ranks never are."""
    return _ADJACENT[a.rank][b.rank]


def rank_adjacent(a: int, b: int) -> bool:
    """`is_adjacent` on ranks (1..13)."""
    return _ADJACENT[a][b]


def same_colour(a: Card, b: Card) -> bool:
    return a.red == b.red


def full_deck() -> tuple[Card, ...]:
    """The 52 cards in a fixed order (spades, hearts, diamonds, clubs; ace to king)."""
    return tuple(Card(rank, suit) for suit in SUITS for rank in range(1, 14))


def card_from_index(index: int) -> Card:
    """The inverse of `Card.index`."""
    if index == 52:
        return Card(0, "")
    if not 0 <= index < 52:
        raise BadCardCode(f"no card has index {index}")
    return Card(index % 13 + 1, SUITS[index // 13])


# _ADJACENT[a][b]: rank a is next to rank b (index 0 is the joker, adjacent to nothing)
_ADJACENT: tuple[tuple[bool, ...], ...] = tuple(
    tuple(a > 0 and b > 0 and (a - b) % 13 in (1, 12) for b in range(14)) for a in range(14)
)

ALL_CARDS: Final = full_deck()
JOKER: Final = Card(0, "")
