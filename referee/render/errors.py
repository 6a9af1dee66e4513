"""The typed errors of `referee render-game`: bad input becomes one line and exit code 2."""

from referee.errors import RefereeError


class RenderError(RefereeError):
    """A game that cannot be rendered: a log of the wrong shape, a rule set it cannot draw, an unwritable output."""
