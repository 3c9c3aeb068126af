"""Contact in the arc-length continuation (fxrod.analysis.continuation with
fxrod.core.forms.contact and
fxrod.core.forms.rodcontact), against linear beam theory and against quasi-static load stepping.

References (linear Timoshenko beams, EI bending and GA shear stiffness, gap ``delta``,
penalty ``k_t`` [N/m] of the one node pair or node that touches):

* Cantilever (length L, tip load P lambda) over a small sphere under the node at s = a
  (nodal contact: only that node can touch; its Gauss-Lobatto weight is 2 l/6 for a vertex,
  so ``k_t = k l/3``): compliances ``c_LL = L^3/3EI + L/GA``, ``c_aL = a^2 (3L - a)/6EI +
  a/GA``, ``c_aa = a^3/3EI + a/GA``; contact from ``P lambda c_aL = delta``, then the prop
  force of the statically indeterminate (propped) cantilever with the penalty's compliance
  in series ``F = (P lambda c_aL - delta)/(c_aa + 1/k_t)``, tip ``-(P lambda c_LL - F c_aL)``.
  The linear theory neglects terms of order ``(u_tip/L)^2`` = 5e-6 here (measured relative
  deviations 1.6e-6 before and 4.8e-6 after contact, the force's relative to the prop force
  without gap ``P lambda c_aL/(c_aa + 1/k_t)``; halving the load quarters them; 32
  elements instead of 16 change them by 10 %: not a discretisation error).
* The same sphere moving up by ``V lambda`` against the unloaded cantilever:
  ``F = (V lambda - delta)/(c_aa + 1/k_t)`` (measured 1.2e-6 relative, V = 1 mm per unit
  load factor up to lambda = 1).
* Two crossing rods (tests/test_rodcontact.py::crossing with a gap): a cantilever (L_u =
  0.5 m, tip load P lambda) above the midpoint of a clamped-clamped beam (L = 1 m):
  ``F = (P lambda c_u - delta)/(c_u + c_l + 1/k)``, ``c_u = L_u^3/3EI + L_u/GA``, ``c_l =
  L^3/192EI + L/4GA``. Measured: force 1.4e-6 relative; the beam's midpoint deflection
  ``F c_l`` 1.2e-5 (the clamped-clamped beam's stretching, relative order ``(w/R)^2`` =
  5.6e-5 at ``w`` = 7.5e-5 m; halving the load quarters it).

The continuation's points are equilibria of the same residual as a quasi-static step of the
Integrator ending at the same load factor (end-point evaluation, frictionless contact: no
history), so both agree to the Newton tolerances (asserted 1e-8 of the largest displacement).
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
from petsc4py import PETSc

from fxrod.analysis.continuation import ArcLengthSettings, Continuation
from fxrod.core.forms.contact import Contact
from fxrod.core.forms.rodcontact import RodContact
from fxrod.core.joints import Rigid
from fxrod.core.loads import EndLoad
from fxrod.core.model import RodModel
from fxrod.core.obstacles import Sphere
from fxrod.core.rod import Rod, Section
from fxrod.core.structure import Structure
from fxrod.core.supports import Clamp
from fxrod.errors import ParameterError
from fxrod.runs.integrators import Integrator
from fxrod.solvers.settings import SolverSettings
from tests.claims import assert_claim
from tests.conftest import run_mpi

R = 0.01                                   # rod radius [m]
SEC = Section.circular(radius=R, E=1e7, rho=1000.0, nu=0.3)
EI, GA = SEC.stiffness[3], SEC.stiffness[0]
TIGHT = SolverSettings(atol=1e-13, rtol=1e-14, jacobian_lag=1)
L, N, A = 1.0, 16, 0.5                     # cantilever length [m], elements, contact node [m]
P, GAP, K, RS = 1e-3, 4e-4, 1000.0, 0.005  # load [N], gap [m], penalty [N/m^2], sphere [m]
K_T = K * (L / N) / 3.0                    # penalty of the contact node [N/m]
C_LL = L**3 / (3 * EI) + L / GA
C_AL = A * A * (3 * L - A) / (6 * EI) + A / GA
C_AA = A**3 / (3 * EI) + A / GA


def _propped(speed: float = 0.0):
    """The cantilever over the sphere: loaded at the tip by P lambda (speed 0), or pushed by
    the sphere moving up by ``speed * lambda`` [m] (no load)."""
    rod = Rod(SEC, (0, 0, 0), (L, 0, 0), (0, 1, 0), N)
    motion = (lambda t: (0.0, 0.0, speed * t)) if speed else None
    contact = Contact(Sphere((A, 0, -(R + RS + GAP)), RS, motion=motion), stiffness=K,
                      quadrature="nodal")
    loads = [] if speed else [EndLoad("L", force=lambda t: (0, 0, -P * t))]
    return RodModel(rod, loads, [Clamp("0")], [contact], quasistatic=True), contact


def _trace(model, points, force, ds: float, lam_end: float = 1.0):
    """Continuation to past ``lam_end``: rows (lambda, displacements, force(model))."""
    cont = Continuation(model, ArcLengthSettings(ds=ds, ds_max=ds, psi=1e-3), points=points)
    rows = []
    cont.run(80, stop=lambda p: p.lam > lam_end,
             callback=lambda p: rows.append((p.lam, p.displacements, force(model))))
    return rows


def _stepped(model, lams, points, force):
    """Quasi-static load steps of the Integrator landing on the load factors ``lams``."""
    integ = Integrator(model, 0.1, TIGHT)
    origin = {k: model.nodes.node_q(s)[:3].copy() for k, s in points.items()}
    out = []
    for lam in lams:
        if lam > integ.t:
            integ.step(lam - integ.t)
        disp = {k: model.nodes.node_q(s)[:3] - origin[k] for k, s in points.items()}
        out.append((disp, force(model)))
    return out


def _sphere_force(contact):
    probe = contact.probe()
    return lambda m: probe(SimpleNamespace(model=m), None)[f"{contact.name}_force_3"]


def _agree(rows, stepped, scale: float) -> None:
    for (lam, d1, f1), (d2, f2) in zip(rows, stepped, strict=True):
        for k in d1:
            assert_claim("contact-path-stepping", (d1[k] - d2[k]) / scale, 1e-8)
        assert abs(f1 - f2) <= 1e-8 * max(abs(f1), 1e-30) + 1e-14, lam


def test_cantilever_pressed_on_a_sphere():
    """Before contact the tip follows the linear cantilever (1e-5 relative); past
    ``lambda_c = delta/(P c_aL)`` the contact force follows the propped cantilever with the
    penalty in series (1e-5 relative; without the penalty's compliance the force would be 9 %
    larger); the path equals quasi-static load stepping at the same load factors (1e-8)."""
    points = {"tip": L, "a": A}
    model, contact = _propped()
    rows = _trace(model, points, _sphere_force(contact), ds=2e-4)
    lam_c = GAP / (P * C_AL)
    free = [r for r in rows if r[0] < lam_c]
    touching = [r for r in rows if r[0] > lam_c]
    assert len(free) >= 5 and len(touching) >= 5
    for lam, d, F in free:
        assert F == 0.0
        assert d["tip"][2] == pytest.approx(-P * lam * C_LL, rel=1e-5, abs=1e-15)
    for lam, d, F in touching:
        F_ref = (P * lam * C_AL - GAP) / (C_AA + 1.0 / K_T)
        # the theory's error is relative to the deflection P lambda c_aL (the gap's share
        # of it is exact): the scale of the force error is that of a gapless prop
        scale = P * lam * C_AL / (C_AA + 1.0 / K_T)
        assert_claim("contact-path-force", (F - F_ref) / scale, 1e-5)    # 4.8e-6
        assert d["tip"][2] == pytest.approx(-(P * lam * C_LL - F_ref * C_AL), rel=1e-5)
    m2, c2 = _propped()
    stepped = _stepped(m2, [r[0] for r in rows], points, _sphere_force(c2))
    _agree(rows, stepped, P * C_LL)


def test_moving_obstacle_drives_the_path():
    """A sphere moving up by ``V lambda`` (the obstacle's motion is the load): the force
    follows ``(V lambda - delta)/(c_aa + 1/k_t)`` (1e-5) and quasi-static stepping (1e-8)."""
    V = 1e-3
    points = {"a": A}
    model, contact = _propped(speed=V)
    rows = _trace(model, points, _sphere_force(contact), ds=1e-4)
    lam_c = GAP / V
    touching = [r for r in rows if r[0] > lam_c]
    assert len(touching) >= 5 and all(r[2] == 0.0 for r in rows if r[0] < lam_c)
    for lam, d, F in touching:
        F_ref = (V * lam - GAP) / (C_AA + 1.0 / K_T)
        assert F == pytest.approx(F_ref, rel=1e-5)                      # 1.2e-6
        assert d["a"][2] == pytest.approx(F_ref * C_AA, rel=1e-5)       # 1.2e-7
    m2, c2 = _propped(speed=V)
    _agree(rows, _stepped(m2, [r[0] for r in rows], points, _sphere_force(c2)), V)


def _crossing(gap: float, P: float, k: float):
    """tests/test_rodcontact.py::crossing with the upper rod ``gap`` [m] above contact."""
    lower = Rod(SEC, start=(-0.5, 0, 0), end=(0.5, 0, 0), d1=(0, 1, 0), n_elements=8)
    upper = Rod(SEC, start=(0, -0.5, 2 * R + gap), end=(0, 0, 2 * R + gap), d1=(1, 0, 0),
                n_elements=4)
    contact = RodContact(radius=R, stiffness=k)
    model = RodModel(Structure([lower, upper]),
                     [EndLoad("L", force=lambda t: (0, 0, -P * t), rod=1)],
                     [Clamp("0", rod=0), Clamp("L", rod=0), Clamp("0", rod=1)], [contact],
                     quasistatic=True)
    return model, contact


def test_crossing_rods():
    """Rod-rod contact (non-local Newton terms) in the continuation: the force carried by
    the clamped-clamped beam follows linear Timoshenko theory (1e-5, its deflection 3e-5)
    and the path equals
    quasi-static load stepping at the same load factors (1e-8)."""
    P2, gap, k = 1e-3, 2e-4, 1e4
    c_u = 0.5**3 / (3 * EI) + 0.5 / GA
    c_l = 1.0 / (192 * EI) + 1.0 / (4 * GA)
    model, contact = _crossing(gap, P2, k)
    st = model.structure
    points = {"tip": model.tip_coordinate, "mid": st.coordinate(0, 0.5)}
    force = lambda m: -contact.force_on(0)[2]   # noqa: E731
    rows = _trace(model, points, force, ds=2e-4, lam_end=1.5)
    lam_c = gap / (P2 * c_u)
    touching = [r for r in rows if r[0] > lam_c]
    assert len(touching) >= 5 and all(r[2] == 0.0 for r in rows if r[0] < lam_c)
    for lam, d, F in touching:
        F_ref = (P2 * lam * c_u - gap) / (c_u + c_l + 1.0 / k)
        assert_claim("contact-path-force", F / F_ref - 1.0, 1e-5)     # 1.4e-6
        # the clamped-clamped beam stiffens by stretching, relative order (w/R)^2 = 5.6e-5
        assert d["mid"][2] == pytest.approx(-F_ref * c_l, rel=3e-5)     # 1.2e-5
    m2, c2 = _crossing(gap, P2, k)
    stepped = _stepped(m2, [r[0] for r in rows], points, lambda m: -c2.force_on(0)[2])
    _agree(rows, stepped, P2 * c_u)


@pytest.mark.parametrize("kw", [{"friction": 0.3}, {"damping": 1.0}])
def test_friction_and_damping_refused(kw):
    rod = Rod(SEC, (0, 0, 0), (L, 0, 0), (0, 1, 0), 4)
    contact = Contact(Sphere((A, 0, -(R + RS + GAP)), RS), stiffness=K, **kw)
    model = RodModel(rod, [EndLoad("L", force=lambda t: (0, 0, -P * t))], [Clamp("0")],
                     [contact], quasistatic=True)
    with pytest.raises(ParameterError, match=next(iter(kw))):
        Continuation(model)


class _TipSpring:
    """A non-local term (registered like rod-rod contact): a vertical spring ``k_s`` [N/m]
    from the node at mesh coordinate ``x`` to its reference height (serial), its rows
    scaled by the model's ``h`` as every row of the residual."""

    def __init__(self, model, x: float, k_s: float) -> None:
        W = model.w.function_space
        Q, qmap = W.sub(0).collapse()
        node = int(np.argmin(np.abs(Q.tabulate_dof_coordinates()[:, 0] - x)))
        self.dof = int(np.asarray(qmap).reshape(-1, 12)[node, 2])
        self.z0, self.k_s, self.w = float(model.w.x.array[self.dof]), k_s, model.w
        self.h = model.h
        model.add_nonlocal(self)

    def add_residual(self, b, skip) -> None:
        f = self.k_s * (self.w.x.array[self.dof] - self.z0)
        b.setValue(self.dof, float(self.h.value) * f, addv=True)
        b.assemble()

    def add_jacobian(self, A, skip) -> None:
        A.setOption(PETSc.Mat.Option.NEW_NONZERO_ALLOCATION_ERR, False)
        A.setValue(self.dof, self.dof, float(self.h.value) * self.k_s, addv=True)
        A.assemble()


def _welded_cantilever(k_s: float):
    """The cantilever of length L as two rods welded at L/2 (joint: reduced tangent) with a
    tip spring (a non-local term) and the tip load P lambda."""
    rods = [Rod(SEC, (0, 0, 0), (A, 0, 0), (0, 1, 0), N // 2),
            Rod(SEC, (A, 0, 0), (L, 0, 0), (0, 1, 0), N // 2)]
    model = RodModel(Structure(rods, [Rigid((0, "L"), (1, "0"))]),
                     [EndLoad("L", force=lambda t: (0, 0, -P * t), rod=1)], [Clamp("0")],
                     quasistatic=True)
    return model, _TipSpring(model, model.tip_coordinate, k_s)


def test_nonlocal_terms_with_joints():
    """The hooks of non-local terms in the reduced tangent ``T^T J T`` (joints): the tip of
    a welded cantilever on a spring follows ``P lambda c_LL/(1 + k_s c_LL)`` (1e-5, the
    order (u/L)^2 of the neglected geometric terms; 1.5e-7) and quasi-static stepping
    (1e-8)."""
    k_s = 1.0
    model, _ = _welded_cantilever(k_s)
    assert model.reduction is not None
    points = {"tip": model.tip_coordinate}
    rows = _trace(model, points, lambda m: 0.0, ds=2e-4)
    assert len(rows) >= 5
    for lam, d, _ in rows:
        assert d["tip"][2] == pytest.approx(-P * lam * C_LL / (1 + k_s * C_LL), rel=1e-5,
                                            abs=1e-15)
    m2, _ = _welded_cantilever(k_s)
    _agree(rows, _stepped(m2, [r[0] for r in rows], points, lambda m: 0.0), P * C_LL)


MPI_SCRIPT = """
import json, sys
sys.path.insert(0, ".")
from mpi4py import MPI
from tests import test_continuation_contact as t
out = t.paths()
if MPI.COMM_WORLD.rank == 0:
    json.dump(out, open(sys.argv[1], "w"))
"""


def paths() -> dict[str, list[list[float]]]:
    """(lambda, a displacement [m], contact force [N]) along the sphere and crossing paths."""
    m, c = _propped()
    rows = _trace(m, {"a": A}, _sphere_force(c), ds=2e-4)
    out = {"sphere": [[lam, float(d["a"][2]), float(F)] for lam, d, F in rows]}
    m, c = _crossing(2e-4, 1e-3, 1e4)
    rows = _trace(m, {"mid": m.structure.coordinate(0, 0.5)}, lambda mm: -c.force_on(0)[2],
                  ds=2e-4, lam_end=1.5)
    out["crossing"] = [[lam, float(d["mid"][2]), float(F)] for lam, d, F in rows]
    return out


@pytest.mark.mpi
def test_mpi_paths_equal_serial(tmp_path):
    """Both contacts under ``mpirun -n 2`` (rod-rod pairs gathered on every rank, the rows
    added by their owners): the same path points as in serial (1e-8; measured 1e-13)."""
    script = tmp_path / "paths.py"
    script.write_text(MPI_SCRIPT)
    run_mpi([str(script), str(tmp_path / "mpi.json")])
    par = json.loads((tmp_path / "mpi.json").read_text())
    for key, rows in paths().items():
        a, b = np.array(rows), np.array(par[key])
        assert a.shape == b.shape, key
        for j in range(3):
            assert np.max(np.abs(b[:, j] - a[:, j])) <= 1e-8 * np.max(np.abs(a[:, j])), key
