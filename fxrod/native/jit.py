"""Compile a model's UFL forms fast: few C modules, the C compiler running while FFCx
generates the next one.

``dolfinx.fem.form`` compiles every form into its own C module, one after the other (FFCx
code generation, then a cffi/setuptools/gcc build each). A model needs five to seven forms
(residual, Jacobian, the energy ledger's), so with an empty cache the first step spent ~6 s
in the compiler. :func:`forms` compiles the forms not compiled yet in this process as few
modules: every bilinear form alone (the Jacobian: most of the compiler's time), then the
others together. FFCx generates each module's C code here and its C build runs in a child
process (the same cffi build FFCx's ``compile_forms`` runs in its own: same source, compiler
arguments and libraries), so the compiler builds the Jacobian while the rest is generated,
on another core. Module names, the cache directory and its protocol (``.c`` claimed, ``.c.cached``
when ready, ``.c.failed`` after an error) are FFCx's and DOLFINx's: the same FFCx and JIT
options, so a bilinear form's module is exactly the one ``dolfinx.fem.form`` would build and
load. Each compiled ``ufcx_form`` is kept under its UFL signature and wrapped into a
``dolfinx.fem.Form`` the way ``dolfinx.fem.form`` does (DOLFINx 0.11). The kernels are the
code FFCx generates for each form (same compiler flags), so every assembled number is the
same to the bit.

A form asked for again (the same signature: the Newton solver's residual and Jacobian,
compiled with the ledger's forms when the model was built) is wrapped without compiling.
Under MPI, rank 0 compiles and the other ranks load the modules from the cache (DOLFINx's
``mpi_jit_decorator``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import ffcx
import ffcx.codegeneration
import ffcx.compiler
import ffcx.naming
import numpy as np
import ufl
from dolfinx import default_scalar_type, fem
from dolfinx import jit as djit
from dolfinx.fem.forms import form_cpp_class, get_integration_domains
from ffcx.codegeneration import jit as fjit
from ffcx.codegeneration.C.file_template import libraries as _libraries

from fxrod.native import compat

# UFL's derivative rule sets must not outlive the forms they differentiate (a CPython bug,
# see compat.release_dispatch_caches): once per process, when fxrod first compiles forms
compat.release_dispatch_caches()

#: ``(UFL signature, options) -> (ufcx_form, module)`` of the forms compiled in this process
_COMPILED: dict[tuple[str, str], tuple[object, object]] = {}

#: The C build of one module in a child process, as FFCx's ``_compile_objects`` does it in
#: its own process (same cffi source, declarations, compiler arguments, libraries, log in the
#: ``.c.cached`` file that marks the module ready); the job is a JSON file (``argv[1]``).
_BUILD = r"""
import io, json, logging, os, sys
from contextlib import redirect_stdout
import cffi
with open(sys.argv[1]) as fh:
    job = json.load(fh)
os.remove(sys.argv[1])
ffi = cffi.FFI()
ffi.set_source(job["name"], job["code"], include_dirs=job["include_dirs"],
               extra_compile_args=job["compile_args"], libraries=job["libraries"])
ffi.cdef(job["decl"])
log = io.StringIO()
logging.getLogger().handlers = [logging.StreamHandler(log)]
with redirect_stdout(log):
    ffi.compile(tmpdir=job["cache_dir"], verbose=True, debug=job["debug"])
with open(job["ready"], "x") as fh:
    fh.write(log.getvalue())
"""


def _start(forms: list[ufl.Form], p_ffcx: dict, p_jit: dict) -> Callable[[], tuple]:
    """FFCx's ``compile_forms`` of ``forms`` (one module, FFCx's name and cache protocol)
    with the C build started in a child process: returns the function that waits for it and
    loads ``(ufcx forms, module)`` (at once if the module is in the cache)."""
    sig = compat.jit_signature(p_ffcx, p_jit)
    name = "libffcx_forms_" + ffcx.naming.compute_signature(forms, sig)
    names = [ffcx.naming.form_name(f, i, name) for i, f in enumerate(forms)]
    cache = Path(p_jit["cache_dir"])
    objects, module = fjit.get_cached_module(name, names, cache, p_jit["timeout"])
    if objects is not None:
        return lambda: (objects, module)
    c_file = cache / f"{name}.c"
    try:
        decl = (fjit.UFC_HEADER_DECL.format(np.dtype(p_ffcx["scalar_type"]).name)
                + fjit.UFC_INTEGRAL_DECL + fjit.UFC_FORM_DECL
                + "".join(f"extern ufcx_form {n};\n" for n in names))
        code, _ = ffcx.compiler.compile_ufl_objects(forms, namespace=name, options=p_ffcx)
        job = {"name": name, "code": code[1], "decl": decl,
               "include_dirs": [ffcx.codegeneration.get_include_path()],
               "compile_args": ["-std=c17", *p_jit["cffi_extra_compile_args"]],
               "libraries": _libraries + (p_jit["cffi_libraries"] or []),
               "cache_dir": str(cache), "debug": p_jit["cffi_debug"],
               "ready": str(c_file.with_suffix(".c.cached"))}
        job_file = cache / f"{name}.job-{os.getpid()}.json"
        job_file.write_text(json.dumps(job))
        proc = subprocess.Popen([sys.executable, "-c", _BUILD, str(job_file)],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    except BaseException:
        os.replace(c_file, c_file.with_suffix(".c.failed"))  # as FFCx: no wait next time
        raise

    def finish() -> tuple:
        out = proc.communicate()[0]
        if proc.returncode != 0:
            os.replace(c_file, c_file.with_suffix(".c.failed"))
            raise RuntimeError(f"C compilation of {name} failed:\n{out}")
        if p_jit["cffi_verbose"]:
            print(Path(job["ready"]).read_text())
        return compat.load_objects(cache, name, names)

    return finish


@djit.mpi_jit_decorator
def _compile(groups: list[list[ufl.Form]], p_ffcx: dict, p_jit: dict,
             meanwhile: Callable[[], None] | None) -> list[tuple]:
    """``(ufcx forms, module)`` of every group (one module each): every group's C code is
    generated while the compiler builds the groups before it, ``meanwhile()`` runs while
    it builds the last ones."""
    finishes = [_start(g, p_ffcx, p_jit) for g in groups]
    if meanwhile is not None:
        meanwhile()
    return [finish() for finish in finishes]


def _wrap(form: ufl.Form, ufcx_form, module) -> fem.Form:
    """The ``dolfinx.fem.Form`` of ``form`` on its compiled ``ufcx_form`` (as DOLFINx 0.11's
    ``fem.form``: function spaces, coefficients, constants, integration entities)."""
    sd = form.subdomain_data()
    (domain,) = list(sd.keys())
    msh = domain.ufl_cargo()
    V = [compat.cpp_object(arg.ufl_function_space()) for arg in form.arguments()]
    original = form.coefficients()
    coeffs = [compat.cpp_object(original[ufcx_form.original_coefficient_positions[i]])
              for i in range(ufcx_form.num_coefficients)]
    constants = [compat.cpp_object(c) for c in form.constants()]
    subdomain_ids: dict[str, list[int]] = {kind: [] for kind in sd.get(domain)}
    offsets = [ufcx_form.form_integral_offsets[i] for i in range(len(fem.IntegralType) + 1)]
    for i in range(len(offsets) - 1):
        for j in range(offsets[i], offsets[i + 1]):
            subdomain_ids[fem.IntegralType(i).name].append(ufcx_form.form_integral_ids[j])
    subdomains = {
        compat.integral_type(kind): get_integration_domains(
            compat.integral_type(kind), data[0], subdomain_ids[kind])
        for kind, data in sd.get(domain).items()}
    f = form_cpp_class(default_scalar_type)(
        [module.ffi.cast("uintptr_t", module.ffi.addressof(ufcx_form))],
        V, coeffs, constants, subdomains, [], msh)
    return fem.Form(f, ufcx_form, None, module)


def forms(ufl_forms: Sequence[ufl.Form | None], jit_options: dict | None = None,
          meanwhile: Callable[[], None] | None = None) -> list[fem.Form | None]:
    """The compiled ``dolfinx.fem.Form`` of every form (``None`` stays ``None``); those not
    compiled yet in this process are compiled as few C modules (every bilinear form alone,
    the others together), each module's C build overlapping the next one's generation.

    Parameters
    ----------
    ufl_forms : sequence of ufl.Form or None
        Forms on one mesh (its communicator compiles them), without entity maps.
    jit_options : dict, optional
        DOLFINx JIT options (``dolfinx.jit.get_options``), e.g. ``{"cache_dir": ...}``.
    meanwhile : callable, optional
        Run in this process while the C compiler builds the forms (e.g. another C build),
        or at once if nothing is to be compiled.

    Returns
    -------
    list of dolfinx.fem.Form or None
        As ``dolfinx.fem.form`` of each (float64), in order. A form that is not a
        ``ufl.Form`` (e.g. a zero form) is handed to ``dolfinx.fem.form``.
    """
    p_ffcx = ffcx.get_options({"scalar_type": default_scalar_type})
    p_jit = djit.get_options(jit_options)
    opts = str(sorted(p_ffcx.items())) + str(sorted(p_jit.items()))
    todo: dict[str, ufl.Form] = {}
    for f in ufl_forms:
        if isinstance(f, ufl.Form) and (f.signature(), opts) not in _COMPILED:
            todo.setdefault(f.signature(), f)
    if todo:
        # bilinear forms (the Jacobian: most of the compiler's time) first, each alone
        bilinear = [f for f in todo.values() if len(f.arguments()) == 2]
        rest = [f for f in todo.values() if len(f.arguments()) != 2]
        groups = [[f] for f in bilinear] + ([rest] if rest else [])
        comm = groups[0][0].ufl_domain().ufl_cargo().comm
        compiled = _compile(comm, groups, p_ffcx, p_jit, meanwhile)
        for group, (objects, module) in zip(groups, compiled, strict=True):
            for f, obj in zip(group, objects, strict=True):
                _COMPILED[f.signature(), opts] = (obj, module)
    elif meanwhile is not None:
        meanwhile()
    return [None if f is None
            else _wrap(f, *_COMPILED[f.signature(), opts]) if isinstance(f, ufl.Form)
            else fem.form(f) for f in ufl_forms]


def form(ufl_form: ufl.Form, jit_options: dict | None = None) -> fem.Form:
    """:func:`forms` of one form."""
    return forms([ufl_form], jit_options)[0]
