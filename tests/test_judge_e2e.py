"""End to end without vision: simulated games filmed by the perfect camera (with faults), judged, matched to the ground truth."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from functools import lru_cache

import pytest

from referee.judge.camera import CameraConfig, Faults, observe_log
from referee.judge.judge import judge
from referee.judge.score import score
from referee.simulate import GameResult, simulate_game

SEEDS = (8, 9, 1)
"""Short games (2.4-3 min of play) that the referee follows to the end (chosen again when the
simulator's games changed: sim-timing); the benchmark's seeds start at 1001."""


@lru_cache(maxsize=None)
def _game(seed: int) -> GameResult:
    return simulate_game("classic", random.Random(seed))


@pytest.mark.parametrize("seed", SEEDS)
def test_perfect_camera_reproduces_the_log(seed: int) -> None:
    game = _game(seed)
    calls = judge(observe_log(game.events, "classic"), "classic", fps=30.0)
    result = score(game.events, calls)
    for kind in ("play", "illegal_play", "turn_up", "move_to_space", "deal_end", "layout", "game_end"):
        assert result.recall(kind) == 1.0, kind
        assert result.precision(kind) == 1.0, kind
    # a solo spit covered by the next one before any camera could read it goes uncalled
    assert result.truth["spit"] - result.matched["spit"] <= 1 and result.precision("spit") == 1.0
    assert result.unmatched("spit_call") == 0
    assert result.slaps_right == result.slaps_decidable
    frame = 1 / 30
    assert all(e <= frame + 1e-6 for kind in ("play", "turn_up", "spit") for e in result.time_errors[kind])


@pytest.mark.parametrize("seed", SEEDS)
def test_realistic_faults_leave_the_calls_standing(seed: int) -> None:
    game = _game(seed)
    camera = CameraConfig(faults=Faults.realistic(), seed=seed)
    calls = judge(observe_log(game.events, "classic", camera), "classic", fps=30.0)
    result = score(game.events, calls)
    assert result.recall("play") >= 0.98 and result.precision("play") >= 0.99
    assert result.recall("illegal_play") >= 0.9
    assert result.false_flags <= 1
    assert result.spits_while_move == 0
    assert result.recall("game_end") == 1.0


def test_harsh_faults_do_not_derail_the_game() -> None:
    game = _game(SEEDS[0])
    camera = CameraConfig(faults=Faults.harsh(), seed=7)
    calls = judge(observe_log(game.events, "classic", camera), "classic", fps=30.0)
    result = score(game.events, calls)
    # a spit pair covered before it can be read makes the counts drift by a card each, but play
    # goes on being refereed
    assert result.recall("play") >= 0.95 and result.recall("game_end") == 1.0


def test_camera_stream_matches_the_table() -> None:
    game = _game(SEEDS[0])
    frames = list(observe_log(game.events, "classic"))
    assert [o.frame for o in frames] == list(range(len(frames)))
    first_play = next(e for e in game.events if e.type == "play")
    touching = [o for o in frames if any(first_play["to"] in h.contact for h in o.hands) and o.t >= first_play.t]
    assert touching and touching[0].t - first_play.t < 1 / 30
    assert frames[-1].t >= game.events[-1].t


def test_camera_drops_frames() -> None:
    game = _game(SEEDS[0])
    camera = CameraConfig(faults=Faults(dropped=0.1), seed=1)
    frames = [o.frame for o in observe_log(game.events, "classic", camera)]
    assert 0.85 < len(frames) / (frames[-1] + 1) < 0.95


def _cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee", "judge", *args], input=stdin, capture_output=True,
                          text=True, timeout=120)


def test_cli_judges_a_stream_and_writes_events(tmp_path) -> None:  # type: ignore[no-untyped-def]
    game = _game(SEEDS[0])
    log = tmp_path / "game.jsonl"
    log.write_text("".join(e.to_json() + "\n" for e in game.events))
    obs = tmp_path / "obs.jsonl"
    first = _cli(str(log), "--from-log", "--faults", "none", "--write-observations", str(obs), "--quiet")
    assert first.returncode == 0, first.stderr
    out = tmp_path / "events.jsonl"
    second = _cli(str(obs), "--events", str(out))
    assert second.returncode == 0 and second.stdout == ""
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines == [json.loads(line) for line in first.stdout.splitlines()]
    assert "plays" in second.stderr and lines[-1]["type"] == "game_end"


def test_cli_bad_line_exits_2_with_one_line() -> None:
    result = _cli("-", stdin='{"t": 0, "frame": 0, "zones": {}}\n{"t": 1, "frame": 1, "zones": {"L": "11C"}}\n')
    assert result.returncode == 2
    assert result.stderr.strip() == ("referee judge: error: <observations>:2: zone L: '11C' is not a card code, "
                                     "back, empty or occluded")
