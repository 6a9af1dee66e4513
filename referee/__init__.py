"""Spit referee: reads a card table through a camera and referees the game of Spit."""

__version__ = "0.1.0"
