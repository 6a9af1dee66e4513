"""`referee train`: the card detector (YOLO, ultralytics) and the index-corner classifier (torch), on CPU.

Needs the [train] extra. Every stage resumes from the checkpoint in its run folder, so a run
stopped by the end of a session goes on where it was with the same command.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from referee.vision.detector import DETECTOR_MODEL, INDEX_MODEL, MODELS_DIR

STAGES = ("detector", "index", "export", "pack", "val")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("stage", choices=STAGES, help="detector: whole cards; index: corner classifier; export: ONNX into --models; "
                                                         "pack: the detector's data set, shrunk to carry to another machine, into --out; "
                                                         "val: the run's detector (or --init's) on the --data set's val split alone")
    parser.add_argument("--data", type=Path, metavar="DIR", help="synthetic data set of `referee synth-data`")
    parser.add_argument("--real", type=Path, metavar="DIR", help="real photos with VOC boxes; only their training split is used")
    parser.add_argument("--run", type=Path, default=Path("runs/cards"), metavar="DIR", help="checkpoints and logs (default runs/cards)")
    parser.add_argument("--epochs", type=int, metavar="N", help="epochs (default 30 detector, 12 index)")
    parser.add_argument("--hours", type=float, metavar="H", help="detector: fit the schedule into this much time instead")
    parser.add_argument("--lr0", type=float, metavar="LR",
                        help="detector: AdamW at this learning rate (a low one, e.g. 0.0005, to go on from a trained model) "
                             "instead of ultralytics' choice for training from scratch")
    parser.add_argument("--imgsz", type=int, default=320, metavar="PX", help="detector input size (default 320)")
    parser.add_argument("--batch", type=int, metavar="N", help="batch size (default 16 detector, 256 index)")
    parser.add_argument("--model", default="yolo11n-obb.yaml", metavar="YAML", help="detector architecture (default yolo11n-obb.yaml)")
    parser.add_argument("--init", type=Path, metavar="PT", help="detector: start from the matching weights of this checkpoint, or of an exported "
                             "ONNX detector (e.g. models/card-detector.onnx, rebuilt as a checkpoint); val: measure this one; index: from this classifier checkpoint "
                             "or exported ONNX classifier (e.g. models/card-index.onnx, 8-bit weights dequantized, rebuilt) "
                             "(a run with a checkpoint of its own resumes or goes on from that instead)")
    parser.add_argument("--models", type=Path, default=MODELS_DIR, metavar="DIR", help="export target (default models/)")
    parser.add_argument("--zone-views", type=float, default=0.0, metavar="K",
                        help="detector and index: also train on K top-down pile mosaics per synthetic image, as the pipeline reads zones")
    parser.add_argument("--more-data", type=Path, nargs="+", default=[], metavar="DIR",
                        help="further synthetic sets trained on beside --data, whose val split alone is measured "
                             "(index: crops cached per folder name)")
    parser.add_argument("--device", default="cpu", metavar="DEV", help="detector: where to train, e.g. 0 for the first GPU (default cpu)")
    parser.add_argument("--workers", type=int, default=0, metavar="N", help="detector: data loader processes (default 0)")
    parser.add_argument("--dataset", type=Path, metavar="YAML", help="detector: train on this data.yaml (of `pack`) instead of building one")
    parser.add_argument("--out", type=Path, metavar="DIR", help="pack: folder for the packed data set")
    parser.add_argument("--real-repeats", type=int, metavar="N",
                        help="detector: each real training photo appears N times an epoch (default 4); index: its crops (default 12)")
    parser.add_argument("--court-repeats", type=int, default=1, metavar="N",
                        help="index: real court cards (J, Q, K) give their crops N times as often (default 1)")
    parser.add_argument("--int8", action="store_true",
                        help="export: the index classifier with 8-bit weights and activations, calibrated on the run's training crops")
    parser.add_argument("--seed", type=int, default=0)


def run(args: argparse.Namespace) -> int:
    from referee.train.detector import (
        BadTrainingSetup, DetectorConfig, build_dataset, export_detector, pack_dataset, train_detector, validate_detector,
    )
    from referee.train.environment import prepare

    if args.stage in ("detector", "pack"):
        config = DetectorConfig(
            run_dir=args.run, synth_dir=args.data, real_dir=args.real, model_yaml=args.model, init_weights=args.init,
            imgsz=args.imgsz, zone_views=args.zone_views, more_synth=tuple(args.more_data),
            epochs=args.epochs or 30, hours=args.hours, lr0=args.lr0, batch=args.batch or 16, seed=args.seed,
            device=args.device, workers=args.workers, dataset=args.dataset, real_repeats=args.real_repeats or 4,
        )
        if args.stage == "pack":
            if args.out is None or args.dataset is not None:
                raise BadTrainingSetup("pack builds a data set from --data/--real into a folder: give --out DIR, not --dataset")
            print(f"packed data set: {pack_dataset(build_dataset(config), args.out, args.imgsz)}")
            return 0
    prepare(args.run)
    if args.stage == "val":
        if args.data is None:
            raise BadTrainingSetup("val measures on a synthetic set's val split: give --data DIR")
        checkpoint = args.init if args.init is not None else args.run / "detector" / "weights" / "best.pt"
        if checkpoint.suffix == ".onnx":  # an exported detector: rebuilt, it computes what the file computes
            from referee.train.onnxweights import checkpoint_from_onnx

            checkpoint = checkpoint_from_onnx(checkpoint, args.model, sorted((args.data / "images" / "val").glob("*.jpg")),
                                              args.run / f"{checkpoint.stem}-rebuilt.pt", args.imgsz)
        figures = validate_detector(checkpoint, args.data, args.run / "val-only", args.imgsz, args.device)
        print(" ".join(f"{k} {v:.4f}" for k, v in figures.items()))
    elif args.stage == "detector":
        print(f"best detector checkpoint: {train_detector(config)}")
    elif args.stage == "index":
        from referee.train.indexnet import IndexConfig, train_index_classifier

        config = IndexConfig(
            run_dir=args.run, synth_dir=args.data, real_dir=args.real, epochs=args.epochs or 12,
            batch=args.batch or 256, zone_views=args.zone_views, more_data=tuple(args.more_data), init_weights=args.init,
            court_repeats=args.court_repeats, real_repeats=12 if args.real_repeats is None else args.real_repeats, seed=args.seed,
        )
        print(f"index classifier checkpoint: {train_index_classifier(config)}")
    else:
        from referee.train.indexnet import calibration_crops, export_index_classifier, quantize_index_classifier

        detector, index = args.run / "detector" / "weights" / "best.pt", args.run / "index-classifier.pt"
        if not detector.exists() and not index.exists():
            raise BadTrainingSetup(f"{args.run} holds neither {detector.relative_to(args.run)} nor {index.name}")
        crops = calibration_crops(args.run, args.seed) if args.int8 and index.exists() else None
        if detector.exists():  # a run may train one stage only; the other model file is left as it is
            print(f"exported {export_detector(detector, args.models / DETECTOR_MODEL, args.imgsz)}")
        if index.exists():
            exported = export_index_classifier(index, args.models / INDEX_MODEL)
            if crops is not None:
                exported = quantize_index_classifier(exported, crops, exported)
            print(f"exported {exported}")
    return 0
