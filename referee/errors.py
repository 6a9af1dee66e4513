"""The typed errors every layer raises; the CLI turns them into one-line messages and exit code 2."""


class RefereeError(Exception):
    """Base of every error the project raises on purpose (bad input, broken rule, bad file)."""


class BadCardCode(RefereeError, ValueError):
    """A card code that is not of the form of INTERFACES.md (`AS`, `10H`, `back`, `JK`)."""


class UnknownRuleSet(RefereeError, KeyError):
    """A rule-set name that is not registered."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "unknown rule set"


class ContradictoryOptions(RefereeError, ValueError):
    """Rule-set options that cannot hold together (e.g. four piles with a long middle pile)."""


class IllegalMove(RefereeError):
    """A move that breaks a rule; the message names the rule in a player's words."""


class ImpossiblePosition(RefereeError, ValueError):
    """A position that cannot arise at the table (wrong counts, a card too many, bad names)."""


class BadEvent(RefereeError, ValueError):
    """An event-log line of the wrong shape."""
