"""Going on with a game after a crash: the log read back (a torn last line left out), the referee's position replayed from it, and `referee serve --resume` after a real `kill -9`."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from http_client import free_port, get_json
from referee import cli
from referee.errors import BadEvent
from referee.events import Event, read_events
from referee.judge.camera import observe_log
from referee.judge.judge import Judge
from referee.judge import resume
from referee.judge.resume import BadLog, load_log, reopen, replay, same_calls
from referee.judge.spit.config import BENEATH, UNDERNEATH
from referee.observations import Observation
from referee.pipeline import Pipeline, PipelineConfig
from referee.pipeline.sources import VideoFile
from referee.render.truth import TruthReader
from referee.rules.spit import Slap
from referee.server.demo import ensure_demo
from referee.simulate import simulate_game
from test_judge import FPS, _played_over_a_card_turned_unseen

ROOT = Path(__file__).resolve().parents[1]


def calls(n: int) -> list[Event]:
    return [Event.make("play", 1.0 + k, player="A", card="7C", **{"from": "A3", "to": "L"}) for k in range(n)]


def write_log(path: Path, events: list[Event], tail: str = "") -> None:
    path.write_text("".join(e.to_json() + "\n" for e in events) + tail, encoding="utf-8")


# ------------------------------------------------------------------------------ the log read back

def test_a_torn_last_line_is_left_out_and_cut_off_before_appending(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    written = calls(3)
    write_log(log, written, '{"t": 4.0, "type": "pl')
    game = load_log(log)
    assert list(game.events) == written
    assert game.torn == b'{"t": 4.0, "type": "pl'
    assert game.last_t == 3.0
    appended = Event.make("spit_call", 5.0)
    with reopen(game) as out:
        out.append(appended)
    assert list(read_events(log)) == [*written, appended]


def test_a_last_event_whose_line_end_was_not_written_is_kept(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    written = calls(2)
    log.write_text(written[0].to_json() + "\n" + written[1].to_json(), encoding="utf-8")
    game = load_log(log)
    assert list(game.events) == written and game.torn == b""
    with reopen(game) as out:
        out.append(Event.make("spit_call", 5.0))
    assert [e.type for e in read_events(log)] == ["play", "play", "spit_call"]


def test_an_empty_log_is_a_game_with_no_calls_yet(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    log.touch()
    game = load_log(log)
    assert game.events == () and game.torn == b"" and game.last_t == 0.0


@pytest.mark.parametrize(("content", "words"), [
    (None, "no such event log"),
    (b"hello, world\n", "not an event log"),
    (b'{"t": 1.0, "type": "play"}\n{"t": 2.0, "type": "spit_call"}\n', "not an event log"),
    (b"\xff\xfe\x00binary\n", "not an event log"),
])
def test_a_missing_or_foreign_log_is_refused(tmp_path: Path, content: bytes | None, words: str) -> None:
    log = tmp_path / "events.jsonl"
    if content is not None:
        log.write_bytes(content)
    with pytest.raises(BadLog, match=words):
        load_log(log)


def test_serve_resume_of_a_log_that_is_not_one_is_a_one_line_error(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["serve", "--cards", "truth", "--resume", str(tmp_path / "missing.jsonl")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "no such event log" in err and "Traceback" not in err
    (tmp_path / "notes.txt").write_text("not a log\n")
    assert cli.main(["serve", "--cards", "truth", "--resume", str(tmp_path / "notes.txt")]) == 2
    assert "not an event log" in capsys.readouterr().err


def test_a_video_goes_on_from_the_time_asked_and_not_past_its_end(tmp_path: Path) -> None:
    import cv2
    import numpy as np

    from referee.pipeline.sources import UnreadableVideo, VideoFile

    path = tmp_path / "clip.mp4"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 30.0, (64, 48))
    for k in range(45):
        writer.write(np.full((48, 64, 3), 5 * k, np.uint8))
    writer.release()
    frames = list(VideoFile(path, start_s=1.0))
    assert frames[0].index == 30 and frames[0].t == pytest.approx(1.0, abs=1e-3) and len(frames) == 15
    assert abs(int(frames[0].image.mean()) - 150) <= 3  # the frame written 30th
    with pytest.raises(UnreadableVideo, match="at or after 5 s"):
        list(VideoFile(path, start_s=5.0))


# ------------------------------------------------------------------------------ the position replayed

@pytest.fixture(scope="module")
def judged() -> tuple[list[Observation], list[tuple[int, int]], list[Event], list[Any]]:
    """A simulated classic game seen by a perfect camera and judged: the observations, (frame,
    calls so far) wherever calls were made, the calls, and the referee's position at each."""
    frames, cuts, events, states, judge = judge_game("classic", 1)
    assert judge.referee.resyncs == 0
    return frames, cuts, events, states


def test_a_resumed_game_is_judged_again_from_its_last_deals_layout(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    layout = {"counts": {"A": 20, "B": 20}}
    written = [Event.make("layout", 0.1, **layout), Event.make("play", 2.0, called_at=2.3, player="A", card="5H",
                                                                   **{"from": "A1", "to": "L"}),
               Event.make("layout", 30.0, called_at=30.1, **layout), Event.make("spit_call", 33.0, called_at=33.2)]
    write_log(log, written)
    game = load_log(log)
    assert game.deal_t() == 30.0 and game.last_t == 33.2
    assert game.called_before(30.1) == written[:2] and game.called_since(30.1) == written[2:]
    assert same_calls(written[2:], game.called_since(30.1)) and not same_calls(written[3:], game.called_since(30.1))


def test_replaying_the_log_rebuilds_the_referees_position(judged: Any) -> None:
    _, cuts, events, states = judged
    assert len(cuts) > 100
    deals = 0
    for (_, n), state in zip(cuts, states):
        rebuilt = replay(events[:n], "classic")
        assert rebuilt.refused == ()
        assert rebuilt.state == state, f"after call {n - 1} ({events[n - 1].type})"
        deals = rebuilt.deals
    assert deals == sum(e.type == "layout" for e in events) > 1


def test_overrules_and_refused_calls_leave_the_replayed_position_as_it_was(judged: Any) -> None:
    _, cuts, events, states = judged
    n = cuts[20][1]
    extra = [Event.make("illegal_play", 99.0, player="A", card="KS", to="L", reason="K♠ is not next to 2♦",
                        **{"from": "A1"}),
             Event.make("overrule", 99.5, corrects=n - 1, call=events[n - 1].type, verdict="void"),
             Event.make("play", 99.7, player="B", card="QH", to="R", **{"from": "B5"})]  # not B's top: refused
    rebuilt = replay([*events[:n], *extra], "classic")
    assert rebuilt.state == states[20] and len(rebuilt.refused) == 1 and "play at 99.7 s" in rebuilt.refused[0]



def test_a_slap_settled_by_the_hand_underneath_replays_with_that_hand_underneath() -> None:
    slap = Event.make("slap", 2.0, pile="R", contact={"A": 2.0, "B": 1.99}, winner="B", margin_ms=10.0, evidence="",
                      piles={"A": "R", "B": "R"}, verdict=UNDERNEATH, underneath="B")
    assert resume._move(slap) == Slap((("A", "R", 1.99), ("B", "R", 1.99)), underneath="B")


def test_a_slap_settled_by_the_hand_seen_beneath_the_other_arm_replays_with_that_hand_underneath() -> None:
    slap = Event.make("slap", 2.3, pile="R", contact={"A": 1.9, "B": 2.0}, winner="B", margin_ms=100.0, evidence="",
                      piles={"A": "R", "B": "R"}, verdict=BENEATH, underneath="B")
    assert resume._move(slap) == Slap((("A", "R", 1.9), ("B", "R", 1.9)), underneath="B")


def _judged_over_a_card_turned_unseen() -> tuple[Judge, list[Event]]:
    """`_played_over_a_card_turned_unseen` judged: the judge and its calls (the 9♥'s play withdrawn)."""
    film, *_ = _played_over_a_card_turned_unseen()
    judge = Judge(fps=FPS)
    return judge, [event for obs in film.frames for event in judge.feed(obs)]


def test_a_withdrawn_play_replays_undone() -> None:
    judge, events = _judged_over_a_card_turned_unseen()
    assert [e["card"] for e in events if e.type == "withdraw"] == ["9H"]
    rebuilt = replay(events)
    assert rebuilt.refused == () and rebuilt.state == judge.referee.state
    assert rebuilt.state.top("L").code == "7H" and rebuilt.state.top("A2").code == "9H"


def test_a_play_found_under_the_card_played_last_on_its_pile_replays_with_that_play_undone_in_a_log_without_withdrawals() -> None:
    judge, events = _judged_over_a_card_turned_unseen()
    rebuilt = replay([event for event in events if event.type != "withdraw"])
    assert rebuilt.refused == () and rebuilt.state == judge.referee.state
    assert rebuilt.state.top("L").code == "7H" and rebuilt.state.top("A2").code == "9H"


def test_a_withdrawal_of_a_play_never_logged_is_refused() -> None:
    judge, events = _judged_over_a_card_turned_unseen()
    stray = Event.make("withdraw", 1.5, call="play", player="B", card="QS", to="R", reason="", **{"from": "B1"})
    rebuilt = replay([*events, stray])
    assert rebuilt.state == judge.referee.state and len(rebuilt.refused) == 1 and "withdraw at 1.5 s" in rebuilt.refused[0]

def test_a_referee_resumed_from_its_log_makes_the_calls_of_one_that_never_stopped(judged: Any) -> None:
    frames, cuts, events, _ = judged
    kinds = {"play": None, "deal_end": None, "slap": None}
    for k, n in cuts[10:]:
        kind = events[n - 1].type
        # resumed with the next call half a second away at least: the resumed referee reads the
        # table afresh and cannot know of a card lifted just before its first frames
        if kind in kinds and kinds[kind] is None and n < len(events) and events[n]["called_at"] - frames[k].t >= 0.5:
            kinds[kind] = (k, n)
    assert all(kinds.values()), kinds
    for kind, (k, n) in kinds.items():  # type: ignore[misc]
        logged = events[:n]
        judge = Judge("classic")
        judge.referee.resume(replay(logged, "classic").state, max(max(e.t, e["called_at"]) for e in logged))
        later: list[Event] = []
        for obs in frames[k + 1:]:
            later.extend(judge.feed(obs))
            if len(later) >= 40:
                break
        assert len(later) >= 40 and list(map(what, later)) == list(map(what, events[n:n + len(later)])), \
            f"resumed after a {kind}"


def what(event: Event) -> dict[str, Any]:
    """A call without the moment it is dated to (a touch from before the resume is not remembered)."""
    return {k: v for k, v in event.as_dict().items() if k not in ("t", "frame")}


REPLAYED_RULES = ("alternate-colours", "chinese", "classic", "free-choice", "long-middle", "refilled-singles",
                  "stack-equal")
RE_READ_GAMES = {("refilled-singles", 0), ("refilled-singles", 1), ("refilled-singles", 2)}
"""Of those simulated games (perfect camera, seeds 0-2), the ones in which the referee reads its
position again from the table."""


def judge_game(rules: str, seed: int) -> tuple[list[Observation], list[tuple[int, int]], list[Event], list[Any], Judge]:
    """`judged` for any rule set and seed: observations, (frame, calls so far) at each call, the
    calls, the referee's position at each, and the judge."""
    frames = list(observe_log(simulate_game(rules, random.Random(seed)).events, rules))
    judge = Judge(rules)
    events: list[Event] = []
    cuts: list[tuple[int, int]] = []
    states = []
    for k, obs in enumerate(frames):
        out = judge.feed(obs)
        if out:
            events.extend(out)
            cuts.append((k, len(events)))
            states.append(judge.referee.state)
    return frames, cuts, events, states, judge


@pytest.mark.parametrize("seed", (0, 1, 2))
@pytest.mark.parametrize("rules", REPLAYED_RULES)
def test_every_simulated_game_replays_to_the_referees_position(rules: str, seed: int) -> None:
    """Replaying the log up to a call gives the referee's position at that call: at every call
    (in games of more than 450 calls, at 60 spread over the game and at the first ten re-reads
    and the call after each), re-reads of the table (`resync`) included."""
    _, cuts, events, states, judge = judge_game(rules, seed)
    resyncs = [e for e in events if e.type == "resync"]
    assert judge.referee.resyncs == len(resyncs)
    assert (len(resyncs) > 0) == ((rules, seed) in RE_READ_GAMES)
    picked = range(len(cuts))
    if len(cuts) > 450:
        re_reads = [i for i, (_, n) in enumerate(cuts) if events[n - 1].type == "resync"][:10]
        picked = sorted({*range(0, len(cuts), len(cuts) // 60), *re_reads, *(i + 1 for i in re_reads),
                         len(cuts) - 1} & set(range(len(cuts))))
    for i in picked:
        n = cuts[i][1]
        rebuilt = replay(events[:n], rules)
        assert rebuilt.refused == ()
        assert rebuilt.state == states[i], f"{rules} seed {seed}: after call {n - 1} ({events[n - 1].type})"
    assert replay(events, rules).resyncs == len(resyncs)
    # each re-read is a valid log line, read back the same
    assert [Event.from_json(e.to_json()) for e in resyncs] == resyncs


def test_a_referee_resumed_after_a_re_read_makes_the_calls_of_one_that_never_stopped() -> None:
    frames, cuts, events, _, _ = judge_game("classic", 7)
    k, n = next((k, n) for k, n in cuts if events[n - 1].type == "resync")
    logged = events[:n]
    rebuilt = replay(logged, "classic")
    assert not rebuilt.counts_known and rebuilt.resyncs == 1
    judge = Judge("classic")
    judge.referee.resume(rebuilt.state, max(max(e.t, e["called_at"]) for e in logged),
                         counts_known=rebuilt.counts_known)
    later: list[Event] = []
    for obs in frames[k + 1:]:
        later.extend(judge.feed(obs))
        if len(later) >= 40:
            break
    assert len(later) >= 40 and list(map(what, later)) == list(map(what, events[n:n + len(later)]))


@pytest.mark.parametrize(("change", "words"), [
    ({"stocks": {"A1": [0, "7C"]}}, "empty place"),
    ({"stocks": {"A1": [2]}}, "number of cards, top card"),
    ({"piles": {"L": [1, None]}}, "needs its top card"),
    ({"piles": {"X": [1, "7C"]}}, "not a pile name"),
    ({"spit_cards": {"A": -1}}, "spit_cards"),
])
def test_a_bad_resync_event_is_refused(change: dict[str, Any], words: str) -> None:
    good = {"stocks": {"A1": [3, "7C"], "A2": [0, None], "B1": [1, None]}, "piles": {"L": [4, "KH"]},
            "spit_cards": {"A": 9, "B": 11}}
    assert Event.make("resync", 5.0, **good)["piles"] == {"L": [4, "KH"]}
    with pytest.raises(BadEvent, match=words):
        Event.make("resync", 5.0, **(good | change))


# ------------------------------------------------------------------------------ kill -9 and --resume

def serve(args: list[str], port: int, out: Path) -> subprocess.Popen[bytes]:
    with out.open("w") as handle:
        return subprocess.Popen([sys.executable, "-m", "referee", "serve", "--port", str(port), *args], cwd=ROOT,
                                stdout=handle, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"})


def wait_until(process: subprocess.Popen[bytes], url: str, ok: Callable[[Any], bool], log: Path,
               timeout: float = 90.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = get_json(url)
            if ok(value):
                return value
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"referee serve never got there: {log.read_text()}")
        time.sleep(0.1)


CRASH_AFTER = 8
"""Killed after the demo's 8th call (a play at 5.43 s, during the race for R that follows its
"Spit!"): a fresh judge going on from the logged position there, not knowing the rival card on
its way, dated the race's cards differently from the run that never stopped. The resumed server
judges the deal again from its layout, unshown, and goes on with that judge once its calls are
the log's."""


def test_serve_killed_mid_game_goes_on_from_its_log(pytestconfig: pytest.Config, tmp_path: Path) -> None:
    assert pytestconfig.cache is not None
    cache = pytestconfig.cache.mkdir("spit-referee-demo")
    demo = ensure_demo(cache)
    common = ["--source", "demo", "--cards", "truth", "--cache", str(cache)]
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    first = serve([*common, "--games-dir", str(tmp_path / "games")], port, tmp_path / "first.log")
    try:
        state = wait_until(first, f"{url}/api/state", lambda s: s["events"] >= CRASH_AFTER, tmp_path / "first.log")
        shown = get_json(f"{url}/api/events")
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
    log = Path(state["events_log"])
    lines = log.read_text().splitlines(keepends=True)
    assert len(shown) >= CRASH_AFTER  # everything shown was in the log
    assert [e.as_dict() for e in read_events(lines)][:len(shown)] == shown
    # the crash came right after the first CRASH_AFTER calls (wherever the kill landed) and cut the next line short
    log.write_text("".join(lines[:CRASH_AFTER]) + '{"t": 99.0, "type": "pla')
    logged = [e.as_dict() for e in read_events(lines[:CRASH_AFTER])]

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    second = serve([*common, "--resume", str(log)], port, tmp_path / "second.log")
    try:
        resumed = wait_until(second, f"{url}/api/events", lambda e: len(e) >= len(logged), tmp_path / "second.log")
        assert resumed[:len(logged)] == logged  # every call of the log, in order, shown again at once
        events = wait_until(second, f"{url}/api/events", lambda e: len(e) >= len(logged) + 5, tmp_path / "second.log")
        state = get_json(f"{url}/api/state")
    finally:
        second.terminate()
        second.wait(timeout=10)
    assert state["events_log"] == str(log) and state["game"] == 1
    assert [e.as_dict() for e in read_events(log)][:len(events)] == events  # new calls appended to the same file
    output = (tmp_path / "second.log").read_text()
    assert "last line was cut short" in output and f"going on with {log}" in output and "Traceback" not in output
    assert "going on from the position the log replays to" not in output  # the deal judged again made the log's calls
    # the calls after the resume are those of a run that never stopped (the demo, judged offline)
    reader = TruthReader(demo.truth, demo.seed)
    video = VideoFile(demo.video)
    pipeline = Pipeline(reader, PipelineConfig(rules="classic"), fps=video.fps)
    straight: list[dict[str, Any]] = []
    for frame in video:
        reader.at(frame.t)
        straight.extend(e.as_dict() for e in pipeline.feed(frame))
        if len(straight) >= len(events):
            break
    assert events[len(logged):] == straight[len(logged):len(events)]
