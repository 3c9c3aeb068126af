"""Arc-length continuation of non-symmetric tangents (fxrod.analysis.continuation: MUMPS LU and the
parity of the stability index from the sign of the determinant).

References:

* ``test_end_moment_rolls_into_a_circle``: a cantilever (EI = 1 N m^2, L = 1 m) under the
  dead end moment M = lambda EI/L about -e2: the pure moment bends it into an arc of radius
  EI/M (no force: exact for the Reissner rod as well), tip displacement
  ``x = (EI/M) sin(ML/EI) - L``, ``z = (EI/M)(1 - cos(ML/EI))`` at every point of the path,
  through ``ML/EI = 2 pi`` (the full circle, the tip back at the clamp). Measured: 3.3e-4 L
  at n_e 16, 2.1e-5 L at n_e 32 (order 4).
* ``test_follower_tip_force_vs_elastica``: a Kirchhoff, inextensible cantilever under a tip
  force P = lambda EI/L^2 that stays normal to the tip (a follower load, material
  components along d2). The elastica: ``theta'' = -(P/EI) cos(theta - theta_L)``,
  ``theta(0) = 0``, ``theta'(L) = 0``; with ``phi = theta - theta_L`` it is the initial value
  problem ``phi'' = -(P/EI) cos(phi)``, ``phi(L) = phi'(L) = 0`` integrated from the tip
  (scipy, rtol 1e-12), ``theta_L = -phi(0)``, the tip at ``int_0^L (cos, sin)(theta) ds``.
  Measured: 6.1e-4 L at n_e 8, 3.8e-5 L at n_e 16 up to lambda = 10 (order 4).
* ``test_subtangential_column_divergence_and_becks_column``: a clamped-free Kirchhoff column
  (EI = 1 about d1, 2 about d2) under an axial tip load P = lambda EI/L^2 of which the part
  eta P follows the tip (Ziegler's subtangential load). Its adjacent equilibria
  ``w'''' + k^2 w'' = 0``, ``w(0) = w'(0) = w''(L) = 0``, ``w'''(L) + (1 - eta) k^2 w'(L) = 0``
  exist where ``cos kL = eta / (eta - 1)`` (eta < 1/2), ``k^2 = P/EI``: at eta = 1/4,
  ``P L^2/EI = arccos(-1/3)^2 = 3.6505`` about d1 and twice that about d2; the parity flips
  at each, within 2e-6 (measured 1.27e-6 at n_e 16, 2.0e-5 at n_e 8: order 4). Beck's
  column (eta = 1) has no adjacent equilibrium at any load (its instability, at
  ``P L^2/EI = 20.05``, is flutter): the parity stays 0 up to lambda = 30.
* ``test_spatial_tendon_hook_follows_the_closed_form``: the tendon hook
  (fxrod.problems.soft_arm) with the spatial-formulation actuator, T = lambda T_max: the closed-form
  hook at every point, order 4 between n_e 8 and 16 (8.4e-6 L at n_e 16).
* ``test_lu_parity_is_the_ldlt_index_modulo_2``: an exact discrete identity. At every point
  of the Euler column's straight path (index 0, 1, 2) and of the deep arch's path through
  its limit point (Kirchhoff constraints, a hinge), the LU parity equals the LDL^T index
  modulo 2: ``sign det(D J) = (-1)^(n_sigma + n_lambda + index)`` (Sylvester's law of
  inertia). The deep arch traced with the LU locates its limit point at the LDL^T's load
  factor within the two bisections' brackets and the correctors' tolerance.
"""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from fxrod.analysis.continuation import ArcLengthSettings, Continuation, TangentSolver
from fxrod.core.loads import EndLoad
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.core.supports import Clamp
from fxrod.errors import ParameterError
from fxrod.problems.soft_arm import HOOK, tendon_hook_exact
from fxrod.solvers.settings import SolverSettings
from fxrod.studies.cases import demo

deep_arch = demo("deep_arch")

#: EI = 1 N m^2 about d1 (the weak axis), 2 about d2; unit shear, extension and torsion.
SEC = Section(rhoA=0.0, M11=0.0, M22=0.0, k_s1=1.0, k_s2=1.0, k_e=1.0, k_b1=1.0,
              k_b2=2.0, k_t=1.0)


def _cantilever(n_elements: int, load: EndLoad, constraints=()) -> RodModel:
    """A 1 m cantilever along e1, d1 = e2 (bending about d1 moves the tip in the e1-e3
    plane), clamped at s = 0, with ``load`` at its tip."""
    rod = Rod(SEC, (0, 0, 0), (1.0, 0, 0), (0, 1, 0), n_elements, constraints=constraints)
    return RodModel(rod, [load], [Clamp("0")], quasistatic=True)


def _max_error(path, exact) -> float:
    """Largest tip distance [m] of the path's points from ``exact(lam)``."""
    return max(float(np.linalg.norm(p.displacements["tip"] - exact(p.lam))) for p in path)


def _circle(lam: float) -> np.ndarray:
    """Tip displacement [m] of the cantilever under the end moment lam EI/L (EI = L = 1)."""
    if lam == 0.0:
        return np.zeros(3)
    return np.array([math.sin(lam) / lam - 1.0, 0.0, (1.0 - math.cos(lam)) / lam])


def test_end_moment_rolls_into_a_circle():
    errors = []
    for n in (16, 32):
        model = _cantilever(n, EndLoad("L", moment=lambda lam: (0.0, -lam, 0.0)))
        cont = Continuation(model, ArcLengthSettings(ds=0.5, ds_max=0.5, psi=1.0))
        assert not cont.symmetric                         # factorised by LU
        path = cont.run(40, stop=lambda p: p.lam >= 2.0 * math.pi)
        assert path[-1].lam >= 2.0 * math.pi and not cont.critical
        errors.append(_max_error(path, _circle))
        full = min(path, key=lambda p: abs(p.lam - 2.0 * math.pi))
        assert np.linalg.norm(full.displacements["tip"] - _circle(full.lam)) <= errors[-1]
    assert errors[1] <= 1e-4                              # 2.1e-5 at n_e 32
    assert math.log2(errors[0] / errors[1]) >= 3.5        # 4.0


def _follower_elastica(P: float) -> np.ndarray:
    """Tip displacement [m] of the inextensible cantilever (EI = L = 1) under the tip force
    P normal to the tip (module docstring)."""
    if P == 0.0:
        return np.zeros(3)
    phi = solve_ivp(lambda t, y: [y[1], -P * math.cos(y[0])], (0.0, 1.0), [0.0, 0.0],
                    rtol=1e-12, atol=1e-14, dense_output=True)     # t = L - s
    theta_L = -phi.y[0, -1]

    def tangent(s, _):
        theta = phi.sol(1.0 - s)[0] + theta_L
        return [math.cos(theta), math.sin(theta)]

    r = solve_ivp(tangent, (0.0, 1.0), [0.0, 0.0], rtol=1e-12, atol=1e-14)
    return np.array([r.y[0, -1] - 1.0, 0.0, r.y[1, -1]])


def test_follower_tip_force_vs_elastica():
    errors = []
    for n in (8, 16):
        load = EndLoad("L", force=lambda lam: (0.0, lam, 0.0), follower=True)
        model = _cantilever(n, load, ("kirchhoff", "inextensible"))
        cont = Continuation(model, ArcLengthSettings(ds=0.5, ds_max=0.5, psi=1.0))
        assert not cont.symmetric
        path = cont.run(40, stop=lambda p: p.lam >= 10.0)
        assert path[-1].lam >= 10.0
        assert path[-1].displacements["tip"][0] < -1.0    # tip turned past 170 degrees
        errors.append(_max_error(path, _follower_elastica))
    assert errors[1] <= 1e-4                              # 3.8e-5 at n_e 16
    assert math.log2(errors[0] / errors[1]) >= 3.5        # 4.0


def _column(n_elements: int, eta: float, lam_end: float) -> Continuation:
    """The clamped-free Kirchhoff column (1 m along e3) under the axial tip load
    lambda EI/L^2, the part eta of it a follower load (none when eta = 0), traced (straight)
    to ``lam_end``."""
    rod = Rod(SEC, (0, 0, 0), (0, 0, 1.0), (1, 0, 0), n_elements, constraints=("kirchhoff",))
    loads = [EndLoad("L", force=lambda lam: (0.0, 0.0, -(1.0 - eta) * lam))]
    if eta > 0.0:
        loads.append(EndLoad("L", force=lambda lam: (0.0, 0.0, -eta * lam), follower=True))
    model = RodModel(rod, loads, [Clamp("0")], quasistatic=True)
    cont = Continuation(model, ArcLengthSettings(ds=0.5, ds_max=0.5, psi=1.0))
    assert cont.symmetric == (eta == 0.0)                 # LDL^T on dead loads, else LU
    cont.run(80, stop=lambda p: p.lam >= lam_end)
    return cont


def test_subtangential_column_divergence_and_becks_column():
    eta = 0.25
    p_cr = math.acos(eta / (eta - 1.0)) ** 2             # about d1; 2 p_cr about d2
    rel = []
    for n in (8, 16):
        cont = _column(n, eta, 2.2 * p_cr)
        assert [c.event for c in cont.critical] == ["bifurcation", "bifurcation"]
        rel.append(max(abs(c.lam / (k * p_cr) - 1.0)
                       for c, k in zip(cont.critical, (1.0, 2.0), strict=True)))
        parity = [p.index for p in cont.path]
        assert set(parity) == {0, 1}
        for p in cont.path:
            assert p.index == (0 if p.lam < cont.critical[0].lam or
                               p.lam >= cont.critical[1].lam else 1)
    assert rel[1] <= 2e-6                                 # 1.27e-6 at n_e 16
    assert math.log2(rel[0] / rel[1]) >= 3.5              # 4.0
    beck = _column(16, 1.0, 30.0)
    assert beck.path[-1].lam >= 30.0 > 20.05
    assert not beck.critical and all(p.index == 0 for p in beck.path)


def test_spatial_tendon_hook_follows_the_closed_form():
    errors = []
    tip0 = np.array([HOOK.length, 0.0, 0.0])
    for n in (8, 16):
        hook = dataclasses.replace(HOOK, n_elements=n)
        cont = Continuation(demo("tendon_hook").problem(p=hook, formulation="spatial").model,
                            ArcLengthSettings(ds=0.02, ds_max=0.1))
        assert not cont.symmetric
        path = cont.run(80, stop=lambda p: p.lam >= 1.0)
        assert path[-1].lam >= 1.0 and all(p.index == 0 for p in path)

        def exact(lam, hook=hook):
            return tendon_hook_exact(hook, tension=lam * hook.tension)[0][0] - tip0

        errors.append(_max_error(path, exact) / HOOK.length)
    assert errors[1] <= 5e-5                              # 8.4e-6 L at n_e 16
    assert math.log2(errors[0] / errors[1]) >= 3.5


def _parities(cont: Continuation) -> list[int]:
    """The LU parity at every point of the path of ``cont`` (a fresh LU TangentSolver)."""
    model = cont.model
    lu = TangentSolver(model, SolverSettings().icntl(), symmetric=False)
    n = lu.n_owned
    out = []
    for p in cont.path:
        model.w.x.array[:n] = p.u
        model.w.x.scatter_forward()
        model.begin_step(p.lam - 1.0, 1.0)                # the loads at p.lam
        out.append(lu.factorise())
    return out


def test_lu_parity_is_the_ldlt_index_modulo_2():
    column = _column(8, 0.0, 6.0)
    index = [p.index for p in column.path]
    assert set(index) == {0, 1, 2}
    assert _parities(column) == [i % 2 for i in index]
    arch = deep_arch.continuation(deep_arch.model(16))
    arch.run(25)
    assert {p.index for p in arch.path} == {0, 1}
    assert _parities(arch) == [p.index % 2 for p in arch.path]
    st = dataclasses.replace(arch.settings, factorisation="lu")
    arch_lu = Continuation(deep_arch.model(16), st, points=arch.points)
    assert not arch_lu.symmetric
    arch_lu.run(25, stop=lambda p: bool(arch_lu.critical))
    lim, (lim_lu,) = arch.critical[0], arch_lu.critical
    assert lim.event == lim_lu.event == "limit"
    bound = 2.0 * st.critical_rtol * max(1.0, abs(lim.lam)) + 2.0 * st.ctol * st.ds_max / st.psi
    assert abs(lim_lu.lam - lim.lam) <= bound


def test_what_lu_cannot_do_is_still_refused():
    with pytest.raises(ParameterError, match="factorisation"):
        ArcLengthSettings(factorisation="ldlt")
    from fxrod.problems.soft_arm import HookParameters

    spatial = demo("tendon_hook").problem(p=HookParameters(n_elements=8),
                                      formulation="spatial").model
    act = spatial.extensions[0]
    act.formulation = "material"              # an asymmetry the model does not declare
    cont = Continuation(spatial, ArcLengthSettings(ds=0.02, ds_max=0.1))
    act.formulation = "spatial"
    with pytest.raises(ParameterError, match="a non-symmetric tangent"):
        cont.run(10, stop=lambda p: p.lam >= 0.3)


MPI_SCRIPT = """
import json, sys
sys.path.insert(0, ".")
from mpi4py import MPI
from tests import test_continuation_nonsymmetric as t
out = t.mpi_paths()
if MPI.COMM_WORLD.rank == 0:
    json.dump(out, open(sys.argv[1], "w"))
"""


def mpi_paths() -> dict[str, list[list[float]]]:
    """(lambda, tip displacement [m], index, Newton iterations) along the end-moment path and
    the subtangential column's path (n_e 8, LU)."""
    model = _cantilever(8, EndLoad("L", moment=lambda lam: (0.0, -lam, 0.0)))
    moment = Continuation(model, ArcLengthSettings(ds=0.5, ds_max=0.5, psi=1.0))
    moment.run(40, stop=lambda p: p.lam >= 2.0 * math.pi)
    column = _column(8, 0.25, 8.0)
    return {key: [[p.lam, *map(float, p.displacements["tip"]), p.index, p.newton_its]
                  for p in cont.path] for key, cont in (("moment", moment), ("column", column))}


@pytest.mark.mpi
def test_mpi_paths_equal_serial(tmp_path):
    """The LU paths under ``mpirun -n 2`` (the determinant's sign global on every rank)
    against the serial run: the same parities and Newton iterations, the load factors and
    tip displacements within the round-off model (tests/roundoff.py) of the Newton solves
    of both runs up to each point."""
    from tests.conftest import run_mpi
    from tests.roundoff import roundoff

    script = tmp_path / "paths.py"
    script.write_text(MPI_SCRIPT)
    run_mpi([str(script), str(tmp_path / "mpi.json")])
    par = json.loads((tmp_path / "mpi.json").read_text())
    for key, rows in mpi_paths().items():
        a, b = np.array(rows), np.array(par[key])
        assert a.shape == b.shape, key
        assert np.array_equal(a[:, 4:], b[:, 4:]), key
        solves = 2 * np.cumsum(a[:, 5])
        scale = np.max(np.abs(a[:, :4]), axis=0)
        assert np.all(np.abs(b[:, :4] - a[:, :4]) <= roundoff(scale, solves[:, None])), key
