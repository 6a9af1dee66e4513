"""Speahx's pile judge: is a lay on the play pile legal, and what does it do, from the pile alone.

The camera sees the play pile `P` but not the hands, so the referee judges every lay from what is
on the pile (top card first, as far as it is known), the suit named with a 2 on top, and the cards
just laid (in the order laid, the last one ends on top). The full game engine
(`referee.rules.speahx`) calls the same `judge_lay`, so the rules live in one place.

>>> from referee.rules.speahx_judge import judge_lay, parse_cards
>>> print(judge_lay(parse_cards("JD 5D"), parse_cards("7C")).reason)
7♣ matches neither the suit nor the rank of J♦
>>> v = judge_lay(parse_cards("7H 9H"), parse_cards("7S 7C 7D"))
>>> v.effect.value, v.again, v.pile
('burn by four of a kind', True, ())
>>> v = judge_lay(parse_cards("3S 3H 3D 5D"), parse_cards("3C 3H"))
>>> v.effect.value, v.again, [c.code for c in v.pile], [c.code for c in v.discarded]
('four of a kind burnt, the rest stays', False, ['3H'], ['3C', '3S', '3H', '3D', '5D'])
>>> v = judge_lay(parse_cards("QS"), parse_cards("2H"), new_suit="C")
>>> v.named_suit, judge_lay(v.pile, parse_cards("9H"), named_suit=v.named_suit).reason
('C', '9♥ is not a club, the suit named with the 2')
>>> v = judge_lay(parse_cards("QS 4S"), parse_cards("JK"))
>>> v.effect.value, [c.code for c in v.given], [c.code for c in v.discarded]
('pile given away', ['QS', '4S'], ['JK'])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from referee.cards import SUIT_GLYPHS, SUITS, Card, parse_card

SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
_ONE_SUIT = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}
TWO, TEN, JACK = 2, 10, 11


class Effect(Enum):
    """What a legal lay does to the pile and the turn."""

    NEXT = "next player"
    BURN_TEN = "burn by ten"
    BURN_FOUR = "burn by four of a kind"
    BURN_PART = "four of a kind burnt, the rest stays"
    GIVE = "pile given away"


@dataclass(frozen=True)
class Verdict:
    """The judge's answer. `reason` is None for a legal lay, else the broken rule in a player's words.

    For a legal lay: `effect`; `pile`, the pile after it (top first, as far as known); `named_suit`,
    the suit the next card must follow (a 2 on top); `discarded`, the cards that leave the game
    (burnt pile and laid cards, or the joker / Terminator jacks); `given`, the pile handed to the
    chosen player; unseen cards under the pile go along with `discarded` or `given`. `certain` is
    False when unseen cards could change the outcome (the judge then assumes they do not continue
    the run of equal ranks on top)."""

    reason: str | None
    effect: Effect | None = None
    pile: tuple[Card, ...] = ()
    named_suit: str | None = None
    discarded: tuple[Card, ...] = ()
    given: tuple[Card, ...] = ()
    certain: bool = True

    @property
    def legal(self) -> bool:
        return self.reason is None

    @property
    def again(self) -> bool:
        """The same player plays again (a burn by a ten or by exactly four of a kind)."""
        return self.effect in (Effect.BURN_TEN, Effect.BURN_FOUR)


def parse_cards(text: str) -> tuple[Card, ...]:
    """Cards from codes separated by spaces, e.g. `"7C 7D JK"`."""
    return tuple(parse_card(code) for code in text.split())


def cards_text(cards: Sequence[Card]) -> str:
    """Cards as a player reads them: `7♣ 7♦`."""
    return " ".join(str(card) for card in cards)


def mismatch(top: Card | None, named_suit: str | None, card: Card) -> str | None:
    """Why `card` may not lead onto `top` (with `named_suit` if a 2 is on top); None if it may.

    Anything starts an empty pile; 2s, 10s and jokers go on anything.
    """
    if top is None or card.rank in (0, TWO, TEN):
        return None
    if top.rank == TWO and named_suit is not None:
        if card.suit == named_suit:
            return None
        return f"{card} is not a {_ONE_SUIT[named_suit]}, the suit named with the 2"
    if card.suit == top.suit or card.rank == top.rank:
        return None
    return f"{card} matches neither the suit nor the rank of {top}"


def judge_lay(
    pile: Sequence[Card],
    laid: Sequence[Card],
    named_suit: str | None = None,
    *,
    new_suit: str | None = None,
    terminator: bool = False,
    terminator_allowed: bool = True,
    unseen: int = 0,
) -> Verdict:
    """Judge `laid` (in the order laid) on `pile` (top card first).

    `named_suit`: the suit named with the 2 on top of `pile` (required then, refused otherwise).
    `new_suit`: the suit the player names with the 2s laid. `terminator`: the player lays four
    jacks as a Terminator (gives the pile away) rather than as four of a kind; it is allowed only
    where `terminator_allowed` (a game without jokers). `unseen`: how many face-down or hidden
    cards lie under the visible `pile`. Raises ValueError for a description that cannot be true
    (nothing laid, a named suit without a 2 on top, hidden cards under an empty pile).
    """
    pile, laid = tuple(pile), tuple(laid)
    if not laid:
        raise ValueError("nothing was laid")
    if unseen < 0 or (unseen and not pile):
        raise ValueError("the top card of the pile must be visible when cards under it are not")
    top = pile[0] if pile else None
    if top is not None and top.rank == TWO and named_suit not in SUITS:
        raise ValueError("a 2 is on top: say the suit named with it")
    if named_suit is not None and (top is None or top.rank != TWO):
        raise ValueError("a suit is named only while a 2 is on top of the pile")
    if new_suit is not None and new_suit not in SUITS:
        raise ValueError(f"{new_suit!r} is not a suit; name one of {', '.join(SUITS)}")

    if any(card.is_joker for card in laid):
        if len(laid) > 1:
            return Verdict("a joker is played on its own")
        if new_suit is not None:
            return Verdict("only a 2 names a suit")
        return Verdict(None, Effect.GIVE, discarded=laid, given=pile)
    if terminator:
        if len(laid) != 4 or {c.rank for c in laid} != {JACK} or len({c.suit for c in laid}) != 4:
            return Verdict("only a joker or a Terminator (four jacks of different suits) gives the pile away")
        if not terminator_allowed:
            return Verdict("four jacks are a Terminator only in a game without jokers")
        if new_suit is not None:
            return Verdict("only a 2 names a suit")
        return Verdict(None, Effect.GIVE, discarded=laid, given=pile)

    rank = laid[0].rank
    if any(card.rank != rank for card in laid):
        return Verdict(f"cards played together must be of one rank, not {cards_text(laid)}")
    if rank == TWO and new_suit is None:
        return Verdict("a 2 must name the next suit")
    if rank != TWO and new_suit is not None:
        return Verdict("only a 2 names a suit")
    reason = mismatch(top, named_suit, laid[0])
    if reason is not None:
        return Verdict(reason)

    after = tuple(reversed(laid)) + pile
    if rank == TEN:
        return Verdict(None, Effect.BURN_TEN, discarded=after, certain=True)
    run = 0
    while run < len(after) and after[run].rank == rank:
        run += 1
    certain = not (unseen and run == len(after))
    suit = new_suit if rank == TWO else None
    if run == 4:
        return Verdict(None, Effect.BURN_FOUR, discarded=after, certain=certain)
    if run > 4:
        rest = after[: run - 4]
        return Verdict(
            None, Effect.BURN_PART, pile=rest, named_suit=suit, discarded=after[run - 4 :], certain=certain
        )
    return Verdict(None, Effect.NEXT, pile=after, named_suit=suit, certain=certain)


def suit_words(suit: str) -> str:
    """`clubs ♣`: a named suit as a player says it."""
    return f"{SUIT_NAMES[suit]} {SUIT_GLYPHS[suit]}"
