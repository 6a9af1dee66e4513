"""`referee synth-data`: write a synthetic, exactly labelled YOLO dataset of Spit tables."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tqdm import tqdm

from referee.synth.dataset import SynthConfig, generate_dataset
from referee.synth.faces import SynthAssetError
from referee.synth.labels import DEFAULT_MIN_IN_FRAME, DEFAULT_MIN_VISIBLE, SCHEMES


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, required=True, help="dataset folder (created; re-running resumes)")
    parser.add_argument("--images", type=int, required=True, help="number of images (indices 0..N-1)")
    parser.add_argument("--seed", type=int, default=0, help="image i depends only on (seed, i)")
    parser.add_argument("--faces", type=Path, help="folder of face images named by code (QS.svg, 10H.png)")
    parser.add_argument("--backs", type=Path, help="folder of card-back images (SVG, PNG, JPG)")
    parser.add_argument("--folder-share", type=float, default=0.5,
                        help="share of images drawn with the --faces and --backs images rather than built-in ones "
                             "(default 0.5; 1 for a set of that deck alone)")
    parser.add_argument("--styles", nargs="+", default=[], metavar="NAME",
                        help="draw only these built-in face and back styles, e.g. the reserved ones no training set draws "
                             "(reserved-liberation-sans reserved-liberation-serif checks-8c1e3c checks-1e5a8c), to measure "
                             "an unseen deck; the same seed draws the same scenes (default: every training style)")
    parser.add_argument("--varied-share", type=float, default=0.0,
                        help="share of images whose faces are drawn in a style made up for that image (random rank "
                             "fonts, inks, index sizes, parametric suit shapes; default 0); the scenes stay the same")
    parser.add_argument("--val-fraction", type=float, default=0.1, help="share of validation images")
    parser.add_argument("--labels", choices=SCHEMES, default="cards",
                        help="YOLO boxes of whole cards, or oriented boxes (cards-obb)")
    parser.add_argument("--min-visible", type=float, default=DEFAULT_MIN_VISIBLE,
                        help="label a card when at least this share of it is not hidden by cards or hands")
    parser.add_argument("--min-in-frame", type=float, default=DEFAULT_MIN_IN_FRAME,
                        help="... and at least this share of it is inside the image")
    parser.add_argument("--workers", type=int, default=1, help="processes drawing images")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    if args.images < 0:
        raise SynthAssetError(f"--images must be 0 or more, not {args.images}")
    if args.workers < 1:
        raise SynthAssetError(f"--workers must be 1 or more, not {args.workers}")
    config = SynthConfig(seed=args.seed, faces_dir=args.faces, backs_dir=args.backs,
                         val_fraction=args.val_fraction, labels=args.labels, min_visible=args.min_visible,
                         min_in_frame=args.min_in_frame, folder_share=args.folder_share,
                         styles=tuple(args.styles), varied_share=args.varied_share)
    config.check()  # bad options and folders fail before the progress bar shows
    start = time.monotonic()
    done = 0
    with tqdm(total=args.images, unit="img", disable=args.no_progress, desc="synth-data") as bar:
        for _ in generate_dataset(args.out, args.images, config, args.workers):
            done += 1
            bar.update(1)
    print(f"{done} images in {args.out} ({time.monotonic() - start:.1f} s); dataset: {args.out / 'data.yaml'}")
    return 0
