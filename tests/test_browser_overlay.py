"""The page in headless Chromium: `referee serve` on the demo (cards read by the card detector, as by default) shows a SPIT! banner and an illegal-play flag, and its call log is /api/events."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from http_client import free_port, get_json, post_json
from referee.server.demo import DEMO_OPTIONS, ensure_demo

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
ROOT = Path(__file__).resolve().parents[1]

try:
    from playwright.sync_api import Page, sync_playwright
except ImportError:  # the [test] extra not installed
    sync_playwright = None

pytestmark = [
    pytest.mark.skipif(sync_playwright is None, reason="Playwright is not installed (pip install -e '.[test]')"),
    pytest.mark.skipif(not CHROMIUM.is_file(), reason="Chromium is not installed at /usr/bin/chromium "
                                                      "(apt-get install -y chromium)"),
]


@pytest.fixture(scope="module")
def server(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`referee serve` on the demo (rendered once into pytest's cache) with its default card reader
    (the detector), on a free port of 127.0.0.1."""
    assert pytestconfig.cache is not None
    cache = pytestconfig.cache.mkdir("spit-referee-demo")
    ensure_demo(cache)
    port = free_port()
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "referee", "serve", "--source", "demo", "--port", str(port),
             "--cache", str(cache), "--games-dir", str(tmp_path_factory.mktemp("games"))],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if get_json(f"{url}/api/state")["status"] not in ("preparing",):
                    break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"referee serve did not start: {log.read_text()}")
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
    text = log.read_text()
    assert f"http://127.0.0.1:{port}/" in text and "warning" not in text and "Traceback" not in text


@pytest.fixture(scope="module")
def page(server: str) -> Iterator[Page]:
    assert sync_playwright is not None
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1600, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(server + "/")
        yield page
        browser.close()
        assert not errors, errors


def test_the_page_shows_the_calls_over_the_video(server: str, page: Page, tmp_path: Path) -> None:
    page.wait_for_function("window.spitStats.frames > 0", timeout=20_000)
    game = get_json(server + "/api/state")["game"]
    assert get_json(server + "/api/state")["cards_read_by"] == "card detector"
    page.click("#new-game")  # the demo from its start: "Spit!" called at 2.0 s, an illegal play at 2.4 s
    page.wait_for_function(f"document.getElementById('source').textContent.includes('game {game + 1}')")
    page.wait_for_selector("#spit-banner.show", timeout=30_000)
    page.screenshot(path=tmp_path / "spit.png")
    flag = page.wait_for_function(
        "() => { const f = document.querySelector('#flag.show.illegal'); return f && f.innerText; }", timeout=30_000)
    page.screenshot(path=tmp_path / "illegal.png")
    assert "Illegal" in flag.json_value() and "is not next to" in flag.json_value()
    assert page.evaluate("window.spitStats.spitBanners") >= 1
    assert page.inner_text("#count-A").isdigit() and page.inner_text("#count-B").isdigit()
    assert page.locator("#log li.illegal_play").count() >= 1

    page.click("#pause")
    page.wait_for_selector("#status[data-status=paused]", timeout=10_000)
    first_illegal = page.locator("#log li.illegal_play").first
    first_illegal.locator("button").click()
    page.click("#overrule-verdicts button:text('legal')")
    page.wait_for_selector("#log li.overrule", timeout=10_000)
    page.wait_for_timeout(500)
    page.screenshot(path=tmp_path / "paused.png")

    shown = page.eval_on_selector_all(
        "#log li", "items => items.map(li => [Number(li.dataset.index), li.dataset.type, Number(li.dataset.t)])")
    events = get_json(server + "/api/events")
    assert shown == [[i, e["type"], e["t"]] for i, e in enumerate(events)]
    assert events[-1]["type"] == "overrule" and events[-1]["verdict"] == "legal"
    assert page.locator("#log li.overruled").count() == 1
    latencies = page.evaluate("window.spitStats.latencies")
    assert latencies and all(0 <= v < 10_000 for v in latencies)
    post_json(server + "/api/control", {"action": "resume"})


def test_calibrating_by_hand_from_the_page(server: str, page: Page, tmp_path: Path) -> None:
    page.click("#calibrate")
    box = page.locator("#video").bounding_box()
    assert box is not None
    for fx, fy in ((0.2, 0.2), (0.8, 0.2), (0.9, 0.9), (0.1, 0.9)):
        page.mouse.click(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
    page.screenshot(path=tmp_path / "calibrate.png")
    page.fill("#width-cm", "76")
    page.fill("#depth-cm", "56")
    page.click("#calibration-send")
    page.wait_for_selector("#calibration-panel.hidden", state="attached", timeout=10_000)
    deadline = time.monotonic() + 20  # the new game that takes the corners starts on the next frame
    while (calibration := get_json(server + "/api/calibration"))["source"] != "manual" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert calibration["source"] == "manual"
    (x0, y0), _, (x2, y2), _ = calibration["play_area_px"]
    width, height = DEMO_OPTIONS.width, DEMO_OPTIONS.height
    assert abs(x0 - 0.2 * width) < 3 * width / 640 and abs(y0 - 0.2 * height) < 3 * height / 360
    assert abs(x2 - 0.9 * width) < 3 * width / 640 and abs(y2 - 0.9 * height) < 3 * height / 360


def test_a_play_the_referee_withdraws_is_struck_through_in_the_log(page: Page) -> None:
    struck, said = page.evaluate("""() => {
        const n = state.events.length;
        const play = {index: n, type: "play", t: 99.5, player: "B", card: "KD", from: "B4", to: "L"};
        const withdraw = {index: n + 1, type: "withdraw", t: 99.5, call: "play", player: "B", card: "KD", from: "B4",
                          to: "L", reason: "K♣ was laid on L before it"};
        addEvents([play, withdraw], n, 0);
        const li = (i) => document.querySelector(`#log li[data-index="${i}"]`);
        return [li(n).classList.contains("overruled"), li(n + 1).querySelector(".what").textContent];
    }""")
    assert struck and said == "Withdrawn: B's K♦ onto L — K♣ was laid on L before it"
