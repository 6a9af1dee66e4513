"""Benchmark of `referee.vision`: ms per 1280x720 frame on 2 CPU threads, peak memory, real-photo accuracy.

    python bench/detect.py [--real ../shared/data/real-pinochle/train] [--synth data/synth] [--frames 60]
                           [--models DIR] [--sure-reading P] [--min-box-score S] [--json]

Frames are real photos stretched to 1280x720 and, with --synth, the 1280x720 synthetic tables of
its val split (decoded beforehand: a camera hands over decoded frames); the time is the whole
`detect()` call, pre- and post-processing included.
Accuracy is measured on the photos' held-out split (never trained on), on their training split (what
settings are chosen on) and on all of them.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy
import onnxruntime

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.vision.detector import CardDetector, DetectorSettings, read_image  # noqa: E402
from referee.vision.evaluate import score_photos, score_synth, synth_truth  # noqa: E402
from referee.vision.realset import load_photos  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", type=Path, default=ROOT.parent / "shared" / "data" / "real-pinochle" / "train")
    parser.add_argument("--synth", type=Path, help="also score a `referee synth-data` folder's val split (whole pipeline)")
    parser.add_argument("--frames", type=int, default=60, help="timed frames (after 5 warm-up calls)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--models", type=Path, help="folder of the two ONNX models (default: the package's)")
    parser.add_argument("--sure-reading", type=float, default=DetectorSettings().sure_reading,
                        help="cards read below it are read again at more sizes (0: never; default: the detector's)")
    parser.add_argument("--min-box-score", type=float, default=DetectorSettings().min_box_score,
                        help="oriented boxes kept from this score (default: the detector's)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--misses", action="store_true", help="list the cards missed or misread on the held-out split")
    args = parser.parse_args()

    detector = CardDetector(*([args.models] if args.models else []), settings=DetectorSettings(
        threads=args.threads, sure_reading=args.sure_reading, min_box_score=args.min_box_score))
    photos = load_photos(args.real)
    frame_sets = {"real_photos_stretched": [cv2.resize(read_image(p.path), (1280, 720)) for p in photos[:: len(photos) // 10][:10]]}
    if args.synth:
        tables = []
        for path, _ in synth_truth(args.synth):
            table = read_image(path)
            if table.shape[:2] == (720, 1280) and len(tables) < 10:
                tables.append(table)
        frame_sets["synth_tables"] = tables
    timing = {}
    for name, frames in frame_sets.items():
        for frame in frames[:5]:
            detector.detect(frame)
        times, cpu = [], []
        for i in range(args.frames):
            frame = frames[i % len(frames)]
            start, start_cpu = time.perf_counter(), time.process_time()
            detector.detect(frame)
            times.append((time.perf_counter() - start) * 1000)
            cpu.append((time.process_time() - start_cpu) * 1000)
        timing[name] = {
            "frames": len(frames),
            "median_ms": round(statistics.median(times), 1),
            "p90_ms": round(sorted(times)[int(0.9 * (len(times) - 1))], 1),
            "median_cpu_ms": round(statistics.median(cpu), 1),
        }
    holdout = score_photos(detector, load_photos(args.real, "holdout"))
    trained = score_photos(detector, load_photos(args.real, "train"))
    everything = score_photos(detector, photos)
    synth = score_synth(detector, args.synth) if args.synth else None
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # holds its 20 frames too (~55 MB)
    result = {
        "frame": "1280x720",
        "threads": args.threads,
        "timing": timing,
        "peak_rss_mb": round(peak_mb, 1),
        "real_holdout": holdout.summary(),
        "real_train": trained.summary(),
        "real_all": everything.summary(),
        "packages": {"opencv": cv2.__version__, "onnxruntime": onnxruntime.__version__, "numpy": numpy.__version__},
    }
    if synth is not None:
        result["synth_val"] = synth.summary()
    if args.json:
        print(json.dumps(result))
    else:
        for name, t in timing.items():
            print(f"1280x720 frames ({name}, {t['frames']} distinct), {args.threads} threads: median {t['median_ms']} ms, p90 {t['p90_ms']} ms, "
                  f"CPU median {t['median_cpu_ms']} ms (all threads: steadier than wall time on a busy machine)")
        print(f"peak memory (max RSS of this process): {result['peak_rss_mb']} MB")
        print("packages: " + ", ".join(f"{name} {version}" for name, version in result["packages"].items()))
        for name in ("real_holdout", "real_train", "real_all"):
            s = result[name]
            print(
                f"{name}: {s['photos']} photos, {s['cards']} cards, recall@IoU0.5 {s['recall_iou50']:.4f}, "
                f"rank accuracy {s['rank_accuracy']:.4f}, extra detections {s['extra_detections']}"
            )
        if synth is not None:
            s = result["synth_val"]
            print(
                f"synth_val: {s['images']} images, {s['cards']} cards, recall@IoU0.5 {s['recall_iou50']:.4f}, "
                f"code accuracy {s['code_accuracy']:.4f}, rank accuracy {s['rank_accuracy']:.4f}, "
                f"extra detections {s['extra_detections']}"
            )
    if args.misses:
        print("\n".join(holdout.misses))
    return 0


if __name__ == "__main__":
    sys.exit(main())
