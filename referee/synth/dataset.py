"""Random samples (image + annotation) for a seed and index, and whole YOLO datasets written to disk."""

from __future__ import annotations

import json
import math
import multiprocessing
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Final

import cv2
import numpy as np

from referee.cards import parse_card
from referee.synth.annotation import Annotation
from referee.synth.backs import BACKS_BY_NAME, BUILTIN_BACKS, BackStyle, builtin_back, folder_back, folder_back_files
from referee.synth.camera import Camera
from referee.synth.faces import BUILTIN_STYLES, STYLES_BY_NAME, BuiltinFaces, FaceStyle, FolderFaces, SynthAssetError
from referee.synth.labels import CLASS_NAMES, DEFAULT_MIN_IN_FRAME, DEFAULT_MIN_VISIBLE, SCHEMES, yolo_text
from referee.synth.layout import PlayArea, random_scene
from referee.synth.photometric import apply_effects, encode_jpeg, random_effects
from referee.synth.scene import Deck, render_scene
from referee.synth.varied import random_style

RESOLUTIONS: Final = ((1280, 720), (1920, 1080), (640, 480), (960, 540), (800, 600), (1024, 576), (480, 270),
                      (640, 360), (480, 640))
RESOLUTION_WEIGHTS: Final = (0.25, 0.11, 0.16, 0.12, 0.08, 0.08, 0.09, 0.07, 0.04)
MANIFEST: Final = "synth.json"
GENERATOR: Final = 8
"""Changes whenever the same (seed, index) would draw a different image; a folder made by
another generator is not resumed."""


@dataclass(frozen=True)
class SynthConfig:
    """What decides every image of a dataset (with the image's index); `labels` and
    `min_visible`, `min_in_frame` only decide the label files, which are derived from the annotations."""

    seed: int
    faces_dir: Path | None = None
    backs_dir: Path | None = None
    val_fraction: float = 0.1
    labels: str = "cards"
    min_visible: float = DEFAULT_MIN_VISIBLE
    min_in_frame: float = DEFAULT_MIN_IN_FRAME
    folder_share: float = 0.5
    """Share of images drawn with the --faces (and --backs) images rather than built-in ones."""
    styles: tuple[str, ...] = ()
    """Built-in face and back styles to draw from, by name (`referee.synth.faces.STYLES_BY_NAME`,
    `referee.synth.backs.BACKS_BY_NAME`), the reserved ones included; no face style named: every
    `BUILTIN_STYLES`, likewise for backs. The same seed draws the same scenes whatever is named."""
    varied_share: float = 0.0
    """Share of images whose faces are drawn in a style made up for that image
    (`referee.synth.varied.random_style`) instead; the scenes are the same whatever the share."""

    def face_styles(self) -> tuple[FaceStyle, ...]:
        named = tuple(STYLES_BY_NAME[n] for n in self.styles if n in STYLES_BY_NAME)
        return named or BUILTIN_STYLES

    def back_styles(self) -> tuple[BackStyle, ...]:
        named = tuple(BACKS_BY_NAME[n] for n in self.styles if n in BACKS_BY_NAME)
        return named or BUILTIN_BACKS

    def check(self) -> None:
        """Raise SynthAssetError for unusable options or folders, before any image is drawn."""
        if not 0.0 <= self.val_fraction < 1.0:
            raise SynthAssetError(f"the validation fraction must be in [0, 1), not {self.val_fraction}")
        if self.labels not in SCHEMES:
            raise SynthAssetError(f"unknown label scheme {self.labels!r}; known: {', '.join(SCHEMES)}")
        if not 0.0 <= self.folder_share <= 1.0:
            raise SynthAssetError(f"the folder share must be in [0, 1], not {self.folder_share}")
        if not 0.0 <= self.varied_share <= 1.0:
            raise SynthAssetError(f"the varied share must be in [0, 1], not {self.varied_share}")
        unknown = [n for n in self.styles if n not in STYLES_BY_NAME and n not in BACKS_BY_NAME]
        if unknown:
            raise SynthAssetError(f"unknown face or back styles {', '.join(unknown)}; known: "
                                  f"{', '.join(list(STYLES_BY_NAME) + list(BACKS_BY_NAME))}")
        if not 0.0 <= self.min_visible <= 1.0 or not 0.0 <= self.min_in_frame <= 1.0:
            raise SynthAssetError(f"min_visible and min_in_frame must be in [0, 1], not {self.min_visible}, "
                                  f"{self.min_in_frame}")
        if self.faces_dir is not None:
            faces = FolderFaces(self.faces_dir)
            faces.face(faces.codes()[0])  # renders one: a missing SVG renderer shows up now
        if self.backs_dir is not None:
            folder_back(folder_back_files(self.backs_dir)[0])


@dataclass(frozen=True, eq=False)
class Sample:
    """One generated image: JPEG bytes, its annotation and its split ("train" or "val")."""

    index: int
    split: str
    jpeg: bytes
    annotation: Annotation


def split_of(index: int, val_fraction: float) -> str:
    """An even, index-only split: any run of images holds about `val_fraction` validation images."""
    return "val" if ((index + 0.5) * 0.6180339887498949) % 1.0 < val_fraction else "train"


def random_camera(rng: np.random.Generator, area: PlayArea = PlayArea()) -> Camera:
    """A webcam looking at the play area: straight down to 60 degrees tilt, random framing and size."""
    k = int(rng.choice(len(RESOLUTIONS), p=RESOLUTION_WEIGHTS))
    width, height = RESOLUTIONS[k]
    hfov = float(rng.uniform(50, 80))
    vfov = 2 * math.degrees(math.atan(math.tan(math.radians(hfov) / 2) * height / width))
    tilt = float(min(rng.uniform(0, 60), 80 - vfov / 2))
    if rng.random() < 0.15:  # a close look at part of the table
        seen_width = float(rng.uniform(18, 40))
        target = (float(rng.uniform(-0.4, 0.4) * area.width), float(rng.uniform(-0.4, 0.4) * area.depth))
    else:
        seen_width = float(rng.uniform(0.65, 1.6)) * area.width
        target = (float(rng.normal(0, area.width * 0.12)), float(rng.normal(0, area.depth * 0.12)))
    distance = seen_width / 2 / math.tan(math.radians(hfov) / 2)
    return Camera.look_at(width, height, target, distance, tilt, float(rng.uniform(0, 360)), hfov,
                          float(rng.normal(0, 4)))


def random_deck(rng: np.random.Generator, config: SynthConfig, style_rng: np.random.Generator | None = None) -> Deck:
    """Built-in faces in a random style, or the --faces folder (built-in faces fill its gaps).
    A style is drawn as one of `BUILTIN_STYLES` (and a back of `BUILTIN_BACKS`) and taken from the
    styles the config names at that draw's place, so naming styles changes no other draw; with
    `config.varied_share`, `style_rng` alone decides whether a made-up style replaces it and which."""
    faces_pool, backs_pool = config.face_styles(), config.back_styles()
    style = faces_pool[int(rng.integers(len(BUILTIN_STYLES))) % len(faces_pool)]
    if style_rng is not None and style_rng.random() < config.varied_share:
        style = random_style(style_rng)
    faces: BuiltinFaces | FolderFaces = BuiltinFaces(style)
    if config.faces_dir is not None and rng.random() < config.folder_share:
        faces = FolderFaces(config.faces_dir, f"folder:{config.faces_dir.name}")
    if config.backs_dir is not None and rng.random() < config.folder_share:
        files = folder_back_files(config.backs_dir)
        path = files[int(rng.integers(len(files)))]
        return Deck(_Filled(faces, BuiltinFaces(style)), folder_back(path), path.stem)
    back = backs_pool[int(rng.integers(len(BUILTIN_BACKS))) % len(backs_pool)]
    return Deck(_Filled(faces, BuiltinFaces(style)), builtin_back(back), back.name)


@dataclass(frozen=True)
class _Filled:
    """A face source whose missing codes are drawn by a built-in style."""

    main: BuiltinFaces | FolderFaces
    fallback: BuiltinFaces

    @property
    def name(self) -> str:
        return self.main.name

    def face(self, code: str) -> np.ndarray:
        if isinstance(self.main, FolderFaces) and parse_card(code).code not in self.main.files():
            return self.fallback.face(code)
        return self.main.face(code)


def generate_sample(index: int, config: SynthConfig) -> Sample:
    """Image `index` of the dataset of `config.seed`: depends on nothing else."""
    rng = np.random.default_rng([config.seed, index])
    scene = random_scene(rng)
    camera = random_camera(rng)
    deck = random_deck(rng, config, np.random.default_rng([config.seed, index, 1]))
    rendered = render_scene(scene, camera, deck)
    effects = random_effects(rng)
    rgb = apply_effects(rendered.image, effects, rng)
    return Sample(index, split_of(index, config.val_fraction), encode_jpeg(rgb, effects.jpeg_quality),
                  rendered.annotation)


def sample_paths(out: Path, index: int, split: str) -> tuple[Path, Path, Path]:
    """(image, label, annotation) paths of one sample."""
    name = f"{index:06d}"
    return (out / "images" / split / f"{name}.jpg", out / "labels" / split / f"{name}.txt",
            out / "annotations" / split / f"{name}.json")


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".part")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _label_text(annotation: Annotation, config: SynthConfig) -> bytes:
    return yolo_text(annotation, config.labels, config.min_visible, config.min_in_frame).encode()


def write_sample(out: Path, sample: Sample, config: SynthConfig) -> None:
    """Write image, YOLO label and JSON annotation; the annotation last (it marks the sample done)."""
    image, label, annotation = sample_paths(out, sample.index, sample.split)
    _write_atomic(image, sample.jpeg)
    _write_atomic(label, _label_text(sample.annotation, config))
    payload = sample.annotation.to_dict()
    payload["image"]["file"] = f"images/{sample.split}/{image.name}"
    _write_atomic(annotation, json.dumps(payload, separators=(",", ":")).encode())


def is_done(out: Path, index: int, config: SynthConfig) -> bool:
    image, label, annotation = sample_paths(out, index, split_of(index, config.val_fraction))
    return annotation.exists() and image.exists() and label.exists()


def _manifest(config: SynthConfig) -> dict[str, object]:
    data: dict[str, object] = {"generator": GENERATOR, **asdict(config)}
    for key in ("faces_dir", "backs_dir"):
        value = data[key]
        data[key] = None if value is None else str(Path(str(value)).resolve())
    data["styles"] = list(config.styles) or None  # a folder made before the option had none
    data["varied_share"] = config.varied_share or None  # likewise
    return data


_IMAGE_KEYS: Final = ("generator", "seed", "faces_dir", "backs_dir", "val_fraction", "folder_share", "styles",
                      "varied_share")


def prepare(out: Path, config: SynthConfig) -> None:
    """Make the folders, data.yaml and manifest; relabel old samples if only the label options
    changed. Refuses a folder made with other image options."""
    config.check()
    manifest_path = out / MANIFEST
    new = _manifest(config)
    old: dict[str, object] | None = None
    if manifest_path.exists():
        try:
            old = json.loads(manifest_path.read_text())
        except (OSError, ValueError) as exc:
            raise SynthAssetError(f"{manifest_path} is unreadable ({exc}); use a new --out folder") from exc
        changed = [k for k in _IMAGE_KEYS if old.get(k) != new[k]]
        if "generator" in changed:
            raise SynthAssetError(f"{out} holds images of another version of the generator; use a new --out folder")
        if changed:
            raise SynthAssetError(f"{out} holds images made with other options ({', '.join(changed)}); "
                                  "use the same options or a new --out folder")
    for kind in ("images", "labels", "annotations"):
        for split in ("train", "val"):
            (out / kind / split).mkdir(parents=True, exist_ok=True)
    label_keys = ("labels", "min_visible", "min_in_frame")
    if old is not None and any(old.get(k) != new[k] for k in label_keys):
        for path in sorted((out / "annotations").glob("*/*.json")):
            ann = Annotation.from_dict(json.loads(path.read_text()))
            label = out / "labels" / path.parent.name / (path.stem + ".txt")
            _write_atomic(label, _label_text(ann, config))
    _write_atomic(manifest_path, json.dumps(new, indent=1).encode())
    names = "".join(f"  {i}: {n}\n" for i, n in enumerate(CLASS_NAMES))
    yaml = f"path: {out.resolve()}\ntrain: images/train\nval: images/val\nnames:\n{names}"
    _write_atomic(out / "data.yaml", yaml.encode())


def _work(job: tuple[Path, int, SynthConfig]) -> int:
    out, index, config = job
    write_sample(out, generate_sample(index, config), config)
    return index


def generate_dataset(out: Path, count: int, config: SynthConfig, workers: int = 1) -> Iterator[int]:
    """Write images 0..count-1 that are not written yet; yields each index as it is finished
    (and the skipped ones first), so a caller can show progress."""
    prepare(out, config)
    todo = []
    for index in range(count):
        if is_done(out, index, config):
            yield index
        else:
            todo.append(index)
    jobs = [(out, index, config) for index in todo]
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            yield _work(job)
        return
    # spawn, not fork: a forked child can inherit OpenCV's thread pool locked and hang
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(workers, initializer=cv2.setNumThreads, initargs=(1,)) as pool:
        yield from pool.imap_unordered(_work, jobs, chunksize=2)

