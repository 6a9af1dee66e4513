"""Slap verdicts from rendered video: only a window around each deal end's slap of simulated classic games is rendered (cached), run through the vision, and each player's first slap contact scored against the truth.

    python bench/slaps.py [--seeds 5001 ... | --games 6 --first 5001] [--cache ~/.cache/spit-referee/slaps]
                          [--before-s 2.5] [--after-s 0.5] [--verbose]

A whole game takes many minutes to render; a slap needs a few seconds of it. Each clip starts at
the first 30-frame chunk boundary at least `--before-s` before the first slap contact (so its
frames are the very pixels `referee render-game` draws for the whole game: the renderer starts
each chunk from fresh caches) and ends `--after-s` after the last one; it is drawn with the
renderer's own pieces (`stage`, `Timeline`, `FrameRenderer`), written as mp4 like a rendered game
and kept in the cache with its truth (the game's log; renderer digest in the names).

The clip goes through the pipeline with the truth reader (calibration from the markers, the
hand finder, change detection, everything but the card detector). By default a frame of the
table alone (the clip's first moment drawn without hands or cards in the air, encoded as the
clip is) goes first, as the still-table reference that a referee watching the whole game would
have learned by then; `--reference clip` starts from the clip's first frame instead, whose hands
the hand finder learns as table and later sees as arms where they lay ("ghosts"). The referee cannot judge a
slap from a window (it needs the deal's position), so the slap is scored at the contact level
(`referee.judge.slap_score`): each player's first contact with a spit pile after the contact
that laid the deal's last card, the verdict the referee draws from such contacts (one pile: the
hand the frames after both contacts saw lying beneath the other arm, else the earlier hand; under
half a frame apart: the hand seen underneath, else too close to call, the first player out takes
it), and the contact times against the truth. Slaps with a true margin of at least one frame (or on
different piles) are decidable. Seeds 5001-5006 are the development games of this bench; other
seeds are a check.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from referee.events import Event  # noqa: E402
from referee.judge.slap_score import Contact, SlapResult, first_slaps, landing_contact, score_slap  # noqa: E402
from referee.judge.spit.config import beneath_votes  # noqa: E402
from referee.observations import HandSeen, Observation  # noqa: E402
from referee.pipeline import Pipeline, PipelineConfig  # noqa: E402
from referee.pipeline.sources import CapturedFrame, VideoFile  # noqa: E402
from referee.render import FrameRenderer, RenderOptions, Timeline, Webcam, game_events  # noqa: E402
from referee.render.cache import renderer_version  # noqa: E402
from referee.render.truth import TruthReader  # noqa: E402
from referee.render.video import geometry_for, stage  # noqa: E402

FPS = 30.0
CHUNK = 30
"""`render_game` draws frames in chunks of this many, each from fresh caches."""
PILES = ("L", "R")


def clip_path(cache: Path, seed: int, k: int, options: RenderOptions) -> Path:
    """Where the clip of game `seed`'s slap number `k` is kept (its truth beside it, `.json`)."""
    return cache / f"slap-classic-{seed}-{k}-{options.width}x{options.height}-{renderer_version()[:8]}.mp4"


def window(slap: Event, before_s: float, after_s: float) -> tuple[int, int]:
    """The first and last frame index of a slap's clip."""
    times = slap["contact"].values()
    first = int(math.floor((min(times) - before_s) * FPS / CHUNK)) * CHUNK
    return max(0, first), int(math.ceil((max(times) + after_s) * FPS))


def render_clips(events: tuple[Event, ...], seed: int, cache: Path, options: RenderOptions, before_s: float,
                 after_s: float) -> list[Path]:
    """The clips of every slap of a game, rendered where not cached; says on stderr what it drew."""
    slaps = [e for e in events if e.type == "slap"]
    paths = [clip_path(cache, seed, k, options) for k in range(len(slaps))]
    todo = [k for k, path in enumerate(paths) if not path.with_suffix(".json").is_file()]
    if not todo:
        return paths
    geometry = geometry_for(events)
    timeline = Timeline(events, geometry, seed)
    camera, table, lighting, deck = stage(seed, geometry, options)
    renderer = FrameRenderer(camera, table, lighting, geometry.markers(), deck, Webcam(), seed)
    for k in todo:
        began = time.process_time()
        first, last = window(slaps[k], before_s, after_s)
        writer = cv2.VideoWriter(str(paths[k]), cv2.VideoWriter_fourcc(*"mp4v"), FPS, (options.width, options.height))
        for index in range(first, last + 1):
            if index % CHUNK == 0:
                renderer.forget()
            writer.write(renderer.render(timeline.at(round(index / FPS, 6)), index))
        writer.release()
        paths[k].with_suffix(".json").write_text(json.dumps({
            "seed": seed, "slap": k, "first_frame": first, "frames": last - first + 1, "fps": FPS,
            "before_s": before_s, "after_s": after_s}) + "\n", encoding="utf-8")
        print(f"rendered seed {seed} slap {k}: {last - first + 1} frames in {time.process_time() - began:.0f} s CPU",
              file=sys.stderr)
    return paths


def table_frame(events: tuple[Event, ...], seed: int, index: int, options: RenderOptions) -> np.ndarray:
    """Frame `index` of a game drawn without hands or cards in the air (the table a referee that
    watched the game from its start holds as its still-table reference then), passed through the
    clips' mp4 encoding; its sensor noise is that of frame `index - 1`."""
    geometry = geometry_for(events)
    camera, table, lighting, deck = stage(seed, geometry, options)
    renderer = FrameRenderer(camera, table, lighting, geometry.markers(), deck, Webcam(), seed)
    frame = replace(Timeline(events, geometry, seed).at(round(index / FPS, 6)), moving=(), hands=())
    image = renderer.render(frame, index - 1)
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "table.mp4")
        writer = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"mp4v"), FPS, (options.width, options.height))
        writer.write(image)
        writer.release()
        return next(iter(VideoFile(path))).image


@dataclass(frozen=True)
class Seen:
    """What the vision reported in a clip: every first contact (side, zone, time) in time order and,
    at one time, in the order reported (as the referee meets them: a hand's contact that moves to
    another zone keeps its time); for each, the sides whose hands lay over it when it was first
    reported (`HandSeen.under`) and the frame it was first reported in; and the hands of every
    frame (frame index, in order: their `beneath` votes)."""

    contacts: list[Contact]
    under: dict[Contact, tuple[str, ...]]
    reported: dict[Contact, int]
    hands: list[tuple[int, tuple[HandSeen, ...]]]


def contacts_of(clip: Path, events: tuple[Event, ...], seed: int, table: np.ndarray | None = None) -> Seen:
    """What the vision reports in a clip, frames at the game's times (`Seen`). `table`
    (`table_frame`), where given, is fed first, a frame before the clip's first."""
    first = json.loads(clip.with_suffix(".json").read_text(encoding="utf-8"))["first_frame"]
    oracle = TruthReader(events, seed)
    seen: dict[Contact, tuple[str, ...]] = {}
    reported: dict[Contact, int] = {}
    hands: list[tuple[int, tuple[HandSeen, ...]]] = []

    def observed(obs: Observation) -> None:
        hands.append((obs.frame, obs.hands))
        for hand in obs.hands:
            for zone, t in hand.contact.items():
                contact = (hand.side, zone, round(t, 6))
                seen.setdefault(contact, hand.under)
                reported.setdefault(contact, obs.frame)

    pipeline = Pipeline(oracle, PipelineConfig(), fps=FPS, on_observation=observed)
    if table is not None:
        t = round((first - 1) / FPS, 6)
        oracle.at(t)
        pipeline.feed(CapturedFrame(first - 1, t, table))
    for frame in VideoFile(clip):
        index = first + frame.index
        t = round(index / FPS, 6)
        oracle.at(t)
        pipeline.feed(CapturedFrame(index, t, frame.image))
    return Seen(sorted(seen, key=lambda c: c[2]), seen, reported, hands)


def slap_context(events: tuple[Event, ...], slap: Event) -> tuple[str, Event]:
    """The player who ended the slap's deal and the play that laid its last card."""
    before = [e for e in events if e.t <= slap.t]
    end = next(e for e in reversed(before) if e.type == "deal_end")
    last = next(e for e in reversed(before) if e.type in ("play", "move_to_space") and e.t <= end.t + 1e-9)
    return end["player"], last


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def describe(seed: int, k: int, slap: Event, ender: str, result: SlapResult,
             first: dict[str, tuple[str, float]]) -> str:
    """One slap's line: the truth (the player out marked *), what the contacts gave, the verdict."""
    piles = slap.get("piles") or {}
    truth = " ".join(f"{p}{'*' if p == ender else ''}:{piles.get(p, slap['pile'])}@{t:.3f}" for p, t in sorted(slap["contact"].items()))
    seen = " ".join(f"{p}:{z}@{t:.3f}" for p, (z, t) in sorted(first.items())) or "-"
    v = result.verdict
    how = " (too close)" if v is not None and v.too_close else " (underneath)" if v is not None and v.underneath \
        else " (beneath)" if v is not None and v.beneath else ""
    judged = "-" if v is None else f"{v.winner}{how}"
    errors = " ".join(f"{p}{e:+.1f}" for p, e in sorted(result.errors.items()))
    mark = "right" if result.right else f"WRONG: {result.cause}"
    return (f"  {seed}/{k} t={slap.t:.2f} true {truth} winner {slap['winner']} margin {result.true_margin_ms:.0f} ms"
            f"{'' if result.decidable else ' (under a frame)'} | seen {seen} -> {judged} | err frames {errors} | {mark}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="*", help="game seeds (default: --games seeds from --first)")
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--first", type=int, default=5001)
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "spit-referee" / "slaps")
    parser.add_argument("--before-s", type=float, default=2.5, help="clip start before the first slap contact")
    parser.add_argument("--after-s", type=float, default=0.5, help="clip end after the last slap contact")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=720)
    parser.add_argument("--reference", choices=("table", "clip"), default="table",
                        help="the hand finder's first still-table reference: the table drawn alone, or the clip's first frame")
    parser.add_argument("--verbose", action="store_true", help="a line per slap")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    cv2.setNumThreads(2)
    seeds = args.seeds or list(range(args.first, args.first + args.games))
    args.cache.mkdir(parents=True, exist_ok=True)
    options = RenderOptions(args.width, args.height)
    interval = 1 / FPS
    results: list[SlapResult] = []
    render_cpu = vision_cpu = 0.0
    for seed in seeds:
        events = game_events("classic", seed, None)
        began = time.process_time()
        clips = render_clips(events, seed, args.cache, options, args.before_s, args.after_s)
        render_cpu += time.process_time() - began
        slaps = [e for e in events if e.type == "slap"]
        for k, (slap, clip) in enumerate(zip(slaps, clips)):
            table = None
            if args.reference == "table":
                began = time.process_time()
                table = table_frame(events, seed, json.loads(clip.with_suffix(".json").read_text(encoding="utf-8"))
                                    ["first_frame"], options)
                render_cpu += time.process_time() - began
            began = time.process_time()
            seen = contacts_of(clip, events, seed, table)
            vision_cpu += time.process_time() - began
            ender, last = slap_context(events, slap)
            end = landing_contact(seen.contacts, last["player"], last["to"], last.t)
            first = first_slaps(seen.contacts, PILES, end)
            under = {side: seen.under[(side, zone, t)] for side, (zone, t) in first.items()}
            votes: list[tuple[str, ...]] = []
            if len(first) == 2 and len({zone for zone, _ in first.values()}) == 1:
                pile = next(iter(first.values()))[0]
                reported = max(seen.reported[(side, zone, t)] for side, (zone, t) in first.items())
                votes, _ = beneath_votes(seen.hands, pile, tuple(first), reported)
            result = score_slap(slap, first, interval, ender, under, votes)
            results.append(result)
            if args.verbose:
                print(describe(seed, k, slap, ender, result, first))
    decidable = [r for r in results if r.decidable]
    close_calls = [r for r in results if r.verdict is not None and r.verdict.too_close]
    errors = [e for r in results for e in r.errors.values()]
    causes = Counter(r.cause for r in decidable if not r.right)
    print(f"\n{len(results)} slaps of {len(seeds)} games (seeds {seeds[0]}-{seeds[-1]}), clips {args.before_s:g} s "
          f"before to {args.after_s:g} s after, {args.width}x{args.height}, truth reader, reference: {args.reference}")
    print(f"slaps right      {sum(r.right for r in decidable)}/{len(decidable)} decidable (true margin >= 1 frame "
          f"or different piles); under a frame: {len(results) - len(decidable)} "
          f"({sum(r.right for r in results if not r.decidable)} given to the true winner)")
    print(f"too close called {len(close_calls)}, true margins "
          f"{', '.join(f'{r.true_margin_ms:.0f}' for r in close_calls) or '-'} ms")
    beneath = [r for r in results if r.verdict is not None and r.verdict.underneath]
    print(f"underneath       {len(beneath)} too close to time decided by the hand seen underneath, "
          f"{sum(r.right for r in beneath)} right")
    lying = [r for r in results if r.verdict is not None and r.verdict.beneath]
    print(f"beneath          {len(lying)} one-pile slaps decided by the hand seen lying beneath the other arm, "
          f"{sum(r.right for r in lying)} right")
    if errors:
        print(f"contact times    error median {statistics.median(errors):+.2f} frames, |error| p95 "
              f"{_pct([abs(e) for e in errors], 0.95):.2f}, within one frame "
              f"{sum(abs(e) <= 1 + 1e-6 for e in errors) / len(errors):.0%} ({len(errors)} contacts on their pile)")
    for cause, n in causes.most_common():
        print(f"wrong            {n}: {cause}")
    print(f"CPU              render {render_cpu:.0f} s, vision {vision_cpu:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
