"""Makes torch, torchvision and ultralytics usable offline on this CPU: a pure-torch NMS, no network."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from referee.errors import RefereeError

if TYPE_CHECKING:
    import torch

_FONT_CANDIDATES = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
)


class TrainingUnavailable(RefereeError):
    """The [train] extra (torch, ultralytics, onnx) is missing or unusable here."""


def _box_iou(a: "torch.Tensor", b: "torch.Tensor") -> "torch.Tensor":
    import torch

    lt = torch.maximum(a[:, None, :2], b[None, :, :2])
    rb = torch.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(-1)
    area_a = (a[:, 2:] - a[:, :2]).clamp(min=0).prod(-1)
    area_b = (b[:, 2:] - b[:, :2]).clamp(min=0).prod(-1)
    return inter / (area_a[:, None] + area_b[None, :] - inter + 1e-9)


def _nms(dets: "torch.Tensor", scores: "torch.Tensor", iou_threshold: float) -> "torch.Tensor":
    """Greedy non-maximum suppression in plain torch: indices kept, best score first."""
    import torch

    order = scores.argsort(descending=True)
    iou = _box_iou(dets[order], dets[order])
    keep = torch.ones(len(order), dtype=torch.bool)
    for i in range(len(order)):
        if keep[i]:
            keep[i + 1 :] &= iou[i, i + 1 :] <= iou_threshold
    return order[keep]


def _torchvision_ops_load() -> bool:
    """Whether torchvision's compiled operators load here (not on a CUDA-only build without a GPU)."""
    import importlib.util

    import torch

    spec = importlib.util.find_spec("torchvision")
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        for library in Path(folder).glob("_C*.so"):
            try:
                torch.ops.load_library(str(library))
            except (OSError, RuntimeError):
                return False
            return True
    return False


def _register_nms() -> None:
    """Give torchvision an `nms` operator when its compiled ops do not load (a CUDA-only build)."""
    import torch

    if hasattr(torch.ops, "torchvision") and hasattr(torch.ops.torchvision, "nms"):
        return
    if _torchvision_ops_load():
        return  # its own operators: defining nms again would abort the process
    try:
        lib = torch.library.Library("torchvision", "DEF")
    except RuntimeError:
        return  # already defined by a loaded torchvision
    lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    lib.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    lib.impl("nms", _nms, "CPU")
    lib.impl("qnms", _nms, "CPU")
    _LIBRARIES.append(lib)


_LIBRARIES: list[object] = []


def prepare(workdir: Path) -> None:
    """Set ultralytics offline with its settings under `workdir`, and make torchvision import on CPU."""
    config = workdir / "ultralytics-config"
    font_dir = config / "Ultralytics"
    font_dir.mkdir(parents=True, exist_ok=True)
    font = font_dir / "Arial.ttf"
    if not font.exists():
        source = next((Path(p) for p in _FONT_CANDIDATES if Path(p).exists()), None)
        if source is None:
            raise TrainingUnavailable("no TrueType font found to stand in for Arial.ttf (apt-get install fonts-dejavu-core)")
        shutil.copyfile(source, font)
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_CONFIG_DIR"] = str(config)
    try:
        import torch  # noqa: F401
    except ImportError as exc:
        raise TrainingUnavailable(f"training needs the [train] extra: pip install 'spit-referee[train]' ({exc})") from exc
    _register_nms()
    import torchvision.extension

    if not torchvision.extension._has_ops():
        torchvision.extension._has_ops = lambda: True
