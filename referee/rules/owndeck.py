"""What full-deck and four-card layout Spit share: own decks, layout places, two play piles, spits, races.

Each player plays from their own 52-card deck onto two play piles, `L` and `R`, and keeps a row
of layout places (`A1`..`A4`, `B1`..`B4`) holding at most one face-up card each. The games
differ in how cards reach the layout (see `referee.rules.fulldeck` and `referee.rules.fourcard`);
this module holds the state, moves and calls they have in common:

- `Play` (a card onto a play pile), `Spit` (the table's "Spit!": each player who still has a
  card turns one onto a play pile) and `EndGame` (the table's count when nobody can move or
  spit), each with `describe()` and `event()`;
- `OwnDeckState`, the immutable position: decks (top card first, `None` where the camera
  cannot know a card), layouts, play piles (each card with the player whose deck it came
  from), and the queries `can_move`, `can_anyone_move`, `is_stalemate`, `is_over`, `winner`,
  `cards`, `cards_of`, `unknown`;
- `resolve(state, [(t, move), ...])`, which judges moves made at nearly the same time in the
  order their cards touched the table and reports same-pile races;
- `OwnDeckRules`, the frozen rule-set base with `new_game(rng)`, `deal(deck_a, deck_b)` and
  the camera constructor `from_table(...)` of the two games.

Choices the rules leave open, made as a fair referee would:

- The opening "Spit!" is a table move like any later spit: a new game is the dealt position
  before it, and `is_stalemate()` holds there.
- At a spit every player who still has a card turns one, onto different piles, either way
  round; a player with no card left sits out and the other spits alone onto the pile of
  their choice. Shuffling the deck in hand before a later spit (the full-deck guide's FAQ)
  changes nothing the referee sees, so decks keep their order.
- A card turned from a deck whose cards are unknown may be any card of that deck not yet
  seen: one that deck's owner has elsewhere on the table, or a third copy, is refused.
- A game ends when a player has no cards left (the moment the last card lands), or, when
  nobody can move and nobody has a card to spit, with the table's count (`EndGame`): fewer
  cards left wins, equal counts tie.
- `resolve` orders moves by touch time; equal times keep the order given.

Two cards reach `L` 15 ms apart: the first keeps the play, the second is judged against it:

>>> from referee.rules.fourcard import FourCardRules
>>> seen = FourCardRules().from_table(decks={"A": 0, "B": 0}, tops={"L": "8D", "R": "KH"},
...                                   layout={"A1": "7C", "A2": "5S", "B1": "9S", "B2": "5C"})
>>> timed = [(3.210, Play("A", "7C", "A1", "L")), (3.195, Play("B", "9S", "B1", "L"))]
>>> state, outcomes = resolve(seen, timed)
>>> [(o.move.describe(), o.accepted) for o in outcomes]
[('B plays 9♠ from B1 onto L', True), ('A plays 7♣ from A1 onto L', False)]
>>> outcomes[1].race
Race(pile='L', first='B', second='A', margin_ms=15.0)
>>> outcomes[1].reason
'B got there 15 ms earlier: 7♣ is not next to 9♠ on L; take the card back'
>>> state.top("L"), state.layout("A")["A1"]
(Card('9S'), Card('7C'))
"""

from __future__ import annotations

import itertools
import random
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Final, TypeVar

from referee.cards import Card, full_deck, is_adjacent, parse_card, rank_adjacent
from referee.errors import ContradictoryOptions, IllegalMove, ImpossiblePosition
from referee.events import register_event_type
from referee.rules.base import Move

PLAYERS: Final = ("A", "B")
PILES: Final = ("L", "R")
HAND: Final = "hand"
"""The `source` of a `Play` of the card a player has just drawn (full-deck Spit)."""
DECK_SIZE: Final = 52
MAX_PLACES: Final = 9

EVENT_TYPES: Final[Mapping[str, tuple[str, ...]]] = {
    "draw": ("player",),
    "play_drawn": ("player", "card", "to"),
    "place_drawn": ("player", "card", "to"),
    "refill": ("player", "pile", "card"),
}
"""The event types these games add to INTERFACES.md's, with their required fields (`draw` and
`refill` as classic Spit's variants register them; a draw here carries the `card` too)."""
for _name, _fields in EVENT_TYPES.items():
    register_event_type(_name, _fields)

_INDEX: Final = {"A": 0, "B": 1}
_FULL: Final = Counter(full_deck())
# _REACH[rank]: bitmask of the ranks that may be played onto a card of that rank
_REACH: Final = tuple(sum(1 << b for b in range(1, 14) if rank_adjacent(a, b)) for a in range(14))

Placed = tuple[Card | None, str | None]
"""A card on a play pile and the player whose deck it came from (`None` where unknown)."""

S = TypeVar("S", bound="OwnDeckState")


def _put(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return items[:index] + (value,) + items[index + 1 :]


def _card(code: Card | str) -> Card:
    return code if isinstance(code, Card) else parse_card(code)


class _CardField:
    """Lets a move be written with a card code (`"7C"`) where a `Card` is expected."""

    def __post_init__(self) -> None:
        card = getattr(self, "card")
        if not isinstance(card, Card):
            object.__setattr__(self, "card", parse_card(card))


@dataclass(frozen=True)
class Play(_CardField):
    """`player` plays `card` from `source` (a layout place such as `A2`, or `HAND` for the card
    just drawn) onto the play pile `pile` (`L` or `R`)."""

    player: str
    card: Card
    source: str
    pile: str

    def describe(self) -> str:
        if self.source == HAND:
            return f"{self.player} plays the drawn {self.card} onto {self.pile}"
        return f"{self.player} plays {self.card} from {self.source} onto {self.pile}"

    def event(self) -> tuple[str, dict[str, Any]]:
        if self.source == HAND:
            return "play_drawn", {"player": self.player, "card": self.card.code, "to": self.pile}
        fields = {"player": self.player, "card": self.card.code, "from": self.source, "to": self.pile}
        return "play", fields


@dataclass(frozen=True)
class Spit:
    """The table's "Spit!": `turns` holds (player, pile, card) for each card turned up."""

    turns: tuple[tuple[str, str, Card], ...]
    player: str | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "turns", tuple((p, pile, _card(c)) for p, pile, c in self.turns))

    def describe(self) -> str:
        return "Spit! " + ", ".join(f"{p} turns {c} onto {pile}" for p, pile, c in self.turns)

    def event(self) -> tuple[str, dict[str, Any]]:
        cards = {pile: card.code for _, pile, card in self.turns}
        return "spit", {"cards": cards, "players": {pile: p for p, pile, _ in self.turns}}


@dataclass(frozen=True)
class EndGame:
    """The table's count when nobody can move or spit: `counts` holds (player, cards left),
    `winner` the player with fewer (None for a tie)."""

    winner: str | None
    counts: tuple[tuple[str, int], ...]
    player: str | None = field(default=None, init=False)

    def describe(self) -> str:
        left = ", ".join(f"{p} has {n} card{'' if n == 1 else 's'} left" for p, n in self.counts)
        result = "a tie" if self.winner is None else f"{self.winner} wins"
        return f"nobody can move or spit: {left}; {result}"

    def event(self) -> tuple[str, dict[str, Any]]:
        return "game_end", {"winner": self.winner, "counts": dict(self.counts)}


@dataclass(frozen=True)
class Race:
    """Two players' cards reached `pile` (or the end of the game) `margin_ms` apart; `first` kept it."""

    pile: str
    first: str
    second: str
    margin_ms: float

    def event(self) -> tuple[str, dict[str, Any]]:
        return "race", {
            "pile": self.pile, "first": self.first, "second": self.second, "margin_ms": self.margin_ms,
        }


@dataclass(frozen=True)
class Outcome:
    """What `resolve` made of one timed move: `reason` is None when it stood, else why the card
    goes back; `race` says who got there first when another player's card was involved."""

    t: float
    move: Move
    reason: str | None
    race: Race | None = None

    @property
    def accepted(self) -> bool:
        return self.reason is None


def resolve(state: S, timed: Iterable[tuple[float, Move]]) -> tuple[S, list[Outcome]]:
    """Apply moves made at nearly the same time in the order their cards touched the table.

    Each move is judged against the position its predecessors left: a second card on the same
    pile is judged against the new top, and when the first card went out the game is over for
    the second ("first card on the table wins"). The player whose move is refused takes their
    card back. Returns the new state and one `Outcome` per move, in touch-time order.
    """
    outcomes: list[Outcome] = []
    last_on: dict[str, tuple[float, str]] = {}
    went_out: tuple[float, str] | None = None
    for t, move in sorted(timed, key=lambda pair: pair[0]):
        pile = move.pile if isinstance(move, Play) else None
        first = last_on.get(pile) if pile is not None else None
        if first is not None and first[1] == move.player:
            first = None
        reason = state.check(move)
        if reason is None:
            state = state._after(move)
            if pile is not None:
                last_on[pile] = (t, move.player)
                if went_out is None and state.is_over():
                    went_out = (t, move.player)
        elif first is None and pile is not None and went_out is not None and went_out[1] != move.player:
            first = went_out
        race = None
        if first is not None and pile is not None:
            race = Race(pile, first[1], move.player, round((t - first[0]) * 1000.0, 1))
            if reason is not None:
                reason = f"{first[1]} got there {race.margin_ms:g} ms earlier: {reason}; take the card back"
        outcomes.append(Outcome(t, move, reason, race))
    return state, outcomes


@dataclass(frozen=True)
class OwnDeckState(ABC):
    """A position of an own-deck Spit game; immutable, `apply` returns a new one.

    `decks[i]` is player i's face-down deck, top card first (`None` for a card not known until
    it is turned), `layouts[i]` their layout places (`None` for an empty one), `piles` the play
    piles `L` and `R`, bottom card first. `ended` is set by the table's count.
    """

    rules: Any
    decks: tuple[tuple[Card | None, ...], ...]
    layouts: tuple[tuple[Card | None, ...], ...]
    piles: tuple[tuple[Placed, ...], ...] = ((), ())
    ended: bool = False

    game: ClassVar[str] = "own-deck Spit"

    # ---- what a game adds -------------------------------------------------------------------

    @classmethod
    def _dealt(cls: type[S], rules: Any, decks: tuple[tuple[Card, ...], ...]) -> S:
        return cls(rules, decks, tuple((None,) * rules.places for _ in PLAYERS))

    def _held(self, i: int) -> Card | None:
        """The card player i has drawn and holds (full-deck Spit only)."""
        return None

    def _without_next(self: S, i: int) -> S:
        """This state without the card player i turns at a spit (their top card)."""
        return replace(self, decks=_put(self.decks, i, self.decks[i][1:]))

    @abstractmethod
    def _can_move(self, i: int) -> bool:
        """Whether player i has a legal move (the game is started and not over)."""

    @abstractmethod
    def _player_moves(self, i: int) -> Iterator[Move]:
        """Lazily, player i's legal moves (the game is started and not over)."""

    def _check_own(self, move: Any, i: int) -> str | None:
        """Why a move that is neither a layout `Play` nor a table move is illegal (a game's own
        moves); None when it is legal."""
        return f"{type(move).__name__} is not a move of {self.game}"

    @abstractmethod
    def _layout_play_block(self, i: int) -> str | None:
        """Why player i may not play a layout card just now, if they may not."""

    @abstractmethod
    def _after_own(self: S, move: Any, i: int) -> S:
        """The state after a legal move of the game's own (a draw, a placing, a refill)."""

    # ---- queries ----------------------------------------------------------------------------

    @property
    def players(self) -> tuple[str, ...]:
        return PLAYERS

    @property
    def started(self) -> bool:
        """Whether the play piles have been started by the opening spit."""
        return bool(self.piles[0])

    def top(self, pile: str) -> Card | None:
        """The face-up top card of play pile `L` or `R` (None before the opening spit)."""
        cards = self.piles[PILES.index(pile)]
        return cards[-1][0] if cards else None

    def layout(self, player: str) -> dict[str, Card | None]:
        """Player's layout places and what each holds, e.g. {"A1": 5♥, "A2": None, ...}."""
        return {f"{player}{k + 1}": c for k, c in enumerate(self.layouts[_INDEX[player]])}

    def deck_size(self, player: str) -> int:
        return len(self.decks[_INDEX[player]])

    def cards_left(self, player: str) -> int:
        """Cards the player still has to get rid of: deck, drawn card and layout."""
        i = _INDEX[player]
        layout = sum(c is not None for c in self.layouts[i])
        return len(self.decks[i]) + layout + (self._held(i) is not None)

    @property
    def _mobility(self) -> tuple[bool, ...]:
        """Whether each player can move, computed once per state (a dict cache: cheaper than
        `functools.cached_property`, which takes a lock in Python 3.11)."""
        cache = self.__dict__
        mobility = cache.get("_mobility_cache")
        if mobility is None:
            if not self.piles[0] or self.is_over():
                mobility = (False, False)
            else:
                mobility = (self._can_move(0), self._can_move(1))
            cache["_mobility_cache"] = mobility
        return mobility

    def _reach(self) -> int:
        """Bitmask of the ranks that may be played onto one of the two play piles now."""
        left, right = self.piles
        return _REACH[left[-1][0].rank] | _REACH[right[-1][0].rank]  # type: ignore[union-attr]

    def _layout_reaches(self, i: int) -> bool:
        """Whether a layout card of player i may be played onto a play pile now."""
        reach = self._reach()
        for card in self.layouts[i]:
            if card is not None and reach >> card.rank & 1:
                return True
        return False

    def can_move(self, player: str) -> bool:
        """Whether `player` has a legal move now (cached per state: cheap on every frame)."""
        return self._mobility[_INDEX[player]]

    def can_anyone_move(self) -> bool:
        return True in self._mobility

    def is_stalemate(self) -> bool:
        """Nobody can move and the game is not over: the table must spit, or count if nobody
        has a card to spit. Also true before the opening spit."""
        return True not in self._mobility and not self.is_over()

    def can_spit(self, player: str) -> bool:
        """Whether `player` still has a card to turn at a spit."""
        i = _INDEX[player]
        return bool(self.decks[i]) or self._held(i) is not None

    @property
    def _out(self) -> str | None:
        """The player who has no cards left, if any (computed once per state)."""
        cache = self.__dict__
        if "_out_cache" not in cache:
            cache["_out_cache"] = next(
                (p for i, p in enumerate(PLAYERS)
                 if not self.decks[i] and self._held(i) is None and not any(self.layouts[i])),
                None,
            )
        return cache["_out_cache"]  # type: ignore[no-any-return]

    def is_over(self) -> bool:
        return self.ended or self._out is not None

    def winner(self) -> str | None:
        """The player who went out, or after the count the one with fewer cards left; None for
        a tie or while the game goes on."""
        if self._out is not None:
            return self._out
        return self._count()[0] if self.ended else None

    def _count(self) -> tuple[str | None, tuple[tuple[str, int], ...]]:
        a, b = (self.cards_left(p) for p in PLAYERS)
        return ("A" if a < b else "B" if b < a else None), (("A", a), ("B", b))

    def cards(self) -> Counter[Card]:
        """Every known card in the state, wherever it lies; with both decks known each card
        appears exactly twice (once per deck)."""
        counts: Counter[Card] = Counter()
        for i in range(len(PLAYERS)):
            counts.update(c for c in self.decks[i] if c is not None)
            counts.update(c for c in self.layouts[i] if c is not None)
            held = self._held(i)
            if held is not None:
                counts[held] += 1
        for pile in self.piles:
            counts.update(c for c, _ in pile if c is not None)
        return counts

    def cards_of(self, player: str) -> Counter[Card]:
        """The known cards of `player`'s deck, wherever they lie (each at most once)."""
        i = _INDEX[player]
        counts = Counter(c for c in self.decks[i] if c is not None)
        counts.update(c for c in self.layouts[i] if c is not None)
        held = self._held(i)
        if held is not None:
            counts[held] += 1
        for pile in self.piles:
            counts.update(c for c, owner in pile if c is not None and owner == player)
        return counts

    def unknown(self) -> int:
        """How many cards the state does not know (unseen deck cards, buried pile cards)."""
        decks = sum(d.count(None) for d in self.decks)
        return decks + sum(1 for pile in self.piles for c, _ in pile if c is None)

    def _unseen(self, i: int) -> frozenset[Card]:
        """The cards that may still lie unknown in player i's deck."""
        total = self.cards()
        own = self.cards_of(PLAYERS[i])
        return frozenset(c for c in _FULL if not own[c] and total[c] < 2)

    # ---- moves ------------------------------------------------------------------------------

    def legal_moves(self, player: str | None = None) -> Iterator[Move]:
        """Lazily, every legal move: of `player` only when given, else both players' moves and
        the table's (a spit or the count, only at a stalemate)."""
        if player is not None:
            i = _INDEX.get(player)
            if i is not None and self._mobility[i]:
                yield from self._player_moves(i)
            return
        for i in range(len(PLAYERS)):
            if self._mobility[i]:
                yield from self._player_moves(i)
        if self.is_stalemate():
            yield from self._table_moves()

    def available_move(self, player: str | None = None) -> Move | None:
        """One move `player` (or, when None, either player) could still make, else None: the
        move a premature spit overlooked."""
        for i, p in enumerate(PLAYERS):
            if player in (None, p) and self._mobility[i]:
                return next(self._player_moves(i))
        return None

    def _next_options(self, i: int) -> Sequence[Card]:
        """The cards player i may turn next at a spit or a draw."""
        held = self._held(i)
        if held is not None:
            return (held,)
        top = self.decks[i][0]
        return (top,) if top is not None else sorted(self._unseen(i))

    def _table_moves(self) -> Iterator[Move]:
        spitters = [i for i, p in enumerate(PLAYERS) if self.can_spit(p)]
        if not spitters:
            winner, counts = self._count()
            yield EndGame(winner, counts)
            return
        choices = [self._next_options(i) for i in spitters]
        for piles in itertools.permutations(PILES, len(spitters)):
            for cards in itertools.product(*choices):
                yield Spit(tuple((PLAYERS[i], pile, c) for i, pile, c in zip(spitters, piles, cards)))

    def _reveal_reason(self, i: int, card: Card) -> str | None:
        """Why `card` cannot be the top card of player i's deck, if it cannot."""
        top = self.decks[i][0]
        if top is None and card in self._unseen(i):
            return None
        if top is card:
            return None
        player = PLAYERS[i]
        if top is not None:
            return f"the top card of {player}'s deck is {top}, not {card}"
        if self.cards_of(player)[card]:
            return f"{player}'s {card} is already out of the deck"
        return f"both {card}s are already on the table"

    def _slot(self, i: int, place: str) -> int | None:
        """The index of layout place `place` of player i, or None if it is not one of theirs."""
        player = PLAYERS[i]
        if not isinstance(place, str) or not place.startswith(player) or not place[1:].isdigit():
            return None
        k = int(place[1:]) - 1
        return k if 0 <= k < len(self.layouts[i]) else None

    def _no_slot(self, i: int, place: str) -> str:
        p = PLAYERS[i]
        return f"{place} is not one of {p}'s layout places ({p}1 to {p}{len(self.layouts[i])})"

    def _over_reason(self) -> str:
        if self._out is not None:
            return f"the game is over: {self._out} went out"
        return "the game is over"

    def check(self, move: Move) -> str | None:
        """None when `move` is legal here, else the broken rule in a player's words."""
        if isinstance(move, Spit):
            return self._check_spit(move)
        if isinstance(move, EndGame):
            return self._check_end(move)
        if self.is_over():
            return self._over_reason()
        i = _INDEX.get(getattr(move, "player", None))  # type: ignore[arg-type]
        if i is None:
            return f"there is no player {getattr(move, 'player', None)!r}: the players are A and B"
        if not self.piles[0]:
            return "wait for “Spit!”: the play piles are not started yet"
        if not isinstance(move, Play) or move.source == HAND:
            return self._check_own(move, i)
        slot = self._slot(i, move.source)
        if slot is None:
            return self._no_slot(i, move.source)
        held = self.layouts[i][slot]
        if held is None:
            return f"{move.source} is empty"
        if held is not move.card:
            return f"{move.source} holds {held}, not {move.card}"
        return self._layout_play_block(i) or self._check_target(move)

    def _check_target(self, move: Play) -> str | None:
        if move.pile not in PILES:
            return f"{move.pile!r} is not a play pile: play onto L or R"
        top = self.top(move.pile)
        if not is_adjacent(move.card, top):  # type: ignore[arg-type]
            return f"{move.card} is not next to {top} on {move.pile}"
        return None

    def _check_spit(self, move: Spit) -> str | None:
        if self.is_over():
            return self._over_reason()
        blocking = self.available_move()
        if blocking is not None:
            return f"no spit yet, a move still exists: {blocking.describe()}"
        spitters = {i for i, p in enumerate(PLAYERS) if self.can_spit(p)}
        if not spitters:
            return "nobody has a card left to spit: the game ends with the count"
        seen: set[int] = set()
        piles: set[str] = set()
        for player, pile, card in move.turns:
            i = _INDEX.get(player)
            if i is None:
                return f"there is no player {player!r}: the players are A and B"
            if i in seen:
                return f"{player} turns one card at a spit, not two"
            if i not in spitters:
                return f"{player} has no card left to spit"
            if pile not in PILES:
                return f"{pile!r} is not a play pile: spit onto L or R"
            if pile in piles:
                return f"two spit cards go onto {pile}: one goes onto each pile"
            held = self._held(i)
            if held is not None and held is not card:
                return f"{player} holds the drawn {held}: that is the card {player} spits, not {card}"
            reason = None if held is not None else self._reveal_reason(i, card)
            if reason is not None:
                return reason
            seen.add(i)
            piles.add(pile)
        missing = sorted(spitters - seen)
        if missing:
            return f"{PLAYERS[missing[0]]} still has a card and must spit too"
        return None

    def _check_end(self, move: EndGame) -> str | None:
        if self.is_over():
            return self._over_reason()
        blocking = self.available_move()
        if blocking is not None:
            return f"no count yet, a move still exists: {blocking.describe()}"
        for p in PLAYERS:
            if self.can_spit(p):
                return f"no count yet: {p} still has a card to spit"
        winner, counts = self._count()
        if (winner, counts) != (move.winner, tuple(move.counts)):
            return "the count is wrong: " + EndGame(winner, counts).describe()
        return None

    def apply(self: S, move: Move) -> S:
        """The state after `move`; raises `IllegalMove` naming the broken rule."""
        reason = self.check(move)
        if reason is not None:
            raise IllegalMove(reason)
        return self._after(move)

    def _after(self: S, move: Any) -> S:
        """The state after a legal `move` (unchecked)."""
        if isinstance(move, Spit):
            state = self
            piles = list(self.piles)
            for player, pile, card in move.turns:
                state = state._without_next(_INDEX[player])
                k = PILES.index(pile)
                piles[k] = piles[k] + ((card, player),)
            return replace(state, piles=tuple(piles))
        if isinstance(move, EndGame):
            return replace(self, ended=True)
        i = _INDEX[move.player]
        if isinstance(move, Play) and move.source != HAND:
            row = _put(self.layouts[i], self._slot(i, move.source), None)
            return replace(self, layouts=_put(self.layouts, i, row))._onto(move)
        return self._after_own(move, i)

    def _onto(self: S, move: Play) -> S:
        """This state with the card of `move` on top of its pile."""
        k = PILES.index(move.pile)
        return replace(self, piles=_put(self.piles, k, self.piles[k] + ((move.card, move.player),)))

    def __str__(self) -> str:
        tops = "  ".join(f"{p}: {self.top(p) or '-'} ({len(self.piles[k])})" for k, p in enumerate(PILES))
        rows = [tops]
        for i, p in enumerate(PLAYERS):
            places = " ".join(str(c) if c is not None else "·" for c in self.layouts[i])
            held = self._held(i)
            hand = f", drawn {held}" if held is not None else ""
            rows.append(f"{p}: deck {len(self.decks[i])}, layout {places}{hand}")
        return "\n".join(rows)


@dataclass(frozen=True)
class OwnDeckRules:
    """The options every own-deck game has: a name and the number of layout places."""

    name: str
    places: int = 4

    state_class: ClassVar[type[OwnDeckState]]

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ContradictoryOptions("a rule set needs a name")
        places = self.places
        if isinstance(places, bool) or not isinstance(places, int) or not 1 <= places <= MAX_PLACES:
            raise ContradictoryOptions(
                f"{self.name}: a layout has 1 to {MAX_PLACES} places (A1 to A{MAX_PLACES}), not {places!r}"
            )

    def new_game(self, rng: random.Random) -> Any:
        """A new game: each player's own deck shuffled by `rng` and dealt, before the opening spit."""
        decks = []
        for _ in PLAYERS:
            deck = list(full_deck())
            rng.shuffle(deck)
            decks.append(deck)
        return self.deal(*decks)

    def deal(self, deck_a: Sequence[Card | str], deck_b: Sequence[Card | str]) -> Any:
        """A new game dealt from two shuffled decks (top card first), before the opening spit."""
        decks = []
        for player, deck in zip(PLAYERS, (deck_a, deck_b)):
            cards = tuple(_card(c) for c in deck)
            if Counter(cards) != _FULL:
                raise ImpossiblePosition(f"{player}'s deck must be one whole 52-card deck")
            decks.append(cards)
        return self.state_class._dealt(self, tuple(decks))

    def _from_table(
        self,
        decks: Mapping[str, int],
        layout: Mapping[str, Card | str | None],
        tops: Mapping[str, Card | str],
        pile_sizes: Mapping[str, int] | None,
        held: Mapping[str, Card | str],
    ) -> Any:
        """A state from what a camera sees; deck cards and buried pile cards stay unknown."""
        sizes = [decks.get(p, -1) for p in PLAYERS]
        if any(isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= DECK_SIZE for n in sizes):
            raise ImpossiblePosition(f"each player's deck holds 0 to {DECK_SIZE} cards, not {dict(decks)}")
        layouts, hands = self._visible(layout, held)
        for i, player in enumerate(PLAYERS):
            shown = [c for c in (*layouts[i], hands[i]) if c is not None]
            if sizes[i] + len(shown) > DECK_SIZE:
                raise ImpossiblePosition(f"{player} shows more than the {DECK_SIZE} cards of one deck")
            if len(set(shown)) < len(shown):
                raise ImpossiblePosition(f"{player}'s deck has each card once, but {player} shows one twice")
        if tops and set(tops) != set(PILES):
            raise ImpossiblePosition("both play piles L and R have a top card, or neither does")
        top_cards = [_card(tops[p]) for p in PILES] if tops else []
        counts = Counter(c for c in itertools.chain(top_cards, hands, *layouts) if c is not None)
        if counts and max(counts.values()) > 2:
            card, n = counts.most_common(1)[0]
            raise ImpossiblePosition(f"two decks hold two {card}s, not {n}")
        rest = len(PLAYERS) * DECK_SIZE - sum(sizes) - sum(counts.values()) + len(top_cards)
        heights = [rest - rest // 2, rest // 2] if pile_sizes is None else [pile_sizes.get(p, 0) for p in PILES]
        if sum(heights) != rest or (min(heights) < 1 if top_cards else rest != 0):
            raise ImpossiblePosition(f"the table must hold {len(PLAYERS) * DECK_SIZE} cards in all")
        piles = tuple(((None, None),) * (n - 1) + ((top, None),) for n, top in zip(heights, top_cards))
        return self.state_class(
            self,
            tuple((None,) * n for n in sizes),
            layouts,
            piles or ((), ()),
            **({"hands": hands} if held else {}),
        )

    def _visible(
        self, layout: Mapping[str, Card | str | None], held: Mapping[str, Card | str]
    ) -> tuple[tuple[tuple[Card | None, ...], ...], tuple[Card | None, ...]]:
        """The layouts and drawn cards a camera sees, by place and by player."""
        rows: list[list[Card | None]] = [[None] * self.places for _ in PLAYERS]
        for place, code in layout.items():
            i = _INDEX.get(place[:1])
            k = int(place[1:]) - 1 if place[1:].isdigit() else -1
            if i is None or not 0 <= k < self.places:
                n = self.places
                raise ImpossiblePosition(f"{place!r} is not a layout place of {self.name} (A1..A{n}, B1..B{n})")
            rows[i][k] = None if code is None else _card(code)
        hands: list[Card | None] = [None] * len(PLAYERS)
        for player, code in held.items():
            if player not in _INDEX:
                raise ImpossiblePosition(f"there is no player {player!r}: the players are A and B")
            hands[_INDEX[player]] = _card(code)
        return tuple(tuple(row) for row in rows), tuple(hands)
