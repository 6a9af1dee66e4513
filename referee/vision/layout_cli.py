"""`referee layout PHOTO... [--json] [--rules NAME] [--preview OUT.png]`: the zones and top cards of dealt layouts."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from referee.errors import RefereeError
from referee.judge.spit.config import spit_rules
from referee.vision.detector import MODELS_DIR, CardDetector, DetectorSettings, default_threads, read_image
from referee.vision.layout_photo import PhotoReading, read_layout


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("photos", nargs="+", metavar="PHOTO", help="photos of a dealt layout (JPEG, PNG, ...), "
                                                                  "player A at the bottom, any size")
    parser.add_argument("--json", action="store_true", help="one JSON object per photo on its own line")
    parser.add_argument("--rules", default="classic", help="rule set whose layout was dealt (default: classic)")
    parser.add_argument("--preview", metavar="OUT.png",
                        help="also draw the zones and their tops on the photo (several photos: OUT-1.png, ...)")
    parser.add_argument("--models", type=Path, default=MODELS_DIR, metavar="DIR", help="folder of the ONNX models")
    parser.add_argument("--threads", type=int, default=default_threads(), metavar="N", help="CPU threads (default 2)")


def _text(path: str, reading: PhotoReading) -> str:
    photo = reading.layout
    plane = (f"plane from {photo.plane_cards} cards ({photo.rms_px:.1f} px RMS)" if photo.plane == "cards"
             else "plane assumed seen from above (too few cards to fit it)")
    lines = [f"{path}: {photo.cards_found} cards found, {plane}"]
    for zone in reading.zones:
        lines.append(f"{zone.name}: {zone.top} ({zone.confidence:.2f}){'  predicted place' if zone.predicted else ''}")
    return "\n".join(lines)


def preview(image: np.ndarray, reading: PhotoReading) -> np.ndarray:
    """The photo with the play area, each zone and its top drawn on it."""
    out = image.copy()
    scale = max(1.0, max(out.shape[:2]) / 1280)

    def poly(points: np.ndarray, colour: tuple[int, int, int], width: int) -> None:
        cv2.polylines(out, [np.round(points * 16).astype(np.int32)], True, colour, width, cv2.LINE_AA, shift=4)

    calibration = reading.layout.calibration
    poly(calibration.to_image(calibration.play_area_cm), (0, 255, 255), round(2 * scale))
    for zone in reading.zones:
        polygon = np.asarray(zone.polygon)
        poly(polygon, (0, 160, 255) if zone.predicted else (0, 200, 0), round(2 * scale))
        x, y = polygon.mean(0)
        for colour, width in (((0, 0, 0), 4), ((255, 255, 255), 1)):
            cv2.putText(out, f"{zone.name} {zone.top}", (int(x - 30 * scale), int(y)), cv2.FONT_HERSHEY_SIMPLEX,
                        0.5 * scale, colour, round(width * scale), cv2.LINE_AA)
    return out


def _preview_path(base: str, index: int, count: int) -> Path:
    path = Path(base)
    return path if count == 1 else path.with_name(f"{path.stem}-{index + 1}{path.suffix or '.png'}")


def run(args: argparse.Namespace) -> int:
    rules = spit_rules(args.rules)  # an unknown rule set is said before the models load
    detector = CardDetector(args.models, DetectorSettings(threads=args.threads))
    failed = 0
    for index, path in enumerate(args.photos):
        try:
            image = read_image(path)
            reading = read_layout(image, detector, players=rules.players, stock_places=rules.places,
                                  middle=tuple(rules.spit_pile_names))
        except RefereeError as exc:
            message = str(exc) if path in str(exc) else f"{path}: {exc}"
            print(f"referee layout: error: {message}", file=sys.stderr, flush=True)
            failed += 1
            continue
        if args.json:
            print(json.dumps({"image": path, **reading.to_json()}), flush=True)
        else:
            print(_text(path, reading), flush=True)
        if args.preview:
            target = _preview_path(args.preview, index, len(args.photos))
            try:
                written = cv2.imwrite(str(target), preview(image, reading))
            except cv2.error:
                written = False
            if not written:
                raise RefereeError(f"{target}: cannot write the preview image (a folder that exists, .png or .jpg)")
    return 2 if failed else 0
