"""Classic Spit and all its variants as one engine: the public API, and the presets registered by name.

The model is python-chess: an immutable `SpitState` (like a `Board`, but every move returns a new
state), `legal_moves()` a lazy generator, `apply(move)` raising `IllegalMove` named for what went
wrong, `check(move)` giving the reason or None. Every option of RULES.md's variants table is a
field of one frozen `SpitRules`; the presets below are registered with `referee.rules.register`.

A whole deal, move by move:

>>> import random
>>> from referee.rules.spit import *
>>> state = PRESETS["classic"].new_game(random.Random(7))
>>> state.phase, state.counts(), state.spit_count("A")
('start', {'A': 26, 'B': 26}, 11)
>>> spit = next(state.legal_moves())          # a deal starts with both players' Spit!
>>> spit.describe()
'Spit! 2♠ onto L, J♦ onto R'
>>> state = state.apply(spit)
>>> [m.describe() for m in state.legal_moves("A")][:2]
['A plays 10♥ from A3 onto R']
>>> state.check(Spit((("L", None), ("R", None))))
'no Spit yet: A plays 10♥ from A3 onto R'
>>> state.top("A5"), state.face_up("A5"), len(state.pile("A5"))
(Card('6H'), 1, 5)

What a camera sees at the start of a deal (face-down and spit cards unknown, so a `TurnUp`
names the card it reveals):

>>> seen = SpitState.observed(PRESETS["classic"],
...     {"A": [(1, "7C"), (2, "9H"), (3, "KD"), (4, "2S"), (5, "5H")],
...      "B": [(1, "QS"), (2, "4D"), (3, "8S"), (4, "JD"), (5, "AC")]},
...     spit_cards={"A": 11, "B": 11})
>>> seen.phase, seen.cards()[None]
('start', 42)

Variants combine with `dataclasses.replace`, which validates:

>>> from dataclasses import replace
>>> replace(PRESETS["classic"], alternate_colours=True, stack_equal=True).changed_options()
{'alternate_colours': True, 'stack_equal': True}

Events: each move's `event()`; `transition_events(before, move, after)` adds `spit_call`,
`deal_end` and `game_end`. Event types added to INTERFACES.md's: `NEW_EVENT_TYPES`.
"""

from __future__ import annotations

from referee.rules import register
from referee.rules.spit_moves import (
    NEW_EVENT_TYPES,
    TABLE_MOVES,
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
from referee.rules.spit_options import PRESETS, SpitRules
from referee.rules.spit_state import PHASES, ImpossiblePosition, PrematureSpit, SpitState
from referee.rules.spit_timing import Outcome, Race, Resolution, resolve_simultaneous, transition_events

for _name, _rules in PRESETS.items():
    register(_name, lambda rules=_rules: rules)

__all__ = [
    "NEW_EVENT_TYPES",
    "PHASES",
    "PRESETS",
    "TABLE_MOVES",
    "ChoosePile",
    "Deal",
    "Draw",
    "HandPlay",
    "ImpossiblePosition",
    "Layout",
    "MoveToSpace",
    "Outcome",
    "Play",
    "PrematureSpit",
    "Race",
    "Refill",
    "Reshuffle",
    "Resolution",
    "Slap",
    "Spit",
    "SpitMove",
    "SpitRules",
    "SpitState",
    "StackEqual",
    "TurnUp",
    "resolve_simultaneous",
    "transition_events",
]
