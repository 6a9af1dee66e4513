"""glibc malloc set for a process that handles video frames for hours (fixed thresholds, few arenas, free memory given back now and then); a no-op without glibc."""

from __future__ import annotations

import ctypes
import sys
from typing import Any

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8

MMAP_THRESHOLD = 8 << 20
"""Blocks of this size and more get their own mapping, given back when freed. Fixed, so glibc
does not raise it (to up to 32 MB) after a large block is freed, which keeps every later large
block in the heaps; frames (a 1280x720 one is 2.7 MB) stay below it and reuse heap memory."""
TRIM_THRESHOLD = 16 << 20
"""Free memory at the top of a heap beyond this is given back at once (fixed, like the above)."""
ARENA_MAX = 2
"""Heaps shared by all threads (glibc's default is up to 8 per core, each keeping its own free memory)."""

GIVE_BACK_FRAMES = 300
"""Frames between the pipeline's `give_back`s (10 s at 30 fps; one costs well under a millisecond)."""

_glibc: Any | None = None
_tried = False


def glibc() -> Any | None:
    """The process's C library where it is glibc (it has `mallopt` and `malloc_trim`), else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    if not all(hasattr(libc, name) for name in ("gnu_get_libc_version", "mallopt", "malloc_trim")):
        return None
    return libc


def tune_malloc(libc: Any | None = None) -> bool:
    """Set glibc's malloc for long runs (the thresholds and arena count above) and give back the
    free memory the process holds now; True where glibc took every setting. Once per process
    (with `libc` given: that one, every call)."""
    global _glibc, _tried
    if libc is not None:
        return _apply(libc)
    if _tried:
        return _glibc is not None
    _tried = True
    found = glibc()
    if found is not None and _apply(found):
        _glibc = found
    return _glibc is not None


def give_back() -> None:
    """Return the free memory of every heap to the system (`malloc_trim`), once malloc is tuned."""
    if _glibc is not None:
        _glibc.malloc_trim(ctypes.c_size_t(0))


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                      "fsmblks", "uordblks", "fordblks", "keepcost")]


def heap_usage() -> tuple[int, int] | None:
    """malloc's own account (`mallinfo2`, every arena): bytes handed out and still in use (mapped
    blocks included), and bytes free inside its heaps (resident once touched, until `give_back`
    returns their pages, after which they are still counted); None without glibc 2.33 or later."""
    libc = glibc()
    if libc is None or not hasattr(libc, "mallinfo2"):
        return None
    libc.mallinfo2.restype = _MallInfo2
    info = libc.mallinfo2()
    return info.uordblks + info.hblkhd, info.fordblks


def _apply(libc: Any) -> bool:
    took = [libc.mallopt(ctypes.c_int(option), ctypes.c_int(value)) == 1
            for option, value in ((M_MMAP_THRESHOLD, MMAP_THRESHOLD), (M_TRIM_THRESHOLD, TRIM_THRESHOLD),
                                  (M_ARENA_MAX, ARENA_MAX))]
    libc.malloc_trim(ctypes.c_size_t(0))
    return all(took)
