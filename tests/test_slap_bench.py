"""The slap bench's clips (`bench/slaps.py`): the still-table reference they start from."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from referee.render import FrameRenderer, RenderOptions, Timeline, Webcam, game_events
from referee.render.video import geometry_for, stage
from referee.vision.calibrate import calibrate_markers
from referee.vision.hands import HandFinder, TableView

BENCH = Path(__file__).resolve().parents[1] / "bench" / "slaps.py"


def _bench():
    spec = importlib.util.spec_from_file_location("slaps_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("slaps_bench", module)
    spec.loader.exec_module(module)
    return module


def test_a_clip_starts_from_the_table_without_the_hands_over_it() -> None:
    """Game 5004 at frame 4232 (a slap clip's first frame): B's hand lies on R. The table frame
    drawn for that moment holds no hand, so the hand finder that starts from it sees B's hand in
    the clip's frame and none in the table frame itself (a clip's own first frame as reference
    would hold B's hand, seen later as an arm lying where it lay)."""
    bench = _bench()
    seed, index = 5004, 4232
    options = RenderOptions(640, 360)
    events = game_events("classic", seed, None)
    table = bench.table_frame(events, seed, index, options)
    geometry = geometry_for(events)
    camera, cloth, lighting, deck = stage(seed, geometry, options)
    renderer = FrameRenderer(camera, cloth, lighting, geometry.markers(), deck, Webcam(), seed)
    timeline = Timeline(events, geometry, seed)
    assert timeline.at(round(index / 30, 6)).hands
    frame = renderer.render(timeline.at(round(index / 30, 6)), index)
    view = TableView(calibrate_markers(table))
    finder = HandFinder(view)
    finder.update(view.warp(table), 0.0, 0)
    assert finder.update(view.warp(table), 1 / 30, 1) == ()
    assert "B" in {hand.side for hand in finder.update(view.warp(frame), 2 / 30, 2)}
