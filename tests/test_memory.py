"""Memory over long runs: the malloc settings (the options given to glibc, a no-op without it, large blocks still mapped after a larger one was freed, free memory given back, malloc's account read), and what the pipeline and the rules engine let go of without waiting for Python's cyclic collector (a frame, an old game's judge, a refused move)."""

from __future__ import annotations

import ctypes
import gc
import platform
import random
import subprocess
import sys
import weakref
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from referee.observations import Observation
from referee.pipeline import CapturedFrame, Pipeline, PipelineConfig, memory
from referee.rules.spit import Play, SpitRules, SpitState
from referee.rules.spit_state import IllegalMove

ON_GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"


class FakeLibc:
    """Records `mallopt` and `malloc_trim` calls; refuses the options in `refuse`."""

    def __init__(self, refuse: tuple[int, ...] = ()) -> None:
        self.refuse = refuse
        self.options: list[tuple[int, int]] = []
        self.trims = 0

    def mallopt(self, option: ctypes.c_int, value: ctypes.c_int) -> int:
        self.options.append((option.value, value.value))
        return 0 if option.value in self.refuse else 1

    def malloc_trim(self, pad: ctypes.c_size_t) -> int:
        self.trims += 1
        return 1


def test_the_settings_given_to_malloc() -> None:
    libc = FakeLibc()
    assert memory.tune_malloc(libc)
    assert dict(libc.options) == {memory.M_MMAP_THRESHOLD: memory.MMAP_THRESHOLD,
                                  memory.M_TRIM_THRESHOLD: memory.TRIM_THRESHOLD, memory.M_ARENA_MAX: memory.ARENA_MAX}
    assert libc.trims == 1


def test_a_refused_setting_is_told() -> None:
    assert not memory.tune_malloc(FakeLibc(refuse=(memory.M_ARENA_MAX,)))


def test_no_glibc_is_a_no_op(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory, "_tried", False)
    monkeypatch.setattr(memory, "_glibc", None)
    monkeypatch.setattr(memory, "glibc", lambda: None)
    assert memory.tune_malloc() is False
    assert memory.tune_malloc() is False
    memory.give_back()


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) / 1024 for line in status if line.startswith("VmRSS:"))


def c_malloc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    libc.memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
    return libc


MAPPED_AFTER_A_FREE = """
import ctypes
from referee.pipeline import memory
assert memory.tune_malloc()
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                      "fsmblks", "uordblks", "fordblks", "keepcost")]
libc.mallinfo2.restype = MallInfo2
libc.free(libc.malloc(30 << 20))
before = libc.mallinfo2().hblkhd
block = libc.malloc(memory.MMAP_THRESHOLD + (1 << 20))
print(libc.mallinfo2().hblkhd - before >= memory.MMAP_THRESHOLD)
"""


@pytest.mark.skipif(not ON_GLIBC or not hasattr(ctypes.CDLL(None), "mallinfo2"), reason="glibc >= 2.33 only")
def test_large_blocks_stay_mapped_after_a_larger_one_is_freed() -> None:
    """Untuned, glibc raises its mmap threshold to the size of a freed mapped block (up to 32 MB),
    so from then on blocks of any size below it come from the heaps, where they leave holes.
    Checked in a fresh process: in this one, earlier tests may have left a free heap top large
    enough to serve the block without a mapping."""
    run = subprocess.run([sys.executable, "-c", MAPPED_AFTER_A_FREE], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "True"


@pytest.mark.skipif(not ON_GLIBC, reason="glibc only")
def test_give_back_returns_the_free_memory_inside_a_heap() -> None:
    assert memory.tune_malloc()
    libc = c_malloc()
    size = memory.MMAP_THRESHOLD // 2  # blocks from a heap
    blocks = [libc.malloc(size) for _ in range(1 + (64 << 20) // size)]
    try:
        for block in blocks:
            libc.memset(block, 1, size)
        for block in blocks[:-1]:  # the last one keeps the heap from shrinking at its top
            libc.free(block)
        held = rss_mb()
        memory.give_back()
        assert held - rss_mb() > 48
    finally:
        libc.free(blocks[-1])


@pytest.mark.skipif(not ON_GLIBC or not hasattr(ctypes.CDLL(None), "mallinfo2"), reason="glibc >= 2.33 only")
def test_heap_usage_counts_a_block_in_use_then_free() -> None:
    libc = c_malloc()
    size = 4 << 20  # below the mmap threshold: from a heap
    before = memory.heap_usage()
    assert before is not None
    block = libc.malloc(size)
    try:
        held = memory.heap_usage()
        assert held is not None and held[0] - before[0] >= size
    finally:
        libc.free(block)
    after = memory.heap_usage()
    assert after is not None and held[0] - after[0] >= size - (64 << 10)  # (less what the calls themselves took)


def test_heap_usage_without_glibc_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory, "glibc", lambda: None)
    assert memory.heap_usage() is None


class CyclicJudge:
    """Like the rules engine under the judge: each frame an exception is raised and caught in a
    function that keeps it in a local, so the exception, its traceback and the frames of the
    whole call, the pipeline's `feed` included, form a reference cycle; `me` makes the judge
    itself one."""

    def __init__(self) -> None:
        self.me = self

    def feed(self, obs: Observation) -> list[Any]:
        try:
            raise ValueError("no Spit yet")
        except ValueError as exc:
            kept = exc  # the cycle: exception -> traceback -> this frame -> exception
            assert kept is not None
        return []


def stub_pipeline() -> Pipeline:
    """A pipeline whose vision is a stub that keeps nothing of the frame and whose judge is a `CyclicJudge`."""
    pipeline = Pipeline(SimpleNamespace(), PipelineConfig(check_every=0))
    view = np.zeros((8, 8, 3), np.uint8)
    pipeline.observer = SimpleNamespace(  # type: ignore[assignment]
        calibration=SimpleNamespace(image_size=(64, 48), source="hand"), hands=SimpleNamespace(hands=()),
        fit_layout=lambda image, places: True, view_image=view,
        observe=lambda image, t, index: Observation(t, index, {}, ()))
    pipeline.judge = CyclicJudge()  # type: ignore[assignment]
    return pipeline


@pytest.fixture
def no_automatic_collection() -> Iterator[None]:
    """Python's cyclic collector off, as it mostly is in a loop that frees what it allocates
    (it runs on allocations outnumbering deallocations)."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def test_the_judge_s_reference_cycles_do_not_keep_the_frame(no_automatic_collection: None) -> None:
    pipeline = stub_pipeline()
    image = np.zeros((48, 64, 3), np.uint8)
    image_ref = weakref.ref(image)
    assert pipeline.feed(CapturedFrame(0, 0.0, image)) == []
    del image
    assert image_ref() is None


def test_a_new_game_lets_the_old_judge_go_at_once(no_automatic_collection: None) -> None:
    pipeline = stub_pipeline()
    pipeline.feed(CapturedFrame(0, 0.0, np.zeros((48, 64, 3), np.uint8)))
    old = weakref.ref(pipeline.judge)
    pipeline.new_game()
    assert old() is None


def test_an_illegal_move_leaves_no_reference_cycle(no_automatic_collection: None) -> None:
    state = SpitState.new_game(SpitRules(), random.Random(1))  # before the opening spit: no play is legal
    top = state.top("A1")
    assert top is not None
    for _ in range(10):
        with pytest.raises(IllegalMove):
            state.apply(Play("A", top, "A1", "L"))
    assert gc.collect() == 0  # the engine raises and the referee rejects moves all game long
