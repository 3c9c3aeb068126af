"""Keep freed large blocks in the process heap (glibc only).

MUMPS allocates and frees its factor and work arrays (hundreds of MB for 10^4 elements) in
every numerical factorisation. With glibc's defaults, blocks above the mmap threshold come
from fresh ``mmap`` pages, which the kernel has to fault in and zero again on every
factorisation: ~45 % of the factorisation time at n_e = 10^4 (bench/step_cost.py, perf).
With mmap disabled for the allocator and no trimming of the heap top, a freed block is
reused by the next factorisation. The resident set then stays at its peak (flat over a run,
as the soak test checks) instead of shrinking between factorisations.

It is applied once per process, when the first Newton solver is created
(:class:`fxrod.solvers.newton.NewtonSolver`), never at import. Set ``FXROD_MALLOC_TUNING=0`` (or
``SolverSettings(malloc_tuning=False)``) to keep the allocator's defaults.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

M_TRIM_THRESHOLD = -1
M_MMAP_MAX = -4


_state: dict[str, bool] = {}


def tuned() -> bool:
    """Whether the tuning has been applied in this process."""
    return _state.get("tuned", False)


def tune_malloc() -> bool:
    """Apply the settings above once per process; return True when glibc accepted them."""
    if "tuned" in _state:
        return _state["tuned"]
    if os.environ.get("FXROD_MALLOC_TUNING", "1") == "0":
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to do
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    ok = mallopt(M_MMAP_MAX, 0) == 1
    ok &= mallopt(M_TRIM_THRESHOLD, 2**31 - 1) == 1
    _state["tuned"] = bool(ok)
    return bool(ok)
