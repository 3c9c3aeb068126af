"""Discrete adjoint gradients (fxrod.adjoint) and the optimisation layer (fxrod.optimize):
Taylor tests (second-order remainder) for every parameter kind in dynamics and statics and
with the extensions, central finite differences to 1e-6, the linear cantilever's closed-form
sensitivity, checkpoint recomputation, identification of E and rho of Ex. 6.2 from its own
tip trajectory, bad input, MPI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fxrod.adjoint import (
    Adjoint,
    ConstantParameter,
    FinalPose,
    InitialVelocity,
    InputHistory,
    SectionParameters,
    TipTracking,
    taylor_remainders,
)
from fxrod.bcs import Clamp
from fxrod.cases.cantilever_vibration import maxwell_branch
from fxrod.errors import ParameterError
from fxrod.examples import cantilever_vibration, quasistatic_cantilever
from fxrod.integrators import Integrator
from fxrod.loads import EndLoad
from fxrod.model import RodModel
from fxrod.optimize import ScaledProblem, minimize
from fxrod.rod import Rod, Section
from fxrod.soft_arm import SOFT_ARM, soft_arm
from tests.conftest import run_mpi

E, RHO, G, R = 7.2e10, 2850.0, 7.2e10 / 2.7, 2e-3      # Ex. 6.2 (nu = 0.35)
H, T = 2e-3, 0.02                                     # 10 steps of the impulse
EPS = (1e-1, 5e-2, 2.5e-2, 1.25e-2)


def assert_second_order(adj, direction, eps=EPS):
    r, orders = taylor_remainders(adj, direction, eps)
    assert np.all(r > 0), r
    assert np.all(np.abs(orders - 2.0) < 0.1), (r, orders)
    return orders


def cantilever(t_end=T, h=H, n=4, **kw):
    return cantilever_vibration(n_elements=n, h=h, t_end=t_end, **kw)


def tracking(target=(1.0, 0.01, 0.01)):
    return TipTracking(lambda t: np.array(target), weight=1e4)


def test_taylor_dynamics_section():
    prob = cantilever()
    sec = SectionParameters(prob.model, ["E", "G", "rho", "radius"], E=E, G=G, rho=RHO,
                            radius=R)
    adj = Adjoint(prob.integrator(), T, tracking(), [sec])
    assert_second_order(adj, adj.get() * np.array([0.1, -0.2, -0.07, 0.03]))


def test_taylor_dynamics_inputs_initial_velocity_and_checkpoints():
    prob = cantilever()
    m = prob.model
    te = (np.arange(10) + 0.5) * H                     # per-step values at t_{n+1/2}
    params = [InputHistory("force", m.loads[0], te), InitialVelocity(m)]
    adj = Adjoint(prob.integrator(), T, tracking(), params, checkpoint_every=3)
    rng = np.random.default_rng(1)
    d = np.concatenate([rng.normal(size=30), 0.1 * rng.normal(size=params[1].get().size)])
    assert_second_order(adj, d)
    # recomputing from every 3rd state gives the gradient of storing them all
    _, g3 = adj.value_and_grad()
    _, g1 = Adjoint(prob.integrator(), T, tracking(), params).value_and_grad()
    assert np.max(np.abs(g3 - g1)) < 1e-12 * np.max(np.abs(g1))


def test_taylor_viscoelastic_and_adaptive_steps():
    """Maxwell branch constant ((V^(1))^-1 = C_1/tau, [1/(N s)]) and the tip moment history;
    the steps of an adaptive integrator are data of the adjoint."""
    prob = cantilever(extensions=[maxwell_branch()])
    m = prob.model
    vinv = ConstantParameter("Vinv_1", m.extensions[0]._Vinv[0])
    mom = InputHistory("moment", m.loads[0], [0.0, 0.01, 0.02], component="moment")
    it = Integrator(m, H, prob.settings.replace(adaptive=True))
    adj = Adjoint(it, T, FinalPose([1.0, 0.01, 0.01], weight=1e4), [vinv, mom])
    rng = np.random.default_rng(2)
    d = np.concatenate([vinv.get() * 0.3 * rng.normal(size=6), 0.1 * rng.normal(size=9)])
    assert_second_order(adj, d)


def test_taylor_quasistatic():
    prob = quasistatic_cantilever(n_elements=4, h=0.25)
    m = prob.model
    params = [ConstantParameter("C", m.C), InputHistory("force", m.loads[0], [0.0, 0.5, 1.0])]
    adj = Adjoint(prob.integrator(), 1.0,
                  TipTracking(lambda t: np.array([5.0 * t, -t, 0.0])), params)
    rng = np.random.default_rng(3)
    d = np.concatenate([m.C.value * 0.1 * rng.normal(size=6), 0.1 * rng.normal(size=9)])
    assert_second_order(adj, d, eps=np.array(EPS) / 4)   # past the pre-asymptotic range


def test_taylor_actuation():
    """Soft arm (Ex. 6.4, 4 elements, 0.5 s): three chamber pressure histories [Pa] on 6
    knots and E, rho of the silicone."""
    prob = soft_arm("heart", n_elements=4)
    m, p = prob.model, SOFT_ARM
    act = m.extensions[0]
    area = 1e-4                                        # values are pressures: tau = -A p
    ps = [InputHistory(f"p{k}", (act, a), np.linspace(0.0, 0.5, 6), values=np.full(6, 1e5),
                       scale=-area, lower=0.0) for k, a in enumerate(act.actuators)]
    sec = SectionParameters(m, ["E", "rho"], E=p.E, G=p.E / 2.7, rho=p.rho,
                            radius=p.diameter / 2)
    adj = Adjoint(prob.integrator(), 0.5, TipTracking(lambda t: np.array([0.02 * t, 0, 0.17])),
                  ps + [sec], checkpoint_every=4)
    rng = np.random.default_rng(4)
    d = np.concatenate([1e4 * rng.normal(size=18), adj.get()[-2:] * 0.1 * rng.normal(size=2)])
    assert_second_order(adj, d, eps=EPS[:3])


def test_gradient_equals_central_differences():
    prob = cantilever()
    sec = SectionParameters(prob.model, ["E", "rho", "radius"], E=E, G=G, rho=RHO, radius=R)
    force = InputHistory("force", prob.model.loads[0], [0.0, 0.01, 0.02])
    adj = Adjoint(prob.integrator(), T, tracking(), [sec, force])
    x = adj.get()
    _, g = adj.value_and_grad(x)
    for i in (0, 1, 2, 4, 7):                          # E, rho, radius, force knots
        e = 1e-4 * (abs(x[i]) if x[i] != 0.0 else 1.0)
        xp, xm = x.copy(), x.copy()
        xp[i] += e
        xm[i] -= e
        fd = (adj.forward(xp) - adj.forward(xm)) / (2 * e)
        assert abs(g[i] - fd) <= 1e-6 * abs(fd), (i, g[i], fd)


def test_linear_cantilever_closed_form():
    """Quasi-static cantilever (d1 = e2), tiny tip force P along d1: J = (tip_2)^2 with the
    Timoshenko deflection delta = P L^3/(3 k_b2) + P L/k_s1, so, with C = 1/k,
    dJ/dC_s1 = 2 delta P L and dJ/dC_b2 = 2 delta P L^3/3 (the other components ~0)."""
    L, P = 2.0, 1e-6
    sec = Section(rhoA=0.0, M11=0.0, M22=0.0, k_s1=3.0, k_s2=3.0, k_e=5.0, k_b1=2.0, k_b2=2.0,
                  k_t=0.5, radius=0.05)
    rod = Rod(sec, start=(0, 0, 0), end=(L, 0, 0), d1=(0, 1, 0), n_elements=4)
    model = RodModel(rod, [EndLoad("L", force=lambda t: t * np.array([0.0, P, 0.0]))],
                     [Clamp("0")], quasistatic=True)
    adj = Adjoint(Integrator(model, 1.0), 1.0, FinalPose([L, 0.0, 0.0]),
                  [ConstantParameter("C", model.C)])
    J, g = adj.value_and_grad()
    delta = P * L**3 / (3 * 2.0) + P * L / 3.0
    assert J == pytest.approx(delta**2, rel=1e-6)
    # d1 = e2: the load along d1 shears in direction 1 and bends about d2 (K_2)
    assert g[0] == pytest.approx(2 * delta * P * L, rel=1e-6)
    assert g[4] == pytest.approx(2 * delta * P * L**3 / 3, rel=1e-6)
    assert np.max(np.abs(g[[1, 2, 3, 5]])) < 1e-9 * abs(g[4])


def identify(t_end: float, h: float, n: int) -> tuple[np.ndarray, object]:
    prob = cantilever(t_end=t_end, h=h, n=n)
    m = prob.model
    tips = []
    prob.integrator().advance_to(t_end, callback=lambda it, res: tips.append(m.nodes.tip()))
    tips = np.array(tips)
    sec = SectionParameters(m, ["E", "rho"], E=E, G=G, rho=RHO, radius=R)
    obj = TipTracking(tips, weight=1.0 / np.sum((tips - [1.0, 0.0, 0.0]) ** 2))
    adj = Adjoint(prob.integrator(), t_end, obj, [sec], checkpoint_every=10)
    res = minimize(adj, x0=[1.3 * E, 0.7 * RHO],
                   options={"gtol": 1e-14, "ftol": 1e-30, "maxiter": 200})
    return res.p / [E, RHO] - 1.0, res


def test_identification_short():
    """E and rho of Ex. 6.2 from its own tip trajectory over the impulse (25 steps of 2 ms),
    starting 30 % off: recovered to 1e-6."""
    err, res = identify(0.05, 2e-3, 4)
    assert np.max(np.abs(err)) < 1e-6, (err, res.message)
    assert res.history[0].J > 1e-3 and res.history[-1].J < 1e-20


@pytest.mark.slow
def test_identification_full():
    """The full Ex. 6.2 run (0.3 s, h = 1 ms, 8 elements)."""
    err, res = identify(0.3, 1e-3, 8)
    assert np.max(np.abs(err)) < 1e-6, (err, res.message)


def test_bad_input():
    prob = cantilever()
    m = prob.model
    with pytest.raises(ParameterError, match="section parameter names"):
        SectionParameters(m, ["E", "Young"], E=E, G=G, rho=RHO, radius=R)
    with pytest.raises(ParameterError, match="section values"):
        SectionParameters(m, ["E"], E=1.1 * E, G=G, rho=RHO, radius=R)
    sec = SectionParameters(m, ["E", "rho"], E=E, G=G, rho=RHO, radius=R)
    adj = Adjoint(prob.integrator(), T, tracking(), [sec])
    with pytest.raises(ParameterError, match="direction"):
        taylor_remainders(adj, [1.0, 2.0, 3.0], EPS)
    with pytest.raises(ParameterError, match="parameter vector"):
        adj.forward([E])
    with pytest.raises(ParameterError, match="parameter name"):
        ScaledProblem(adj).index("nu")
    bad = Adjoint(prob.integrator(), T, TipTracking(lambda t: [np.nan, 0.0, 0.0]), [sec])
    with pytest.raises(ParameterError, match="objective"):
        bad.forward()
    with pytest.raises(ParameterError, match="forward"):
        Adjoint(prob.integrator(), T, tracking(), [sec]).gradient()
    with pytest.raises(ParameterError, match="unique"):
        ScaledProblem(Adjoint(prob.integrator(), T, tracking(), [sec, sec]))


MPI_SCRIPT = """
import json, sys
import numpy as np
import fxrod
from fxrod.adjoint import Adjoint, InputHistory, SectionParameters, TipTracking
from fxrod.examples import cantilever_vibration
prob = cantilever_vibration(n_elements=4, h=2e-3, t_end=0.02)
m = prob.model
p = [SectionParameters(m, ["E", "rho"], E=7.2e10, G=7.2e10 / 2.7, rho=2850.0, radius=2e-3),
     InputHistory("force", m.loads[0], [0.0, 0.01, 0.02])]
adj = Adjoint(prob.integrator(), 0.02, TipTracking(lambda t: np.array([1.0, 0.01, 0.01]),
              1e4), p, checkpoint_every=4)
J, g = adj.value_and_grad()
if m.comm.rank == 0:
    json.dump({"J": J, "g": list(g)}, open(sys.argv[1], "w"))
"""


@pytest.mark.mpi
def test_mpi_gradient_equals_serial(tmp_path):
    script = tmp_path / "grad.py"
    script.write_text(MPI_SCRIPT)
    serial, mpi = tmp_path / "serial.json", tmp_path / "mpi.json"
    run_mpi([str(script), str(mpi)])
    import subprocess
    import sys

    subprocess.run([sys.executable, str(script), str(serial)], check=True)
    a, b = json.loads(serial.read_text()), json.loads(mpi.read_text())
    assert b["J"] == pytest.approx(a["J"], rel=1e-10)
    assert np.allclose(b["g"], a["g"], rtol=1e-8, atol=0)
