"""The native boundary: fxrod's C helpers, their sources and the one place that builds them.

Three helpers, each a C file of this package with its cffi declarations beside it:

========== ====================================== ===========================================
helper     sources                                used by
========== ====================================== ===========================================
assembly   ``assembly.c``, ``assembly.cdef``      :mod:`fxrod.native.assembly` (the FFCx kernels
                                                  over the cells, into CSR or element arrays)
chain      ``chain.c``, ``chain.cdef``            :mod:`fxrod.solvers.chain` (block condensation and
                                                  factorisation of an open rod's chain)
ancf       ``ancf.c``, ``ancf_types.h``,          :mod:`fxrod.ancf.banded` (banded LU and
           ``ancf.cdef``                          Newton of the planar ANCF beam)
========== ====================================== ===========================================

:func:`load` compiles a helper once per machine (cffi's API mode, the C compiler FFCx uses)
into :func:`cache_dir` under a hash of its sources, declarations, flags and Python version,
and imports it. Two settings of the environment change the build (each gets its own cache
entry):

* ``FXROD_NATIVE_STRICT=1``: ``-Wall -Wextra -Werror`` (CI builds; a user's first build
  never fails on a warning);
* ``FXROD_NATIVE_SANITIZE=1``: AddressSanitizer and UndefinedBehaviorSanitizer
  (``-fsanitize=address,undefined``, no recovery): the process must preload ``libasan``
  (the slow tier's sanitizer test does).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import platform
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

#: This package's folder: the C sources and their declarations.
SOURCES = Path(__file__).resolve().parent
#: Warnings as errors (``FXROD_NATIVE_STRICT=1``).
STRICT_FLAGS = ("-Wall", "-Wextra", "-Werror")
#: Sanitizers (``FXROD_NATIVE_SANITIZE=1``).
SANITIZE_FLAGS = ("-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
                  "-fno-omit-frame-pointer", "-g")


def cache_dir() -> Path:
    """``$FXROD_CACHE_DIR``, else ``$XDG_CACHE_HOME/fxrod`` (``~/.cache/fxrod``)."""
    if os.environ.get("FXROD_CACHE_DIR"):
        return Path(os.environ["FXROD_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fxrod"


def simd_flags() -> tuple[str, ...]:
    """``("-mavx2",)`` on an x86-64 Linux machine whose CPU has AVX2, else ``()``: vector
    instructions that change no result (fused multiply-adds, ``-mfma``, would: they
    round once where the plain build rounds twice)."""
    try:
        with open("/proc/cpuinfo") as fh:
            flags = next((line.split(":", 1)[1].split() for line in fh
                          if line.startswith("flags")), [])
    except OSError:
        return ()
    return ("-mavx2",) if "avx2" in flags and platform.machine() == "x86_64" else ()


@dataclass(frozen=True)
class Helper:
    """A C helper: its module prefix, source files (the first is compiled, the others are
    headers it includes), declaration files (concatenated for cffi) and optimisation flags.
    """

    prefix: str
    sources: tuple[str, ...]
    cdefs: tuple[str, ...]
    flags: tuple[str, ...]


#: The helpers by name.
HELPERS: dict[str, Helper] = {
    "assembly": Helper("_fxrod_asm", ("assembly.c",), ("assembly.cdef",), ("-O2",)),
    "chain": Helper("_fxrod_chain", ("chain.c",), ("chain.cdef",), ("-O3",)),
    "ancf": Helper("_fxrod_ancf", ("ancf.c", "ancf_types.h"), ("ancf_types.h", "ancf.cdef"),
                   ("-O2",)),
}


def build_flags(helper: Helper) -> tuple[str, ...]:
    """The compiler flags of ``helper`` on this machine and under this environment: its own,
    the chain solver's AVX2 (:func:`simd_flags`), and the strict or sanitizer flags the
    environment asks for."""
    flags = helper.flags
    if helper.prefix == HELPERS["chain"].prefix:
        flags += simd_flags()
    if os.environ.get("FXROD_NATIVE_STRICT") == "1":
        flags += STRICT_FLAGS
    if os.environ.get("FXROD_NATIVE_SANITIZE") == "1":
        flags += SANITIZE_FLAGS
    return flags


_LOADED: dict[str, object] = {}


def load(name: str):
    """The compiled helper ``name`` (a key of :data:`HELPERS`): a cffi module with ``.lib``
    (the C functions) and ``.ffi``; built once per machine and cached, loaded once per
    process."""
    if name not in _LOADED:
        import cffi

        helper = HELPERS[name]
        flags = build_flags(helper)
        texts = [(SOURCES / f).read_text() for f in helper.sources]
        cdef = "".join((SOURCES / f).read_text() for f in helper.cdefs)
        key = "".join(texts) + cdef + sys.version + " ".join(flags)
        mod_name = f"{helper.prefix}_{hashlib.sha1(key.encode()).hexdigest()[:16]}"
        d = cache_dir()
        d.mkdir(parents=True, exist_ok=True)
        so = list(d.glob(f"{mod_name}*.so"))
        if not so:
            ffi = cffi.FFI()
            ffi.cdef(cdef)
            link = [SANITIZE_FLAGS[0]] if SANITIZE_FLAGS[0] in flags else []
            ffi.set_source(mod_name, texts[0], include_dirs=[str(SOURCES)],
                           extra_compile_args=list(flags), extra_link_args=link)
            tmp = d / f"build-{os.getpid()}"
            built = Path(ffi.compile(tmpdir=str(tmp)))
            target = d / built.name
            os.replace(built, target)  # atomic: concurrent processes may race here
            shutil.rmtree(tmp, ignore_errors=True)
            so = [target]
        spec = importlib.util.spec_from_file_location(mod_name, so[0])
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _LOADED[name] = mod
    return _LOADED[name]
