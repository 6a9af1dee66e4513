"""Human-like timing of simulated players: lognormal reaction and hand-travel times in whole milliseconds."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass


@dataclass(frozen=True)
class TimingProfile:
    """The table's pace: medians (ms) and lognormal spreads of reaction and hand travel.

    With the defaults a reaction lies mostly within 250-600 ms and a hand's travel from a stock
    pile to a spit pile within 200-500 ms; gathering, shuffling and dealing a new layout takes
    about `layout_ms`, and the dealt layout then lies still, every hand off the table, for about
    `pause_ms` (at least `PAUSE_FLOOR` of it) before the opening spit. `speed` divides every time
    (2.0 plays twice as fast).
    `player_spread` is how much one player's own medians differ from the table's (lognormal sigma).
    """

    reaction_ms: float = 400.0
    reaction_sigma: float = 0.25
    travel_ms: float = 320.0
    travel_sigma: float = 0.25
    speed: float = 1.0
    player_spread: float = 0.12
    layout_ms: float = 12000.0
    layout_sigma: float = 0.2
    pause_ms: float = 1000.0
    pause_sigma: float = 0.2

    def __post_init__(self) -> None:
        if not (self.speed > 0 and self.reaction_ms > 0 and self.travel_ms > 0):
            raise ValueError("speed and median times must be positive")

    def player(self, rng: random.Random) -> "PlayerTiming":
        """One player's own pace, drawn around the table's medians."""
        return PlayerTiming(
            reaction_ms=self.reaction_ms * math.exp(rng.gauss(0.0, self.player_spread)) / self.speed,
            reaction_sigma=self.reaction_sigma,
            travel_ms=self.travel_ms * math.exp(rng.gauss(0.0, self.player_spread)) / self.speed,
            travel_sigma=self.travel_sigma,
            layout_ms=self.layout_ms / self.speed,
            layout_sigma=self.layout_sigma,
            pause_ms=self.pause_ms / self.speed,
            pause_sigma=self.pause_sigma,
        )


@dataclass(frozen=True)
class PlayerTiming:
    """One player's medians (ms, speed already applied); each draw is at least 1 ms."""

    reaction_ms: float
    reaction_sigma: float
    travel_ms: float
    travel_sigma: float
    layout_ms: float
    layout_sigma: float
    pause_ms: float
    pause_sigma: float

    def reaction(self, rng: random.Random) -> int:
        """Time from seeing something to starting to act on it."""
        return _draw(rng, self.reaction_ms, self.reaction_sigma)

    def travel(self, rng: random.Random) -> int:
        """Time for the hand to carry a card from where it lies to where it goes."""
        return _draw(rng, self.travel_ms, self.travel_sigma)

    def layout(self, rng: random.Random) -> int:
        """Time to gather, shuffle and lay out a new deal."""
        return _draw(rng, self.layout_ms, self.layout_sigma)

    def pause(self, rng: random.Random) -> int:
        """Time the dealt layout lies still, hands off the table, before this player is ready to spit."""
        return max(round(PAUSE_FLOOR * self.pause_ms), _draw(rng, self.pause_ms, self.pause_sigma))


PAUSE_FLOOR = 0.6
"""The shortest pause before an opening spit, as a share of its median: players look at the layout first."""


def _draw(rng: random.Random, median: float, sigma: float) -> int:
    """A lognormal draw in whole milliseconds (at least 1)."""
    return max(1, round(median * math.exp(rng.gauss(0.0, sigma))))


MAX_MISTAKE_RATE = 0.5
"""Above this, players who misplay nearly every card would hardly ever finish a game."""


@dataclass(frozen=True)
class Mistakes:
    """How often players err. `rate` is the chance, at each decision where one is possible, of
    putting a non-adjacent card on a spit pile; a player who sees no move of their own spits too
    early with chance `premature_factor * rate`; a slap goes to the larger pile with chance
    `wrong_slap_factor * rate`."""

    rate: float = 0.02
    premature_factor: float = 2.0
    wrong_slap_factor: float = 2.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.rate <= MAX_MISTAKE_RATE:
            raise ValueError(f"the mistake rate must lie between 0 and {MAX_MISTAKE_RATE}")

    @property
    def illegal(self) -> float:
        return self.rate

    @property
    def premature(self) -> float:
        return min(1.0, self.rate * self.premature_factor)

    @property
    def wrong_slap(self) -> float:
        return min(1.0, self.rate * self.wrong_slap_factor)
