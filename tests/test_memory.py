"""The malloc settings for long runs: the options given to glibc, a no-op without it, large blocks still mapped after a larger one was freed, free memory given back."""

from __future__ import annotations

import ctypes
import platform
import subprocess
import sys

import pytest

from referee.pipeline import memory

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
