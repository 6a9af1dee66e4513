"""Speahx (seed 004): a turn-based shedding game on one play pile, as its own game of the rules engine.

Players `A`, `B`, ... sit clockwise; the dealer is the last seat, so `A` plays first. Each gets five
face-down table cards (places 1-5) and five hand cards; the rest is the stock. On a turn a player
lays one or more cards of one rank from hand (`Play`: the first must match the top card in suit or
rank; 2s, 10s and jokers go on anything), or draws up to three chance cards one by one
(`DrawChance`, then `PlayChance` or `PickUp`), or picks up the pile (`PickUp`). With hand and stock
empty, a face-down table card is turned and played blind (`PlayTable`). Whether a lay is legal and
what it does is decided by the pile judge `referee.rules.speahx_judge.judge_lay`, the same one the
camera-side referee uses. Registered rule sets: `speahx` (3 players, one pack, no jokers, so the
Terminator counts) and `speahx-jokers` (3 players, two jokers); `SpeahxRules` takes 2-14 players.

Choices where RULES.md and the seed are silent (what a fair human referee would do):

- Drawing back up to five is automatic whenever a turn ends (after a lay that passes the turn,
  after a pick-up, after a blind card that goes to the hand); a player who plays again after a
  burn does not draw first (drawing ends the turn). Chance cards not played join the hand then.
- 10s go on anything (the seed's example: "his 10 would have saved him" on a named suit).
- A burn by a ten or by exactly four of a kind gives the player a fresh play in the same turn:
  unplayed chance cards join the hand and chance cards may be drawn anew. The pile is then empty,
  so the player always has a card to play (hand, chance card from the stock, or table card); one
  whose last card burnt the pile is out and the turn passes.
- An empty pile cannot be picked up: any card may start it.
- Several 2s laid together name one suit; every lay of 2s names a suit. The named suit lasts while
  a 2 is on top.
- More than four equal cards on top: the pile up to and including the first four laid of them is
  burnt once; what stays is not burnt again even if four or more equal cards remain on top.
- A joker is played alone and goes on anything, even on an empty pile (the receiver then gets
  nothing). Four jacks of four different suits are a Terminator only in a game without jokers and
  only when the player names a receiver; laid without one they are an ordinary four of a kind.
  The joker or the Terminator's jacks leave the game; the receiver must be another player still
  holding cards; the turn passes to the seat after the giver.
- Chance cards: any of the chance cards drawn this turn may be played (the pile has not changed
  since they were drawn), several of one rank together; hand cards may join them only when the lay
  leaves at least four equal cards on top (four of a kind); the first card laid may then be a hand
  card, as long as it matches. A Terminator cannot be made with chance cards.
- A playable blind table card must be played (the player then names a suit for a 2 or a receiver
  for a joker); an unplayable one goes to the hand with the whole pile and the turn passes. A
  player with an empty hand may still pick up the pile instead of turning a table card.
- A player is out when they hold no hand, chance or table card; the first out wins. The game ends
  when at most one player holds cards: that player loses.

Events: each state keeps `last_events`, the `(type, fields)` of what the move that produced it did
at the table, ready for `referee.events.Event.make`. `play` carries `source` ("hand", "table",
"chance"), `cards` (every code laid, in order) and `to` = `P`; its required `from` is `hand`,
`chance`, or the table-card place as INTERFACES.md numbers places (`A1`-`A5` for A's five). Types this module registers (required fields; extras):
`name_suit` (player, suit), `burn` (player, pile, by: "ten" | "four of a kind"; count, rest),
`pick_up` (player, pile; count, cards), `draw_chance` (player, card), `draw` (player; count),
`give_pile` (player, receiver; count), `out` (player, place); `game_end` gains `loser`.

>>> import random
>>> from referee.rules.speahx import SpeahxRules, Play, PickUp, DrawChance, parse_cards
>>> rules = SpeahxRules(players=2)
>>> s = rules.position({"A": "7C 7D KH", "B": "8C 2S 9D"}, pile="5H KD", stock="4S 4H 4D")
>>> s.check(Play("A", parse_cards("7C")))
'7♣ matches neither the suit nor the rank of K♦'
>>> s = s.apply(Play("A", parse_cards("KH")))
>>> [c.code for c in s.hands[0]], s.to_move, [t for t, _ in s.last_events]
(['4S', '4H', '4D', '7D', '7C'], 'B', ['play', 'draw'])
>>> s.check(Play("A", parse_cards("7C")))
"it is B's turn"
>>> s = s.apply(Play("B", parse_cards("2S"), named_suit="C"))
>>> s.named_suit, s.apply(Play("A", parse_cards("7C"))).pile[-1].code
('C', '7C')
>>> g = rules.new_game(random.Random(4))
>>> len(g.hands[0]), len(g.stock), g.cards() == rules.deck_counter()
(5, 32, True)
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import product
from typing import Any, Final

from referee.cards import JOKER, SUITS, Card, full_deck
from referee.errors import ContradictoryOptions, IllegalMove
from referee.events import register_event_type
from referee.rules import register
from referee.rules.speahx_judge import (
    JACK,
    TWO,
    Effect,
    Verdict,
    cards_text,
    judge_lay,
    mismatch,
    parse_cards,
    suit_words,
)

HAND_SIZE: Final = 5
TABLE_CARDS: Final = 5
MAX_CHANCE: Final = 3
SEATS: Final = "ABCDEFGHIJKLMN"

register_event_type("name_suit", ("player", "suit"))
register_event_type("burn", ("player", "pile", "by"))
register_event_type("pick_up", ("player", "pile"))
register_event_type("draw_chance", ("player", "card"))
register_event_type("draw", ("player",))  # as Spit's variants register it; Speahx adds `count`
register_event_type("give_pile", ("player", "receiver"))
register_event_type("out", ("player", "place"))

EventData = tuple[str, dict[str, Any]]


def recommended_packs(players: int) -> int:
    """The seed's advice: one more pack for every fifth player (2-4: 1, 5-9: 2, 10-14: 3)."""
    return 1 + players // 5


@dataclass(frozen=True)
class SpeahxRules:
    """A Speahx rule set: `players` 2..14, `jokers` 0..2, `packs` (0: the recommended number).

    Without jokers four jacks of different suits (the Terminator) have the joker's power.
    """

    name: str = "speahx"
    players: int = 3
    jokers: int = 0
    packs: int = 0

    def __post_init__(self) -> None:
        for option in ("players", "jokers"):
            value = getattr(self, option)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ContradictoryOptions(f"{option} must be a whole number, not {value!r}")
        if not 2 <= self.players <= len(SEATS):
            raise ContradictoryOptions(f"Speahx is for 2 to {len(SEATS)} players, not {self.players}")
        if not 0 <= self.jokers <= 2:
            raise ContradictoryOptions(f"Speahx uses at most two jokers, not {self.jokers}")
        if self.packs == 0:
            object.__setattr__(self, "packs", recommended_packs(self.players))
        packs = self.packs
        if isinstance(packs, bool) or not isinstance(packs, int) or packs < 1:
            raise ContradictoryOptions(f"packs must be a whole number of at least 1, not {packs!r}")
        needed = (HAND_SIZE + TABLE_CARDS) * self.players
        if 52 * packs + self.jokers < needed:
            raise ContradictoryOptions(
                f"{packs} pack(s) cannot deal {HAND_SIZE + TABLE_CARDS} cards to each of {self.players} players"
            )

    @property
    def terminator(self) -> bool:
        """Four jacks of different suits act as a joker (only in a game without jokers)."""
        return self.jokers == 0

    @property
    def seats(self) -> tuple[str, ...]:
        return tuple(SEATS[: self.players])

    def deck(self) -> tuple[Card, ...]:
        """Every card of the game: the packs and the jokers."""
        return full_deck() * self.packs + (JOKER,) * self.jokers

    def deck_counter(self) -> Counter[Card]:
        return Counter(self.deck())

    def new_game(self, rng: random.Random) -> "SpeahxState":
        """Shuffle and deal five table cards, then five hand cards, to each player; the rest is the stock."""
        deck = list(self.deck())
        rng.shuffle(deck)
        n = self.players
        table = tuple(tuple(deck[i * TABLE_CARDS : (i + 1) * TABLE_CARDS]) for i in range(n))
        start = n * TABLE_CARDS
        hands = tuple(tuple(sorted(deck[start + i * HAND_SIZE : start + (i + 1) * HAND_SIZE])) for i in range(n))
        return SpeahxState(self, hands, table, tuple(deck[start + n * HAND_SIZE :]))

    def position(
        self,
        hands: Mapping[str, str],
        *,
        table: Mapping[str, str] | None = None,
        stock: str = "",
        pile: str = "",
        named_suit: str | None = None,
        chance: str = "",
        to_move: str = "A",
    ) -> "SpeahxState":
        """A position laid out by hand, for tests and examples. Card codes are separated by spaces;
        `table` fills places 1, 2, ... in order; `stock` is top card first; `pile` bottom to top;
        `chance` are the chance cards `to_move` has drawn this turn. Every other card of the deck
        is out of play. Raises ValueError for more cards than the deck holds."""
        seats = self.seats
        table = table or {}
        unknown = (set(hands) | set(table)) - set(seats)
        if unknown or to_move not in seats:
            raise ValueError(f"the players are {', '.join(seats)}")
        places = [parse_cards(table.get(p, "")) for p in seats]
        if any(len(cards) > TABLE_CARDS for cards in places):
            raise ValueError(f"a player has at most {TABLE_CARDS} table cards")
        laid_out = tuple(cards + (None,) * (TABLE_CARDS - len(cards)) for cards in places)
        state = SpeahxState(
            self,
            tuple(tuple(sorted(parse_cards(hands.get(p, "")))) for p in seats),
            laid_out,
            parse_cards(stock),
            parse_cards(pile),
            named_suit,
            chance=tuple(sorted(parse_cards(chance))),
            turn=seats.index(to_move),
        )
        rest = self.deck_counter()
        rest.subtract(state.cards())
        if any(n < 0 for n in rest.values()):
            extra = sorted(card for card, n in rest.items() if n < 0)
            raise ValueError(f"more {cards_text(extra)} than the deck holds")
        return replace(state, burnt=tuple(sorted(rest.elements())))


# --- moves -------------------------------------------------------------------------------------


def _play_event(player: str, source: str, origin: str, cards: Sequence[Card], **extra: Any) -> EventData:
    fields: dict[str, Any] = {
        "player": player,
        "card": cards[0].code,
        "cards": [c.code for c in cards],
        "source": source,
        "from": origin,
        "to": "P",
    }
    fields.update({k: v for k, v in extra.items() if v is not None})
    return "play", fields


def _naming(named_suit: str | None, receiver: str | None) -> str:
    if named_suit is not None:
        return f", naming {suit_words(named_suit)}" if named_suit in SUITS else f", naming {named_suit!r}"
    if receiver is not None:
        return f", giving the pile to {receiver}"
    return ""


@dataclass(frozen=True)
class Play:
    """Lay `cards` from hand, in this order (the first must match; the last ends on top).
    `named_suit` with 2s; `receiver` with a joker or a Terminator (four jacks of different suits)."""

    player: str
    cards: tuple[Card, ...]
    named_suit: str | None = None
    receiver: str | None = None

    def describe(self) -> str:
        return f"{self.player} plays {cards_text(self.cards)}{_naming(self.named_suit, self.receiver)}"

    def event(self) -> EventData:
        return _play_event(self.player, "hand", "hand", self.cards, suit=self.named_suit, receiver=self.receiver)


@dataclass(frozen=True)
class PlayChance:
    """Lay chance cards drawn this turn, in the order of `cards`; `from_hand` are the cards among
    them that come from the hand (allowed only to lay four of a kind)."""

    player: str
    cards: tuple[Card, ...]
    from_hand: tuple[Card, ...] = ()
    named_suit: str | None = None
    receiver: str | None = None

    def describe(self) -> str:
        joined = f" with {cards_text(self.from_hand)} from hand" if self.from_hand else ""
        return (
            f"{self.player} plays chance card(s) {cards_text(self.cards)}{joined}"
            f"{_naming(self.named_suit, self.receiver)}"
        )

    def event(self) -> EventData:
        return _play_event(
            self.player,
            "chance",
            "chance",
            self.cards,
            suit=self.named_suit,
            receiver=self.receiver,
            from_hand=[c.code for c in self.from_hand] or None,
        )


@dataclass(frozen=True)
class PlayTable:
    """Turn up the face-down table card in `place` (1-5), `card`, and play it if it can be played
    (else it goes to the hand with the pile). `named_suit` if it is a 2, `receiver` if a joker."""

    player: str
    place: int
    card: Card
    named_suit: str | None = None
    receiver: str | None = None

    def describe(self) -> str:
        return f"{self.player} turns up table card {self.place}, {self.card}{_naming(self.named_suit, self.receiver)}"

    def event(self) -> EventData:
        return "turn_up", {"player": self.player, "pile": f"{self.player}{self.place}", "card": self.card.code}


@dataclass(frozen=True)
class DrawChance:
    """Draw a chance card from the stock instead of playing from hand (at most three a turn)."""

    player: str

    def describe(self) -> str:
        return f"{self.player} draws a chance card"

    def event(self) -> EventData:
        return "draw_chance", {"player": self.player, "card": "back"}


@dataclass(frozen=True)
class PickUp:
    """Pick up the whole play pile (cannot or will not play); ends the turn."""

    player: str

    def describe(self) -> str:
        return f"{self.player} picks up the pile"

    def event(self) -> EventData:
        return "pick_up", {"player": self.player, "pile": "P"}


SpeahxMove = Play | PlayChance | PlayTable | DrawChance | PickUp
_FOURS: Final = (Effect.BURN_FOUR, Effect.BURN_PART)


# --- the state ---------------------------------------------------------------------------------


def _take(held: Sequence[Card], cards: Sequence[Card]) -> tuple[Card, ...] | None:
    """`held` without `cards` (as multisets), or None when `cards` are not all held."""
    rest = Counter(held)
    rest.subtract(cards)
    if any(n < 0 for n in rest.values()):
        return None
    return tuple(sorted(rest.elements()))


def _missing(held: Sequence[Card], cards: Sequence[Card]) -> Card:
    rest = Counter(held)
    rest.subtract(cards)
    return min(card for card, n in rest.items() if n < 0)


def _suits(rank: int) -> tuple[str | None, ...]:
    """The suits a lay of `rank` may name: each suit for 2s, none for the rest."""
    return SUITS if rank == TWO else (None,)


def _submultisets(cards: Sequence[Card]) -> Iterator[tuple[Card, ...]]:
    """Every sub-multiset of `cards` (the empty one first), each once, sorted."""
    counts = Counter(cards)
    kinds = sorted(counts)
    for take in product(*(range(counts[k] + 1) for k in kinds)):
        yield tuple(k for k, n in zip(kinds, take) for _ in range(n))


def _orders(cards: tuple[Card, ...], leaders: set[Card]) -> Iterator[tuple[Card, ...]]:
    """`cards` once per choice of first card (one of `leaders`) and of last card; the rest in
    between, sorted."""
    for first in sorted(set(cards) & leaders):
        rest = list(cards)
        rest.remove(first)
        if not rest:
            yield (first,)
            continue
        for last in sorted(set(rest)):
            middle = list(rest)
            middle.remove(last)
            yield (first, *middle, last)


@dataclass(frozen=True)
class SpeahxState:
    """An immutable Speahx position. Per seat: `hands` (sorted) and `table` (places 1-5, None once
    played). `stock` top card first; `pile` bottom to top; `named_suit` while a 2 is on top;
    `burnt` every card out of play; `chance` the chance cards drawn this turn by the player to move;
    `turn` the seat to move; `finished` the players out, in order."""

    rules: SpeahxRules
    hands: tuple[tuple[Card, ...], ...]
    table: tuple[tuple[Card | None, ...], ...]
    stock: tuple[Card, ...]
    pile: tuple[Card, ...] = ()
    named_suit: str | None = None
    burnt: tuple[Card, ...] = ()
    chance: tuple[Card, ...] = ()
    turn: int = 0
    finished: tuple[str, ...] = ()
    last_events: tuple[EventData, ...] = field(default=(), compare=False, repr=False)

    # -- the GameState protocol

    @property
    def players(self) -> tuple[str, ...]:
        return self.rules.seats

    @property
    def to_move(self) -> str | None:
        """The player whose turn it is; None once the game is over."""
        return None if self.is_over() else self.players[self.turn]

    def holds(self, player: str) -> int:
        """How many cards `player` still has (hand, table, and chance cards while it is their turn)."""
        i = self.players.index(player)
        chance = len(self.chance) if i == self.turn else 0
        return len(self.hands[i]) + sum(c is not None for c in self.table[i]) + chance

    @cached_property
    def _in_play(self) -> tuple[str, ...]:
        return tuple(p for p in self.players if self.holds(p))

    def in_play(self) -> tuple[str, ...]:
        """The players who still hold cards."""
        return self._in_play

    def is_over(self) -> bool:
        return len(self.in_play()) <= 1

    def winner(self) -> str | None:
        """The first player to have no cards left (None while nobody has)."""
        return self.finished[0] if self.finished else None

    def loser(self) -> str | None:
        """The last player with cards, once the game is over."""
        left = self.in_play()
        return left[0] if self.is_over() and left else None

    def cards(self) -> Counter[Card]:
        every: Counter[Card] = Counter(self.stock)
        every.update(self.pile)
        every.update(self.burnt)
        every.update(self.chance)
        for hand, table in zip(self.hands, self.table):
            every.update(hand)
            every.update(c for c in table if c is not None)
        return every

    def check(self, move: SpeahxMove) -> str | None:
        try:
            self.apply(move)
        except IllegalMove as exc:
            return str(exc)
        return None

    def apply(self, move: SpeahxMove) -> "SpeahxState":
        i = self._seat_of(move)
        if isinstance(move, Play):
            return self._play(i, move)
        if isinstance(move, PlayChance):
            return self._play_chance(i, move)
        if isinstance(move, PlayTable):
            return self._play_table(i, move)
        if isinstance(move, DrawChance):
            return self._draw_chance(i)
        if isinstance(move, PickUp):
            return self._pick_up(i)
        raise IllegalMove(f"{move!r} is not a Speahx move")

    def legal_moves(self, player: str | None = None) -> Iterator[SpeahxMove]:
        if self.is_over() or (player is not None and player != self.players[self.turn]):
            return
        p, i = self.players[self.turn], self.turn
        hand = self.hands[i]
        if self.chance:
            yield from self._chance_plays(p, hand)
        elif hand:
            yield from self._hand_plays(p, hand)
        elif not self.stock:
            yield from self._table_plays(p, i)
        if self.stock and len(self.chance) < MAX_CHANCE:
            yield DrawChance(p)
        if self.pile:
            yield PickUp(p)

    # -- reading the pile

    def _judge(self, laid: Sequence[Card], named_suit: str | None, receiver: str | None = None) -> Verdict:
        """The pile judge on `laid`; a receiver named for anything but a joker declares a Terminator."""
        return judge_lay(
            tuple(reversed(self.pile)),
            laid,
            self.named_suit,
            new_suit=named_suit,
            terminator=receiver is not None and not any(c.is_joker for c in laid),
            terminator_allowed=self.rules.terminator,
        )

    # -- the moves

    def _seat_of(self, move: SpeahxMove) -> int:
        player = getattr(move, "player", None)
        if self.is_over():
            raise IllegalMove("the game is over")
        if player not in self.players:
            raise IllegalMove(f"{player!r} is not playing; the players are {', '.join(self.players)}")
        if player != self.players[self.turn]:
            raise IllegalMove(f"it is {self.players[self.turn]}'s turn")
        return self.turn

    def _check_receiver(self, i: int, laid: Sequence[Card], receiver: str | None) -> None:
        gives = any(c.is_joker for c in laid)
        if receiver is None:
            if gives:
                raise IllegalMove("a joker gives the pile to a player: name who gets it")
            return
        if receiver == self.players[i]:
            raise IllegalMove("the pile must go to another player")
        if receiver not in self.players:
            raise IllegalMove(f"{receiver!r} is not playing; the players are {', '.join(self.players)}")
        if receiver not in self.in_play():
            raise IllegalMove(f"{receiver} has no cards left and is out of the game: the pile cannot go there")

    def _play(self, i: int, move: Play) -> "SpeahxState":
        if self.chance:
            raise IllegalMove("after drawing a chance card you may not play from your hand")
        if not move.cards:
            raise IllegalMove("play at least one card")
        hand = _take(self.hands[i], move.cards)
        if hand is None:
            raise IllegalMove(f"{move.player} does not hold {_missing(self.hands[i], move.cards)}")
        self._check_receiver(i, move.cards, move.receiver)
        verdict = self._judge(move.cards, move.named_suit, move.receiver)
        if verdict.reason is not None:
            raise IllegalMove(verdict.reason)
        return self._lay(i, move.event(), verdict, move.receiver, hand=hand, table=self.table[i], chance=())

    def _play_chance(self, i: int, move: PlayChance) -> "SpeahxState":
        if not self.chance:
            raise IllegalMove("draw a chance card first")
        chance_part = _take(move.cards, move.from_hand)
        if chance_part is None:
            raise IllegalMove(f"{_missing(move.cards, move.from_hand)} from hand is not among the cards laid")
        if not chance_part:
            raise IllegalMove("play at least one chance card")
        chance = _take(self.chance, chance_part)
        if chance is None:
            raise IllegalMove(f"{_missing(self.chance, chance_part)} is not one of your chance cards")
        hand = _take(self.hands[i], move.from_hand)
        if hand is None:
            raise IllegalMove(f"{move.player} does not hold {_missing(self.hands[i], move.from_hand)}")
        self._check_receiver(i, move.cards, move.receiver)
        verdict = self._judge(move.cards, move.named_suit, move.receiver)
        if verdict.reason is not None:
            raise IllegalMove(verdict.reason)
        if move.from_hand and verdict.effect not in _FOURS:
            raise IllegalMove(
                "after drawing a chance card you may not play from your hand, except to lay four of a kind"
            )
        return self._lay(i, move.event(), verdict, move.receiver, hand=hand, table=self.table[i], chance=chance)

    def _play_table(self, i: int, move: PlayTable) -> "SpeahxState":
        if self.chance:
            raise IllegalMove("after drawing a chance card you may not play a table card")
        if self.hands[i]:
            raise IllegalMove("table cards are played only once your hand is empty")
        if self.stock:
            raise IllegalMove("table cards are played only once the stock is empty")
        places = self.table[i]
        if not 1 <= move.place <= TABLE_CARDS or places[move.place - 1] is None:
            raise IllegalMove(f"there is no card in table place {move.place}")
        if places[move.place - 1] is not move.card:
            raise IllegalMove(f"the card in table place {move.place} is not {move.card}")
        table = places[: move.place - 1] + (None,) + places[move.place :]
        turned = move.event()
        top = self.pile[-1] if self.pile else None
        if mismatch(top, self.named_suit, move.card) is not None:
            if move.named_suit is not None or move.receiver is not None:
                raise IllegalMove(f"{move.card} cannot be played, so it names no suit and gives nothing away")
            hand = tuple(sorted(self.pile + (move.card,)))
            events = (turned, self._pick_up_event(i, self.pile + (move.card,)))
            return self._end_turn(i, events, hands=self._with_hand(i, hand), table=self._with_table(i, table),
                                  pile=(), named_suit=None, chance=())
        self._check_receiver(i, (move.card,), move.receiver)
        verdict = self._judge((move.card,), move.named_suit, move.receiver)
        if verdict.reason is not None:
            raise IllegalMove(verdict.reason)
        play = _play_event(move.player, "table", f"{move.player}{move.place}", (move.card,), suit=move.named_suit,
                           receiver=move.receiver)
        return self._lay(i, play, verdict, move.receiver, hand=(), table=table, chance=(), before=(turned,))

    def _draw_chance(self, i: int) -> "SpeahxState":
        if not self.stock:
            raise IllegalMove("the stock is empty: there is no chance card to draw")
        if len(self.chance) >= MAX_CHANCE:
            raise IllegalMove(f"you may draw at most {MAX_CHANCE} chance cards in a turn")
        card = self.stock[0]
        return replace(
            self,
            stock=self.stock[1:],
            chance=tuple(sorted(self.chance + (card,))),
            last_events=(("draw_chance", {"player": self.players[i], "card": card.code}),),
        )

    def _pick_up(self, i: int) -> "SpeahxState":
        if not self.pile:
            raise IllegalMove("there is no pile to pick up: any card may start it")
        hand = tuple(sorted(self.hands[i] + self.pile))
        return self._end_turn(i, (self._pick_up_event(i, self.pile),), hands=self._with_hand(i, hand),
                              table=self.table, pile=(), named_suit=None, chance=self.chance)

    def _pick_up_event(self, i: int, cards: Sequence[Card]) -> EventData:
        fields = {"player": self.players[i], "pile": "P", "count": len(cards), "cards": [c.code for c in cards]}
        return "pick_up", fields

    # -- what a lay does

    def _with_hand(self, i: int, hand: tuple[Card, ...]) -> tuple[tuple[Card, ...], ...]:
        return self.hands[:i] + (hand,) + self.hands[i + 1 :]

    def _with_table(self, i: int, places: tuple[Card | None, ...]) -> tuple[tuple[Card | None, ...], ...]:
        return self.table[:i] + (places,) + self.table[i + 1 :]

    def _lay(
        self,
        i: int,
        play: EventData,
        verdict: Verdict,
        receiver: str | None,
        *,
        hand: tuple[Card, ...],
        table: tuple[Card | None, ...],
        chance: tuple[Card, ...],
        before: tuple[EventData, ...] = (),
    ) -> "SpeahxState":
        player = self.players[i]
        events = before + (play,)
        hands = self._with_hand(i, hand)
        if verdict.named_suit is not None:
            events += (("name_suit", {"player": player, "suit": verdict.named_suit}),)
        if verdict.effect is Effect.GIVE:
            r = self.players.index(str(receiver))
            hands = hands[:r] + (tuple(sorted(hands[r] + verdict.given)),) + hands[r + 1 :]
            events += (("give_pile", {"player": player, "receiver": receiver, "count": len(verdict.given)}),)
        elif verdict.effect is not Effect.NEXT:
            by = "ten" if verdict.effect is Effect.BURN_TEN else "four of a kind"
            burn: dict[str, Any] = {"player": player, "pile": "P", "by": by, "count": len(verdict.discarded)}
            if verdict.effect is Effect.BURN_PART:
                burn["rest"] = len(verdict.pile)
            events += (("burn", burn),)
        after = replace(
            self,
            hands=hands,
            table=self._with_table(i, table),
            pile=tuple(reversed(verdict.pile)),
            named_suit=verdict.named_suit,
            burnt=self.burnt + verdict.discarded,
            chance=chance,
        )
        if verdict.again and after.holds(player):
            mine = tuple(sorted(hand + chance))
            return replace(after, hands=after._with_hand(i, mine), chance=(), last_events=events)
        return after._end_turn(i, events, hands=after.hands, table=after.table, pile=after.pile,
                               named_suit=after.named_suit, chance=chance)

    def _end_turn(
        self,
        i: int,
        events: tuple[EventData, ...],
        *,
        hands: tuple[tuple[Card, ...], ...],
        table: tuple[tuple[Card | None, ...], ...],
        pile: tuple[Card, ...],
        named_suit: str | None,
        chance: tuple[Card, ...],
    ) -> "SpeahxState":
        """The turn of seat `i` ends: chance cards join the hand, the hand is drawn back up to five
        while the stock lasts, a player without cards is out, and the next player with cards moves."""
        player = self.players[i]
        hand = hands[i] + chance
        count = min(max(0, HAND_SIZE - len(hand)), len(self.stock))
        if count:
            events += (("draw", {"player": player, "count": count}),)
        hands = hands[:i] + (tuple(sorted(hand + self.stock[:count])),) + hands[i + 1 :]
        state = replace(self, hands=hands, table=table, stock=self.stock[count:], pile=pile,
                        named_suit=named_suit, chance=())
        finished = self.finished
        if not state.holds(player):
            finished += (player,)
            events += (("out", {"player": player, "place": len(finished)}),)
        left = state.in_play()
        if len(left) <= 1:
            events += (("game_end", {"winner": finished[0], "loser": left[0] if left else None}),)
            return replace(state, finished=finished, last_events=events)
        n = len(self.players)
        turn = next(j % n for j in range(i + 1, i + n + 1) if state.holds(self.players[j % n]))
        return replace(state, finished=finished, turn=turn, last_events=events)

    # -- generating moves (lazily)

    def _receivers(self, p: str) -> tuple[str, ...]:
        return tuple(q for q in self.in_play() if q != p)

    def _leaders(self, cards: Sequence[Card]) -> set[Card]:
        """The cards that may lead a lay of one rank: for such a lay (its 2s naming a suit) the
        judge asks nothing more than `mismatch`."""
        top = self.pile[-1] if self.pile else None
        return {c for c in cards if mismatch(top, self.named_suit, c) is None}

    def _hand_plays(self, p: str, hand: tuple[Card, ...]) -> Iterator[SpeahxMove]:
        if JOKER in hand:
            for receiver in self._receivers(p):
                yield Play(p, (JOKER,), receiver=receiver)
        for rank in sorted({c.rank for c in hand} - {0}):
            group = tuple(c for c in hand if c.rank == rank)
            leaders = self._leaders(group)
            if not leaders:
                continue
            for chosen in _submultisets(group):
                for order in _orders(chosen, leaders):
                    for suit in _suits(rank):
                        yield Play(p, order, suit)
        jacks = tuple(sorted({c for c in hand if c.rank == JACK}))
        if self.rules.terminator and len(jacks) == 4:
            for receiver in self._receivers(p):
                yield Play(p, jacks, receiver=receiver)

    def _chance_plays(self, p: str, hand: tuple[Card, ...]) -> Iterator[SpeahxMove]:
        if JOKER in self.chance:
            for receiver in self._receivers(p):
                yield PlayChance(p, (JOKER,), receiver=receiver)
        for rank in sorted({c.rank for c in self.chance} - {0}):
            own = tuple(c for c in hand if c.rank == rank)
            drawn_group = tuple(c for c in self.chance if c.rank == rank)
            leaders = self._leaders(drawn_group + own)
            for drawn in _submultisets(drawn_group):
                for joined in _submultisets(own) if drawn else ():
                    orders = list(_orders(tuple(sorted(drawn + joined)), leaders))
                    if joined and orders and self._judge(orders[0], _suits(rank)[0]).effect not in _FOURS:
                        continue
                    for order in orders:
                        for suit in _suits(rank):
                            yield PlayChance(p, order, joined, suit)

    def _table_plays(self, p: str, i: int) -> Iterator[SpeahxMove]:
        for place, card in enumerate(self.table[i], 1):
            if card is None:
                continue
            if card.is_joker:
                for receiver in self._receivers(p):
                    yield PlayTable(p, place, card, receiver=receiver)
            elif card.rank == TWO:
                for suit in SUITS:
                    yield PlayTable(p, place, card, suit)
            else:
                yield PlayTable(p, place, card)


def new_game(rng: random.Random, rules: SpeahxRules | None = None) -> SpeahxState:
    """A shuffled, dealt game of `rules` (default: three players, one pack, no jokers)."""
    return (rules or SpeahxRules()).new_game(rng)


register("speahx", SpeahxRules)
register("speahx-jokers", lambda: SpeahxRules(name="speahx-jokers", jokers=2))
