"""Real photos with Pascal VOC whole-card boxes (../shared/data/real-pinochle): loading and a fixed split."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from referee.errors import RefereeError

RANK_WORDS: Final = {"nine": "9", "ten": "10", "jack": "J", "queen": "Q", "king": "K", "ace": "A"}
"""VOC label (rank only) to the rank part of a card code."""
IMAGE_SUFFIXES: Final = (".jpg", ".jpeg", ".png")
BLOCK: Final = 8
"""Photos are split in runs of this many consecutive names, so near-identical neighbours stay together."""
HELD_OUT_BLOCKS: Final = (1, 3)
"""Block number modulo 5 that is held out: about 40% of the photos never seen in training."""

Split = Literal["train", "holdout", "all"]


class BadDataset(RefereeError):
    """A data set folder or annotation that cannot be read."""


@dataclass(frozen=True)
class LabelledCard:
    """One whole-card box of a real photo with its rank (`9`, `10`, `J`, `Q`, `K`, `A`)."""

    rank: str
    box: tuple[float, float, float, float]

    def __post_init__(self) -> None:
        x1, y1, x2, y2 = self.box
        if not (x2 > x1 and y2 > y1):
            raise BadDataset(f"empty box {self.box}")
        if self.rank not in RANK_WORDS.values():
            raise BadDataset(f"unknown rank {self.rank!r}")


@dataclass(frozen=True)
class LabelledPhoto:
    """A real photo and its labelled cards."""

    path: Path
    cards: tuple[LabelledCard, ...]


def _read_voc(xml_path: Path) -> tuple[LabelledCard, ...]:
    try:
        root = ET.parse(xml_path).getroot()
    except ET.ParseError as exc:
        raise BadDataset(f"{xml_path}: not valid VOC XML ({exc})") from exc
    cards = []
    for obj in root.iter("object"):
        name = (obj.findtext("name") or "").strip().lower()
        if name not in RANK_WORDS:
            raise BadDataset(f"{xml_path}: unknown label {name!r}")
        box = obj.find("bndbox")
        if box is None:
            raise BadDataset(f"{xml_path}: object without bndbox")
        coords = tuple(float(box.findtext(k) or "nan") for k in ("xmin", "ymin", "xmax", "ymax"))
        cards.append(LabelledCard(RANK_WORDS[name], coords))  # type: ignore[arg-type]
    return tuple(cards)


def split_of(index: int) -> Literal["train", "holdout"]:
    """The fixed split of the photo at `index` in name order."""
    return "holdout" if (index // BLOCK) % 5 in HELD_OUT_BLOCKS else "train"


def load_photos(folder: Path, split: Split = "all") -> list[LabelledPhoto]:
    """The labelled photos of a VOC folder (images beside same-named .xml files), in name order."""
    images = sorted(p for p in Path(folder).iterdir() if p.suffix.lower() in IMAGE_SUFFIXES) if Path(folder).is_dir() else []
    if not images:
        raise BadDataset(f"{folder}: no images with VOC annotations found")
    photos = []
    for index, image in enumerate(images):
        xml_path = image.with_suffix(".xml")
        if not xml_path.exists():
            continue
        if split != "all" and split_of(index) != split:
            continue
        photos.append(LabelledPhoto(image, _read_voc(xml_path)))
    return photos
