"""Stage 2 training: a tiny CNN reading rank and suit from upright index-corner crops, exported to ONNX."""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Protocol

import cv2
import numpy as np

from referee.cards import FACE_DOWN, parse_card
from referee.train.detector import BadTrainingSetup
from referee.train.zoneviews import MIN_IN_TILE, PlacedCard, zone_mosaic
from referee.vision.corners import (
    CROP_SIZE, READ_SCALES, card_quads_at_corners, index_crops, order_quad, outline_in_box, refine_quad, scaled_quad,
)
from referee.vision.detections import Detections
from referee.vision.detector import NO_INDEX, RANK_CLASSES, SUIT_CLASSES
from referee.vision.evaluate import match
from referee.vision.realset import load_photos

if TYPE_CHECKING:
    import torch

NONE_RANK = RANK_CLASSES.index(NO_INDEX)
UNKNOWN_SUIT = -1
COURT_RANKS = ("J", "Q", "K")


@dataclass(frozen=True)
class IndexConfig:
    """What `train_index_classifier` needs."""

    run_dir: Path
    synth_dir: Path | None
    real_dir: Path | None
    epochs: int = 12
    batch: int = 256
    real_repeats: int = 12
    court_repeats: int = 1
    """Real court cards (J, Q, K: this deck's ranks most confused) give their crops this many times as often."""
    jitter_copies: int = 1
    zone_views: float = 0.0
    """Zone mosaics (`referee.train.zoneviews`) per synthetic image whose cards give crops too."""
    more_data: tuple[Path, ...] = ()
    """Further synthetic sets cut as `synth_dir` is (zone views included) and trained on beside it,
    so a set made by a later generator adds to the earlier one rather than replacing it."""
    init_weights: Path | None = None
    """A classifier checkpoint to start a new schedule from when the run has none of its own, or an
    exported ONNX classifier (float or 8-bit), rebuilt (`referee.train.onnxweights.index_model_from_onnx`)."""
    seed: int = 0

    def __post_init__(self) -> None:
        if self.init_weights is not None and not self.init_weights.is_file():
            raise BadTrainingSetup(f"no checkpoint at {self.init_weights}")
        if self.synth_dir is None and self.real_dir is None:
            raise BadTrainingSetup("give a synthetic data set (--data) or real photos (--real), or both")
        if self.epochs < 1 or self.batch < 1 or self.real_repeats < 0 or self.jitter_copies < 0 or self.court_repeats < 1:
            raise BadTrainingSetup("epochs and batch must be positive, repeats and copies not negative")
        if not 0 <= self.zone_views <= 10:
            raise BadTrainingSetup(f"zone views per synthetic image must be in 0..10, not {self.zone_views}")
        if self.zone_views and self.synth_dir is None:
            raise BadTrainingSetup("zone views are cut from a synthetic data set (--data)")
        if self.more_data and self.synth_dir is None:
            raise BadTrainingSetup("further synthetic sets (--more-data) go with a first one (--data)")
        if len({d.name for d in self.more_data}) < len(self.more_data) or any(d.name == "" for d in self.more_data):
            raise BadTrainingSetup("further synthetic sets name their crop caches by folder name: give folders of distinct names")


@dataclass
class Samples:
    """Index crops (N, H, W, 3) uint8 BGR with rank class and suit class (-1: unknown)."""

    crops: np.ndarray
    ranks: np.ndarray
    suits: np.ndarray

    @staticmethod
    def concat(parts: list["Samples"]) -> "Samples":
        parts = [p for p in parts if len(p.ranks)]
        if not parts:
            return Samples(np.zeros((0, CROP_SIZE[1], CROP_SIZE[0], 3), np.uint8), np.zeros(0, np.int64), np.zeros(0, np.int64))
        return Samples(
            np.concatenate([p.crops for p in parts]),
            np.concatenate([p.ranks for p in parts]),
            np.concatenate([p.suits for p in parts]),
        )


def _labels(code: str) -> tuple[int, int]:
    if code == FACE_DOWN:
        return NONE_RANK, UNKNOWN_SUIT
    card = parse_card(code)
    if card.is_joker:
        return NONE_RANK, UNKNOWN_SUIT
    return RANK_CLASSES.index(card.rank_name), SUIT_CLASSES.index(card.suit)


BOX_JITTER = 0.025
"""Standard deviation of each corner coordinate of a jittered box, as a share of the card's
diagonal: the detector's oriented boxes on synthetic zone views are off by a median 0.026 and a
90th percentile 0.054 of the diagonal per corner, as this jitter gives."""


def _jitter(quad: np.ndarray, rng: np.random.Generator, amount: float) -> np.ndarray:
    size = float(np.linalg.norm(quad[2] - quad[0]))
    return (quad + rng.normal(0, amount * size, quad.shape)).astype(np.float32)


def _corner_labels(quad: np.ndarray, printed: np.ndarray, code: str, index_visible: tuple[bool, bool]) -> list[tuple[int, int]]:
    """Labels of the crops at quad corner 0 and 2: the index there if that printed corner shows one."""
    rank, suit = _labels(code)
    size = float(np.linalg.norm(printed[2] - printed[0]))
    out = []
    for start in (0, 2):
        distances = np.linalg.norm(printed[[0, 2]] - quad[start], axis=1)
        nearest = int(np.argmin(distances))
        visible = index_visible[nearest] and distances[nearest] < 0.12 * size
        out.append((rank, suit) if visible else (NONE_RANK, UNKNOWN_SUIT))
    return out


def synth_samples(synth_dir: Path, split: str, config: IndexConfig) -> Samples:
    """Index crops of every card of a synthetic split: from its true outline, its oriented box and jittered boxes."""
    folder = synth_dir / "annotations" / split
    if not folder.is_dir():
        raise BadTrainingSetup(f"{synth_dir}: no annotations/{split} folder (make one with `referee synth-data`)")
    rng = np.random.default_rng(config.seed)
    crops, ranks, suits = [], [], []
    files = sorted(folder.glob("*.json"))
    for n, path in enumerate(files):
        note = json.loads(path.read_text())
        image = cv2.imread(str(synth_dir / "images" / split / (path.stem + ".jpg")))
        if image is None:
            continue
        height, width = image.shape[:2]
        for card in note["cards"]:
            printed = np.asarray(card["corners"], dtype=np.float32)
            if card["visible"] < 0.15:
                continue
            x1, y1 = printed.min(axis=0)
            x2, y2 = printed.max(axis=0)
            if min(x2, width) - max(x1, 0) < 8 or min(y2, height) - max(y1, 0) < 8:
                continue
            rectangle = cv2.boxPoints(cv2.minAreaRect(printed))  # what the oriented-box detector gives
            quads = [order_quad(printed), order_quad(rectangle)]
            quads += [order_quad(_jitter(rectangle, rng, BOX_JITTER)) for _ in range(config.jitter_copies)]
            visible = (bool(card["index_visible"][0]), bool(card["index_visible"][1]))
            for quad in quads:
                pair = index_crops(image, quad)
                for crop, (rank, suit) in zip(pair, _corner_labels(quad, printed, card["card"], visible)):
                    crops.append(crop)
                    ranks.append(rank)
                    suits.append(suit)
        if (n + 1) % 500 == 0:
            print(f"  {split}: {n + 1}/{len(files)} images, {len(ranks)} crops", flush=True)
    if not ranks:
        raise BadTrainingSetup(f"{folder}: no usable cards")
    return Samples(np.stack(crops), np.array(ranks, np.int64), np.array(suits, np.int64))


def _index_shown(item: PlacedCard) -> tuple[bool, bool]:
    """Whether each printed index corner of a placed card shows in its tile: seen in the scene and inside the tile."""
    _, _, width, height = item.tile
    shown = []
    for k, corner in zip((0, 1), item.quad[[0, 2]]):
        inside = 0 <= corner[0] <= width and 0 <= corner[1] <= height
        shown.append(bool(item.card["index_visible"][k]) and inside)
    return shown[0], shown[1]


def zone_card_crops(mosaic: np.ndarray, item: PlacedCard, rng: np.random.Generator,
                    jitter_copies: int) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """Index crops of one card in a zone mosaic, as `CardDetector` cuts them, with their labels:
    from the true outline, and from each of `jitter_copies` jittered boxes (standing for the
    detector's oriented box) and the outline found inside that box where there is one."""
    printed = item.in_mosaic.astype(np.float32)
    shown = _index_shown(item)
    quads = [order_quad(printed)]
    rectangle = cv2.boxPoints(cv2.minAreaRect(printed))
    for _ in range(jitter_copies):
        box = order_quad(_jitter(rectangle, rng, BOX_JITTER))
        quads.append(box)
        outline = outline_in_box(mosaic, box)
        if outline is not None:
            quads.append(outline)
    crops, labels = [], []
    for quad in quads:
        crops.append(index_crops(mosaic, quad))
        labels += _corner_labels(quad, printed, item.card["card"], shown)
    return np.concatenate(crops), labels


def zone_samples(synth_dir: Path, split: str, config: IndexConfig, per_image: float) -> Samples:
    """Index crops of the cards the pipeline's zone reader would see: about `per_image` zone
    mosaics (6-16 px/cm) per synthetic image of a split, every card at least 15% unhidden and
    mostly inside its tile; deterministic for a seed."""
    folder = synth_dir / "annotations" / split
    if not folder.is_dir():
        raise BadTrainingSetup(f"{synth_dir}: no annotations/{split} folder (make one with `referee synth-data`)")
    rng = np.random.default_rng([config.seed, 2])
    crops: list[np.ndarray] = []
    ranks: list[int] = []
    suits: list[int] = []
    files = sorted(folder.glob("*.json"))
    for n, path in enumerate(files):
        count = int(per_image) + (1 if rng.random() < per_image - int(per_image) else 0)
        if not count:
            continue
        note = json.loads(path.read_text())
        image = cv2.imread(str(synth_dir / note["image"]["file"]))
        if image is None:
            continue
        for k in range(count):
            made = zone_mosaic(image, note, np.random.default_rng([config.seed, n, k]))
            if made is None:
                continue
            mosaic, placed = made
            for item in placed:
                if item.card["visible"] < 0.15 or item.inside_share() < MIN_IN_TILE:
                    continue
                pair, labels = zone_card_crops(mosaic, item, rng, config.jitter_copies)
                crops.append(pair)
                ranks += [rank for rank, _ in labels]
                suits += [suit for _, suit in labels]
        if (n + 1) % 500 == 0:
            print(f"  {split} zone views: {n + 1}/{len(files)} images, {len(ranks)} crops", flush=True)
    if not ranks:
        return Samples.concat([])
    return Samples(np.concatenate(crops), np.array(ranks, np.int64), np.array(suits, np.int64))


SEEN_INDEX = 0.5
"""A real card's crop cut where the detector finds the card is trained on with the card's rank only
where the index reader already gives it at least this chance of showing an index at all: the
corner may lie under another card, and a photo's label does not say which corners show."""


class CardFinder(Protocol):
    """What cuts real crops where no outline is found: `referee.vision.CardDetector`."""

    def detect(self, image: np.ndarray) -> Detections: ...

    def read_crops(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...


def reading_crops(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The crops `CardDetector` reads of a card at `quad` when it reads it again: its two corners at
    each of `READ_SCALES`, and each corner as a whole card's printed top-left (`card_quads_at_corners`)."""
    crops = [index_crops(image, scaled_quad(quad, factor)) for factor in READ_SCALES]
    crops += [index_crops(image, card)[:1] for card in card_quads_at_corners(quad)]
    return np.concatenate(crops)


def real_samples(real_dir: Path, config: IndexConfig, finder: CardFinder | None = None) -> Samples:
    """Index crops of the real photos' training split; rank only (suit unknown). A card whose outline
    is found inside its box gives both corners of the outline. One whose outline is not found (fanned
    under another card, on a light floor) gives, with a `finder`, the crops the detector reads where
    it finds that card (IoU >= 0.5 with its box), those it reads as an index (`SEEN_INDEX`)."""
    rng = np.random.default_rng(config.seed + 1)
    crops, ranks = [], []
    for photo in load_photos(real_dir, "train"):
        image = cv2.imread(str(photo.path))
        if image is None:
            continue
        found = finder.detect(image) if finder is not None else Detections((), image.shape[1], image.shape[0])
        where = dict(match(photo.cards, found))
        for n, card in enumerate(photo.cards):
            rank = RANK_CLASSES.index(card.rank)
            repeats = config.real_repeats * (config.court_repeats if card.rank in COURT_RANKS else 1)
            quad, outlined = refine_quad(image, card.box)
            if outlined:
                for _ in range(repeats):
                    cut = index_crops(image, _jitter(quad, rng, 0.01))
                    crops += list(cut)
                    ranks += [rank] * len(cut)
                continue
            corners = found[where[n]].corners if n in where else None
            if finder is None or corners is None:
                continue  # neither the outline nor the detector says where the index is
            quad = np.asarray(corners, dtype=np.float32)
            seen = finder.read_crops(reading_crops(image, quad))[0][:, NONE_RANK] <= 1.0 - SEEN_INDEX
            for _ in range(repeats):
                cut = reading_crops(image, _jitter(quad, rng, 0.01))
                if len(cut) == len(seen):
                    crops += list(cut[seen])
                    ranks += [rank] * int(seen.sum())
    if not ranks:
        return Samples.concat([])
    return Samples(np.stack(crops), np.array(ranks, np.int64), np.full(len(ranks), UNKNOWN_SUIT, np.int64))


def _network() -> torch.nn.Module:
    from torch import nn

    def block(cin: int, cout: int) -> list[nn.Module]:
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    class IndexNet(nn.Module):
        """Crops (N, 3, 56, 32) floats in 0..1, BGR -> rank and suit probabilities."""

        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(
                *block(3, 16), nn.MaxPool2d(2),
                *block(16, 32), nn.MaxPool2d(2),
                *block(32, 64), *block(64, 64), nn.MaxPool2d(2),
            )
            flat = 64 * (CROP_SIZE[1] // 8) * (CROP_SIZE[0] // 8)
            self.trunk = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(flat, 128), nn.ReLU(inplace=True))
            self.rank = nn.Linear(128, len(RANK_CLASSES))
            self.suit = nn.Linear(128, len(SUIT_CLASSES))

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            h = self.trunk(self.features(x))
            return self.rank(h), self.suit(h)

    return IndexNet()


def _augment(batch: "torch.Tensor", generator: "torch.Generator") -> "torch.Tensor":
    """Photometric and resolution noise: gain, per-channel tint, contrast, blur by down-up sampling, noise."""
    import torch
    import torch.nn.functional as F

    n = batch.shape[0]

    def uniform(lo: float, hi: float, *shape: int) -> torch.Tensor:
        return lo + (hi - lo) * torch.rand(*shape, generator=generator)

    x = batch * uniform(0.5, 1.4, n, 1, 1, 1) * uniform(0.8, 1.2, n, 3, 1, 1)
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = (x - mean) * uniform(0.5, 1.3, n, 1, 1, 1) + mean + uniform(-0.15, 0.15, n, 1, 1, 1)
    grey = torch.rand(n, generator=generator) < 0.1
    x[grey] = x[grey].mean(dim=1, keepdim=True).expand(-1, 3, -1, -1)
    small = torch.rand(n, generator=generator) < 0.4
    if small.any():
        factor = float(uniform(0.3, 0.7, 1))
        h, w = x.shape[2:]
        down = F.interpolate(x[small], size=(max(4, int(h * factor)), max(4, int(w * factor))), mode="bilinear", align_corners=False)
        x[small] = F.interpolate(down, size=(h, w), mode="bilinear", align_corners=False)
    x = x + torch.randn(x.shape, generator=generator) * uniform(0.0, 0.06, n, 1, 1, 1)
    return x.clamp(0, 1)


def _to_tensor(crops: np.ndarray) -> "torch.Tensor":
    import torch

    return torch.from_numpy(crops).permute(0, 3, 1, 2).float().div_(255.0)


def _evaluate(model: "torch.nn.Module", samples: Samples) -> tuple[float, float]:
    """Rank accuracy (all crops) and suit accuracy (crops with a known suit)."""
    import torch

    model.eval()
    rank_hits, suit_hits, suit_total = 0, 0, 0
    with torch.no_grad():
        for i in range(0, len(samples.ranks), 1024):
            rank_logits, suit_logits = model(_to_tensor(samples.crops[i : i + 1024]))
            ranks = torch.from_numpy(samples.ranks[i : i + 1024])
            suits = torch.from_numpy(samples.suits[i : i + 1024])
            rank_hits += int((rank_logits.argmax(1) == ranks).sum())
            known = suits >= 0
            suit_hits += int((suit_logits.argmax(1)[known] == suits[known]).sum())
            suit_total += int(known.sum())
    model.train()
    return rank_hits / max(1, len(samples.ranks)), suit_hits / max(1, suit_total)


def _cached(path: Path, build: Callable[[], tuple[Samples, Samples]]) -> tuple[Samples, Samples]:
    """Training and validation samples from a cache file of the run, built and saved first when it
    is not there (delete the file to cut the crops again)."""
    if path.exists():
        data = np.load(path)
        return (
            Samples(data["train_crops"], data["train_ranks"], data["train_suits"]),
            Samples(data["val_crops"], data["val_ranks"], data["val_suits"]),
        )
    train, val = build()
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(
        path,
        train_crops=train.crops, train_ranks=train.ranks, train_suits=train.suits,
        val_crops=val.crops, val_ranks=val.ranks, val_suits=val.suits,
    )
    return train, val


def _load_samples(config: IndexConfig) -> tuple[Samples, dict[str, Samples]]:
    """The training samples and the validation sets by name; each further synthetic set
    (`more_data`) is cut into caches of its own, named after its folder."""

    def scenes() -> tuple[Samples, Samples]:
        print("cutting index crops ...", flush=True)
        train_parts, val = [], Samples.concat([])
        if config.synth_dir is not None:
            train_parts.append(synth_samples(config.synth_dir, "train", config))
            val = synth_samples(config.synth_dir, "val", IndexConfig(**{**config.__dict__, "jitter_copies": 0}))
        if config.real_dir is not None:
            from referee.vision.detector import CardDetector

            train_parts.append(real_samples(config.real_dir, config, CardDetector()))
        return Samples.concat(train_parts), val

    def more_scenes(folder: Path) -> Callable[[], tuple[Samples, Samples]]:
        def cut() -> tuple[Samples, Samples]:
            print(f"cutting index crops of {folder} ...", flush=True)
            return (synth_samples(folder, "train", config),
                    synth_samples(folder, "val", IndexConfig(**{**config.__dict__, "jitter_copies": 0})))
        return cut

    def zones(folder: Path) -> Callable[[], tuple[Samples, Samples]]:
        def cut() -> tuple[Samples, Samples]:
            print(f"cutting index crops from zone views of {folder} ...", flush=True)
            return (zone_samples(folder, "train", config, config.zone_views),
                    zone_samples(folder, "val", config, 1.0))
        return cut

    train, val = _cached(config.run_dir / "index-samples.npz", scenes)
    parts, vals = [train], {"synthetic": val}
    for folder in config.more_data:
        more_train, vals[f"synthetic {folder.name}"] = _cached(config.run_dir / f"index-samples-{folder.name}.npz", more_scenes(folder))
        parts.append(more_train)
    if config.zone_views:
        assert config.synth_dir is not None  # IndexConfig refuses zone views without a synthetic set
        zone_train, vals["zone views"] = _cached(config.run_dir / f"index-zone-samples-{config.zone_views:g}.npz", zones(config.synth_dir))
        parts.append(zone_train)
        for folder in config.more_data:
            name = f"index-zone-samples-{folder.name}-{config.zone_views:g}.npz"
            more_zones, vals[f"zone views {folder.name}"] = _cached(config.run_dir / name, zones(folder))
            parts.append(more_zones)
    return Samples.concat(parts), vals


def train_index_classifier(config: IndexConfig) -> Path:
    """Train (resuming from the run's checkpoint when there is one); returns the checkpoint path."""
    import torch
    import torch.nn.functional as F

    torch.manual_seed(config.seed)
    train, vals = _load_samples(config)
    print(f"index crops: {len(train.ranks)} train, " + ", ".join(f"{len(v.ranks)} {name} val" for name, v in vals.items()), flush=True)
    model = _network()
    optimiser = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    steps_per_epoch = math.ceil(len(train.ranks) / config.batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=3e-3, total_steps=config.epochs * steps_per_epoch)
    checkpoint = config.run_dir / "index-classifier.pt"
    start = 0
    if checkpoint.exists():
        state = torch.load(checkpoint, map_location="cpu", weights_only=False)
        if state["epochs"] == config.epochs:
            model.load_state_dict(state["model"])
            optimiser.load_state_dict(state["optimiser"])
            schedule.load_state_dict(state["schedule"])
            start = state["epoch"]
            print(f"resuming after epoch {start}", flush=True)
        else:
            model.load_state_dict(state["model"])
            print(f"starting a new {config.epochs}-epoch schedule from {checkpoint}", flush=True)
    elif config.init_weights is not None and config.init_weights.suffix == ".onnx":
        from referee.train.onnxweights import index_model_from_onnx

        pick = np.random.default_rng(config.seed).choice(len(train.ranks), min(CALIBRATION_CROPS, len(train.ranks)), replace=False)
        model.load_state_dict(index_model_from_onnx(config.init_weights, train.crops[np.sort(pick)]).state_dict())
        model.train()
        print(f"starting a new {config.epochs}-epoch schedule from {config.init_weights} (rebuilt; batch norms set on "
              f"{len(pick)} training crops)", flush=True)
    elif config.init_weights is not None:
        model.load_state_dict(torch.load(config.init_weights, map_location="cpu", weights_only=False)["model"])
        print(f"starting a new {config.epochs}-epoch schedule from {config.init_weights}", flush=True)
    generator = torch.Generator().manual_seed(config.seed + start)
    for epoch in range(start, config.epochs):
        began = time.monotonic()
        order = torch.randperm(len(train.ranks), generator=generator).numpy()
        total = 0.0
        for step in range(steps_per_epoch):
            pick = order[step * config.batch : (step + 1) * config.batch]
            x = _augment(_to_tensor(train.crops[pick]), generator)
            ranks = torch.from_numpy(train.ranks[pick])
            suits = torch.from_numpy(train.suits[pick])
            rank_logits, suit_logits = model(x)
            loss = F.cross_entropy(rank_logits, ranks, label_smoothing=0.05)
            known = suits >= 0
            if known.any():
                loss = loss + F.cross_entropy(suit_logits[known], suits[known], label_smoothing=0.05)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.item()
            if (step + 1) % 50 == 0:
                print(f"  epoch {epoch + 1}/{config.epochs} step {step + 1}/{steps_per_epoch} loss {total / (step + 1):.4f}", flush=True)
        scores = {name: _evaluate(model, v) for name, v in vals.items() if len(v.ranks)}
        print(
            f"epoch {epoch + 1}/{config.epochs}: loss {total / steps_per_epoch:.4f}, "
            + ", ".join(f"{name} val rank {r:.4f} suit {s:.4f}" for name, (r, s) in scores.items())
            + f", {time.monotonic() - began:.0f}s",
            flush=True,
        )
        torch.save(
            {"model": model.state_dict(), "optimiser": optimiser.state_dict(), "schedule": schedule.state_dict(),
             "epoch": epoch + 1, "epochs": config.epochs, "val": scores},
            checkpoint,
        )
    return checkpoint


def export_index_classifier(checkpoint: Path, out_path: Path) -> Path:
    """Export to ONNX: input `crops` (N, 3, 56, 32) float 0..1 BGR; outputs `rank` and `suit` probabilities."""
    import torch

    if not checkpoint.exists():
        raise BadTrainingSetup(f"no checkpoint at {checkpoint}")
    model = _network()
    model.load_state_dict(torch.load(checkpoint, map_location="cpu", weights_only=False)["model"])
    model.eval()

    class WithSoftmax(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            rank, suit = self.inner(x)
            return rank.softmax(1), suit.softmax(1)

    out_path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        WithSoftmax(model),
        torch.zeros(2, 3, CROP_SIZE[1], CROP_SIZE[0]),
        str(out_path),
        input_names=["crops"],
        output_names=["rank", "suit"],
        dynamic_axes={"crops": {0: "n"}, "rank": {0: "n"}, "suit": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    return out_path


CALIBRATION_CROPS = 3000
"""Training crops an 8-bit index classifier's activation ranges are measured on."""


def calibration_crops(run_dir: Path, seed: int = 0) -> np.ndarray:
    """`CALIBRATION_CROPS` training crops (N, H, W, 3) uint8 of a run's crop cache, chosen with `seed`."""
    cache = run_dir / "index-samples.npz"
    if not cache.is_file():
        raise BadTrainingSetup(f"{run_dir} has no crop cache {cache.name} to calibrate an 8-bit classifier on")
    crops = np.load(cache)["train_crops"]
    pick = np.random.default_rng(seed).choice(len(crops), min(CALIBRATION_CROPS, len(crops)), replace=False)
    return crops[np.sort(pick)]


def quantize_index_classifier(model_path: Path, crops: np.ndarray, out_path: Path) -> Path:
    """The exported classifier with 8-bit weights (per output channel) and activations, as
    onnxruntime's static QDQ quantization makes it; activation ranges from `crops` (N, H, W, 3) uint8.
    The rank and suit heads and their softmax stay float, so probabilities are not rounded to
    steps of 1/255 (the reading threshold and confidences are compared finely). Reading a crop
    then takes about a third less CPU; inputs and outputs are the same as before."""
    import tempfile

    import onnx
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quant_pre_process, quantize_static

    class Crops(CalibrationDataReader):
        def __init__(self) -> None:
            self.start = 0

        def get_next(self) -> dict[str, np.ndarray] | None:
            if self.start >= len(crops):
                return None
            batch = crops[self.start : self.start + 100].transpose(0, 3, 1, 2).astype(np.float32) / 255.0
            self.start += 100
            return {"crops": batch}

    with tempfile.TemporaryDirectory() as folder:
        prepared = Path(folder) / "prepared.onnx"
        quant_pre_process(str(model_path), str(prepared))
        graph = onnx.load(str(prepared)).graph
        made_by = {output: node.name for node in graph.node for output in node.output}
        softmax = [node for node in graph.node if node.op_type == "Softmax"]
        heads = [node.name for node in softmax] + [made_by[node.input[0]] for node in softmax]
        quantize_static(str(prepared), str(out_path), Crops(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, nodes_to_exclude=heads)
    return out_path
