"""`referee rules`: the rule sets listed with a description each, one rule set's options, unknown names."""

from __future__ import annotations

import pytest

from referee.cli import main
from referee.rules.cli import describe, options
from referee.rules.spit import PRESETS


def test_rules_lists_every_spit_preset_with_its_description(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    for name, rules in PRESETS.items():
        assert any(line.split()[0] == name and line.endswith(rules.description) for line in lines)


def test_rules_name_prints_the_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "chinese"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("chinese: Chinese spit: four stock piles of 1, 2, 3, 4 cards\n")
    assert "  stock_piles = 4\n" in out and "  free_choice = False\n" in out


def test_an_unknown_rule_set_is_one_line_and_exit_code_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "nonesuch"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("referee rules: error: unknown rule set 'nonesuch'; known: ") and err.count("\n") == 1


def test_a_rule_set_without_a_description_is_described_by_its_docstring() -> None:
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Other:
        """Some game. It has more to say.

        And a second paragraph."""

        places: int = 4

    assert describe(Other()) == "Some game."
    assert options(Other()) == {"places": 4}
    assert options(object()) == {}
