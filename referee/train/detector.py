"""Stage 1 training: a small oriented-box YOLO (from its yaml, no pretrained weights) finding whole cards, card or back."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from referee.cards import FACE_DOWN
from referee.errors import RefereeError
from referee.train.zoneviews import write_zone_views
from referee.vision.corners import refine_quad
from referee.vision.detections import Detections
from referee.vision.evaluate import match, seen_enough
from referee.vision.realset import LabelledPhoto, load_photos

CLASS_NAMES = ("card", "back")


class BadTrainingSetup(RefereeError):
    """Training inputs that cannot work (missing data set, nothing to resume, ...)."""


class BoxFinder(Protocol):
    """What gives real photos' cards an oriented box where no outline is found: `referee.vision.CardDetector`."""

    def detect(self, image: np.ndarray) -> Detections: ...


@dataclass(frozen=True)
class DetectorConfig:
    """What `train_detector` needs; paths are folders."""

    run_dir: Path
    synth_dir: Path | None
    real_dir: Path | None
    model_yaml: str = "yolo11n-obb.yaml"
    init_weights: Path | None = None
    imgsz: int = 320
    epochs: int = 30
    hours: float | None = None
    lr0: float | None = None
    batch: int = 16
    real_repeats: int = 4
    zone_views: float = 0.0
    seed: int = 0
    more_synth: tuple[Path, ...] = ()
    device: str = "cpu"
    workers: int = 0
    dataset: Path | None = None

    def __post_init__(self) -> None:
        if self.dataset is not None:
            if not self.dataset.is_file():
                raise BadTrainingSetup(f"no data set description at {self.dataset} (write one with `referee train pack`)")
        elif self.synth_dir is None and self.real_dir is None:
            raise BadTrainingSetup("give a synthetic data set (--data) or real photos (--real), or both")
        if self.more_synth and self.synth_dir is None:
            raise BadTrainingSetup("further synthetic sets (--more-data) go beside a first one (--data)")
        names = [d.name for d in (self.synth_dir, *self.more_synth) if d is not None]
        if len(set(names)) != len(names):
            raise BadTrainingSetup(f"synthetic sets need distinct folder names, not {names}")
        if self.workers < 0:
            raise BadTrainingSetup("data loader workers cannot be negative")
        if self.imgsz % 32 or not 128 <= self.imgsz <= 1280:
            raise BadTrainingSetup(f"image size must be a multiple of 32 in 128..1280, not {self.imgsz}")
        if self.init_weights is not None and not self.init_weights.is_file():
            raise BadTrainingSetup(f"no checkpoint at {self.init_weights}")
        if self.lr0 is not None and not 0 < self.lr0 <= 0.1:
            raise BadTrainingSetup(f"learning rate must be in (0, 0.1], not {self.lr0}")
        if self.epochs < 1 or self.batch < 1 or self.real_repeats < 1:
            raise BadTrainingSetup("epochs, batch and real repeats must be positive")
        if not 0 <= self.zone_views <= 10:
            raise BadTrainingSetup(f"zone views per synthetic image must be in 0..10, not {self.zone_views}")
        if self.zone_views and self.synth_dir is None:
            raise BadTrainingSetup("zone views are cut from a synthetic data set: give --data")


def _obb_line(cls: int, quad: np.ndarray, width: int, height: int) -> str:
    """An ultralytics OBB label line: class, then the four corners normalised and clipped to the image."""
    norm = np.clip(np.asarray(quad, dtype=np.float64) / (width, height), 0.0, 1.0)
    return f"{cls} " + " ".join(f"{v:.6f}" for v in norm.reshape(-1))


def write_real_labels(photos: list[LabelledPhoto], out_dir: Path, finder: BoxFinder | None = None) -> list[Path]:
    """Copy real photos into `out_dir/images` with OBB labels beside them (all face up: class card).

    The photos only have axis-aligned boxes; each card's outline is found inside its box. Where no
    outline is found (a fanned card under another, a card on a floor as light as itself) the
    oriented box `finder` finds for that card (IoU >= 0.5 with its box) stands in, and failing
    that the axis-aligned box itself: a fanned card's axis-aligned box is nearly square, and
    trained on as the card it taught the detector square boxes for fanned cards.
    """
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
        found = finder.detect(image) if finder is not None else Detections((), width, height)
        where = dict(match(photo.cards, found))
        lines = []
        for n, card in enumerate(photo.cards):
            quad, outlined = refine_quad(image, card.box)
            corners = found[where[n]].corners if n in where else None
            if not outlined and corners is not None:
                quad = np.asarray(corners, dtype=np.float64)
            lines.append(_obb_line(0, quad, width, height))
        (labels / (photo.path.stem + ".txt")).write_text("\n".join(lines) + "\n")
        written.append(target.absolute())
    return written


def write_synth_labels(synth_dir: Path, split: str, out_dir: Path) -> list[Path]:
    """OBB labels for a synthetic split, from its JSON ground truth: every card `seen_enough`."""
    source = synth_dir / "images" / split
    notes = synth_dir / "annotations" / split
    if not source.is_dir() or not notes.is_dir():
        raise BadTrainingSetup(f"{synth_dir}: no images/{split} or annotations/{split} (make it with `referee synth-data`)")
    images, labels = out_dir / "images", out_dir / "labels"
    out_dir.mkdir(parents=True, exist_ok=True)
    if not images.exists():
        images.symlink_to(source.resolve(), target_is_directory=True)
    labels.mkdir(exist_ok=True)
    written = []
    for note_path in sorted(notes.glob("*.json")):
        image = images / (note_path.stem + ".jpg")
        if not image.exists():
            continue
        note = json.loads(note_path.read_text())
        width, height = note["image"]["width"], note["image"]["height"]
        lines = [
            _obb_line(CLASS_NAMES.index("back") if c["card"] == FACE_DOWN else 0, np.array(c["corners"]), width, height)
            for c in note["cards"]
            if seen_enough(c)
        ]
        (labels / (note_path.stem + ".txt")).write_text("".join(f"{line}\n" for line in lines))
        written.append(image.absolute())
    return written


def build_dataset(config: DetectorConfig) -> Path:
    """Write the run's data.yaml: synthetic train images, their zone views (as the pipeline's zone
    reader tiles piles) and the real training split repeated."""
    data_dir = config.run_dir / "dataset"
    sources = {
        "synth": str(config.synth_dir.resolve()) if config.synth_dir is not None else None,
        "real": str(config.real_dir.resolve()) if config.real_dir is not None else None,
        "zone_views": config.zone_views,
        "seed": config.seed,
        **({"more_synth": [str(d.resolve()) for d in config.more_synth]} if config.more_synth else {}),
    }
    stamp = data_dir / "sources.json"
    if data_dir.exists() and (not stamp.exists() or json.loads(stamp.read_text()) != sources):
        shutil.rmtree(data_dir)  # written from other data: its image links and zone views would be stale
    data_dir.mkdir(parents=True, exist_ok=True)
    stamp.write_text(json.dumps(sources))
    train: list[Path] = []
    val: list[Path] = []
    if config.synth_dir is not None:
        train += write_synth_labels(config.synth_dir, "train", data_dir / "synth-train")
        val += write_synth_labels(config.synth_dir, "val", data_dir / "synth-val")
        if config.zone_views:
            train += write_zone_views(config.synth_dir, "train", data_dir / "zones-train", config.zone_views, config.seed)
            val += write_zone_views(config.synth_dir, "val", data_dir / "zones-val", 1.0, config.seed + 1)
    for more in config.more_synth:  # trained on only: the first set's val split stays the one measured
        train += write_synth_labels(more, "train", data_dir / f"synth-train-{more.name}")
        if config.zone_views:
            train += write_zone_views(more, "train", data_dir / f"zones-train-{more.name}", config.zone_views, config.seed)
    if config.real_dir is not None:
        from referee.vision.detector import CardDetector

        finder = CardDetector()  # the package's models
        real_train = write_real_labels(load_photos(config.real_dir, "train"), data_dir / "real-train", finder)
        train += real_train * config.real_repeats
        if config.synth_dir is None:
            val += write_real_labels(load_photos(config.real_dir, "holdout"), data_dir / "real-holdout")
    (data_dir / "train.txt").write_text("".join(f"{p}\n" for p in train))
    (data_dir / "val.txt").write_text("".join(f"{p}\n" for p in val))
    yaml = data_dir / "data.yaml"
    names = "".join(f"  {i}: {n}\n" for i, n in enumerate(CLASS_NAMES))
    yaml.write_text(f"path: {data_dir.absolute()}\ntrain: train.txt\nval: val.txt\nnames:\n{names}")
    return yaml


def listed_images(data_yaml: Path, split: str) -> list[Path]:
    """The images a data.yaml's split list names (paths relative to the yaml's folder or absolute)."""
    listing = data_yaml.parent / f"{split}.txt"
    if not listing.is_file():
        raise BadTrainingSetup(f"{data_yaml}: no {listing.name} beside it")
    return [data_yaml.parent / line for line in listing.read_text().split()]


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
            YOLO(str(last)).train(resume=True, workers=config.workers, device=config.device)
            return weights / "best.pt"
        archive = weights.parent.with_name(f"detector-{str(state.get('date', 'done')).replace(':', '')}")
        shutil.move(str(weights.parent), str(archive))
        start = str(archive / "weights" / "last.pt")
        print(f"{last} finished its schedule (kept in {archive}); a new {config.epochs}-epoch one starts from it", flush=True)
    else:
        start = config.model_yaml
    data = config.dataset if config.dataset is not None else build_dataset(config)
    model = YOLO(start)
    if config.init_weights is not None and start == config.model_yaml:
        init = config.init_weights
        if init.suffix == ".onnx":  # an exported detector: rebuilt as a checkpoint, its batch norms set on the training images
            from referee.train.onnxweights import checkpoint_from_onnx

            init = checkpoint_from_onnx(init, config.model_yaml, listed_images(data, "train"),
                                        config.run_dir / f"{init.stem}-rebuilt.pt", config.imgsz)
        model.load(str(init))  # copies every tensor whose name and shape match
    extra: dict[str, object] = {"time": config.hours} if config.hours else {}
    if config.lr0 is not None:  # else ultralytics picks AdamW at a rate fitted for training from scratch
        extra.update(optimizer="AdamW", lr0=config.lr0)
    model.train(
        data=str(data),
        epochs=config.epochs,
        imgsz=config.imgsz,
        batch=config.batch,
        workers=config.workers,
        device=config.device,
        project=str(config.run_dir.resolve()),
        name="detector",
        exist_ok=True,
        pretrained=start != config.model_yaml or config.init_weights is not None,  # False would drop loaded weights
        amp=False,  # ultralytics' AMP check downloads a model; offline it cannot
        plots=False,
        seed=config.seed,
        degrees=15.0,
        close_mosaic=2,
        warmup_epochs=1 if config.lr0 is None else 0.3,  # a given (low) rate goes on from trained weights
        cache="ram",
        val=False,  # validation costs minutes an epoch on this CPU: measured once at the end instead
        **extra,
    )
    return weights / "best.pt"


def validate_detector(checkpoint: Path, synth_dir: Path, out_dir: Path, imgsz: int, device: str = "cpu") -> dict[str, float]:
    """Ultralytics' validation of a checkpoint on a synthetic set's val split alone (the model
    card's synthetic figure): mAP50 and mAP50-95 over both classes and mAP50 of each."""
    if not checkpoint.exists():
        raise BadTrainingSetup(f"no checkpoint at {checkpoint}")
    from ultralytics import YOLO

    images = write_synth_labels(synth_dir, "val", out_dir / "synth-val")
    (out_dir / "val.txt").write_text("".join(f"{p}\n" for p in images))
    names = "".join(f"  {i}: {n}\n" for i, n in enumerate(CLASS_NAMES))
    yaml = out_dir / "data.yaml"
    yaml.write_text(f"path: {out_dir.absolute()}\ntrain: val.txt\nval: val.txt\nnames:\n{names}")
    metrics = YOLO(str(checkpoint)).val(data=str(yaml), imgsz=imgsz, batch=16, device=device, plots=False, workers=0,
                                        project=str(out_dir.absolute()), name="val", exist_ok=True)
    return {"mAP50": float(metrics.box.map50), "mAP50-95": float(metrics.box.map),
            **{f"mAP50 {n}": float(v) for n, v in zip(CLASS_NAMES, metrics.box.ap50)}}


def pack_dataset(data_yaml: Path, out_dir: Path, max_side: int, quality: int = 85) -> Path:
    """Copy a built data set into `out_dir` small enough to carry to another machine: each image
    shrunk so its longer side is at most `max_side` (the training size: ultralytics shrinks it so
    anyway) and stored as WebP, labels as they are (normalised), lists relative to the folder.
    An image listed several times (the repeated real photos) is stored once. Returns the new
    data.yaml."""
    if not data_yaml.is_file():
        raise BadTrainingSetup(f"no data set description at {data_yaml}")
    source = data_yaml.parent
    images, labels = out_dir / "images", out_dir / "labels"
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    packed: dict[Path, str] = {}
    for split in ("train", "val"):
        entries = []
        for line in (source / f"{split}.txt").read_text().split():
            image_path = Path(line)
            if image_path not in packed:
                name = f"{len(packed):06d}"
                image = cv2.imread(str(image_path))
                if image is None:
                    raise BadTrainingSetup(f"cannot read {image_path}")
                height, width = image.shape[:2]
                scale = max_side / max(height, width)
                if scale < 1:
                    image = cv2.resize(image, (round(width * scale), round(height * scale)), interpolation=cv2.INTER_AREA)
                cv2.imwrite(str(images / f"{name}.webp"), image, [cv2.IMWRITE_WEBP_QUALITY, quality])
                label = image_path.parent.parent / "labels" / f"{image_path.stem}.txt"
                shutil.copyfile(label, labels / f"{name}.txt")
                packed[image_path] = name
            entries.append(f"./images/{packed[image_path]}.webp\n")
        (out_dir / f"{split}.txt").write_text("".join(entries))
    names = "".join(f"  {i}: {n}\n" for i, n in enumerate(CLASS_NAMES))
    yaml = out_dir / "data.yaml"  # no `path`: ultralytics takes the folder the yaml is in
    yaml.write_text(f"train: train.txt\nval: val.txt\nnames:\n{names}")
    return yaml


def export_detector(checkpoint: Path, out_path: Path, imgsz: int) -> Path:
    """Export a checkpoint to ONNX (opset 17, no NMS in the graph) taking any input height and
    width that are multiples of 32, up to the trained `imgsz` (written into the file): a wide view
    is read as a wide input, not padded to a square."""
    from ultralytics import YOLO

    if not checkpoint.exists():
        raise BadTrainingSetup(f"no checkpoint at {checkpoint}")
    exported = Path(YOLO(str(checkpoint)).export(format="onnx", imgsz=imgsz, opset=17, simplify=False, dynamic=True))
    out_path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(exported, out_path)
    return out_path
