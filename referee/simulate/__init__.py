"""Bots that play any rule set with human-like timing and write the timestamped ground-truth event log."""

from referee.simulate.play import GameResult, SimConfig, simulate_game, simulate_games
from referee.simulate.summary import Summary
from referee.simulate.timing import Mistakes, TimingProfile

__all__ = ["GameResult", "Mistakes", "SimConfig", "Summary", "TimingProfile", "simulate_game", "simulate_games"]
