"""`referee render-game`: a simulated game as webcam video, with its ground-truth log and frame times beside it."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from referee.render.video import RenderOptions, simulate_and_render
from referee.cli_args import count, positive_float, positive_int


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", type=int, default=0,
                        help="game and look (table, light, cards, players) seed; the same seed gives the same video")
    parser.add_argument("--out", type=Path, required=True, metavar="FILE.mp4",
                        help="the video; FILE.jsonl (ground-truth events) and FILE.frames.json (frame times) go beside it")
    parser.add_argument("--rules", default="classic", help="rule set to simulate (see `referee rules`); default classic")
    parser.add_argument("--log", type=Path, metavar="GROUND_TRUTH.jsonl",
                        help="render this simulator log instead of simulating a game")
    parser.add_argument("--width", type=positive_int, default=1280, help="frame width in pixels (default 1280)")
    parser.add_argument("--height", type=positive_int, default=720, help="frame height in pixels (default 720)")
    parser.add_argument("--fps", type=positive_float, default=30.0, help="frames per second (default 30)")
    parser.add_argument("--tilt", type=_tilt, default=30.0, metavar="DEG",
                        help="camera tilt from straight down, degrees (default 30)")
    parser.add_argument("--max-seconds", type=positive_float, metavar="S",
                        help="render only the first S seconds of the game")
    parser.add_argument("--jobs", type=count, default=1, metavar="N",
                        help="processes drawing frames (0: one per CPU core; default 1); the video is the same")


def run(args: argparse.Namespace) -> int:
    options = RenderOptions(args.width, args.height, args.fps, args.tilt, args.max_seconds,
                            args.jobs or os.cpu_count() or 1)
    result = simulate_and_render(args.out, args.seed, args.rules, args.log, options)
    print(f"video        {result.video} ({result.frame_count} frames, {result.seconds:.2f} s at {args.fps:g} fps)")
    print(f"ground truth {result.log}")
    print(f"frame times  {result.frames}")
    print(f"rendered at  {result.render_fps:.1f} frames/s")
    return 0


def _tilt(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 60:
        raise argparse.ArgumentTypeError("must lie between 0 and 60 degrees")
    return value
