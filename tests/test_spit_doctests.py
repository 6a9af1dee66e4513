"""The runnable examples in the Spit engine's module docstrings."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["spit", "spit_options", "spit_moves", "spit_state", "spit_timing"]


@pytest.mark.parametrize("name", MODULES)
def test_module_examples_run(name: str) -> None:
    module = importlib.import_module(f"referee.rules.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
