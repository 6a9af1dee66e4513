"""Trainable models rebuilt from exported ONNX files (their weights, batch norms re-derived): an
ultralytics checkpoint from the detector, and the index classifier (8-bit weights dequantized).

Export fuses each convolution's batch norm into the convolution (a weight and a bias). To train
on, the checkpoint's model is built from the architecture yaml; every convolution gets the fused
weight, and its batch norm is set, from the statistics of the convolution's output over a few
images, so that it normalises with those statistics and then restores them plus the fused bias:
in evaluation mode the rebuilt model computes exactly what the ONNX file computes, and in
training mode, where the batch norm uses each batch's statistics, nearly so.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from referee.train.detector import CLASS_NAMES, BadTrainingSetup

if TYPE_CHECKING:
    import torch

CALIBRATION_IMAGES = 64


def _onnx_weights(onnx_path: Path) -> dict[str, np.ndarray]:
    import onnx
    from onnx import numpy_helper

    try:
        graph = onnx.load(str(onnx_path)).graph
    except Exception as error:  # onnx raises several kinds for a file that is not a model
        raise BadTrainingSetup(f"{onnx_path}: not a readable ONNX model ({error})") from error
    return {init.name: numpy_helper.to_array(init) for init in graph.initializer}


def letterboxed(image: np.ndarray, size: int) -> np.ndarray:
    """An image shrunk to fit a `size` square, padded grey (114) as ultralytics does, RGB, CHW, 0..1."""
    height, width = image.shape[:2]
    scale = min(size / height, size / width)
    new_w, new_h = round(width * scale), round(height * scale)
    canvas = np.full((size, size, 3), 114, np.uint8)
    top, left = (size - new_h) // 2, (size - new_w) // 2
    canvas[top : top + new_h, left : left + new_w] = cv2.resize(image, (new_w, new_h), interpolation=cv2.INTER_AREA)
    return canvas[:, :, ::-1].transpose(2, 0, 1).astype(np.float32) / 255.0


def calibration_batch(image_paths: list[Path], size: int) -> "torch.Tensor":
    """Up to `CALIBRATION_IMAGES` readable images of the list, spread along it, letterboxed."""
    import torch

    step = max(1, len(image_paths) // CALIBRATION_IMAGES)
    images = [cv2.imread(str(p)) for p in image_paths[::step][:CALIBRATION_IMAGES]]
    images = [letterboxed(image, size) for image in images if image is not None]
    if not images:
        raise BadTrainingSetup("no readable image to calibrate the rebuilt detector's batch norms on")
    return torch.from_numpy(np.stack(images))


def model_from_onnx(onnx_path: Path, model_yaml: str, images: "torch.Tensor") -> "torch.nn.Module":
    """The ultralytics model of `model_yaml` carrying the ONNX file's weights, batch norms set from
    the convolution outputs over `images` (N×3×S×S, 0..1). Raises BadTrainingSetup when the file's
    weights do not fit the architecture."""
    import torch
    from ultralytics.nn.modules import Conv
    from ultralytics.nn.tasks import OBBModel

    weights = _onnx_weights(onnx_path)
    model = OBBModel(model_yaml, nc=len(CLASS_NAMES), verbose=False)
    used: set[str] = set()

    def take(name: str, shape: torch.Size) -> torch.Tensor:
        if name not in weights:
            raise BadTrainingSetup(f"{onnx_path}: no weight {name}: not an export of {model_yaml}")
        if tuple(weights[name].shape) != tuple(shape):
            raise BadTrainingSetup(f"{onnx_path}: {name} is {weights[name].shape}, {model_yaml} has {tuple(shape)}")
        used.add(name)
        return torch.from_numpy(weights[name].copy())

    convs = {name: module for name, module in model.named_modules() if isinstance(module, Conv)}
    fused_bias: dict[str, torch.Tensor] = {}
    with torch.no_grad():
        for name, module in convs.items():
            module.conv.weight.copy_(take(f"{name}.conv.weight", module.conv.weight.shape))
            fused_bias[name] = take(f"{name}.conv.bias", module.bn.bias.shape)
        inner = {f"{name}.conv" for name in convs}
        for name, module in model.named_modules():  # the head's last layers and the DFL: plain convolutions
            if isinstance(module, torch.nn.Conv2d) and name not in inner:
                module.weight.copy_(take(f"{name}.weight", module.weight.shape))
                if module.bias is not None:
                    module.bias.copy_(take(f"{name}.bias", module.bias.shape))
        left = sorted(set(weights) - used)
        if left:
            raise BadTrainingSetup(f"{onnx_path}: weights {left[:3]}... have no place in {model_yaml}")
        for name, module in convs.items():  # identity norms first: the model is then the fused one
            bn = module.bn
            bn.weight.fill_(1.0)
            bn.bias.copy_(fused_bias[name])
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        sums: dict[str, tuple[torch.Tensor, torch.Tensor, int]] = {}

        def record(name: str) -> Callable[[torch.nn.Module, tuple, torch.Tensor], None]:
            """A forward hook summing the convolution's output per channel (and its square) under `name`."""

            def hook(_module: torch.nn.Module, _inputs: tuple, output: torch.Tensor) -> None:
                flat = output.double().transpose(0, 1).reshape(output.shape[1], -1)
                s, s2, n = sums.get(name, (0.0, 0.0, 0))
                sums[name] = (s + flat.sum(1), s2 + (flat * flat).sum(1), n + flat.shape[1])
            return hook

        hooks = [module.conv.register_forward_hook(record(name)) for name, module in convs.items()]
        model.eval()
        for start in range(0, len(images), 16):
            model(images[start : start + 16])
        for hook in hooks:
            hook.remove()
        for name, module in convs.items():
            s, s2, n = sums[name]
            mean = s / n
            var = (s2 / n - mean * mean).clamp(min=1e-6)
            bn = module.bn
            bn.running_mean.copy_(mean.float())
            bn.running_var.copy_(var.float())
            bn.weight.copy_(torch.sqrt(var + bn.eps).float())
            bn.bias.copy_((mean + fused_bias[name].double()).float())
    return model


def checkpoint_from_onnx(onnx_path: Path, model_yaml: str, image_paths: list[Path], out_path: Path, size: int) -> Path:
    """Write an ultralytics checkpoint (`--init` for `train_detector`) rebuilt from an ONNX detector."""
    import torch
    import ultralytics

    model = model_from_onnx(onnx_path, model_yaml, calibration_batch(image_paths, size))
    model.names = dict(enumerate(CLASS_NAMES))
    out_path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": model, "epoch": -1, "train_args": {"task": "obb", "imgsz": size},
                "date": datetime.datetime.now(datetime.timezone.utc).isoformat(), "version": ultralytics.__version__}, out_path)
    return out_path


def _resolved_tensors(onnx_path: Path) -> tuple[list, dict[str, np.ndarray]]:
    """The graph's nodes and every constant tensor it holds, 8-bit ones dequantized: an initializer
    as it is, and the output of a DequantizeLinear of initializers ((q - zero point) x scale, per
    channel along its axis), which is how `referee train export --int8` stores weights and biases."""
    import onnx
    from onnx import helper, numpy_helper

    try:
        graph = onnx.load(str(onnx_path)).graph
    except Exception as error:  # onnx raises several kinds for a file that is not a model
        raise BadTrainingSetup(f"{onnx_path}: not a readable ONNX model ({error})") from error
    tensors = {init.name: numpy_helper.to_array(init) for init in graph.initializer}
    for node in graph.node:
        if node.op_type != "DequantizeLinear" or not all(name in tensors for name in node.input[:2]):
            continue
        q = tensors[node.input[0]].astype(np.float64)
        scale = tensors[node.input[1]].astype(np.float64)
        zero = tensors[node.input[2]].astype(np.float64) if len(node.input) > 2 and node.input[2] else np.zeros_like(scale)
        axis = next((helper.get_attribute_value(a) for a in node.attribute if a.name == "axis"), 1)
        if scale.ndim == 1 and q.ndim > 0:
            shape = [1] * q.ndim
            shape[axis] = -1
            scale, zero = scale.reshape(shape), zero.reshape(shape)
        tensors[node.output[0]] = ((q - zero) * scale).astype(np.float32)
    return list(graph.node), tensors


def index_model_from_onnx(onnx_path: Path, crops: np.ndarray) -> "torch.nn.Module":
    """The index classifier (`referee.train.indexnet`'s network) carrying an exported ONNX file's
    weights, float or 8-bit (dequantized), its batch norms set from the convolution outputs over
    `crops` (N, H, W, 3) uint8 BGR as the detector's are (`model_from_onnx`): in evaluation it gives
    the float file's outputs within float rounding, and an 8-bit file's within the rounding of its
    8-bit activations. Raises BadTrainingSetup for a file that is not an export of that network."""
    import torch

    from referee.train.indexnet import _network, _to_tensor

    nodes, tensors = _resolved_tensors(onnx_path)
    model = _network()
    convs = [m for m in model.features if isinstance(m, torch.nn.Conv2d)]
    norms = [m for m in model.features if isinstance(m, torch.nn.BatchNorm2d)]
    linears = [model.trunk[2], model.rank, model.suit]
    conv_nodes = [n for n in nodes if n.op_type == "Conv"]
    gemm_nodes = [n for n in nodes if n.op_type in ("Gemm", "MatMul")]
    if len(conv_nodes) != len(convs) or len(gemm_nodes) != len(linears):
        raise BadTrainingSetup(f"{onnx_path}: {len(conv_nodes)} convolutions and {len(gemm_nodes)} dense layers, "
                               f"the index classifier has {len(convs)} and {len(linears)}: not an export of it")

    def weight(node, k: int, shape: torch.Size) -> torch.Tensor:  # noqa: ANN001 (an onnx NodeProto)
        name = node.input[k] if len(node.input) > k else ""
        if name not in tensors:
            raise BadTrainingSetup(f"{onnx_path}: {node.name}'s input {k} is not a constant: not an export of the index classifier")
        if tuple(tensors[name].shape) != tuple(shape):
            raise BadTrainingSetup(f"{onnx_path}: {node.name}'s input {k} is {tensors[name].shape}, the index classifier has {tuple(shape)}")
        return torch.from_numpy(np.array(tensors[name], dtype=np.float32))

    fused_bias = []
    with torch.no_grad():
        for conv, node, bn in zip(convs, conv_nodes, norms):
            conv.weight.copy_(weight(node, 1, conv.weight.shape))
            fused_bias.append(weight(node, 2, bn.bias.shape))
            bn.weight.fill_(1.0)  # identity norms first: the model is then the fused one
            bn.bias.copy_(fused_bias[-1])
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        for linear, node in zip(linears, gemm_nodes):
            linear.weight.copy_(weight(node, 1, linear.weight.shape))
            linear.bias.copy_(weight(node, 2, linear.bias.shape))
        sums: dict[int, tuple] = {}

        def record(k: int) -> Callable[[torch.nn.Module, tuple, torch.Tensor], None]:
            def hook(_module: torch.nn.Module, _inputs: tuple, output: torch.Tensor) -> None:
                flat = output.double().transpose(0, 1).reshape(output.shape[1], -1)
                s, s2, n = sums.get(k, (0.0, 0.0, 0))
                sums[k] = (s + flat.sum(1), s2 + (flat * flat).sum(1), n + flat.shape[1])
            return hook

        hooks = [conv.register_forward_hook(record(k)) for k, conv in enumerate(convs)]
        model.eval()
        if not len(crops):
            raise BadTrainingSetup("no crops to set the rebuilt index classifier's batch norms on")
        for start in range(0, len(crops), 512):
            model(_to_tensor(crops[start : start + 512]))
        for hook in hooks:
            hook.remove()
        for k, bn in enumerate(norms):
            s, s2, n = sums[k]
            mean = s / n
            var = (s2 / n - mean * mean).clamp(min=1e-6)
            bn.running_mean.copy_(mean.float())
            bn.running_var.copy_(var.float())
            bn.weight.copy_(torch.sqrt(var + bn.eps).float())
            bn.bias.copy_((mean + fused_bias[k].double()).float())
    return model
