"""The layers of fxrod: every module imports only from its own layer or below, and the packages
mirror the layers (a package's modules sit in its band of layers). A new module must be given a
layer and a job here; ``docs/architecture.md``'s table is generated from :data:`MODULES`
(``python tests/test_architecture.py`` writes it, a test checks it). DOLFINx's and FFCx's
internals are touched by :mod:`fxrod.native.compat` only."""

from __future__ import annotations

import ast
import itertools
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # run as a script too

from tests.conftest import ROOT  # noqa: E402

#: ``{module or package: (layer, job)}``, lowest layer first; a package's entry covers its
#: submodules unless they have entries of their own.
MODULES: dict[str, tuple[int, str]] = {
    # -- foundations
    "fxrod.errors": (0, "exceptions and the parameter checks (one line naming the parameter "
                        "and its allowed range)"),
    "fxrod.data": (0, "the reference data (the authors' CSVs, exact solutions) with provenance"),
    "fxrod.native": (0, "the native boundary: the C helpers as `.c` files with their cffi "
                        "declarations, built once per machine and cached by `native.load` "
                        "(`FXROD_NATIVE_STRICT=1`: warnings as errors; `FXROD_NATIVE_SANITIZE=1`: "
                        "ASan and UBSan)"),
    "fxrod.native.compat": (0, "the only module that touches DOLFINx's and FFCx's internals"),
    "fxrod.native.jit": (0, "a model's UFL forms compiled fast: few FFCx modules, each C build in "
                            "a child process while the next is generated"),
    "fxrod.native.assembly": (0, "assembly through the FFCx kernels from C loops: Jacobians "
                                 "straight into CSR arrays, residuals, the ledger's scalars"),
    "fxrod.native.malloc": (0, "keep freed large blocks in the heap (glibc), tuned when the first "
                               "solver is created"),
    # -- output primitives, the public names
    "fxrod": (1, "the public names, imported lazily (`from fxrod import Rod, RodModel, ...`)"),
    "fxrod.output": (1, "output primitives of every formulation"),
    "fxrod.output.tables": (1, "CSV tables: the standard columns with their SI units, the "
                               "units file beside every CSV, output folders"),
    "fxrod.output.history": (1, "recorded time series (rows of named scalars)"),
    "fxrod.output.paraview": (1, "ParaView `.pvd` collections of `.vtp` polylines"),
    # -- solving
    "fxrod.solvers": (2, "solving a step"),
    "fxrod.solvers.settings": (2, "`SolverSettings`: everything that changes how a step is "
                                  "solved, nothing of what is solved"),
    "fxrod.solvers.backends": (2, "the capability flags every linear backend declares; a "
                                  "setting a backend cannot honour is refused in one line"),
    "fxrod.solvers.pattern": (2, "a step matrix's sparsity pattern grown by contact pairs "
                                 "(preallocated anew, serial and across ranks) and the epoch "
                                 "that makes its solvers analyse it anew"),
    "fxrod.solvers.mumps": (2, "MUMPS, the only module that configures it (LU, LDLᵀ with "
                               "inertia, determinant sign, shift-invert, transpose solves)"),
    "fxrod.solvers.chain": (2, "the chain solver: element condensation and the "
                               "block-tridiagonal vertex solve of one open rod (the default "
                               "serial backend)"),
    "fxrod.solvers.chain_mpi": (2, "the chain solver across MPI ranks: one open rod in "
                                   "contiguous pieces, their interface system solved "
                                   "collectively"),
    "fxrod.solvers.newton": (2, "the one Newton driver (SNES) and the SNES reason table"),
    "fxrod.solvers.array_newton": (2, "the same Newton iteration on arrays without SNES, for "
                                      "the chain solver in serial runs"),
    "fxrod.solvers.reduction": (2, "the exact elimination `w = T w_r` of joint relations"),
    "fxrod.solvers.stepper": (2, "the stepper protocol: what `Simulation` needs of a time "
                                 "stepper, whichever formulation it steps"),
    # -- the mechanics of the discrete rod
    "fxrod.core": (3, "the mechanics of the discrete rod"),
    "fxrod.core.kinematics": (3, "UFL strains Γ, K of (φ, d) and the operators J_v, G_d"),
    "fxrod.core.spaces": (3, "the mixed P2/DG1/nodal space and its maps"),
    "fxrod.core.geometry": (3, "reference centrelines and director frames (closed rings too)"),
    "fxrod.core.rod": (3, "rods, sections and materials"),
    "fxrod.core.loads": (3, "end loads, distributed loads, gravity"),
    "fxrod.core.pointload": (3, "a point force or moment at an interior node"),
    "fxrod.core.supports": (3, "supports of rod ends: clamps, pins, moving clamps"),
    "fxrod.core.joints": (3, "joints between rod nodes (rigid, spherical, revolute)"),
    "fxrod.core.freebody": (3, "free rigid bodies: mass, inertia, pose and velocity; each "
                               "carried by a massless rigid one-element rod of the structure"),
    "fxrod.core.structure": (3, "several rods (and free bodies) in one discrete system"),
    "fxrod.core.obstacles": (3, "rigid obstacles for contact: signed distances in UFL"),
    "fxrod.core.forms": (4, "the terms of the midpoint step (42), one module per physics: "
                            "elastic, viscoelastic, actuation, springs, bodies, contact, "
                            "bodies' contact, rod-rod contact, drag and damping"),
    "fxrod.ancf": (4, "companion: the planar gradient-deficient ANCF beam and its steppers"),
    "fxrod.hamel": (4, "companion: the Hamel field variational integrator on SE(3)"),
    "fxrod.core.diagnostics": (5, "nodal read-outs (`Nodes`) and the strain consistency"),
    "fxrod.core.ledger": (5, "the `EnergyLedger`: every energy form, the running totals and "
                             "the balance residual"),
    "fxrod.core.model": (6, "`RodModel`: the discrete system (mesh, named fields, state, "
                            "residual, ledger) and its step"),
    # -- runs
    "fxrod.runs": (7, "runs of a model"),
    "fxrod.runs.integrators": (7, "implicit midpoint and quasi-static load steps over (model, "
                                  "settings) on the run's backend"),
    "fxrod.runs.problem": (7, "a ready problem: model, settings, step and span"),
    "fxrod.runs.probes": (7, "what a run records, each probe with its columns and units"),
    "fxrod.runs.callbacks": (7, "per-step callbacks with the full nodal arrays, `.npz` "
                                "recording"),
    "fxrod.runs.control": (7, "feedback `u = controller(t, y)` on the actuation port"),
    "fxrod.runs.checkpoint": (7, "checkpoints of the full state, restartable under any MPI "
                                 "size"),
    "fxrod.runs.simulation": (7, "`Simulation`: a recorded run of any stepper"),
    "fxrod.runs.ensemble": (7, "many copies of a rod problem stepped together"),
    "fxrod.runs.ensemble_run": (7, "a recorded ensemble run, one CSV a member"),
    # -- analyses
    "fxrod.analysis": (8, "analyses on the forward run's backend"),
    "fxrod.analysis.modes": (8, "natural modes and linear buckling about an equilibrium"),
    "fxrod.analysis.modetable": (8, "the frequency table of modes with their types"),
    "fxrod.analysis.phmodel": (8, "the linear port-Hamiltonian model and its modal "
                                  "truncation"),
    "fxrod.analysis.phmodel_io": (8, "its `.npz`/`.mat`/`.json` files"),
    "fxrod.analysis.continuation": (8, "arc-length continuation with stability and branch "
                                       "switching"),
    "fxrod.analysis.lqr": (8, "state feedback designed on the linear PH model"),
    "fxrod.analysis.adjoint": (8, "gradients of runs by the discrete adjoint"),
    "fxrod.analysis.optimize": (8, "optimisation over adjoint parameters (L-BFGS-B)"),
    # -- ready problems and pictures
    "fxrod.problems": (9, "the data and read-outs of ready problems that several places need "
                          "(the problems themselves are built in the demos)"),
    "fxrod.problems.paper": (9, "the data of the paper's examples (settings, sections)"),
    "fxrod.problems.soft_arm": (9, "the soft arm's and the tendon hook's data, inputs, closed "
                                  "forms and the read-outs of the demos built on them"),
    "fxrod.problems.ancf_graded": (9, "the graded ANCF cantilever's tables and fingerprint"),
    "fxrod.problems.capstan": (9, "the capstan's rope, first iterate and tension ratio"),
    "fxrod.problems.hamel": (9, "the Hamel free beam's checkpoint fingerprint and ParaView frames"),
    "fxrod.problems.lee_frame": (9, "the table of Lee's frame along the continuation path"),
    "fxrod.problems.locomotion": (9, "the swimmer's and the snake's speeds and CSVs"),
    "fxrod.problems.mooring": (9, "the mooring line's profile, catenary and dynamic decay"),
    "fxrod.problems.optimal_actuation": (9, "L-BFGS-B with its log, inputs table, tip errors"),
    "fxrod.problems.plectoneme": (9, "the plectoneme's twist columns, slope and plateau"),
    "fxrod.viz": (9, "pictures: pyvista snapshots and animations, matplotlib series"),
    "fxrod.viz.figures": (9, "the pictures of the demos, one function per figure"),
    # -- studies
    "fxrod.studies": (10, "studies over ready problems"),
    "fxrod.studies.cases": (10, "the case registry: the demos that define a case, read from "
                                "the source tree's `demos/`; used by the command line, tests, "
                                "sweeps and benchmarks"),
    "fxrod.studies.sweep": (10, "parameter sweeps over a case"),
    "fxrod.studies.sweep_plan": (10, "the points of a sweep (grid, zip, random)"),
    "fxrod.studies.sweep_plot": (10, "a sweep's quantity against its parameters"),
    "fxrod.studies.modal_output": (10, "`fxrod modes` and `fxrod phmodel` of a case"),
    # -- the command line
    "fxrod.cli": (11, "the `fxrod` command"),
    "fxrod.__main__": (11, "`python -m fxrod`"),
}

#: Layer of every module (a package name covers its submodules), lowest first.
LAYERS: dict[str, int] = {name: lay for name, (lay, _) in MODULES.items()}

#: ``{public name: module}`` of the names ``fxrod`` itself exports (read from its source).
PUBLIC_WHERE: dict[str, str] = {
    name: mod for mod, names in ast.literal_eval(
        re.search(r"PUBLIC: dict\[str, tuple\[str, \.\.\.\]\] = (\{.*?\n\})",
                  (ROOT / "fxrod" / "__init__.py").read_text(), re.S).group(1)).items()
    for name in names}


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
                # (a public name: the module it lives in)
                deps |= {f"fxrod.{a.name}" if _is_module(f"fxrod.{a.name}")
                         else PUBLIC_WHERE.get(a.name, "fxrod") for a in node.names}
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
    code = ("import os; before = dict(os.environ); import fxrod, fxrod.viz, fxrod.runs.simulation; "
            "from fxrod.native import malloc; assert not malloc.tuned(); "
            "new = set(os.environ) - set(before); assert new <= {'UCX_TLS'}, new")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr


def test_dolfinx_may_be_imported_first():
    """In the project's environment ``import dolfinx`` works before ``import fxrod``."""
    p = subprocess.run([sys.executable, "-c", "import dolfinx; import fxrod"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr


#: Names of DOLFINx's and FFCx's internals fxrod needs (see fxrod/native/compat.py): attributes of
#: their objects and modules, and names imported from them.
INTERNALS = {"_cpp_object", "_ufl_to_dolfinx_domain", "_compute_option_signature",
             "_compilation_signature", "_load_objects", "_snes", "_A", "_F", "_J", "_P_mat",
             "_b", "_x", "_u", "_preconditioner"}
#: The foreign packages whose private names count as internals.
FOREIGN = ("dolfinx", "ffcx", "ufl", "basix", "petsc4py", "slepc4py")


def test_internals_only_in_compat():
    """No module but fxrod/native/compat.py imports a private name of DOLFINx, FFCx, UFL, Basix or
    PETSc's bindings, or reads one of the internals fxrod needs on an object that is not its
    own (``self``, ``cls``)."""
    found = []
    for p in sorted((ROOT / "fxrod").rglob("*.py")):
        if p.name == "compat.py" and p.parent.name == "native":
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


def test_packages_mirror_the_layers():
    """The layers of a layer package's modules form one band that no other package's band
    overlaps (the package order is the layer order)."""
    bands: dict[str, list[int]] = {}
    for mod in imports():
        parts = mod.split(".")
        if len(parts) > 1 and mod != "fxrod.__main__":
            bands.setdefault(parts[1], []).append(layer(mod))
    spans = sorted((min(v), max(v), k) for k, v in bands.items())
    for (lo1, hi1, a), (lo2, hi2, b) in itertools.pairwise(spans):
        assert hi1 <= lo2 or {a, b} <= {"core", "ancf", "hamel"}, \
            f"the bands of fxrod.{a} ({lo1}-{hi1}) and fxrod.{b} ({lo2}-{hi2}) overlap"


def table() -> str:
    """The architecture table of docs/architecture.md, from :data:`MODULES`."""
    rows = ["| layer | module | job |", "|---|---|---|"]
    for name, (lay, job) in sorted(MODULES.items(), key=lambda kv: (kv[1][0], kv[0])):
        rows.append(f"| {lay} | `{name}` | {job} |")
    return "\n".join(rows)


DOC = ROOT / "docs" / "architecture.md"
BEGIN, END = "<!-- layers: generated by tests/test_architecture.py -->", "<!-- layers end -->"


def _doc_with_table(text: str) -> str:
    return re.sub(re.escape(BEGIN) + ".*?" + re.escape(END),
                  lambda _: f"{BEGIN}\n{table()}\n{END}", text, flags=re.S)


def test_architecture_table_is_generated():
    text = DOC.read_text(encoding="utf-8")
    assert BEGIN in text and END in text
    assert _doc_with_table(text) == text, "run python tests/test_architecture.py"


def test_every_entry_is_a_module():
    for name in MODULES:
        assert name == "fxrod" or _is_module(name), f"{name} is not a module of fxrod"


if __name__ == "__main__":
    DOC.write_text(_doc_with_table(DOC.read_text(encoding="utf-8")), encoding="utf-8")
