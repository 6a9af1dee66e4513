"""The `referee` command: one sub-command per job, each in its own module, loaded only when used.

A command module defines `configure(parser: argparse.ArgumentParser) -> None` and
`run(args: argparse.Namespace) -> int`. Errors the project raises on purpose (`RefereeError`)
become one line on stderr and exit code 2, and so do files the system cannot open or write
(`OSError`); no user sees a traceback for bad input.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from referee import __version__
from referee.errors import RefereeError

os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
"""FFmpeg quiet: a broken video is reported in one line of our own. OpenCV reads this once, when
the process opens its first video, so it is set on import, before any command (or test) does."""

COMMANDS: dict[str, tuple[str, str]] = {
    "simulate": ("referee.simulate.cli", "play simulated games with bots and print a summary"),
    "rules": ("referee.rules.cli", "list the rule sets and their options"),
    "synth-data": ("referee.synth.cli", "render synthetic card-table scenes with YOLO labels"),
    "train": ("referee.train", "train the card detector (needs the [train] extra)"),
    "detect": ("referee.vision.cli", "read the cards in images"),
    "markers": ("referee.vision.markers", "write the printable sheet of the four table markers"),
    "calibrate": ("referee.vision.calibrate", "calibrate the table from markers or four corners"),
    "layout": ("referee.vision.layout_cli", "the zones and top cards of a dealt layout in photos without markers"),
    "judge": ("referee.judge.cli", "referee a game from a per-frame observation stream"),
    "render-game": ("referee.render.cli", "render a simulated game as camera video with its ground truth"),
    "run": ("referee.pipeline.cli", "referee a game from a video file or a camera in real time"),
    "serve": ("referee.server.cli", "the live overlay in the browser (default: the built-in demo game)"),
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="referee",
        description="A referee for the card game Spit that watches a real table through a camera.",
    )
    parser.add_argument("--version", action="version", version=f"referee {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, help_text) in COMMANDS.items():
        sub.add_parser(name, help=help_text, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in COMMANDS:
        parser = _parser()
        parsed = parser.parse_args(args)  # prints help or an 'invalid choice' error (exit 2)
        if parsed.command is None:
            parser.print_help()
            return 2
    name = args[0]
    try:
        module = importlib.import_module(COMMANDS[name][0])
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] == "referee":
            raise
        print(
            f"referee {name}: error: needs the Python package {exc.name!r}, which is not installed "
            "(training needs: pip install -e '.[train]')",
            file=sys.stderr,
        )
        return 2
    parser = argparse.ArgumentParser(prog=f"referee {name}", description=COMMANDS[name][1])
    module.configure(parser)
    parsed = parser.parse_args(args[1:])
    try:
        return int(module.run(parsed) or 0)
    except RefereeError as exc:
        print(f"referee {name}: error: {_one_line(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"referee {name}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a file or folder named on the command line that cannot be read or written
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"referee {name}: error: {where}{_one_line(exc.strerror or str(exc))}", file=sys.stderr)
        return 2


def _one_line(message: str) -> str:
    """A message that may come from a library (onnxruntime, the OS) on one line."""
    return " ".join(line.strip() for line in message.splitlines() if line.strip())


if __name__ == "__main__":
    sys.exit(main())
