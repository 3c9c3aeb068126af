"""The one module that touches DOLFINx's and FFCx's internals (names with a leading underscore).

fxrod compiles its forms in fewer C modules than DOLFINx would (:mod:`fxrod.native.jit`), calls the
FFCx kernels from its own C loops (:mod:`fxrod.native.assembly`, :mod:`fxrod.ancf.banded`) and
builds a ``NonlinearProblem`` without the matrix DOLFINx would allocate
(:mod:`fxrod.solvers.newton`).
Each needs a name that DOLFINx 0.11 or FFCx 0.11 does not publish; they are all here, so that
the next release breaks one module, and ``tests/test_architecture.py`` keeps it so.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

from dolfinx.fem.forms import _ufl_to_dolfinx_domain
from ffcx.codegeneration import jit as fjit


def cpp_object(obj):
    """The C++ object behind a DOLFINx Python wrapper (a form, function, function space or
    constant): ``obj._cpp_object``."""
    return obj._cpp_object


def constants_packer(form):
    """``(pack, cpp_form)`` with ``pack(cpp_form)`` the constants of the compiled form as
    ``dolfinx.fem.pack_constants(form)`` packs them, without its Python wrapper."""
    from dolfinx.cpp.fem import pack_constants

    return pack_constants, form._cpp_object


def integral_type(kind: str):
    """DOLFINx's ``IntegralType`` of a UFL integral kind (``"cell"``, ``"exterior_facet"``,
    ...)."""
    return _ufl_to_dolfinx_domain[kind]


def jit_signature(p_ffcx: dict, p_jit: dict) -> str:
    """The part of FFCx's module name that its options and the C compiler's arguments
    determine (as ``ffcx.codegeneration.jit.compile_forms`` computes it)."""
    return fjit._compute_option_signature(p_ffcx) + fjit._compilation_signature(
        p_jit["cffi_extra_compile_args"], p_jit["cffi_debug"])


def load_objects(cache: Path, name: str, names: list[str]) -> tuple:
    """``(ufcx objects, module)`` of the compiled FFCx module ``name`` in ``cache``."""
    return fjit._load_objects(cache, name, names)


def nonlinear_problem(F_form, J_form, u, A, jacobian, bcs: list, prefix: str, options: dict):
    """DOLFINx 0.11's ``NonlinearProblem`` on the compiled residual ``F_form`` with the
    Jacobian form ``J_form``, unknown ``u``, a matrix ``A`` fxrod assembles itself and its
    SNES callback ``jacobian``, built as ``NonlinearProblem.__init__`` builds it (SNES,
    residual callback and vectors, options prefix, options) except for the matrix:
    DOLFINx's ``create_matrix`` would build the form's full sparsity pattern (~54 kB per rod
    element at its peak) that the chain solver never uses.

    Parameters
    ----------
    F_form, J_form : dolfinx.fem.Form
        The compiled residual and Jacobian.
    u : dolfinx.fem.Function
        The unknown.
    A : petsc4py.PETSc.Mat
        The Jacobian's matrix (``A`` and preconditioner matrix).
    jacobian : callable
        ``SNES.setJacobian`` callback that assembles ``A``.
    bcs : list of DirichletBC
        Dirichlet conditions.
    prefix : str
        The PETSc options prefix (not empty).
    options : dict
        PETSc options of the SNES.

    Returns
    -------
    dolfinx.fem.petsc.NonlinearProblem
    """
    from dolfinx.fem.forms import extract_function_spaces
    from dolfinx.fem.petsc import NonlinearProblem, assemble_residual, create_vector
    from petsc4py import PETSc

    problem = NonlinearProblem.__new__(NonlinearProblem)
    problem._F, problem._J, problem._preconditioner = F_form, J_form, None
    problem._u, problem._A, problem._P_mat = u, A, None
    V = extract_function_spaces(F_form)
    problem._b, problem._x = create_vector(V), create_vector(V)
    snes = problem._snes = PETSc.SNES().create(A.comm)
    snes.setJacobian(jacobian, A, A)
    snes.setFunction(assemble_residual, problem._b,
                     kargs={"u": u, "residual": F_form, "jacobian": J_form, "bcs": bcs})
    snes.setOptionsPrefix(prefix)
    A.setOptionsPrefix(f"{prefix}A_")
    problem._b.setOptionsPrefix(f"{prefix}b_")
    problem._x.setOptionsPrefix(f"{prefix}x_")
    opts = PETSc.Options()
    opts.prefixPush(prefix)
    for k, v in options.items():
        opts[k] = v
    snes.setFromOptions()
    for k in options:
        del opts[k]
    opts.prefixPop()
    return problem


def replace_matrix(problem, A) -> None:
    """Let a ``NonlinearProblem`` own the matrix ``A`` in use (DOLFINx 0.11 has no setter;
    the problem destroys its matrix with itself)."""
    problem._A = A


def release_dispatch_caches() -> int:
    """Turn off the per-instance cache of ``functools.singledispatchmethod`` in UFL's and
    FFCx's expression traversers (``_method_cache``, a CPython attribute); return how many.

    In CPython 3.12.7 to 3.13.1 that cache keeps each cached method, and the method holds its
    instance, so the weak key never dies (CPython gh-127750; later releases have no cache).
    UFL makes a derivative rule set per ``ufl.derivative`` it applies. Each would then stay
    alive for the rest of the process with the forms it saw, their function spaces and meshes,
    and the MPI communicators of those meshes (MPICH has 2048 per process: a few hundred
    models made in one process ran out of them and aborted with exit code 15). Without the
    cache, a method is bound at each access, as in the later CPython releases."""
    import ffcx.codegeneration.C.formatter  # noqa: F401  (the traversers' modules)
    import ufl.algorithms.apply_coefficient_split  # noqa: F401
    import ufl.algorithms.apply_derivatives  # noqa: F401
    import ufl.corealg.dag_traverser  # noqa: F401

    n = 0
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(("ufl.", "ffcx.")):
            continue
        for cls in vars(module).values():
            if not isinstance(cls, type):
                continue
            for attr in vars(cls).values():
                if (isinstance(attr, functools.singledispatchmethod)
                        and getattr(attr, "_method_cache", None) is not None):
                    attr._method_cache = None
                    n += 1
    return n
