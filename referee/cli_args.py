"""Argument types shared by the sub-commands: numbers checked when parsed, with argparse's one-line errors."""

from __future__ import annotations

import argparse


def positive_int(text: str) -> int:
    """An int of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def count(text: str) -> int:
    """An int of 0 or more."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def positive_float(text: str) -> float:
    """A float above 0."""
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value
