"""The simulator: deterministic, valid and replayable logs, races, premature spits, slaps, summaries, CLI."""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
from collections import Counter
from functools import cache

import pytest

from referee.cli import main
from referee.events import Event, read_events
from referee.rules import get_rules, rule_set_names
from referee.simulate import GameResult, Mistakes, SimConfig, TimingProfile, simulate_game, simulate_games
from referee.simulate.replay import replay
from referee.simulate.spit_table import NOTICE_MAX_MS
from referee.simulate.timing import PAUSE_FLOOR

RULE_SETS = rule_set_names()
CARELESS = SimConfig(timing=TimingProfile(speed=1.5), mistakes=Mistakes(rate=0.15))
"""Fast, careless players: races, misplays and premature spits in every game."""


@cache
def game(name: str, seed: int = 3, careless: bool = False) -> GameResult:
    return simulate_game(get_rules(name), random.Random(seed), CARELESS if careless else SimConfig())


def test_same_seed_same_log() -> None:
    for name in ("classic", "four-card", "speahx"):
        again = simulate_game(get_rules(name), random.Random(3))
        assert again.events == game(name).events
    assert simulate_game(get_rules("classic"), random.Random(4)).events != game("classic").events


def test_another_process_plays_the_same_game(tmp_path) -> None:  # type: ignore[no-untyped-def]
    name = "five-card-hand"  # hands hold cards whose hash is their address: no set may order them
    log = tmp_path / "game.jsonl"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    command = [sys.executable, "-m", "referee", "simulate", "--rules", name, "--games", "1", "--seed", "3"]
    subprocess.run([*command, "--log", str(log)], check=True, env=env, capture_output=True)
    here = simulate_games(name, 1, seed=3, log_first=True)[1]
    assert here is not None and list(read_events(log)) == list(here.events)


def test_processes_play_the_same_games() -> None:
    one, _ = simulate_games("four-card", 5, seed=5)
    two, _ = simulate_games("four-card", 5, seed=5, jobs=2)
    assert (one.counts, one.wins, one.total_ms) == (two.counts, two.wins, two.total_ms)


@pytest.mark.parametrize("name", RULE_SETS)
def test_log_is_valid_in_time_order_and_replays(name: str) -> None:
    result = game(name)
    events = [Event.from_json(e.to_json()) for e in result.events]
    assert events == list(result.events)
    assert events[0].type == "layout" and events[0].t == 0
    assert events[-1].type == "game_end" and events[-1]["winner"] == result.winner
    times = [e.t for e in events]
    assert times == sorted(times)
    assert events[-1].t == result.duration_ms / 1000
    assert all(e["reason"] for e in events if e.type == "illegal_play")
    assert replay(get_rules(name), events) == result.state
    assert result.state.is_over()


@pytest.mark.parametrize("name", ["classic", "two-hands", "four-card", "three-players", "five-card-hand"])
def test_careless_play_replays(name: str) -> None:
    result = game(name, careless=True)
    assert result.counts["illegal_play"] and result.counts["race"]
    assert replay(get_rules(name), result.events) == result.state


def test_races_margin_is_the_touch_time_difference_and_the_second_card_is_judged() -> None:
    events = game("classic", careless=True).events
    races = [(i, e) for i, e in enumerate(events) if e.type == "race"]
    assert races
    for i, race in races:
        assert race["first"] != race["second"]
        assert race["margin_ms"] == round((race["second_t"] - race["first_t"]) * 1000)
        assert race.t == race["second_t"] and 0 <= race["margin_ms"] < 500
        first = [e for e in events[:i] if e.type == "play" and e.t == race["first_t"] and e["to"] == race["pile"]]
        assert first and first[-1]["player"] == race["first"]
        second = events[i + 1]
        assert second.type in ("play", "illegal_play") and second.t == race.t
        assert (second["player"], second["to"]) == (race["second"], race["pile"])


def test_illegal_plays_are_taken_back() -> None:
    events = game("classic", careless=True).events
    illegal = [e for e in events if e.type == "illegal_play"]
    assert illegal
    assert all(e["start"] < e.t < e["back"] and e["reason"] for e in illegal)


@pytest.mark.parametrize("name", ["classic", "full-deck"])
def test_no_spit_card_lands_on_a_misplayed_card_before_it_is_back(name: str) -> None:
    """A misplayed card (or a spit card turned too early) lies on its pile until its player has
    taken it back: no spit card is turned onto that pile meanwhile (the card was refused on the top
    it lay on, not on a spit card laid under it)."""
    checked = 0
    for seed in range(4):
        events = game(name, seed, careless=True).events
        landed = [(at, pile) for e in events if e.type == "spit" for pile, at in _spit_contacts(name, e).items()]
        for bad in (e for e in events if e.type in ("illegal_play", "premature_spit") and "pickup" in e.fields):
            checked += 1
            assert not [(t, pile) for t, pile in landed if pile == bad["to"] and bad.t <= t <= bad["back"]], bad
    assert checked


def _spit_contacts(name: str, spit: Event) -> dict[str, float]:
    """When each card of a `spit` event touched its pile (a lone spitter: their only contact)."""
    contact = spit["contact"]
    players = spit.get("players") or dict(zip(get_rules(name).spit_pile_names, get_rules(name).player_names))
    if len(contact) == 1:
        return dict.fromkeys(spit["cards"], next(iter(contact.values())))
    return {pile: contact[players[pile]] for pile in spit["cards"]}


def test_a_premature_spit_names_a_move_that_existed() -> None:
    rules = get_rules("classic")
    events = game("classic", careless=True).events
    found = [i for i, e in enumerate(events) if e.type == "premature_spit"]
    assert found
    for i in found:
        state = replay(rules, events[:i])
        named = events[i]["move"]
        assert named in {m.describe() for p in state.players for m in state.legal_moves(p)}


@pytest.mark.parametrize("name", ["classic", "two-hands"])
def test_a_hand_that_spits_too_early_does_nothing_else_until_its_spit_card_is_back(name: str) -> None:
    """One hand, one card at a time: a spit card turned too early lies on the spit pile until its
    player picks it up (noticed within NOTICE_MAX_MS) and carries it back, and the hand that turned
    it moves no other card from reaching for it until it is back."""
    checked = 0
    for seed in range(4):
        events = game(name, seed, careless=True).events
        for early in (e for e in events if e.type == "premature_spit"):
            checked += 1
            assert early["start"] < early.t < early["pickup"] < early["back"]
            assert early["pickup"] - early.t <= NOTICE_MAX_MS / 1000
            same_hand = [e for e in events if e is not early and "start" in e.fields
                         and e["player"] == early["player"] and e.get("hand") == early.get("hand")]
            assert not [e for e in same_hand if e["start"] < early["back"] and early["start"] < e.get("back", e.t)]
    assert checked


@pytest.mark.parametrize("name", ["classic", "two-hands"])
def test_no_card_is_laid_on_a_spit_card_turned_too_early_before_it_is_back(name: str) -> None:
    """A player turns a spit card too early only onto a spit pile no card is on its way to, and
    nobody sends a card there until it is back: the refused spit card lies uncovered."""
    checked = 0
    for seed in range(4):
        events = game(name, seed, careless=True).events
        for early in (e for e in events if e.type == "premature_spit"):
            checked += 1
            assert not [e for e in events if e is not early and e.get("to") == early["to"]
                        and early.t <= e.t <= early["back"]], early
    assert checked


def test_slaps_the_earlier_contact_wins_a_shared_pile() -> None:
    seen_shared = 0
    for seed in range(6):
        for e in game("classic", seed).events:
            if e.type != "slap":
                continue
            assert e["evidence"] == "" and set(e["contact"]) == {"A", "B"}
            if len(set(e["piles"].values())) == 1:
                seen_shared += 1
                (first, t1), (second, t2) = sorted(e["contact"].items(), key=lambda kv: kv[1])
                assert e["winner"] == first or t1 == t2
                assert e["margin_ms"] == pytest.approx((t2 - t1) * 1000)
                assert e.t == t2
    assert seen_shared


def test_deal_end_comes_before_its_slap_and_the_next_layout() -> None:
    events = game("classic", 1).events
    kinds = [e.type for e in events]
    assert kinds.count("deal_end") == kinds.count("layout") == kinds.count("slap") + 1
    for i, kind in enumerate(kinds):
        if kind == "slap":
            assert "deal_end" in kinds[i - 1 : i] and kinds[i + 1] == "layout"


@pytest.mark.parametrize("name", ["classic", "five-card-hand", "full-deck"])
def test_every_deal_lies_still_for_a_pause_before_its_opening_spit(name: str) -> None:
    """Each layout (the first deal and every later one) lies still, every hand off the table, for
    the players' pause (about a second, never under PAUSE_FLOOR of it) and their reach before the
    first spit card lands."""
    waits = []
    for seed in range(3):
        events = game(name, seed).events
        for layout, after in zip(events, events[1:]):
            if layout.type == "layout":
                assert after.type == "spit"
                waits.append(min(after["contact"].values()) - layout.t)
    assert min(waits) > PAUSE_FLOOR * TimingProfile().pause_ms / 1000
    assert 1.0 < statistics.median(waits) < 2.5


def test_two_hands_move_at_once() -> None:
    plays = [e for e in game("two-hands").events if e.type == "play"]
    assert {e["hand"] for e in plays} == {"right", "left"}
    overlapping = any(
        a["player"] == b["player"] and a["hand"] != b["hand"] and b["start"] < a.t
        for a, b in zip(plays, plays[1:])
    )
    assert overlapping


@pytest.mark.parametrize("name", RULE_SETS)
def test_every_game_ends(name: str) -> None:
    summary, _ = simulate_games(name, 1, seed=11)
    assert summary.games == 1 and summary.count("game_end") == 1
    assert sum(summary.wins.values()) == 1


def test_summary_counts_are_the_log_counts() -> None:
    summary, first = simulate_games("classic", 1, seed=7, log_first=True)
    assert first is not None
    assert dict(summary.counts) == dict(Counter(e.type for e in first.events))
    assert summary.total_ms == first.duration_ms
    text = summary.text()
    assert f"plays               {summary.count('play')}" in text and "winner share" in text


def test_timing_is_human() -> None:
    rng = random.Random(1)
    player = TimingProfile().player(rng)
    reactions = sorted(player.reaction(rng) for _ in range(2000))
    travels = sorted(player.travel(rng) for _ in range(2000))
    assert 200 < reactions[100] and reactions[1900] < 750
    assert 150 < travels[100] and travels[1900] < 600
    fast = TimingProfile(speed=2).player(random.Random(1))
    assert fast.reaction_ms == pytest.approx(player.reaction_ms / 2)


def test_cli_summary_and_log(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    log = tmp_path / "game.jsonl"
    assert main(["simulate", "--rules", "classic", "--games", "3", "--seed", "7", "--log", str(log)]) == 0
    out = capsys.readouterr().out
    assert "games               3" in out and "mean game length" in out
    events = list(read_events(log))
    assert events == list(simulate_games("classic", 1, seed=7, log_first=True)[1].events)  # type: ignore[union-attr]


def test_cli_unknown_rule_set_is_one_line_exit_2(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["simulate", "--rules", "no-such-game"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown rule set 'no-such-game'" in err
