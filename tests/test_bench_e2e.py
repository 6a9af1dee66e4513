"""bench/e2e.py: bench runs sharing a cache folder render each game once."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from bench import e2e
from referee.render import RenderOptions


def test_two_bench_runs_sharing_a_cache_render_a_game_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    renders: list[int] = []

    def slow_cached_game(cache: Path, seed: int, options: RenderOptions) -> Path:
        video = cache / f"game-{seed}.mp4"
        if not video.is_file():  # as `cached_game`: rendered when not complete, in place
            renders.append(seed)
            time.sleep(0.3)
            video.write_bytes(b"video")
        return video

    monkeypatch.setattr(e2e, "cached_game", slow_cached_game)
    options = RenderOptions(320, 180, max_seconds=0.3)
    got: list[Path] = []
    runs = [threading.Thread(target=lambda: got.append(e2e.rendered(tmp_path, 9001, options))) for _ in range(2)]
    for run in runs:
        run.start()
    for run in runs:
        run.join(timeout=10)
    assert renders == [9001] and got == [tmp_path / "game-9001.mp4"] * 2
