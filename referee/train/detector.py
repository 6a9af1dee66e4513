"""Stage 1 training: a small YOLO (from its yaml, no pretrained weights) finding whole cards, card or back."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import cv2

from referee.errors import RefereeError
from referee.vision.realset import LabelledPhoto, load_photos

CLASS_NAMES = ("card", "back")


class BadTrainingSetup(RefereeError):
    """Training inputs that cannot work (missing data set, nothing to resume, ...)."""


@dataclass(frozen=True)
class DetectorConfig:
    """What `train_detector` needs; paths are folders."""

    run_dir: Path
    synth_dir: Path | None
    real_dir: Path | None
    model_yaml: str = "yolo11n.yaml"
    imgsz: int = 320
    epochs: int = 30
    hours: float | None = None
    batch: int = 16
    real_repeats: int = 4
    seed: int = 0

    def __post_init__(self) -> None:
        if self.synth_dir is None and self.real_dir is None:
            raise BadTrainingSetup("give a synthetic data set (--data) or real photos (--real), or both")
        if self.imgsz % 32 or not 128 <= self.imgsz <= 1280:
            raise BadTrainingSetup(f"image size must be a multiple of 32 in 128..1280, not {self.imgsz}")
        if self.epochs < 1 or self.batch < 1 or self.real_repeats < 1:
            raise BadTrainingSetup("epochs, batch and real repeats must be positive")


def _yolo_line(cls: int, box: tuple[float, float, float, float], width: int, height: int) -> str:
    x1, y1, x2, y2 = (max(0.0, box[0]), max(0.0, box[1]), min(float(width), box[2]), min(float(height), box[3]))
    return f"{cls} {(x1 + x2) / 2 / width:.6f} {(y1 + y2) / 2 / height:.6f} {(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}"


def write_real_labels(photos: list[LabelledPhoto], out_dir: Path) -> list[Path]:
    """Copy real photos into `out_dir/images` with YOLO labels (all face up: class card) beside them."""
    images, labels = out_dir / "images", out_dir / "labels"
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    written = []
    for photo in photos:
        image = cv2.imread(str(photo.path))
        if image is None:
            raise BadTrainingSetup(f"cannot read {photo.path}")
        height, width = image.shape[:2]
        target = images / (photo.path.stem + ".jpg")
        if not target.exists():
            cv2.imwrite(str(target), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
        lines = [_yolo_line(0, card.box, width, height) for card in photo.cards]
        (labels / (photo.path.stem + ".txt")).write_text("\n".join(lines) + "\n")
        written.append(target.resolve())
    return written


def _synth_images(synth_dir: Path, split: str) -> list[Path]:
    folder = synth_dir / "images" / split
    if not folder.is_dir():
        raise BadTrainingSetup(f"{synth_dir}: no images/{split} folder (make one with `referee synth-data`)")
    return sorted(p.resolve() for p in folder.iterdir() if p.suffix.lower() in (".jpg", ".png"))


def build_dataset(config: DetectorConfig) -> Path:
    """Write the run's data.yaml: synthetic train images plus the real training split repeated."""
    data_dir = config.run_dir / "dataset"
    data_dir.mkdir(parents=True, exist_ok=True)
    train: list[Path] = []
    val: list[Path] = []
    if config.synth_dir is not None:
        train += _synth_images(config.synth_dir, "train")
        val += _synth_images(config.synth_dir, "val")
    if config.real_dir is not None:
        real_train = write_real_labels(load_photos(config.real_dir, "train"), data_dir / "real-train")
        train += real_train * config.real_repeats
        if config.synth_dir is None:
            val += write_real_labels(load_photos(config.real_dir, "holdout"), data_dir / "real-holdout")
    (data_dir / "train.txt").write_text("".join(f"{p}\n" for p in train))
    (data_dir / "val.txt").write_text("".join(f"{p}\n" for p in val))
    yaml = data_dir / "data.yaml"
    names = "".join(f"  {i}: {n}\n" for i, n in enumerate(CLASS_NAMES))
    yaml.write_text(f"path: {data_dir.resolve()}\ntrain: train.txt\nval: val.txt\nnames:\n{names}")
    return yaml


def train_detector(config: DetectorConfig) -> Path:
    """Train (or resume) the detector; returns the best checkpoint (call `environment.prepare` first)."""
    from ultralytics import YOLO

    weights = config.run_dir / "detector" / "weights"
    last = weights / "last.pt"
    if last.exists():
        import torch

        state = torch.load(last, map_location="cpu", weights_only=False)
        if state.get("epoch", -1) != -1:  # unfinished: carry on where it stopped
            print(f"resuming {last} after epoch {state['epoch'] + 1}", flush=True)
            YOLO(str(last)).train(resume=True, workers=0)
            return weights / "best.pt"
        print(f"{last} finished its schedule; starting again with {config.epochs} epochs from it", flush=True)
        start = str(last)
        shutil.move(str(weights.parent), str(weights.parent) + f"-{state.get('date', 'done').replace(':', '')}")
    else:
        start = config.model_yaml
    data = build_dataset(config)
    model = YOLO(start)
    extra = {"time": config.hours} if config.hours else {}
    model.train(
        data=str(data),
        epochs=config.epochs,
        imgsz=config.imgsz,
        batch=config.batch,
        workers=0,
        device="cpu",
        project=str(config.run_dir.resolve()),
        name="detector",
        exist_ok=True,
        pretrained=False,
        amp=False,
        plots=False,
        seed=config.seed,
        degrees=15.0,
        close_mosaic=max(1, config.epochs // 5),
        patience=1000,
        **extra,
    )
    return weights / "best.pt"


def export_detector(checkpoint: Path, out_path: Path, imgsz: int) -> Path:
    """Export a checkpoint to ONNX (fixed input imgsz x imgsz, opset 17, no NMS in the graph)."""
    from ultralytics import YOLO

    if not checkpoint.exists():
        raise BadTrainingSetup(f"no checkpoint at {checkpoint}")
    exported = Path(YOLO(str(checkpoint)).export(format="onnx", imgsz=imgsz, opset=17, simplify=False, dynamic=False))
    out_path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(exported, out_path)
    return out_path
