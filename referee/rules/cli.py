"""`referee rules [NAME]`: lists the rule sets with a one-line description, or prints one rule set's options."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from referee.rules import get_rules, rule_set_names


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", help="a rule set's name: print its options")


def describe(rules: Any) -> str:
    """A rule set's one-line description: its `description`, else its docstring's first sentence."""
    text = getattr(rules, "description", None) or (type(rules).__doc__ or "").strip().split("\n\n")[0]
    sentence = " ".join(text.split())
    end = sentence.find(". ")
    return sentence if end < 0 else sentence[: end + 1]


def options(rules: Any) -> dict[str, Any]:
    """A rule set's options: its `options()` if it has one, else its dataclass fields."""
    if callable(getattr(rules, "options", None)):
        return dict(rules.options())
    if dataclasses.is_dataclass(rules):
        return {
            f.name: getattr(rules, f.name)
            for f in dataclasses.fields(rules)
            if f.init and f.name not in ("name", "description")
        }
    return {}


def run(args: argparse.Namespace) -> int:
    if args.name is None:
        names = rule_set_names()
        width = max(map(len, names), default=0)
        for name in names:
            print(f"{name:<{width}}  {describe(get_rules(name))}")
        return 0
    rules = get_rules(args.name)  # UnknownRuleSet: one line on stderr, exit 2 (referee.cli)
    print(f"{args.name}: {describe(rules)}")
    for key, value in options(rules).items():
        print(f"  {key} = {value!r}")
    return 0
