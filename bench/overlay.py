"""Benchmark of the live overlay: frame captured -> drawn in the page (headless Chromium, localhost), and the server's CPU use at 30 fps.

    python bench/overlay.py [--seconds 10] [--cache DIR] [--cards auto|truth]

Starts `referee serve` on the demo (30 fps, at the demo's size; rendered once into the cache),
its cards read as `referee serve` reads them by default (`auto`: the card detector) or from the
demo's truth, on a free port of 127.0.0.1, opens the page in headless Chromium and starts a new game. For `--seconds`
it reads the server's CPU time (/proc, user + system, every thread: the pipeline, the JPEG
encoding and the WebSocket) and, from the page, each drawn frame's latency: the time from the
frame's capture moment (the wall-clock moment the frame was taken from the video, carried with
every frame) to the moment the page had drawn it and its overlay on the canvas. The same again with
no page connected gives the server's cost without any client.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # this checkout's package, whichever one is installed; the tests' client
from referee.server.demo import DEMO_OPTIONS, cache_folder, ensure_demo  # noqa: E402
from http_client import free_port, get_json, post_json  # noqa: E402  (the tests' client of referee serve)

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _measure(url: str, pid: int, seconds: float) -> tuple[float, dict[str, Any]]:
    """New game, then the server's CPU share of one core over `seconds` and its state after."""
    post_json(url + "/api/control", {"action": "new_game"})
    time.sleep(0.5)
    cpu, wall = _cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    share = (_cpu_seconds(pid) - cpu) / (time.monotonic() - wall)
    return share, get_json(url + "/api/state")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="measuring time per run (the demo lasts 12 s)")
    parser.add_argument("--cache", type=Path, default=cache_folder(), help="the demo's cache folder")
    parser.add_argument("--cards", choices=("auto", "truth"), default="auto",
                        help="how the server reads cards (default: as `referee serve` does)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    ensure_demo(args.cache)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    games = tempfile.mkdtemp(prefix="overlay-bench-")
    server = subprocess.Popen([sys.executable, "-m", "referee", "serve", "--cards", args.cards, "--port", str(port),
                               "--cache", str(args.cache), "--games-dir", games], cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if get_json(url + "/api/state")["status"] != "preparing":
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                print("the server did not start", file=sys.stderr)
                return 1
            time.sleep(0.2)
        alone, alone_state = _measure(url, server.pid, args.seconds)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                                 args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1600, "height": 900})
            page.goto(url + "/")
            page.wait_for_function("window.spitStats.frames > 0", timeout=30_000)
            page.evaluate("window.spitStats.latencies = []; window.spitStats.frames = 0")
            watched, state = _measure(url, server.pid, args.seconds)
            latencies = page.evaluate("window.spitStats.latencies")
            drawn = page.evaluate("window.spitStats.frames")
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    span = args.seconds + 0.5
    print(f"demo {DEMO_OPTIONS.width}x{DEMO_OPTIONS.height} at {DEMO_OPTIONS.fps:g} fps, {args.seconds:g} s per run, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    for name, share, seen in (("no page", alone, alone_state), ("one page", watched, state)):
        print(f"server CPU, {name + ':':10s} {100 * share:5.1f} % of one core, "
              f"{(seen['frame'] or 0) / span:4.1f} frames/s refereed")
    if latencies:
        print(f"capture -> drawn:      median {statistics.median(latencies):.0f} ms, p95 {_pct(latencies, 0.95):.0f} ms "
              f"over {drawn} frames drawn ({drawn / (args.seconds + 0.5):.1f} frames/s in the page)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
