"""Simulated Spit games rendered as webcam video with their ground truth (library behind `referee render-game`).

Pieces: `geometry` (the play area, markers, piles, seats; the one place where synth's table frame
and the calibration's meet), `timeline` (where every card and hand is at any moment of a logged
game), `compose` (fast frames: what does not move is drawn once), `video` (the mp4, its log and
frame times).
"""

from referee.render.compose import FrameRenderer, Webcam
from referee.render.errors import RenderError
from referee.render.geometry import TableGeometry
from referee.render.timeline import Frame, Timeline
from referee.render.video import RenderOptions, RenderResult, game_events, render_game, scene_at, simulate_and_render

__all__ = [
    "Frame", "FrameRenderer", "RenderError", "RenderOptions", "RenderResult", "TableGeometry", "Timeline", "Webcam",
    "game_events", "render_game", "scene_at", "simulate_and_render",
]
