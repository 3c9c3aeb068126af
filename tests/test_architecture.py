"""The layers of docs/architecture.md: every fxrod module imports only from its own layer or
below. A new module must be given a layer here (and in docs/architecture.md). DOLFINx's and
FFCx's internals are touched by :mod:`fxrod.compat` only."""

from __future__ import annotations

import ast
import subprocess
import sys

from tests.conftest import ROOT

#: Layer of every module (a package name covers its submodules), lowest first.
LAYERS: dict[str, int] = {
    # 0: foundations without fxrod imports
    "fxrod.errors": 0, "fxrod.kinematics": 0, "fxrod._malloc": 0, "fxrod.data": 0,
    "fxrod.fastassembly": 0, "fxrod.paraview": 0,
    "fxrod.chain": 0, "fxrod.jit": 0, "fxrod.mumps": 0, "fxrod.native": 0, "fxrod.compat": 0,
    # 1: data of a problem, settings, output primitives
    "fxrod": 1, "fxrod.settings": 1, "fxrod.io": 1, "fxrod.spaces": 1, "fxrod.rod": 1,
    "fxrod.bcs": 1, "fxrod.loads": 1, "fxrod.geometry": 1, "fxrod.joints": 1,
    "fxrod.structure": 1, "fxrod.obstacles": 1, "fxrod.backends": 1,
    # 2: shared solving and recording machinery
    "fxrod.newton": 2, "fxrod.history": 2, "fxrod.reduction": 2, "fxrod.stepper": 2,
    "fxrod.fastnewton": 2,
    # 3: weak-form terms (one module per physics) and the companion formulations
    "fxrod.forms": 3, "fxrod.ancf": 3, "fxrod.hamel": 3,
    # 4: read-outs and the energy ledger of a system
    "fxrod.diagnostics": 4, "fxrod.ledger": 4,
    # 5: the discrete system
    "fxrod.model": 5,
    # 6: steppers, checkpoints, probes
    "fxrod.integrators": 6, "fxrod.checkpoint": 6, "fxrod.probes": 6, "fxrod.linear": 6,
    "fxrod.continuation": 6, "fxrod.pointload": 1, "fxrod.modetable": 6,
    "fxrod.phmodel": 6, "fxrod.phmodel_io": 6,
    "fxrod.callbacks": 6, "fxrod.control": 6, "fxrod.lqr": 6,
    # 7: ready problems and runs
    "fxrod.problem": 7, "fxrod.simulation": 7,
    # 7: gradients of runs by the discrete adjoint, optimisation over them
    "fxrod.adjoint": 7, "fxrod.optimize": 7,
    # 7: many independent rods stepped together
    "fxrod.ensemble": 7,
    # 8: the paper's and the field's problems, pictures
    "fxrod.examples": 8, "fxrod.frames": 8, "fxrod.soft_arm": 8, "fxrod.viz": 8,
    "fxrod.plots_viscoelastic": 8,
    "fxrod.ensemble_run": 8,
    # 9: the case registry and studies over it
    "fxrod.cases": 9, "fxrod.sweep": 9, "fxrod.modal_output": 9,
    "fxrod.sweep_plan": 9, "fxrod.sweep_plot": 9,
    # 10: the command line
    "fxrod.cli": 10, "fxrod.__main__": 10,
}


def layer(module: str) -> int:
    """Layer of ``module``: the entry of the longest matching package prefix."""
    parts = module.split(".")
    for i in range(len(parts), 0, -1):
        key = ".".join(parts[:i])
        if key in LAYERS:
            return LAYERS[key]
    raise KeyError(f"{module} has no layer in tests/test_architecture.py")


def _is_module(name: str) -> bool:
    """Whether ``name`` (``fxrod.x.y``) is a module or package of the source tree."""
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def imports() -> dict[str, set[str]]:
    """``{module: {imported fxrod modules}}`` from the source (absolute imports only)."""
    out = {}
    for p in sorted((ROOT / "fxrod").rglob("*.py")):
        parts = p.relative_to(ROOT).with_suffix("").parts
        mod = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        deps = set()
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == "fxrod":
                # from fxrod import x: the submodule x where there is one, else the package
                deps |= {f"fxrod.{a.name}" if _is_module(f"fxrod.{a.name}") else "fxrod"
                         for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and \
                    node.module.split(".")[0] == "fxrod":
                deps.add(node.module)
            elif isinstance(node, ast.Import):
                deps |= {a.name for a in node.names if a.name.split(".")[0] == "fxrod"}
        out[mod] = deps - {mod}
    return out


def test_every_module_has_a_layer():
    for mod in imports():
        layer(mod)


def test_imports_only_go_down():
    upward = [f"{mod} (layer {layer(mod)}) imports {dep} (layer {layer(dep)})"
              for mod, deps in imports().items() for dep in sorted(deps)
              if layer(dep) > layer(mod) and not mod.startswith(dep + ".")]
    assert not upward, "\n".join(upward)


def test_import_has_no_process_wide_side_effects():
    """Importing fxrod tunes no allocator and touches no VTK environment."""
    code = ("import os; before = dict(os.environ); import fxrod, fxrod.viz, fxrod.simulation; "
            "from fxrod import _malloc; assert not _malloc.tuned(); "
            "new = set(os.environ) - set(before); assert new <= {'UCX_TLS'}, new")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr


def test_dolfinx_may_be_imported_first():
    """In the project's environment ``import dolfinx`` works before ``import fxrod``."""
    p = subprocess.run([sys.executable, "-c", "import dolfinx; import fxrod"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr


#: Names of DOLFINx's and FFCx's internals fxrod needs (see fxrod/compat.py): attributes of
#: their objects and modules, and names imported from them.
INTERNALS = {"_cpp_object", "_ufl_to_dolfinx_domain", "_compute_option_signature",
             "_compilation_signature", "_load_objects", "_snes", "_A", "_F", "_J", "_P_mat",
             "_b", "_x", "_u", "_preconditioner"}
#: The foreign packages whose private names count as internals.
FOREIGN = ("dolfinx", "ffcx", "ufl", "basix", "petsc4py", "slepc4py")


def test_internals_only_in_compat():
    """No module but fxrod/compat.py imports a private name of DOLFINx, FFCx, UFL, Basix or
    PETSc's bindings, or reads one of the internals fxrod needs on an object that is not its
    own (``self``, ``cls``)."""
    found = []
    for p in sorted((ROOT / "fxrod").rglob("*.py")):
        if p.name == "compat.py" and p.parent.name == "fxrod":
            continue
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and \
                    node.module.split(".")[0] in FOREIGN:
                found += [f"{p.name}:{node.lineno} imports {a.name}" for a in node.names
                          if a.name.startswith("_")]
            elif isinstance(node, ast.Attribute) and node.attr in INTERNALS and not (
                    isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.append(f"{p.name}:{node.lineno} reads .{node.attr}")
    assert not found, "\n".join(found)
