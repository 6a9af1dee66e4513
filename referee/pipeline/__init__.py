"""The real-time referee: frame sources, the vision-to-judge loop and `referee run`."""

from referee.pipeline.run import Pipeline, PipelineConfig, run_frames
from referee.pipeline.sources import CameraNotFound, CapturedFrame, LiveCamera, SourceError, UnreadableVideo, VideoFile, open_source

__all__ = [
    "CameraNotFound", "CapturedFrame", "LiveCamera", "Pipeline", "PipelineConfig", "SourceError", "UnreadableVideo",
    "VideoFile", "open_source", "run_frames",
]
