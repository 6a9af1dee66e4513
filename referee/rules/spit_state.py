"""The Spit engine: `SpitState`, an immutable table position under a `SpitRules`, with its moves' effects.

A state knows what a camera cannot see (the cards under each stock top, whether a top is face
down, the spit cards) but may also leave those cards unknown (`None`): a move that reveals one
names it. Applying a move returns a new state or raises `IllegalMove` naming the broken rule.

>>> from referee.cards import parse_card as c
>>> from referee.rules.spit_options import SpitRules
>>> from referee.rules.spit_moves import Play, TurnUp, Spit
>>> s = SpitState.position(SpitRules(), {"A": ["7C", "2S | 9H", "4D |"], "B": ["QS"]}, piles={"L": "JD", "R": "8S"})
>>> s.check(Play("A", c("7C"), "A1", "L"))
'7♣ is not next to J♦'
>>> s.check(Play("A", c("7C"), "A4", "R"))
'A4 is empty'
>>> s.check(Play("A", c("4D"), "A3", "R"))
'the top of A3 is face down'
>>> s = s.apply(Play("A", c("7C"), "A1", "R")).apply(TurnUp("A", "A3", c("4D")))
>>> s.top("R"), s.top("A3"), s.stock_count("A"), s.can_anyone_move()
(Card('7C'), Card('4D'), 3, True)

Choices where RULES.md and the seeds are silent (what a fair human referee would do):

- Player A starts spit pile L and B starts R (with more players the i-th player starts S<i>).
- Before the first Spit of a deal nothing may be played; a deal starts with a `Spit`.
- A solo spitter may choose only a pile in use (one started by a player still in the game).
- Moving a lone card into another empty space, or back and forth, is legal but is no move that
  prevents a stalemate. With stacking of equal ranks, a stalemate also waits for every series of
  stackings and moves into spaces that would uncover a face-down card (or, with alternate colours,
  a playable card under an equal one).
- Both out of spit cards at a stalemate with equal stock counts: the slap decides (two players,
  slap rules); otherwise whoever claims a pile first among the tied players chooses first.
- With one spit pile (two players) the first player out takes nothing, automatically.
- More than two players: a player out of stock chooses a pile at once and sits out; an empty
  pile in use may be chosen (taking nothing), a pile already taken and still empty may not;
  when one player is left playing, every pile not yet taken goes to that player. Players of the
  game who hold no cards leave it (in that order: `ranking()`), the game ends when at most one
  player holds cards, and the winner is the first player out.
- More than two players: when the players still playing are stuck and none of them has spit
  cards left, the deal ends as with two (fewer stock cards choose first); players already out
  of stock keep their spit cards and do not spit.
- Refilled singles: the hand that refills the stock is the spit-card packet; a player has
  emptied their stock when every place and the hand are empty; an empty place with cards in
  hand to refill it is no stalemate.
- Slaps: both players' contacts are needed; two hands on one pile at the same instant (the
  same frame) are settled by `Slap.underneath`, which the camera side reads from the image.
- Unknown cards (a camera's state): a card named for one must be one the game does not already
  show as often as its decks hold it; until named, a face-down card is simply turnable, and an
  unknown hand card (five-card hand) never proves that a player can move.
- The first deal gives the deck one card at a time to each player in turn; each then lays out
  their packet as dealt. A `Layout` packet goes into the stock piles row by row, first card
  first; the rest are spit cards, the first of them turned first.
- Five-card hand: the two starter cards lie on top of the two reserves, so the first Spit turns
  them up; a Spit turns a card from each reserve that has one; when both are empty, `Reshuffle`
  first. A stalemate there is when nobody can play a known hand card or draw.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Final, NamedTuple

from referee.cards import Card, full_deck, parse_code, rank_adjacent
from referee.errors import IllegalMove, ImpossiblePosition
from referee.rules.spit_moves import (
    ChoosePile,
    Deal,
    Draw,
    HandPlay,
    Layout,
    MoveToSpace,
    Play,
    Refill,
    Reshuffle,
    Slap,
    Spit,
    SpitMove,
    StackEqual,
    TurnUp,
)
from referee.rules.spit_options import NUMBER_WORDS, SpitRules

START, PLAY, SETTLE, LAYOUT, OVER = range(5)
PHASES: Final = ("start", "play", "settle", "layout", "over")
"""`SpitState.phase`: waiting for a deal's first Spit, playing, taking the spit piles at the end
of a deal, waiting for a new layout (or deal), game over."""

_ADJ_MASK: Final = tuple(sum(1 << b for b in range(1, 14) if rank_adjacent(a, b)) for a in range(14))
"""_ADJ_MASK[r] has bit b set when rank b is next to rank r."""

Cards = tuple[Card | None, ...]
_View = tuple[tuple[int, int], tuple[tuple[str, Card], ...]]
_PLAYS: dict[tuple[Card, str, str], Play] = {}
_TURNS: dict[tuple[str, Card | None], TurnUp] = {}
_SPACES: dict[tuple[str, Card, str, str], MoveToSpace] = {}
"""The moves listed so far, by their fields: moves are values, so the move lists hand out the same
object again rather than build it anew (building a frozen dataclass is slow)."""
_PROVEN_STUCK: "SpitState | None" = None
"""The last position where `table_moves` found that nobody can move (positions are immutable)."""
_HINT: tuple = (None, None)  # type: ignore[type-arg]
"""(position, play, i, f, pile, j) or (position, turn-up, i, f): the last play or turn-up of a known
card that `_stock_moves` listed, with the `_played` / `_turned` arguments it checked; a position is immutable, so applying that play to that position needs no check again."""
_FULL_COUNTS: dict[int, dict[Card, int]] = {}
"""Per number of decks: how often the game has each card."""
_PLANS: dict[int, tuple[SpitRules, tuple]] = {}  # type: ignore[type-arg]
"""Per rule set (by id, the rules kept to check identity): what `_stock_moves` reads of them."""


def _plan(rules: SpitRules) -> tuple[SpitRules, tuple]:  # type: ignore[type-arg]
    places = rules.places
    spans = tuple((i * places, (i + 1) * places, rules.place_names[i * places:(i + 1) * places])
                  for i in range(rules.players))
    plan = _PLANS[id(rules)] = (rules, (rules.player_names, rules.alternate_colours, rules.refilled_singles,
                                        rules.stack_equal, spans))
    return plan


_DEAL_ORDER: dict[tuple[int, ...], tuple[tuple[int, ...], ...]] = {}
"""For each layout, the positions in a player's packet of the cards of each stock pile."""


class PrematureSpit(IllegalMove):
    """A Spit while a move still exists; `move` is one such move (for the `premature_spit` event)."""

    def __init__(self, message: str, move: SpitMove) -> None:
        super().__init__(message)
        self.move = move


class _Info(NamedTuple):
    """What changes only a few times a deal (kept apart so that card moves copy little)."""

    active: tuple[bool, ...]  # still playing this deal (in the game, stock not yet emptied)
    gone: tuple[bool, ...]  # out of the game, holding no cards
    took: tuple[bool, ...]  # has taken a spit pile this deal
    claimed: tuple[bool, ...]  # per spit pile: taken this deal
    pending: tuple[tuple[int, ...], ...]  # who chooses a pile next: groups, any of the first group
    slap: bool  # the deal ends with a slap
    locked: int  # the solo spitter's pile, -1 if none
    emptied: tuple[int, ...]  # players who emptied their stock this deal, in order
    ranking: tuple[int, ...]  # players out of the game, in order
    scores: tuple[int, ...]  # five-card hand
    held: tuple[Cards, ...]  # cards held outside layout and spit cards (taken piles, between deals)
    ender: int  # who ended the deal (emptied first, or chose first), -1 while none
    reason: str  # why the deal ended


_new = object.__new__


class SpitState:
    """An immutable position of a Spit game (every variant: see `SpitRules`).

    Build one with `SpitRules.new_game(rng)` / `SpitState.deal(rules, deck)` (the simulator),
    `SpitState.observed(...)` (what a camera sees at the start of a deal) or
    `SpitState.position(...)` (a position written out, for tests and examples).
    """

    __slots__ = ("rules", "_phase", "_stocks", "_ups", "_spit", "_piles", "_hands", "_reserves", "_info", "_mk")

    rules: SpitRules
    _phase: int
    _stocks: tuple[Cards, ...]  # place k of player i at i * places + k: cards bottom to top
    _ups: tuple[int, ...]  # per place (as `_stocks`): face-up cards on top
    _spit: tuple[Cards, ...]  # per player: spit cards (or refill hand), next card last
    _piles: tuple[Cards, ...]  # per spit pile, bottom to top; a top is always known
    _hands: tuple[Cards, ...]  # five-card hand: hidden hands
    _reserves: tuple[Cards, ...]  # five-card hand: (left, right) reserves, next card last
    _info: _Info
    _mk: "_View | None"  # the spit piles' tops, worked out when first needed

    def __init__(self) -> None:
        raise TypeError("build a SpitState with new_game, deal, observed or position")

    # ----------------------------------------------------------------------------- construction

    @classmethod
    def _blank(cls, rules: SpitRules) -> "SpitState":
        n = rules.players
        s: SpitState = _new(cls)
        s.rules = rules
        s._phase = LAYOUT
        s._stocks = ((),) * (n * rules.places)
        s._ups = (0,) * (n * rules.places)
        s._mk = None
        s._spit = ((),) * n
        s._piles = ((),) * len(rules.spit_pile_names)
        s._hands = ((),) * n
        s._reserves = ((), ()) if rules.five_card_hand else ()
        s._info = _Info(
            active=(False,) * n,
            gone=(False,) * n,
            took=(False,) * n,
            claimed=(False,) * len(rules.spit_pile_names),
            pending=(),
            slap=False,
            locked=-1,
            emptied=(),
            ranking=(),
            scores=(0,) * n,
            held=((),) * n,
            ender=-1,
            reason="",
        )
        return s

    @classmethod
    def new_game(cls, rules: SpitRules, rng: random.Random) -> "SpitState":
        """A game dealt from the rule set's deck(s) shuffled with `rng`, waiting for the first Spit."""
        deck = list(full_deck()) * rules.decks
        rng.shuffle(deck)
        return cls.deal(rules, deck)

    @classmethod
    def deal(cls, rules: SpitRules, deck: Sequence[Card]) -> "SpitState":
        """The game dealt from `deck` (every card of the game, in order): one card at a time to
        each player in turn, then each lays out their packet as dealt (`Layout`); in the five-card
        hand, as `Deal` does."""
        full = _FULL_COUNTS.get(rules.decks)
        if full is None:
            full = _FULL_COUNTS[rules.decks] = dict(Counter(full_deck() * rules.decks))
        if dict(Counter(deck)) != full:
            raise ImpossiblePosition(f"a deck for this game has exactly {rules.total_cards} cards, "
                                     f"{rules.decks} of each")
        s = cls._blank(rules)
        if rules.five_card_hand:
            return s._dealt_hand(tuple(deck))
        n = rules.players
        info = s._info._replace(held=tuple(tuple(deck[i::n]) for i in range(n)))
        s._info = info
        return s._laid_out(info.held)

    @classmethod
    def position(
        cls,
        rules: SpitRules,
        stocks: Mapping[str, Sequence[str]],
        spit: Mapping[str, str] | None = None,
        piles: Mapping[str, str] | None = None,
        *,
        hands: Mapping[str, str] | None = None,
        reserves: tuple[str, str] | None = None,
        held: Mapping[str, str] | None = None,
        phase: str | None = None,
    ) -> "SpitState":
        """A position written out (tests, examples); its cards need not make a whole deck.

        `stocks[player]` lists stock piles from the player's left, each as codes bottom to top;
        the cards after a `|` are face up, and without `|` only the top is (`"2S 5H | KD"`,
        `"4D |"`: top face down, `""`: an empty space, `back`: an unknown face-down card).
        `spit[player]` the spit cards (refilled singles: the hand), next first; `piles[pile]`
        a spit pile bottom to top; five-card hand: `hands[player]`, `stocks[player]` one pile,
        `reserves` (left, right) next first; `held[player]` cards held outside the layout (taken
        piles; between deals, everything). `phase` is "start", "play" (the default when a spit
        pile has a card) or "layout" (between deals: only `held` counts)."""
        s = cls._blank(rules)
        n = rules.players
        places = rules.places
        stock_rows: list[Cards] = []
        up_rows: list[int] = []
        for p in rules.player_names:
            texts = list(stocks.get(p, ()))
            if len(texts) > places:
                raise ImpossiblePosition(f"{p} has {len(texts)} stock piles; this game has {places}")
            texts += [""] * (places - len(texts))
            for text in texts:
                down, bar, up = text.partition("|")
                if not bar:
                    words = down.split()
                    down, up = " ".join(words[:-1]), " ".join(words[-1:])
                cards = _codes(down) + _codes(up)
                if any(c is None for c in _codes(up)):
                    raise ImpossiblePosition(f"a face-up card of {p} must be named, not 'back'")
                stock_rows.append(cards)
                up_rows.append(len(_codes(up)))
        s._stocks = tuple(stock_rows)
        s._ups = tuple(up_rows)
        s._spit = tuple(tuple(reversed(_codes((spit or {}).get(p, "")))) for p in rules.player_names)
        pile_rows = [()] * len(rules.spit_pile_names)
        for name, text in (piles or {}).items():
            if name not in rules.pile_index:
                raise ImpossiblePosition(f"{name} is not a spit pile of this game")
            cards = _codes(text)
            if cards and cards[-1] is None:
                raise ImpossiblePosition(f"the top of spit pile {name} is face up: name it")
            pile_rows[rules.pile_index[name]] = cards
        s._piles = tuple(pile_rows)
        if rules.five_card_hand:
            s._hands = tuple(_codes((hands or {}).get(p, "")) for p in rules.player_names)
            left, right = reserves or ("", "")
            s._reserves = (tuple(reversed(_codes(left))), tuple(reversed(_codes(right))))
        playing = phase or ("play" if any(s._piles) else "start")
        if playing not in ("start", "play", "layout"):
            raise ImpossiblePosition("a written-out position is at the start of a deal, in play or between deals")
        s._phase = PHASES.index(playing)
        packets = tuple(_codes((held or {}).get(p, "")) for p in rules.player_names)
        if playing == "layout" and (any(s._stocks) or any(s._spit) or any(s._piles) or any(s._hands)):
            raise ImpossiblePosition("between deals the players hold every card: give only `held`")
        s._info = s._info._replace(active=(playing != "layout",) * n, held=packets)
        if playing == "layout":  # a player holding nothing between deals is out of the game
            gone = tuple(not packet for packet in packets)
            s._info = s._info._replace(gone=gone, ranking=tuple(i for i in range(n) if gone[i]))
        s._check_counts()
        return s

    @classmethod
    def observed(
        cls,
        rules: SpitRules,
        stocks: Mapping[str, Sequence[tuple[int, Card | str | None]]],
        spit_cards: Mapping[str, int],
        piles: Mapping[str, Card | str | tuple[int, Card | str]] | None = None,
        *,
        hands: Mapping[str, int] | None = None,
        reserves: tuple[int, int] | None = None,
        ended_by: str | None = None,
    ) -> "SpitState":
        """The position a camera sees: face-down cards and spit cards are unknown (`None`).

        `stocks[player]`: per stock place from the player's left, `(number of cards, face-up top)`
        with top `None` (or `back`) for a face-down top or an empty place; `spit_cards[player]`:
        how many spit cards they hold (refilled singles: cards in hand). `piles`: each spit pile's
        top, or `(number of cards, top)`; none at the start of a deal. Five-card hand:
        `stocks[player] = [(n, None)]`, `hands[player]` the hand's size, `reserves` (left, right)
        sizes with the starter cards counted in. `ended_by`: the player who has just emptied their
        stock, ending the deal (two players: the slap, or the choice, is due). Every card of the
        game must be accounted for."""
        s = cls._blank(rules)
        places = rules.places
        stock_rows: list[Cards] = []
        up_rows: list[int] = []
        for p in rules.player_names:
            given = list(stocks.get(p, ()))
            if len(given) > places:
                raise ImpossiblePosition(f"{p} has {len(given)} stock places; this game has {places}")
            for count, top in given + [(0, None)] * (places - len(given)):
                card = top if isinstance(top, Card) or top is None else parse_code(top)
                if count < 0 or (count == 0 and card is not None):
                    raise ImpossiblePosition(f"{p} has a stock place of {count} cards showing {card}")
                if card is None:
                    stock_rows.append((None,) * count)
                    up_rows.append(0)
                else:
                    stock_rows.append((None,) * (count - 1) + (card,))
                    up_rows.append(1)
        s._stocks = tuple(stock_rows)
        s._ups = tuple(up_rows)
        s._spit = tuple((None,) * _count(spit_cards.get(p, 0), p) for p in rules.player_names)
        pile_rows: list[Cards] = [()] * len(rules.spit_pile_names)
        for name, value in (piles or {}).items():
            if name not in rules.pile_index:
                raise ImpossiblePosition(f"{name} is not a spit pile of this game")
            count, top = value if isinstance(value, tuple) else (1, value)
            card = top if isinstance(top, Card) else parse_code(top)
            if card is None or count < 1:
                raise ImpossiblePosition(f"spit pile {name} shows its top: name it")
            pile_rows[rules.pile_index[name]] = (None,) * (count - 1) + (card,)
        s._piles = tuple(pile_rows)
        if rules.five_card_hand:
            s._hands = tuple((None,) * _count((hands or {}).get(p, 0), p) for p in rules.player_names)
            left, right = reserves or (0, 0)
            s._reserves = ((None,) * _count(left, "the left reserve"), (None,) * _count(right, "the right reserve"))
        s._phase = PLAY if any(s._piles) else START
        s._info = s._info._replace(active=tuple(s.held_count(p) > 0 for p in rules.player_names))
        if s.card_count() != rules.total_cards:
            raise ImpossiblePosition(f"the table shows {s.card_count()} cards; this game has {rules.total_cards}")
        s._check_counts()
        if ended_by is not None:
            i = s._pidx(ended_by)
            if s._phase != PLAY or any(s._stock_of(i)) or rules.refilled_singles or rules.players != 2:
                raise ImpossiblePosition(f"{ended_by} ends the deal only by emptying their stock in play, two players")
            s = s._emptied(i)
        return s

    def with_rules(self, rules: SpitRules) -> "SpitState":
        """The same table under other rules of the same shape (players, decks, stock places,
        five-card hand or not): a house rule changed in the middle of a game."""
        mine = self.rules
        shape = ("players", "decks", "places", "five_card_hand", "refilled_singles")
        changed = [key for key in shape if getattr(mine, key) != getattr(rules, key)]
        if changed:
            raise ImpossiblePosition(f"the table does not fit rules with other {', '.join(changed)}")
        s = self._copy()
        s.rules = rules
        s._mk = None
        return s

    def _check_counts(self) -> None:
        limit = self.rules.decks
        for card, n in self.cards().items():
            if card is not None and n > limit:
                raise ImpossiblePosition(f"{card} is {n} times on the table; the game has it {limit} time(s)")

    # ------------------------------------------------------------------------------- queries

    @property
    def players(self) -> tuple[str, ...]:
        return self.rules.player_names

    @property
    def phase(self) -> str:
        """One of `PHASES`."""
        return PHASES[self._phase]

    def _pidx(self, player: str) -> int:
        try:
            return self.rules.player_index[player]
        except KeyError:
            raise KeyError(f"{player!r} is not a player of this game") from None

    def pile(self, name: str) -> Cards:
        """The cards of a spit pile or stock pile, bottom to top (`None` for an unknown card)."""
        if name in self.rules.pile_index:
            return self._piles[self.rules.pile_index[name]]
        return self._stocks[self._place(name)]

    def _place(self, name: str) -> int:
        rules = self.rules
        ref = rules.stock_index.get(name)
        if ref is None or ref[1] >= rules.places:
            raise KeyError(f"{name!r} is not a pile of this game")
        return ref[0] * rules.places + ref[1]

    def face_up(self, name: str) -> int:
        """How many cards on top of stock pile `name` lie face up (0: the top is face down)."""
        return self._ups[self._place(name)]

    def top(self, name: str) -> Card | None:
        """The visible top of a spit or stock pile; None when it is empty or face down."""
        if name in self.rules.pile_index:
            pile = self._piles[self.rules.pile_index[name]]
            return pile[-1] if pile else None
        f = self._place(name)
        pile = self._stocks[f]
        return pile[-1] if pile and self._ups[f] else None

    def spit_cards(self, player: str) -> Cards:
        """A player's spit cards (refilled singles: their hand), next first."""
        return tuple(reversed(self._spit[self._pidx(player)]))

    def hand(self, player: str) -> Cards:
        """Five-card hand: the player's hidden hand."""
        return self._hands[self._pidx(player)]

    def reserves(self) -> tuple[Cards, Cards]:
        """Five-card hand: the (left, right) reserves, next first."""
        left, right = self._reserves
        return tuple(reversed(left)), tuple(reversed(right))

    def held(self, player: str) -> Cards:
        """Cards a player holds outside stock and spit cards (taken spit piles; between deals,
        everything they hold)."""
        return self._info.held[self._pidx(player)]

    def stock_count(self, player: str) -> int:
        """Cards in the player's stock piles (five-card hand: in their stock pile)."""
        return sum(map(len, self._stock_of(self._pidx(player))))

    def _stock_of(self, i: int) -> tuple[Cards, ...]:
        places = self.rules.places
        return self._stocks[i * places:(i + 1) * places]

    def spit_count(self, player: str) -> int:
        return len(self._spit[self._pidx(player)])

    def held_count(self, player: str) -> int:
        """Every card the player holds: stock, spit cards, hand, taken piles."""
        i = self._pidx(player)
        return (sum(map(len, self._stock_of(i))) + len(self._spit[i]) + len(self._hands[i])
                + len(self._info.held[i]))

    def counts(self) -> dict[str, int]:
        """`held_count` of every player (the `counts` of a `deal_end` event)."""
        return {p: self.held_count(p) for p in self.players}

    def card_count(self) -> int:
        """Every card in the state, held or on the table."""
        return sum(self.cards().values())

    def cards(self) -> Counter[Card | None]:
        """Every card in the state wherever it lies; unknown cards count under `None`."""
        out: Counter[Card | None] = Counter()
        for pile in self._stocks:
            out.update(pile)
        for group in (self._spit, self._piles, self._hands, self._reserves, self._info.held):
            for cards in group:
                out.update(cards)
        return out

    @property
    def scores(self) -> dict[str, int]:
        """Five-card hand: each player's points."""
        return dict(zip(self.players, self._info.scores))

    @property
    def locked_pile(self) -> str | None:
        """The pile a solo spitter must keep spitting onto this deal, if any."""
        locked = self._info.locked
        return None if locked < 0 else self.rules.spit_pile_names[locked]

    @property
    def slap_due(self) -> bool:
        """The deal is over and the players slap the spit piles (`Slap`)."""
        return self._phase == SETTLE and self._info.slap

    def choosers(self) -> tuple[str, ...]:
        """Who may take a spit pile now (`ChoosePile`): any of them, first come first served."""
        pending = self._info.pending
        if not pending or self._phase not in (PLAY, SETTLE):
            return ()
        return tuple(self.players[i] for i in pending[0])

    def is_active(self, player: str) -> bool:
        """The player is still playing this deal (in the game, stock not emptied)."""
        return self._info.active[self._pidx(player)]

    def ranking(self) -> tuple[str, ...]:
        """Players who left the game with no cards, first out first."""
        return tuple(self.players[i] for i in self._info.ranking)

    def deal_ender(self) -> tuple[str, str] | None:
        """Once a deal has ended: (the player who emptied their stock first or chose first, why)."""
        ender = self._info.ender
        return None if ender < 0 else (self.players[ender], self._info.reason)

    def is_over(self) -> bool:
        return self._phase == OVER

    def winner(self) -> str | None:
        """The first player out of the game (five-card hand: the player who reached the target)."""
        if self.rules.five_card_hand:
            best = max(self._info.scores)
            if best < self.rules.target_score:
                return None
            return self.players[self._info.scores.index(best)]
        ranking = self._info.ranking
        return self.players[ranking[0]] if ranking else None

    def _view(self) -> "_View":
        """The spit piles' tops: masks of the ranks playable for a black and a red card, and
        (pile name, top) of every pile with a card; worked out once per state."""
        view = self._mk
        if view is None:
            black = red = 0
            alternate = self.rules.alternate_colours
            names = self.rules.spit_pile_names
            tops = []
            for j, pile in enumerate(self._piles):
                if pile:
                    top: Card = pile[-1]  # type: ignore[assignment]
                    tops.append((names[j], top))
                    mask = _ADJ_MASK[top.rank]
                    if not alternate:
                        black |= mask
                        red |= mask
                    elif top.red:
                        black |= mask
                    else:
                        red |= mask
            view = self._mk = ((black, red), tuple(tops))
        return view

    def _can_move(self, i: int, masks: tuple[int, int]) -> bool:
        rules = self.rules
        if rules.five_card_hand:
            hand = self._hands[i]
            for card in hand:
                if card is not None and masks[card.red] >> card.rank & 1:
                    return True
            return len(hand) < rules.hand_size and bool(self._stocks[i])
        stocks = self._stocks
        ups = self._ups
        empty = buried = False
        for f in range(i * rules.places, (i + 1) * rules.places):
            pile = stocks[f]
            if not pile:
                empty = True
                continue
            up = ups[f]
            if not up:
                return True
            card: Card = pile[-1]  # type: ignore[assignment]
            if masks[card.red] >> card.rank & 1:
                return True
            if up < len(pile):
                buried = True
        if empty and (buried or (rules.refilled_singles and self._spit[i])):
            return True
        if rules.stack_equal:
            return next(self._rearrangements(i, masks, True), None) is not None
        return False

    def can_move(self, player: str) -> bool:
        """The player has a move that prevents a stalemate: a play onto a spit pile, a turn-up,
        a refill, a draw, or moves into spaces that would uncover a face-down card."""
        i = self._pidx(player)
        return self._phase == PLAY and self._info.active[i] and self._can_move(i, self._view()[0])

    def can_anyone_move(self) -> bool:
        """Some player still playing has a move that prevents a stalemate (see `can_move`)."""
        if self._phase != PLAY:
            return False
        masks = self._view()[0]
        for i, active in enumerate(self._info.active):
            if active and self._can_move(i, masks):
                return True
        return False

    def is_stalemate(self) -> bool:
        """Nobody can move and a Spit is due (also at the start of a deal, before the first Spit;
        in the five-card hand a `Reshuffle` comes first when both reserves are empty)."""
        return self._phase == START or (self._phase == PLAY and not self.can_anyone_move())

    # --------------------------------------------------------------------------- move lists

    def legal_moves(self, player: str | None = None) -> Iterator[SpitMove]:
        """Lazily, every legal move (of `player` only, when given; else table moves too),
        most useful first: plays, turn-ups and refills, moves that uncover, other rearrangements,
        pile choices, then the table's move when one is due.

        Moves that no camera could list are given once each: in the layout phase the `Layout`
        of each player's cards as held (a real table shuffles: `shuffled_layout`), at a slap the
        slaps at contact times 0.0 and 0.1 s, a `Reshuffle` in a fixed order."""
        return self._iter_moves(player, False)

    def useful_moves(self, player: str | None = None) -> Iterator[SpitMove]:
        """`legal_moves` without the rearrangements that help nothing (a lone card moved from
        space to space): the moves that count against a stalemate, pile choices and table moves."""
        if player is not None and self._phase == PLAY and not self._info.pending:
            # the usual case inline (as in `_iter_moves`): one call less per query
            rules = self.rules
            i = rules.player_index.get(player)
            if i is not None and not rules.five_card_hand:
                if not self._info.active[i]:
                    return iter(())
                return self._stock_moves(i, True)
        return self._iter_moves(player, True)

    def _iter_moves(self, player: str | None, useful: bool) -> Iterator[SpitMove]:
        if player is not None and self._phase == PLAY and not self._info.pending:
            # the usual case, one generator deep (cheap to start and to drop after `next`)
            i = self._pidx(player)
            if not self._info.active[i]:
                return iter(())
            if self.rules.five_card_hand:
                return self._hand_moves(i)
            return self._stock_moves(i, useful)
        return self._moves(player, useful)

    def _moves(self, player: str | None, useful: bool) -> Iterator[SpitMove]:
        phase = self._phase
        rules = self.rules
        if player is not None:
            mover = self._pidx(player)
            if phase == PLAY and self._info.active[mover]:  # with a pile to choose: not five-card
                yield from self._stock_moves(mover, useful)
            if self._info.pending:
                yield from self._choices(mover)
            return
        if phase == PLAY:
            for i, active in enumerate(self._info.active):
                if active:
                    if rules.five_card_hand:
                        yield from self._hand_moves(i)
                    else:
                        yield from self._stock_moves(i, useful)
            for i in range(rules.players):
                yield from self._choices(i)
            if self.is_stalemate():
                yield from self._spits()
        elif phase == START:
            yield from self._spits()
        elif phase == SETTLE:
            if self._info.slap:
                yield from self._slaps()
            else:
                for i in range(rules.players):
                    yield from self._choices(i)
        elif phase == LAYOUT:
            if rules.five_card_hand:
                yield Deal(tuple(c for c in self._all_cards() if c is not None))
            else:
                yield Layout(self._info.held)

    def table_moves(self) -> Iterator[SpitMove]:
        """Lazily, the table's moves that are due now (a Spit or `Reshuffle` at a stalemate or at
        the start of a deal, the slaps, the new `Layout` or `Deal`), as in `legal_moves`."""
        global _PROVEN_STUCK
        phase = self._phase
        if phase == START or (phase == PLAY and not self.can_anyone_move()):
            if phase == PLAY:
                _PROVEN_STUCK = self  # applying a Spit here need not look for a move again
            yield from self._spits()
        elif phase == SETTLE and self._info.slap:
            yield from self._slaps()
        elif phase == LAYOUT:
            yield from self._moves(None, True)

    def _stock_moves(self, i: int, useful: bool) -> Iterator[SpitMove]:
        global _HINT  # what `apply` needs of a play or turn-up listed, checked here
        rules = self.rules
        plan = _PLANS.get(id(rules))
        if plan is None or plan[0] is not rules:
            plan = _plan(rules)
        player, alternate, refill, stacking, spans = plan[1]
        first, last, names = spans[i]
        masks, tops = self._mk or self._view()
        face_down = None
        empty = False
        for pile, up, name in zip(self._stocks[first:last], self._ups[first:last], names):
            if not pile:
                empty = True
            elif not up:
                if face_down is None:
                    face_down = [(name, pile[-1])]
                else:
                    face_down.append((name, pile[-1]))
            else:
                card: Card = pile[-1]  # type: ignore[assignment]
                rank = card.rank
                if masks[card.red] >> rank & 1:
                    for pile_name, top in tops:
                        if _ADJ_MASK[top.rank] >> rank & 1 and not (alternate and top.red == card.red):
                            key = (card, name, pile_name)
                            move = _PLAYS.get(key)
                            if move is None:
                                move = _PLAYS[key] = Play(player[i], card, name, pile_name)
                            _HINT = (self, move, i, first + names.index(name), pile,
                                     rules.pile_index[pile_name])
                            yield move
        if face_down is not None:
            for turn in face_down:
                move = _TURNS.get(turn)
                if move is None:
                    move = _TURNS[turn] = TurnUp(player[i], *turn)
                if turn[1] is not None:  # a known card: `apply` needs no check again
                    _HINT = (self, move, i, first + names.index(turn[0]))
                yield move
        if empty:
            spit = self._spit[i]
            if refill and spit:
                for f in range(first, last):
                    if not self._stocks[f]:
                        yield Refill(player[i], rules.place_names[f], spit[-1])
        if stacking or (empty and not useful):
            yield from self._rearrangements(i, masks, useful)
        elif empty:  # with a space, rearrangements help when a face-down card lies under face-up ones
            stocks = self._stocks
            ups = self._ups
            for f in range(first, last):
                up = ups[f]
                if up and up < len(stocks[f]):
                    yield from self._rearrangements(i, masks, useful)
                    break

    def _rearrangements(self, i: int, masks: tuple[int, int], useful: bool) -> Iterator[SpitMove]:
        rules = self.rules
        player = rules.player_names[i]
        names = rules.place_names
        stocks = self._stocks
        ups = self._ups
        places = range(i * rules.places, (i + 1) * rules.places)
        empties = [f for f in places if not stocks[f]]
        stacking = rules.stack_equal
        # a space is wanted: some pile has a face-down card under a face-up one
        wants_space = not empties and any(0 < ups[f] < len(stocks[f]) for f in places)
        for f in places:
            pile = stocks[f]
            up = ups[f]
            if not (pile and up):
                continue
            card: Card = pile[-1]  # type: ignore[assignment]
            under = pile[-2] if up > 1 else None
            helps = up < len(pile) or (
                rules.alternate_colours and under is not None and bool(masks[under.red] >> under.rank & 1)
            )
            if helps or not useful:
                for e in empties:
                    key = (player, card, names[f], names[e])
                    space = _SPACES.get(key)
                    if space is None:
                        space = _SPACES[key] = MoveToSpace(*key)
                    yield space
            if stacking and (helps or wants_space or not useful):
                for g in places:
                    other = stocks[g]
                    if g != f and other and ups[g] and other[-1].rank == card.rank:  # type: ignore[union-attr]
                        yield StackEqual(player, card, names[f], names[g])

    def _hand_moves(self, i: int) -> Iterator[SpitMove]:
        rules = self.rules
        player = rules.player_names[i]
        (masks, tops) = self._view()
        alternate = rules.alternate_colours
        seen: set[Card] = set()
        for card in self._hands[i]:
            if card is None or card in seen or not masks[card.red] >> card.rank & 1:
                continue
            seen.add(card)
            for name, top in tops:
                if _ADJ_MASK[top.rank] >> card.rank & 1 and not (alternate and top.red == card.red):
                    yield HandPlay(player, card, name)
        stock = self._stocks[i]
        if len(self._hands[i]) < rules.hand_size and stock:
            yield Draw(player, stock[-1])

    def _choices(self, i: int) -> Iterator[SpitMove]:
        pending = self._info.pending
        if self._phase not in (PLAY, SETTLE) or self._info.slap or not pending or i not in pending[0]:
            return
        player = self.players[i]
        for j, name in enumerate(self.rules.spit_pile_names):
            if self._choosable(j):
                yield ChoosePile(player, name)

    def _choosable(self, j: int) -> bool:
        info = self._info
        return not info.gone[j] and (bool(self._piles[j]) or not info.claimed[j])

    def _spits(self) -> Iterator[SpitMove]:
        rules = self.rules
        names = rules.spit_pile_names
        if rules.five_card_hand:
            left, right = self._reserves
            if left or right:
                yield Spit(tuple((names[j], r[-1]) for j, r in enumerate(self._reserves) if r))
            else:
                rest = self._piles[0][:-1] + self._piles[1][:-1]
                if rest:
                    half = (len(rest) + 1) // 2
                    yield Reshuffle(rest[:half], rest[half:])
            return
        spitters = self._spitters()
        if len(spitters) > 1:
            yield Spit(tuple((names[i], self._spit[i][-1]) for i in spitters))
        elif spitters:
            i = spitters[0]
            locked = self._info.locked
            for j, name in enumerate(names):
                if (locked < 0 and not self._info.gone[j]) or j == locked:
                    yield Spit(((name, self._spit[i][-1]),))

    def _spitters(self) -> list[int]:
        return [i for i, active in enumerate(self._info.active) if active and self._spit[i]]

    def _slaps(self) -> Iterator[SpitMove]:
        a, b = self.players
        for left in self.rules.spit_pile_names:
            for right in self.rules.spit_pile_names:
                yield Slap(((a, left, 0.0), (b, right, 0.1)))
                if left == right:
                    yield Slap(((a, left, 0.1), (b, right, 0.0)))

    def shuffled_layout(self, rng: random.Random) -> Layout | Deal:
        """In the layout phase: the new deal after each player shuffles what they hold with `rng`
        (five-card hand: the whole deck, shuffled)."""
        if self._phase != LAYOUT:
            raise IllegalMove(f"a new layout comes after a deal, not in the {self.phase} phase")
        if self.rules.five_card_hand:
            deck = [c for c in self._all_cards() if c is not None]
            rng.shuffle(deck)
            return Deal(tuple(deck))
        packets = []
        for cards in self._info.held:
            packet = list(cards)
            rng.shuffle(packet)
            packets.append(tuple(packet))
        return Layout(tuple(packets))

    def _all_cards(self) -> list[Card | None]:
        out: list[Card | None] = []
        for pile in self._stocks:
            out.extend(pile)
        for group in (self._spit, self._piles, self._hands, self._reserves, self._info.held):
            for cards in group:
                out.extend(cards)
        return out

    # ------------------------------------------------------------------------------- applying

    def apply(self, move: SpitMove) -> "SpitState":
        """The state after `move`; raises `IllegalMove` (`PrematureSpit` for an early Spit)."""
        kind = type(move)
        if kind is Play:
            hint = _HINT
            if hint[0] is self and hint[1] is move:  # listed by `_stock_moves` of this very position
                result = self._played(hint[2], hint[3], hint[4], hint[5], move.card)  # type: ignore[union-attr]
            else:
                result = self._play(move)  # type: ignore[arg-type]
        elif kind is TurnUp:
            hint = _HINT
            if hint[0] is self and hint[1] is move:  # listed by `_stock_moves` of this very position
                result = self._turned(hint[2], hint[3])
            else:
                result = self._turn_up_fast(move)  # type: ignore[arg-type]
        elif kind is MoveToSpace:
            result = self._move_to_space_fast(move)  # type: ignore[arg-type]
        else:
            result = self._try(move)
        if isinstance(result, IllegalMove):
            try:
                raise result
            finally:
                del result  # else the exception's traceback holds this frame, whose local holds it: a cycle
        return result

    def check(self, move: SpitMove) -> str | None:
        """None when `move` is legal here, else the broken rule in a player's words."""
        result = self._try(move)
        return str(result) if isinstance(result, IllegalMove) else None

    def _try(self, move: SpitMove) -> "SpitState | IllegalMove":
        handler = _HANDLERS.get(type(move))
        if handler is None:
            return IllegalMove(f"{move!r} is not a move of Spit")
        return handler(self, move)

    def _mover(self, player: str) -> int | IllegalMove:
        i = self.rules.player_index.get(player)
        if i is None:
            return IllegalMove(f"{player!r} is not a player of this game")
        phase = self._phase
        if phase != PLAY:
            return IllegalMove(_PHASE_WORDS[phase])
        info = self._info
        if not info.active[i]:
            if info.gone[i]:
                return IllegalMove(f"{player} is out of the game")
            return IllegalMove(f"{player} has played out their stock and sits out this deal")
        return i

    def _source(self, i: int, name: str, card: Card | None) -> tuple[int, Cards, int] | IllegalMove:
        """Checks that `card` is the face-up top of the player's stock pile `name`; gives the
        place (see `_own_place`), its cards and its number of face-up cards."""
        err = self._own_place(i, name)
        if isinstance(err, IllegalMove):
            return err
        f = err
        pile = self._stocks[f]
        up = self._ups[f]
        if not pile:
            return IllegalMove(f"{name} is empty")
        if not up:
            return IllegalMove(f"the top of {name} is face down")
        if pile[-1] is not card:
            return IllegalMove(f"the top of {name} is {pile[-1]}, not {card}")
        return f, pile, up

    def _own_place(self, i: int, name: str) -> int | IllegalMove:
        """The index in `_stocks` of player `i`'s stock place `name`."""
        rules = self.rules
        if rules.five_card_hand:
            return IllegalMove("in the five-card hand cards are played from the hand")
        ref = rules.stock_index.get(name)
        if ref is None:
            return IllegalMove(f"{name} is not a stock pile")
        owner, k = ref
        if owner != i:
            return IllegalMove(f"{name} is {rules.player_names[owner]}'s stock pile")
        places = rules.places
        if k >= places:
            return IllegalMove(f"only {NUMBER_WORDS.get(places, places)} stock piles")
        return i * places + k

    def _onto(self, name: str, card: Card) -> int | IllegalMove:
        """Checks that `card` may be played onto spit pile `name`."""
        j = self.rules.pile_index.get(name)
        if j is None:
            return IllegalMove(f"{name} is not a spit pile")
        pile = self._piles[j]
        if not pile:
            return IllegalMove(f"there is no card on {name} to play onto")
        top = pile[-1]
        if not _ADJ_MASK[top.rank] >> card.rank & 1:  # type: ignore[union-attr]
            return IllegalMove(f"{card} is not next to {top}")
        if self.rules.alternate_colours and top.red == card.red:  # type: ignore[union-attr]
            return IllegalMove(f"{card} is the same colour as {top}: colours alternate")
        return j

    def _copy(self) -> "SpitState":
        s: SpitState = _new(SpitState)
        s.rules = self.rules
        s._phase = self._phase
        s._stocks = self._stocks
        s._ups = self._ups
        s._spit = self._spit
        s._piles = self._piles
        s._hands = self._hands
        s._reserves = self._reserves
        s._info = self._info
        s._mk = self._mk
        return s

    def _set_place(self, f: int, pile: Cards, up: int) -> None:
        stocks = self._stocks
        self._stocks = stocks[:f] + (pile,) + stocks[f + 1:]
        ups = self._ups
        self._ups = ups[:f] + (up,) + ups[f + 1:]

    def _set_piles(self, piles: tuple[Cards, ...]) -> None:
        self._piles = piles
        self._mk = None

    def _reveal(self, card: Card | None, what: str) -> Card | IllegalMove:
        """The card named for an unknown card: it must be named, and be one the game still lacks."""
        if card is None:
            return IllegalMove(f"say which card {what}")
        if self.cards()[card] >= self.rules.decks:
            return IllegalMove(f"{card} is already elsewhere on the table")
        return card

    def _play(self, m: Play) -> "SpitState | IllegalMove":
        # the hot path, checked inline; each failed check lets the general check name the rule
        rules = self.rules
        i = rules.player_index.get(m.player)
        if i is None or self._phase != PLAY or not self._info.active[i]:
            return self._mover(m.player)  # type: ignore[return-value]
        ref = rules.stock_index.get(m.source)
        card = m.card
        if ref is None or ref[0] != i or ref[1] >= rules.places or rules.five_card_hand:
            return self._own_place(i, m.source)  # type: ignore[return-value]
        f = i * rules.places + ref[1]
        pile = self._stocks[f]
        if not pile or not self._ups[f] or pile[-1] is not card:
            return self._source(i, m.source, card)  # type: ignore[return-value]
        j = rules.pile_index.get(m.to)
        target = self._piles[j] if j is not None else ()
        if (not target or not _ADJ_MASK[target[-1].rank] >> card.rank & 1  # type: ignore[union-attr]
                or (rules.alternate_colours and target[-1].red == card.red)):  # type: ignore[union-attr]
            return self._onto(m.to, card)  # type: ignore[return-value]
        return self._played(i, f, pile, j, card)  # type: ignore[arg-type]

    def _played(self, i: int, f: int, pile: Cards, j: int, card: Card) -> "SpitState":
        s: SpitState = _new(SpitState)
        s.rules = rules = self.rules
        s._phase = PLAY
        stocks = self._stocks
        s._stocks = stocks = stocks[:f] + (pile[:-1],) + stocks[f + 1:]
        ups = self._ups
        s._ups = ups[:f] + (ups[f] - 1,) + ups[f + 1:]
        spit = s._spit = self._spit
        piles = self._piles
        s._piles = piles[:j] + (piles[j] + (card,),) + piles[j + 1:]
        s._hands = self._hands
        s._reserves = self._reserves
        s._info = self._info
        view = self._mk
        if view is not None and not rules.alternate_colours and len(view[1]) == len(piles):
            # the view updated in place of `_view`: every pile has a top, pile j's is now `card`
            tops = view[1]
            tops = tops[:j] + ((tops[j][0], card),) + tops[j + 1:]
            mask = 0
            for _, top in tops:
                mask |= _ADJ_MASK[top.rank]
            s._mk = ((mask, mask), tops)
        else:
            s._mk = None
        if len(pile) == 1:
            places = rules.places
            if not any(stocks[i * places:(i + 1) * places]) and not (rules.refilled_singles and spit[i]):
                return s._emptied(i)
        return s if spit[i] else s._after_move()  # the mover still has spit cards: no deal end

    def _turn_up_fast(self, m: TurnUp) -> "SpitState | IllegalMove":
        # the hot path of a known face-down card, checked inline; any other case goes to `_turn_up`
        rules = self.rules
        i = rules.player_index.get(m.player)
        if i is None or self._phase != PLAY or not self._info.active[i] or rules.five_card_hand:
            return self._turn_up(m)
        ref = rules.stock_index.get(m.pile)
        places = rules.places
        if ref is None or ref[0] != i or ref[1] >= places:
            return self._turn_up(m)
        f = i * places + ref[1]
        pile = self._stocks[f]
        ups = self._ups
        if not pile or ups[f] or pile[-1] is None or (m.card is not None and m.card is not pile[-1]):
            return self._turn_up(m)
        return self._turned(i, f)

    def _turned(self, i: int, f: int) -> "SpitState":
        """Player `i` turns up the known face-down top of place `f` (checked)."""
        ups = self._ups
        s: SpitState = _new(SpitState)
        s.rules = self.rules
        s._phase = PLAY
        s._stocks = self._stocks  # the card turned up is the card known: only the face-up count changes
        s._ups = ups[:f] + (1,) + ups[f + 1:]
        s._spit = spit = self._spit
        s._piles = self._piles
        s._hands = self._hands
        s._reserves = self._reserves
        s._info = self._info
        s._mk = self._mk
        return s if spit[i] else s._after_move()

    def _move_to_space_fast(self, m: MoveToSpace) -> "SpitState | IllegalMove":
        # the hot path, checked inline; any failed check goes to `_move_to_space` to name the rule
        rules = self.rules
        i = rules.player_index.get(m.player)
        if i is None or self._phase != PLAY or not self._info.active[i] or rules.five_card_hand:
            return self._move_to_space(m)
        stock_index = rules.stock_index
        ref = stock_index.get(m.source)
        dest = stock_index.get(m.to)
        places = rules.places
        if (ref is None or dest is None or ref[0] != i or dest[0] != i or ref[1] >= places
                or dest[1] >= places):
            return self._move_to_space(m)
        f = i * places + ref[1]
        e = i * places + dest[1]
        stocks = self._stocks
        pile = stocks[f]
        ups = self._ups
        up = ups[f]
        card = m.card
        if not pile or not up or pile[-1] is not card or stocks[e]:
            return self._move_to_space(m)
        new_stocks = list(stocks)
        new_stocks[f] = pile[:-1]
        new_stocks[e] = (card,)
        new_ups = list(ups)
        new_ups[f] = up - 1
        new_ups[e] = 1
        s: SpitState = _new(SpitState)
        s.rules = rules
        s._phase = PLAY
        s._stocks = tuple(new_stocks)
        s._ups = tuple(new_ups)
        s._spit = spit = self._spit
        s._piles = self._piles
        s._hands = self._hands
        s._reserves = self._reserves
        s._info = self._info
        s._mk = self._mk
        return s if spit[i] else s._after_move()

    def _turn_up(self, m: TurnUp) -> "SpitState | IllegalMove":
        i = self._mover(m.player)
        if isinstance(i, IllegalMove):
            return i
        f = self._own_place(i, m.pile)
        if isinstance(f, IllegalMove):
            return f
        pile = self._stocks[f]
        if not pile:
            return IllegalMove(f"{m.pile} is empty")
        if self._ups[f]:
            return IllegalMove(f"the top of {m.pile} is already face up")
        card = pile[-1]
        if card is None:
            card = self._reveal(m.card, f"was turned up on {m.pile}")
            if isinstance(card, IllegalMove):
                return card
        elif m.card is not None and m.card is not card:
            return IllegalMove(f"the face-down top of {m.pile} is {card}, not {m.card}")
        s = self._copy()
        s._set_place(f, pile[:-1] + (card,), 1)
        return s if s._spit[i] else s._after_move()

    def _move_to_space(self, m: MoveToSpace) -> "SpitState | IllegalMove":
        i = self._mover(m.player)
        if isinstance(i, IllegalMove):
            return i
        src = self._source(i, m.source, m.card)
        if isinstance(src, IllegalMove):
            return src
        e = self._own_place(i, m.to)
        if isinstance(e, IllegalMove):
            return e
        if self._stocks[e]:
            return IllegalMove(f"{m.to} is not an empty space")
        f, pile, up = src
        s = self._copy()
        s._set_place(f, pile[:-1], up - 1)
        s._set_place(e, (m.card,), 1)
        return s if s._spit[i] else s._after_move()

    def _stack_equal(self, m: StackEqual) -> "SpitState | IllegalMove":
        if not self.rules.stack_equal:
            return IllegalMove("stock cards may not be stacked on each other in this game")
        i = self._mover(m.player)
        if isinstance(i, IllegalMove):
            return i
        src = self._source(i, m.source, m.card)
        if isinstance(src, IllegalMove):
            return src
        g = self._own_place(i, m.to)
        if isinstance(g, IllegalMove):
            return g
        f, pile, up = src
        dest = self._stocks[g]
        if g == f:
            return IllegalMove(f"{m.card} is already on {m.to}")
        if not dest:
            return IllegalMove(f"{m.to} is empty: that is a move into a space")
        if not self._ups[g]:
            return IllegalMove(f"the top of {m.to} is face down")
        if dest[-1].rank != m.card.rank:  # type: ignore[union-attr]
            return IllegalMove(f"{m.card} is not of the same rank as {dest[-1]}")
        s = self._copy()
        s._set_place(f, pile[:-1], up - 1)
        s._set_place(g, dest + (m.card,), self._ups[g] + 1)
        return s._after_move()

    def _refill(self, m: Refill) -> "SpitState | IllegalMove":
        if not self.rules.refilled_singles:
            return IllegalMove("stock piles are not refilled from the hand in this game")
        i = self._mover(m.player)
        if isinstance(i, IllegalMove):
            return i
        f = self._own_place(i, m.pile)
        if isinstance(f, IllegalMove):
            return f
        if self._stocks[f]:
            return IllegalMove(f"{m.pile} is not an empty space")
        spit = self._spit[i]
        if not spit:
            return IllegalMove(f"{m.player} has no cards left in hand")
        card = spit[-1]
        if card is None:
            card = self._reveal(m.card, f"{m.player} put on {m.pile}")
            if isinstance(card, IllegalMove):
                return card
        elif m.card is not None and m.card is not card:
            return IllegalMove(f"{m.player}'s next card in hand is {card}, not {m.card}")
        s = self._copy()
        s._set_place(f, (card,), 1)
        s._spit = _put(s._spit, i, spit[:-1])
        return s._after_move()

    def _after_move(self) -> "SpitState":
        """After a move in play: when nobody still playing has spit cards left, a stalemate ends
        the deal (the player with fewer stock cards chooses first)."""
        info = self._info
        for i, active in enumerate(info.active):
            if active and self._spit[i]:
                return self
        if self.can_anyone_move():
            return self
        players = [i for i, active in enumerate(info.active) if active]
        stock = {i: sum(map(len, self._stock_of(i))) for i in players}
        groups: list[tuple[int, ...]] = [info.pending[0]] if info.pending else []
        for n in sorted(set(stock.values())):
            groups.append(tuple(i for i in players if stock[i] == n))
        first = groups[0][0]
        s = self._copy()
        s._phase = SETTLE
        slap = (
            self.rules.players == 2
            and not self.rules.free_choice
            and len(groups) == 1
            and all(self._piles)
        )
        s._info = info._replace(pending=() if slap else tuple(groups), slap=slap, ender=first,
                                reason="no spit cards left")
        return s._settled_if_done()

    def _emptied(self, i: int) -> "SpitState":
        """Player `i` has just emptied their stock."""
        info = self._info
        active = _put(info.active, i, False)
        self._info = info = info._replace(active=active, emptied=info.emptied + (i,),
                                          ender=info.ender if info.ender >= 0 else i,
                                          reason=info.reason or "stock emptied")
        if self.rules.players == 2:
            self._phase = SETTLE
            if not all(self._piles):
                # one spit pile: the first out takes nothing, the other takes the pile
                self._info = info._replace(took=_put(info.took, i, True))
                return self._settled_if_done()
            if self.rules.free_choice:
                self._info = info._replace(pending=((i,),))
            else:
                self._info = info._replace(slap=True)
            return self
        pending = info.pending
        group = pending[0] + (i,) if pending else (i,)
        self._info = info._replace(pending=(group,) + pending[1:])
        if sum(active) <= 1:
            self._phase = SETTLE
            return self._settled_if_done()
        return self._after_move()

    def _spit_move(self, m: Spit) -> "SpitState | IllegalMove":
        phase = self._phase
        if phase not in (START, PLAY):
            return IllegalMove(_PHASE_WORDS[phase])
        if phase == PLAY and self is not _PROVEN_STUCK and self.can_anyone_move():
            for move in self._moves(None, True):  # pragma: no branch  (a move exists)
                if move.player is not None and not isinstance(move, ChoosePile):
                    return PrematureSpit(f"no Spit yet: {move.describe()}", move)
        rules = self.rules
        names = rules.spit_pile_names
        given: dict[int, Card | None] = {}
        for name, card in m.cards:
            j = rules.pile_index.get(name)
            if j is None:
                return IllegalMove(f"{name} is not a spit pile")
            if j in given:
                return IllegalMove(f"only one card is spat onto {name}")
            given[j] = card
        if rules.five_card_hand:
            return self._spit_reserves(given)
        spitters = self._spitters()
        info = self._info
        locked = info.locked
        if not spitters:
            return IllegalMove("nobody has spit cards left")
        if len(spitters) > 1:
            wanted = {i: i for i in spitters}
            for j in given:
                if j not in wanted.values():
                    return IllegalMove(f"nobody spits onto {names[j]}: each spits onto the pile they started")
            for i in spitters:
                if i not in given:
                    return IllegalMove(f"{self.players[i]} spits onto {names[i]} too")
        else:
            i = spitters[0]
            player = self.players[i]
            if len(given) != 1:
                return IllegalMove(f"{player} spits alone, onto one pile")
            (j,) = given
            if locked >= 0 and j != locked:
                return IllegalMove(f"{player} spits alone onto {names[locked]} for the rest of the deal")
            if info.gone[j]:
                return IllegalMove(f"{names[j]} is not in use")
            wanted = {i: j}
            locked = j
        s = self._copy()
        piles = list(self._piles)
        spit = list(self._spit)
        for i, j in wanted.items():
            card = spit[i][-1]
            named = given[j]
            if card is None:
                card = s._reveal(named, f"{self.players[i]} spat")
                if isinstance(card, IllegalMove):
                    return card
            elif named is not None and named is not card:
                return IllegalMove(f"{self.players[i]}'s next spit card is {card}, not {named}")
            piles[j] = piles[j] + (card,)
            spit[i] = spit[i][:-1]
            s._set_piles(tuple(piles))
        s._spit = tuple(spit)
        s._phase = PLAY
        if locked != info.locked:
            s._info = info._replace(locked=locked)
        return s._after_move()

    def _spit_reserves(self, given: dict[int, Card | None]) -> "SpitState | IllegalMove":
        reserves = self._reserves
        names = self.rules.spit_pile_names
        if not any(reserves):
            return IllegalMove("the reserves are empty: reshuffle the centre piles first")
        for j, reserve in enumerate(reserves):
            if bool(reserve) != (j in given):
                return IllegalMove(f"a card from the reserve beside {names[j]} goes onto {names[j]}"
                                   if reserve else f"the reserve beside {names[j]} is empty")
        s = self._copy()
        piles = list(self._piles)
        new_reserves = list(reserves)
        for j, named in given.items():
            card = reserves[j][-1]
            if card is None:
                card = s._reveal(named, f"was turned onto {names[j]}")
                if isinstance(card, IllegalMove):
                    return card
            elif named is not None and named is not card:
                return IllegalMove(f"the next card of the reserve beside {names[j]} is {card}, not {named}")
            piles[j] = piles[j] + (card,)
            new_reserves[j] = reserves[j][:-1]
            s._set_piles(tuple(piles))
        s._reserves = tuple(new_reserves)
        s._phase = PLAY
        return s

    def _reshuffle(self, m: Reshuffle) -> "SpitState | IllegalMove":
        if not self.rules.five_card_hand:
            return IllegalMove("only the five-card hand reshuffles the centre piles")
        if self._phase != PLAY:
            return IllegalMove(_PHASE_WORDS[self._phase])
        if any(self._reserves):
            return IllegalMove("the reserves still have cards")
        if self.can_anyone_move():
            return IllegalMove("a player can still move: no reshuffle yet")
        left, right = self._piles
        beneath = left[:-1] + right[:-1]
        if not m.left + m.right:
            return IllegalMove("a reshuffle makes reserves of the cards under the tops")
        wrong = _same_cards(m.left + m.right, beneath, "the centre piles")
        if wrong:
            return IllegalMove(wrong)
        s = self._copy()
        s._set_piles((left[-1:], right[-1:]))
        s._reserves = (tuple(m.left), tuple(m.right))
        return s

    def _hand_play(self, m: HandPlay) -> "SpitState | IllegalMove":
        if not self.rules.five_card_hand:
            return IllegalMove("cards are played from the stock piles, not from the hand")
        i = self._mover(m.player)
        if isinstance(i, IllegalMove):
            return i
        hand = self._hands[i]
        if m.card in hand:
            at = hand.index(m.card)
        elif None in hand and self.cards()[m.card] < self.rules.decks:
            at = hand.index(None)
        else:
            return IllegalMove(f"{m.player} has no {m.card} in hand")
        j = self._onto(m.to, m.card)
        if isinstance(j, IllegalMove):
            return j
        s = self._copy()
        s._hands = _put(s._hands, i, hand[:at] + hand[at + 1:])
        s._set_piles(_put(s._piles, j, s._piles[j] + (m.card,)))
        if not s._hands[i] and not s._stocks[i]:
            return s._hand_won(i)
        return s

    def _draw(self, m: Draw) -> "SpitState | IllegalMove":
        if not self.rules.five_card_hand:
            return IllegalMove("only the five-card hand draws cards into a hand")
        i = self._mover(m.player)
        if isinstance(i, IllegalMove):
            return i
        hand = self._hands[i]
        stock = self._stocks[i]
        if len(hand) >= self.rules.hand_size:
            return IllegalMove(f"{m.player} already holds {NUMBER_WORDS.get(len(hand), len(hand))} cards")
        if not stock:
            return IllegalMove(f"{m.player}'s stock is empty")
        card = stock[-1]
        if card is None:
            if m.card is not None:
                card = self._reveal(m.card, "was drawn")
                if isinstance(card, IllegalMove):
                    return card
        elif m.card is not None and m.card is not card:
            return IllegalMove(f"the top of {m.player}'s stock is {card}, not {m.card}")
        s = self._copy()
        s._set_place(i, stock[:-1], 0)
        s._hands = _put(s._hands, i, hand + (card,))
        return s

    def _hand_won(self, i: int) -> "SpitState":
        """Five-card hand: player `i` has emptied hand and stock and scores the opponent's cards."""
        info = self._info
        other = 1 - i
        points = len(self._hands[other]) + len(self._stocks[other])
        scores = _put(info.scores, i, info.scores[i] + points)
        self._info = info._replace(scores=scores, ender=i, reason="hand and stock emptied",
                                   active=(False, False))
        self._phase = OVER if scores[i] >= self.rules.target_score else LAYOUT
        return self

    def _deal_move(self, m: Deal) -> "SpitState | IllegalMove":
        if not self.rules.five_card_hand:
            return IllegalMove("each player lays out their own cards: that is a Layout")
        if self._phase != LAYOUT:
            return IllegalMove(_PHASE_WORDS[self._phase])
        wrong = _same_cards(m.cards, tuple(self._all_cards()), "the table")
        if wrong:
            return IllegalMove(wrong)
        return SpitState._blank(self.rules)._with_scores(self._info.scores)._dealt_hand(tuple(m.cards))

    def _with_scores(self, scores: tuple[int, ...]) -> "SpitState":
        self._info = self._info._replace(scores=scores)
        return self

    def _dealt_hand(self, deck: tuple[Card | None, ...]) -> "SpitState":
        """Five-card hand: each player's stock (its top cards are the hand), then the two reserves
        with a starter card on top of each."""
        rules = self.rules
        n = rules.five_card_stock
        size = rules.reserve_size + 1
        stocks = (deck[:n], deck[n:2 * n])
        hand = rules.hand_size
        self._stocks = tuple(stock[:-hand] for stock in stocks)
        self._ups = (0, 0)
        self._hands = tuple(stock[-hand:] for stock in stocks)
        self._reserves = (deck[2 * n:2 * n + size], deck[2 * n + size:2 * n + 2 * size])
        self._set_piles(((), ()))
        self._phase = START
        self._info = self._info._replace(active=(True, True), ender=-1, reason="")
        return self

    def _slap(self, m: Slap) -> "SpitState | IllegalMove":
        if not self.slap_due:
            return IllegalMove("no slap now: " + (_PHASE_WORDS[self._phase] if self._phase != SETTLE
                                                  else "the spit piles are chosen, not slapped"))
        rules = self.rules
        touch: dict[int, tuple[int, float]] = {}
        for player, name, t in m.touches:
            i = rules.player_index.get(player)
            if i is None:
                return IllegalMove(f"{player!r} is not a player of this game")
            j = rules.pile_index.get(name)
            if j is None:
                return IllegalMove(f"{name} is not a spit pile")
            if i in touch:
                return IllegalMove(f"{player} slaps one pile only")
            touch[i] = (j, float(t))
        for i, player in enumerate(self.players):
            if i not in touch:
                return IllegalMove(f"{player} must slap a pile too")
        (ja, ta), (jb, tb) = touch[0], touch[1]
        owner = [-1, -1]
        if ja != jb:
            owner[ja], owner[jb] = 0, 1
        else:
            if ta == tb:
                under = rules.player_index.get(m.underneath or "")
                if under is None:
                    return IllegalMove(f"both hands reached {rules.spit_pile_names[ja]} in the same instant: "
                                       "say whose hand is underneath")
                first = under
            else:
                first = 0 if ta < tb else 1
            owner[ja] = first
            owner[1 - ja] = 1 - first
        s = self._copy()
        info = self._info
        held = list(info.held)
        for j, i in enumerate(owner):
            held[i] = held[i] + self._piles[j]
        s._set_piles(((), ()))
        s._info = info._replace(held=tuple(held), took=(True, True), claimed=(True, True), slap=False)
        return s._settled_if_done()

    def _choose(self, m: ChoosePile) -> "SpitState | IllegalMove":
        rules = self.rules
        i = rules.player_index.get(m.player)
        if i is None:
            return IllegalMove(f"{m.player!r} is not a player of this game")
        info = self._info
        if self._phase not in (PLAY, SETTLE):
            return IllegalMove(_PHASE_WORDS[self._phase])
        if info.slap:
            return IllegalMove("the spit piles are slapped, not chosen, in this game")
        if not info.pending or i not in info.pending[0]:
            if info.took[i]:
                return IllegalMove(f"{m.player} has already taken a pile")
            first = " or ".join(self.players[x] for x in info.pending[0]) if info.pending else ""
            if any(i in group for group in info.pending):
                return IllegalMove(f"{first} chooses first")
            if self._phase == SETTLE:
                return IllegalMove(f"{first} chooses; {m.player} takes what is left")
            return IllegalMove(f"{m.player} chooses a pile only once out of stock")
        j = rules.pile_index.get(m.pile)
        if j is None:
            return IllegalMove(f"{m.pile} is not a spit pile")
        if not self._choosable(j):
            return IllegalMove(f"{m.pile} has already been taken" if info.claimed[j] else f"{m.pile} is not in use")
        group = tuple(x for x in info.pending[0] if x != i)
        pending = ((group,) if group else ()) + info.pending[1:]
        s = self._copy()
        s._set_piles(_put(self._piles, j, ()))
        s._info = info._replace(
            held=_put(info.held, i, info.held[i] + self._piles[j]),
            took=_put(info.took, i, True),
            claimed=_put(info.claimed, j, True),
            pending=pending,
        )
        if s._phase == SETTLE:
            return s._settled_if_done()
        return s._after_move()  # the pile taken may leave the players still playing stuck

    def _settled_if_done(self) -> "SpitState":
        """In the settling phase: when one player is left without a pile, they take every pile
        left; then everyone picks up stock and spit cards for the next layout."""
        info = self._info
        playing = [i for i, gone in enumerate(info.gone) if not gone]
        untaken = [i for i in playing if not info.took[i]]
        if len(untaken) > 1:
            return self
        held = list(info.held)
        if untaken:
            last = untaken[0]
            for pile in self._piles:
                held[last] = held[last] + pile
        for i in playing:
            held[i] = held[i] + sum(self._stock_of(i), ()) + self._spit[i]
        self._stocks = ((),) * len(self._stocks)
        self._ups = (0,) * len(self._ups)
        self._spit = ((),) * len(self._spit)
        self._set_piles(((),) * len(self._piles))
        order = list(info.emptied) + [i for i in playing if i not in info.emptied]
        ranking = info.ranking + tuple(i for i in order if not held[i])
        gone = tuple(g or not held[i] for i, g in enumerate(info.gone))
        self._info = info._replace(held=tuple(held), gone=gone, ranking=ranking, pending=(), slap=False,
                                   active=(False,) * len(gone))
        self._phase = OVER if gone.count(False) <= 1 else LAYOUT
        return self

    def _layout(self, m: Layout) -> "SpitState | IllegalMove":
        if self.rules.five_card_hand:
            return IllegalMove("the five-card hand is dealt from the whole deck: that is a Deal")
        if self._phase != LAYOUT:
            return IllegalMove(_PHASE_WORDS[self._phase])
        if len(m.cards) != self.rules.players:
            return IllegalMove(f"a layout has one packet for each of the {self.rules.players} players")
        for player, packet, held in zip(self.players, m.cards, self._info.held):
            wrong = _same_cards(packet, held, player)
            if wrong:
                return IllegalMove(wrong)
        if any(None in packet for packet in m.cards):  # unknown cards: no card more often than the decks have it
            counts = Counter(card for packet in m.cards for card in packet)
            for card, n in counts.items():
                if card is not None and n > self.rules.decks:
                    return IllegalMove(f"{card} is laid out {n} times; the game has it {self.rules.decks} time(s)")
        return self._copy()._laid_out(m.cards)

    def _laid_out(self, packets: tuple[Cards, ...]) -> "SpitState":
        """Each player deals their packet into the stock piles row by row (pile k takes up to its
        size); the rest, next first, are their spit cards."""
        sizes = self.rules.layout
        order = _DEAL_ORDER.get(sizes)
        if order is None:
            rows = [(row, k) for row in range(max(sizes)) for k, size in enumerate(sizes) if size > row]
            order = _DEAL_ORDER[sizes] = tuple(
                tuple(at for at, (_, pile) in enumerate(rows) if pile == k) for k in range(len(sizes)))
        laid = sum(sizes)
        stocks: list[Cards] = []
        ups: list[int] = []
        spit = []
        for packet in packets:
            n = len(packet)
            piles = [tuple([packet[at] for at in places if at < n]) for places in order]
            stocks.extend(piles)
            ups.extend(1 if pile else 0 for pile in piles)
            spit.append(tuple(reversed(packet[laid:])))
        self._stocks = tuple(stocks)
        self._ups = tuple(ups)
        self._spit = tuple(spit)
        self._set_piles(((),) * len(self._piles))
        info = self._info
        n = len(packets)
        self._info = info._replace(
            active=tuple(not g for g in info.gone),
            took=(False,) * n,
            claimed=(False,) * len(self._piles),
            pending=(),
            slap=False,
            locked=-1,
            emptied=(),
            held=((),) * n,
            ender=-1,
            reason="",
        )
        self._phase = START
        return self

    def __repr__(self) -> str:
        return f"<SpitState {self.rules.name} {self.phase} {self.counts()}>"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SpitState):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in _STATE_FIELDS)

    def __hash__(self) -> int:
        return hash((self._phase, self._stocks, self._ups, self._spit, self._piles, self._hands, self._reserves))


_STATE_FIELDS: Final = tuple(name for name in SpitState.__slots__ if name != "_mk")
"""What makes a position (the view of the spit piles is a cache)."""

_PHASE_WORDS: Final = {
    START: "play starts with Spit!",
    PLAY: "the deal is still being played",
    SETTLE: "the deal is over: the spit piles are being taken",
    LAYOUT: "the deal is over: a new layout comes next",
    OVER: "the game is over",
}

_HANDLERS: Final = {
    Play: SpitState._play,
    TurnUp: SpitState._turn_up,
    MoveToSpace: SpitState._move_to_space,
    StackEqual: SpitState._stack_equal,
    Refill: SpitState._refill,
    HandPlay: SpitState._hand_play,
    Draw: SpitState._draw,
    Spit: SpitState._spit_move,
    Reshuffle: SpitState._reshuffle,
    Slap: SpitState._slap,
    ChoosePile: SpitState._choose,
    Layout: SpitState._layout,
    Deal: SpitState._deal_move,
}


def _put(items: tuple, index: int, value: object) -> tuple:  # type: ignore[type-arg]
    return items[:index] + (value,) + items[index + 1:]


def _codes(text: str) -> Cards:
    return tuple(parse_code(word) for word in text.split())


def _count(n: int, who: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ImpossiblePosition(f"{who} cannot hold {n!r} cards")
    return n


def _same_cards(given: Sequence[Card | None], held: Sequence[Card | None], who: str) -> str | None:
    """None when `given` can be exactly the cards `held` (unknown cards, `None`, match any)."""
    if len(given) != len(held):
        return f"{who} holds {len(held)} cards, not {len(given)}"
    if dict(Counter(given)) == dict(Counter(held)):  # plain dicts compare faster than Counters
        return None
    known_given = Counter(c for c in given if c is not None)
    known_held = Counter(c for c in held if c is not None)
    unknown = len(held) - sum(known_held.values())
    extra = known_given - known_held
    if sum(extra.values()) > unknown:
        return f"{who} does not hold {min(extra)}"
    return None
