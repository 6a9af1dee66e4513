"""Classic Spit's rule set: one frozen, validated configuration whose fields are RULES.md's variants.

Every variant of the RULES.md table is a field of `SpitRules`; presets are instances, and options
combine with `dataclasses.replace` (which validates again):

>>> from dataclasses import replace
>>> rules = replace(SpitRules(), alternate_colours=True, stock_piles=4)
>>> rules.layout, rules.alternate_colours, rules.spit_pile_names
((1, 2, 3, 4), True, ('L', 'R'))
>>> replace(SpitRules(), stock_piles=4, long_middle=True)
Traceback (most recent call last):
...
referee.errors.ContradictoryOptions: the long middle pile needs five stock piles (it is the middle one)
>>> PRESETS["three-players"].player_names, PRESETS["three-players"].spit_pile_names
(('A', 'B', 'C'), ('S1', 'S2', 'S3'))
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Final

from referee.errors import ContradictoryOptions

if TYPE_CHECKING:
    from referee.rules.spit_state import SpitState

PLAYER_LETTERS: Final = "ABCDEFGH"
NUMBER_WORDS: Final = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
_FIVE_CARD_ONLY: Final = {"hand_size": 5, "reserve_size": 10, "target_score": 25}


@dataclass(frozen=True)
class SpitRules:
    """The options of one Spit rule set; built through the constructor or `dataclasses.replace`,
    which both validate (`ContradictoryOptions` for options that cannot hold together).

    Fields (RULES.md "Variants"):

    - `players` (2..8) and `decks` (one deck per two players; 2 with two players is "two decks").
    - `stock_piles`: 4 ("Chinese spit" 1,2,3,4 and refilled singles), 5 (classic), 6 (two decks only).
    - `long_middle`: the middle of five stock piles has 11 cards, the others one each.
    - `refilled_singles`: every stock pile is one card, refilled from the hand (the spit cards).
    - `free_choice`: no slap; the first player out chooses a spit pile (always so with more players).
    - `two_hands`: both hands may be used, still one card per motion (`hands` is 1 or 2).
    - `alternate_colours`: a card on a spit pile must also be of the other colour.
    - `stack_equal`: a face-up stock card may go onto another own stock pile whose top has its rank.
    - `five_card_hand` (Speed-like) with `hand_size`, `reserve_size` (10 or 5) and `target_score`.

    Derived, read-only: `layout` (cards per stock pile), `player_names`, `spit_pile_names`,
    `stock_names` (per player), `places` (stock places per player), `place_names` (all, player
    by player), `hands`, `five_card_stock` (the five-card hand's stock size) and
    the name lookups `player_index`, `pile_index`, `stock_index` (place name -> (player, place)).
    """

    name: str = "classic"
    description: str = "classic Spit: two players, one deck, five stock piles of 1 to 5 cards"
    players: int = 2
    decks: int = 1
    stock_piles: int = 5
    long_middle: bool = False
    refilled_singles: bool = False
    free_choice: bool = False
    two_hands: bool = False
    alternate_colours: bool = False
    stack_equal: bool = False
    five_card_hand: bool = False
    hand_size: int = 5
    reserve_size: int = 10
    target_score: int = 25

    layout: tuple[int, ...] = field(init=False, repr=False, compare=False)
    player_names: tuple[str, ...] = field(init=False, repr=False, compare=False)
    spit_pile_names: tuple[str, ...] = field(init=False, repr=False, compare=False)
    stock_names: tuple[tuple[str, ...], ...] = field(init=False, repr=False, compare=False)
    hands: int = field(init=False, repr=False, compare=False)
    five_card_stock: int = field(init=False, repr=False, compare=False)
    places: int = field(init=False, repr=False, compare=False)
    place_names: tuple[str, ...] = field(init=False, repr=False, compare=False)
    player_index: dict[str, int] = field(init=False, repr=False, compare=False)
    pile_index: dict[str, int] = field(init=False, repr=False, compare=False)
    stock_index: dict[str, tuple[int, int]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _validate(self)
        if self.five_card_hand:
            layout: tuple[int, ...] = ()
        elif self.refilled_singles:
            layout = (1,) * self.stock_piles
        elif self.long_middle:
            layout = (1, 1, 11, 1, 1)
        else:
            layout = tuple(range(1, self.stock_piles + 1))
        names = tuple(PLAYER_LETTERS[: self.players])
        piles = ("L", "R") if self.players == 2 else tuple(f"S{i}" for i in range(1, self.players + 1))
        stock_names = tuple(tuple(f"{p}{k}" for k in range(1, max(len(layout), 1) + 1)) for p in names)
        derived = {
            "layout": layout,
            "player_names": names,
            "spit_pile_names": piles,
            "stock_names": stock_names,
            "places": len(stock_names[0]),
            "place_names": sum(stock_names, ()),
            "hands": 2 if self.two_hands else 1,
            "five_card_stock": (52 * self.decks - 2 * (self.reserve_size + 1)) // 2,
            "player_index": {p: i for i, p in enumerate(names)},
            "pile_index": {s: i for i, s in enumerate(piles)},
            # every place name up to 9, so that a seventh place can be refused in words
            "stock_index": {f"{p}{k + 1}": (i, k) for i, p in enumerate(names) for k in range(9)},
        }
        for key, value in derived.items():
            object.__setattr__(self, key, value)

    @property
    def total_cards(self) -> int:
        return 52 * self.decks

    def options(self) -> dict[str, Any]:
        """Every option (field) and its value, name and description left out."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.init and f.name not in ("name", "description")}

    def changed_options(self) -> dict[str, Any]:
        """The options that differ from classic Spit."""
        classic = SpitRules()
        return {k: v for k, v in self.options().items() if getattr(classic, k) != v}

    def new_game(self, rng: random.Random) -> "SpitState":
        """A new game dealt from a deck shuffled with `rng`, waiting for the first Spit."""
        from referee.rules.spit_state import SpitState

        return SpitState.new_game(self, rng)

    def deal(self, deck: "list[Any] | tuple[Any, ...]") -> "SpitState":
        """The game dealt from `deck` (every card of the game, in the order dealt)."""
        from referee.rules.spit_state import SpitState

        return SpitState.deal(self, deck)


def _validate(r: SpitRules) -> None:
    for f in fields(r):
        if not f.init:
            continue
        value = getattr(r, f.name)
        if f.type in ("int", int) and (isinstance(value, bool) or not isinstance(value, int)):
            raise ContradictoryOptions(f"{f.name} must be a whole number, not {value!r}")
        if f.type in ("bool", bool) and not isinstance(value, bool):
            raise ContradictoryOptions(f"{f.name} must be True or False, not {value!r}")
        if f.type in ("str", str) and not isinstance(value, str):
            raise ContradictoryOptions(f"{f.name} must be text, not {value!r}")
    if not 2 <= r.players <= len(PLAYER_LETTERS):
        raise ContradictoryOptions(f"Spit is for 2 to {len(PLAYER_LETTERS)} players, not {r.players}")
    needed = (r.players + 1) // 2
    if not needed <= r.decks <= 4:
        raise ContradictoryOptions(
            f"{r.players} players need {needed} deck{'s' if needed > 1 else ''} (one per two players), "
            f"not {r.decks}"
        )
    if r.players > 2 and not r.free_choice:
        raise ContradictoryOptions(
            "with more than two players the spit piles are chosen, not slapped: set free_choice"
        )
    if r.five_card_hand:
        _validate_five_card_hand(r)
        return
    for key, default in _FIVE_CARD_ONLY.items():
        if getattr(r, key) != default:
            raise ContradictoryOptions(f"{key} is an option of the five-card hand only")
    if not 4 <= r.stock_piles <= 6:
        raise ContradictoryOptions(f"Spit is played with four to six stock piles, not {r.stock_piles}")
    if r.stock_piles == 6 and r.decks < 2:
        raise ContradictoryOptions("six stock piles need two decks")
    if r.long_middle and r.stock_piles != 5:
        raise ContradictoryOptions("the long middle pile needs five stock piles (it is the middle one)")
    if r.refilled_singles and r.long_middle:
        raise ContradictoryOptions("refilled singles are one card each: no long middle pile")
    if r.refilled_singles and r.stack_equal:
        raise ContradictoryOptions("refilled singles are one card each: equal ranks cannot be stacked")


def _validate_five_card_hand(r: SpitRules) -> None:
    clash = [
        name
        for name, on in (
            ("long_middle", r.long_middle),
            ("refilled_singles", r.refilled_singles),
            ("stack_equal", r.stack_equal),
            ("free_choice", r.free_choice),
            ("stock_piles", r.stock_piles != 5),
            ("two decks", r.decks != 1),
            ("more players", r.players != 2),
        )
        if on
    ]
    if clash:
        raise ContradictoryOptions(
            f"the five-card hand has one stock pile, two players and no slap: it cannot take {', '.join(clash)}"
        )
    if r.reserve_size not in (5, 10):
        raise ContradictoryOptions(f"the five-card hand's centre reserves hold 10 or 5 cards, not {r.reserve_size}")
    if not 1 <= r.hand_size <= 10:
        raise ContradictoryOptions(f"a hand of {r.hand_size} cards is not a five-card-hand game")
    if r.target_score < 1:
        raise ContradictoryOptions("the target score must be at least one point")


PRESETS: Final[dict[str, SpitRules]] = {
    "classic": SpitRules(),
    "chinese": SpitRules(
        name="chinese", description="Chinese spit: four stock piles of 1, 2, 3, 4 cards", stock_piles=4
    ),
    "long-middle": SpitRules(
        name="long-middle", description="the middle stock pile has 11 cards, the other four 1 each", long_middle=True
    ),
    "two-decks": SpitRules(
        name="two-decks", description="two decks shuffled together (104 cards), six stock piles", decks=2, stock_piles=6
    ),
    "free-choice": SpitRules(
        name="free-choice", description="no slap: the first player out chooses a spit pile", free_choice=True
    ),
    "two-hands": SpitRules(
        name="two-hands", description="both hands may be used, still one card per motion", two_hands=True
    ),
    "alternate-colours": SpitRules(
        name="alternate-colours",
        description="cards on a spit pile alternate red and black",
        alternate_colours=True,
    ),
    "stack-equal": SpitRules(
        name="stack-equal",
        description="a face-up stock card may be stacked on an own stock top of equal rank",
        stack_equal=True,
    ),
    "refilled-singles": SpitRules(
        name="refilled-singles",
        description="four single-card stock piles, refilled from the hand when played",
        stock_piles=4,
        refilled_singles=True,
    ),
    "five-card-hand": SpitRules(
        name="five-card-hand",
        description="Speed-like: five hidden hand cards, centre reserves of 10, game to 25 points",
        five_card_hand=True,
    ),
    "three-players": SpitRules(
        name="three-players",
        description="three players, two decks; each player out chooses a spit pile and sits out",
        players=3,
        decks=2,
        free_choice=True,
    ),
    "four-players": SpitRules(
        name="four-players",
        description="four players, two decks; each player out chooses a spit pile and sits out",
        players=4,
        decks=2,
        free_choice=True,
    ),
}
"""The named rule sets registered with `referee.rules.register` (see `referee.rules.spit`)."""
