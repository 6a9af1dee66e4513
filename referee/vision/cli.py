"""`referee detect IMAGE... [--json]`: the cards in each image, as JSON lines or a readable table."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from referee.cards import FACE_DOWN, parse_card
from referee.errors import RefereeError
from referee.vision.detections import Detections
from referee.vision.detector import MODELS_DIR, CardDetector, DetectorSettings, default_threads, read_image


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="image files (JPEG, PNG, ...), any size")
    parser.add_argument("--json", action="store_true", help="one JSON object per image on its own line")
    parser.add_argument("--min-confidence", type=float, default=0.0, metavar="P", help="hide cards read with less (0..1)")
    parser.add_argument("--models", type=Path, default=MODELS_DIR, metavar="DIR", help="folder of the ONNX models")
    parser.add_argument("--threads", type=int, default=default_threads(), metavar="N", help="CPU threads (default 2)")


def _table(path: str, found: Detections) -> str:
    lines = [f"{path}: {len(found)} card{'s' if len(found) != 1 else ''} ({found.width}x{found.height})"]
    for card in found:
        name = "face down" if card.code == FACE_DOWN else str(parse_card(card.code))
        x1, y1, x2, y2 = (round(v) for v in card.box)
        lines.append(f"  {card.code:>4}  {name:<9}  {card.confidence:5.2f}  box {x1},{y1} {x2},{y2}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if not 0.0 <= args.min_confidence <= 1.0:
        raise RefereeError("--min-confidence must be between 0 and 1")
    detector = CardDetector(args.models, DetectorSettings(threads=args.threads))
    failed = 0
    for path in args.images:
        try:
            image = read_image(path)
        except RefereeError as exc:
            print(f"referee detect: error: {exc}", file=sys.stderr, flush=True)
            failed += 1
            continue
        found = detector.detect(image).above(args.min_confidence)
        if args.json:
            print(json.dumps({"image": path, "cards": [c.to_json() for c in found]}), flush=True)
        else:
            print(_table(path, found), flush=True)
    return 2 if failed else 0
