"""Totals over many simulated games and their printed summary."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType


@dataclass(frozen=True)
class GameTotals:
    """What one simulated game adds to a summary: its event counts by type, winner and length."""

    counts: Mapping[str, int]
    winner: str | None
    duration_ms: int
    players: tuple[str, ...]


@dataclass(frozen=True)
class Summary:
    """Totals over `games` games of one rule set; `wall_s` is the real time the simulation took."""

    rules: str
    games: int
    counts: Mapping[str, int] = field(default_factory=dict)
    wins: Mapping[str, int] = field(default_factory=dict)
    players: tuple[str, ...] = ()
    total_ms: int = 0
    wall_s: float = 0.0

    @classmethod
    def of(cls, rules: str, games: Iterable[GameTotals], wall_s: float = 0.0) -> "Summary":
        counts: Counter[str] = Counter()
        wins: Counter[str] = Counter()
        players: tuple[str, ...] = ()
        n = total = 0
        for game in games:
            n += 1
            counts.update(game.counts)
            wins[game.winner or "tie"] += 1
            total += game.duration_ms
            players = players or game.players
        return cls(rules, n, MappingProxyType(dict(counts)), MappingProxyType(dict(wins)), players, total, wall_s)

    def count(self, type: str) -> int:
        return self.counts.get(type, 0)

    def per_game(self, type: str) -> float:
        return self.count(type) / self.games if self.games else 0.0

    @property
    def mean_game_s(self) -> float:
        return self.total_ms / 1000 / self.games if self.games else 0.0

    def text(self) -> str:
        """The summary as printed by `referee simulate`."""
        g = self.games
        share = ", ".join(
            f"{p} {100 * self.wins.get(p, 0) / g:.1f}%" for p in (*self.players, "tie") if p != "tie" or self.wins.get("tie")
        ) if g else "-"
        minutes, secs = divmod(self.mean_game_s, 60)
        lines = [
            f"rules               {self.rules}",
            f"games               {g}",
            f"deals per game      {self.per_game('layout'):.2f}",  # every layout dealt, the first included
            f"plays               {self.count('play')} ({self.per_game('play'):.1f} per game)",
            f"turn-ups            {self.count('turn_up')} ({self.per_game('turn_up'):.1f} per game)",
            f"moves to a space    {self.count('move_to_space')} ({self.per_game('move_to_space'):.1f} per game)",
            f"stalemates          {self.count('spit_call')} ({self.per_game('spit_call'):.1f} per game)",
            f"illegal attempts    {self.count('illegal_play')} ({self.per_game('illegal_play'):.2f} per game)",
            f"premature spits     {self.count('premature_spit')} ({self.per_game('premature_spit'):.2f} per game)",
            f"races               {self.count('race')} ({self.per_game('race'):.2f} per game)",
            f"slaps               {self.count('slap')}",
            f"winner share        {share}",
            f"mean game length    {int(minutes)} min {secs:04.1f} s (simulated)",
        ]
        shown = {"layout", "play", "turn_up", "move_to_space", "spit_call", "illegal_play", "premature_spit",
                 "race", "slap", "spit", "deal_end", "game_end"}
        others = sorted(t for t in self.counts if t not in shown)
        if others:
            lines.append("other events        " + ", ".join(f"{t} {self.counts[t]}" for t in others))
        if self.wall_s > 0:
            lines.append(f"simulation speed    {g / self.wall_s:.0f} games/s ({self.wall_s:.1f} s)")
        return "\n".join(lines)
