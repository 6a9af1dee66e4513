"""Reading cards in camera images on onnxruntime: `CardDetector(...).detect(image) -> Detections`."""

from referee.vision.detections import BadDetection, DetectedCard, Detections
from referee.vision.detector import CardDetector, DetectorSettings, ModelMissing, UnreadableImage, read_image

__all__ = [
    "BadDetection",
    "CardDetector",
    "DetectedCard",
    "Detections",
    "DetectorSettings",
    "ModelMissing",
    "UnreadableImage",
    "read_image",
]
