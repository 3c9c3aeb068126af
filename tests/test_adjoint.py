"""Discrete adjoint gradients (fxrod.analysis.adjoint) and the optimisation layer
(fxrod.analysis.optimize):
Taylor tests (second-order remainder) for every parameter kind in dynamics and statics and
with the extensions, central finite differences to 1e-6, the linear cantilever's closed-form
sensitivity and Hessian, checkpoint recomputation, identification of E and rho of Ex. 6.2
from its own tip trajectory, radius profiles of sections varying along s and the stepped
cantilever designed for a target tip deflection (closed-form optimum), the soft arm's
material identified from the authors' data, the public accessors, bad input, MPI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fxrod.analysis.adjoint import (
    Adjoint,
    ConstantParameter,
    FinalPose,
    InitialVelocity,
    InputHistory,
    NodeFunction,
    RadiusProfile,
    SectionParameters,
    TipTracking,
    taylor_remainders,
)
from fxrod.analysis.optimize import ScaledProblem, hessian, least_squares_confidence, minimize
from fxrod.core.forms.viscoelastic import GeneralizedMaxwell
from fxrod.core.loads import EndLoad, Gravity
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section, VaryingSection
from fxrod.core.supports import Clamp
from fxrod.errors import ParameterError
from fxrod.problems.soft_arm import SOFT_ARM
from fxrod.runs.integrators import Integrator
from fxrod.studies.cases import demo
from tests.claims import assert_claim, assert_printed
from tests.conftest import run_mpi

maxwell_branch = demo("cantilever_vibration").maxwell_branch

E, RHO, G, R = 7.2e10, 2850.0, 7.2e10 / 2.7, 2e-3      # Ex. 6.2 (nu = 0.35)
H, T = 2e-3, 0.02                                     # 10 steps of the impulse
EPS = (1e-1, 5e-2, 2.5e-2, 1.25e-2)


def assert_second_order(adj, direction, eps=EPS):
    r, orders = taylor_remainders(adj, direction, eps)
    assert np.all(r > 0), r
    assert_printed("grad-taylor-order", orders, 0.1)
    return orders


def cantilever(t_end=T, h=H, n=4, **kw):
    return demo("cantilever_vibration").problem(n_elements=n, h=h, t_end=t_end, **kw)


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
    vinv = ConstantParameter("Vinv_1", m.extensions[0].branch_constants(0)["Vinv"])
    mom = InputHistory("moment", m.loads[0], [0.0, 0.01, 0.02], component="moment")
    it = Integrator(m, H, prob.settings.replace(adaptive=True))
    adj = Adjoint(it, T, FinalPose([1.0, 0.01, 0.01], weight=1e4), [vinv, mom])
    rng = np.random.default_rng(2)
    d = np.concatenate([vinv.get() * 0.3 * rng.normal(size=6), 0.1 * rng.normal(size=9)])
    assert_second_order(adj, d)


def test_taylor_quasistatic():
    prob = demo("quasistatic_cantilever").problem(n_elements=4, h=0.25)
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
    prob = demo("soft_arm").problem("heart", n_elements=4)
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
        assert_claim("grad-fd", (g[i] - fd) / fd, 1e-6)


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
    # J = delta(C)^2 with delta linear in C: the Hessian is 2 grad(delta) grad(delta)^T
    Hc = hessian(adj)
    dd = np.array([P * L, 0.0, 0.0, 0.0, P * L**3 / 3, 0.0])
    assert np.max(np.abs(Hc - 2 * np.outer(dd, dd))) < 1e-6 * 2 * dd[4] ** 2


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
    assert_claim("grad-identification", err, 1e-6)
    assert res.history[0].J > 1e-3 and res.history[-1].J < 1e-20


@pytest.mark.slow
def test_identification_full():
    """The full Ex. 6.2 run (0.3 s, h = 1 ms, 8 elements)."""
    err, res = identify(0.3, 1e-3, 8)
    assert_claim("grad-identification", err, 1e-6)


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


# ------------------------------------------------------------ sections varying along s
STEEL = {"E": 2e11, "G": 2e11 / 2.6, "rho": 7850.0}


def tapered_model(quasistatic: bool, n: int = 8) -> RodModel:
    sec = VaryingSection.circular(radius=lambda s: 0.01 * (1 - 0.3 * s), **STEEL)
    rod = Rod(sec, (0, 0, 0), (1.0, 0, 0), (0, 1, 0), n)
    return RodModel(rod, [Gravity((0, 0, -9.81))], [Clamp("0")], quasistatic=quasistatic)


@pytest.mark.parametrize("quasistatic", [True, False])
def test_taylor_radius_profile(quasistatic):
    """Radius of a tapered steel cantilever under its weight on 4 segments (mass and
    compliance fields along s): second order in statics and over 10 dynamic steps."""
    m = tapered_model(quasistatic)
    rp = RadiusProfile(m, np.linspace(0, 1.0, 5), [0.01, 0.009, 0.008, 0.007], **STEEL)
    h, T = (1.0, 1.0) if quasistatic else (2e-3, 0.02)
    adj = Adjoint(Integrator(m, h), T, TipTracking(lambda t: np.array([1.0, 0, -1e-3]), 1e6),
                  [rp])
    assert_second_order(adj, np.array([1e-3, -2e-3, 1.5e-3, 1e-3]))


#: Stepped cantilever: L [m], carried line mass [kg/m], target tip deflection [m]
TAPER_L, TAPER_RHOA, TAPER_DELTA = 1.0, 2.0, 1e-4


def stepped_optimum(breaks: np.ndarray, w: float, E: float, delta: float) -> np.ndarray:
    """Least-volume radii r_j of a stepped Euler-Bernoulli cantilever under the uniform
    line load w [N/m] with the tip deflection delta: delta = sum_j a_j r_j^-4 with
    a_j = int_j M (L - s) ds 4/(E pi), M = w (L - s)^2/2; volume V = sum_j b_j r_j^2,
    b_j = pi l_j. Stationarity of V + mu delta gives r_j = c (a_j/b_j)^(1/6), and the
    constraint c = (sum_j a_j^(1/3) b_j^(2/3) / delta)^(1/4)."""
    L = breaks[-1]
    a = 2 * w / (E * np.pi) * ((L - breaks[:-1]) ** 4 - (L - breaks[1:]) ** 4) / 4
    b = np.pi * np.diff(breaks)
    return (np.sum(a ** (1 / 3) * b ** (2 / 3)) / delta) ** 0.25 * (a / b) ** (1 / 6)


def test_stepped_cantilever_design():
    """Least volume of a Kirchhoff steel cantilever (4 steps of radius, 16 elements)
    carrying a line mass of 2 kg/m under gravity, for a tip deflection of 1e-4 m (the
    small-load limit): SLSQP with the adjoint gradient of the deflection, from the uniform
    rod of that deflection, reaches the closed-form optimum (stepped_optimum) to 1e-7
    (measured 5.3e-9) in 14 iterations; the volume drops by 26 % (to 0.7392 of the uniform
    rod's)."""
    from scipy.optimize import minimize as scipy_minimize

    L, g = TAPER_L, 9.81
    breaks = np.linspace(0.0, L, 5)
    r_opt = stepped_optimum(breaks, TAPER_RHOA * g, STEEL["E"], TAPER_DELTA)
    r_uni = (TAPER_RHOA * g * L**4 / (8 * STEEL["E"] * np.pi / 4 * TAPER_DELTA)) ** 0.25
    sec = VaryingSection(rhoA=TAPER_RHOA, M11=0.0, M22=0.0, k_s1=1.0, k_s2=1.0, k_e=1.0,
                         k_b1=1.0, k_b2=1.0, k_t=1.0)     # stiffness set by RadiusProfile
    rod = Rod(sec, (0, 0, 0), (L, 0, 0), (0, 1, 0), 16, constraints=("kirchhoff",))
    m = RodModel(rod, [Gravity((0, 0, -g))], [Clamp("0")], quasistatic=True)
    rp = RadiusProfile(m, breaks, np.full(4, r_uni), **STEEL, self_weight=False)
    deflection = NodeFunction(lambda t, q: (-q[2], -np.eye(12)[2]), final_only=True)
    prob = ScaledProblem(Adjoint(Integrator(m, 1.0), 1.0, deflection, [rp]),
                         np.full(4, r_uni))
    cache = {}

    def constraint(x):
        if tuple(x) not in cache:
            cache[tuple(x)] = prob.value_and_grad(x)
        return cache[tuple(x)]

    b = np.pi * np.diff(breaks)
    V0 = np.sum(b) * r_uni**2
    res = scipy_minimize(
        lambda x: (np.sum(b * x**2) * r_uni**2 / V0, 2 * b * x * r_uni**2 / V0),
        np.ones(4), jac=True, method="SLSQP", bounds=[(0.1, 10.0)] * 4,
        constraints=[{"type": "eq", "fun": lambda x: constraint(x)[0] / TAPER_DELTA - 1.0,
                      "jac": lambda x: constraint(x)[1] / TAPER_DELTA}],
        options={"ftol": 1e-14, "maxiter": 100})
    assert res.success, res.message
    assert_claim("design-radii", res.x * r_uni / r_opt - 1.0, 1e-7)
    # V ~ delta^-1/2: the FE deflection of the closed-form design is 1.0e-8 off (P2/DG1
    # discretisation, geometric nonlinearity), so the volumes agree to ~5e-9
    assert res.fun == pytest.approx(np.sum(b * r_opt**2) / V0, rel=2e-8)
    assert_printed("design-volume", res.fun)
    assert res.fun < 0.75


def test_accessors():
    """The Constants the adjoint differentiates, read through public properties."""
    prob = cantilever(extensions=[maxwell_branch()])
    m = prob.model
    assert set(m.loads[0].constants) == {"force", "moment"}
    assert EndLoad("L", force=(1.0, 0, 0)).constants == {}
    mx = m.extensions[0]
    assert set(mx.branch_constants(0)) == {"C", "Vinv"}
    with pytest.raises(ParameterError, match="branch"):
        mx.branch_constants(1)
    with pytest.raises(ParameterError, match="built model"):
        GeneralizedMaxwell.proportional().branch_constants(0)
    act = demo("soft_arm").problem("heart", n_elements=2).model.extensions[0]
    assert act.force_constant.value.shape == (3,)


def test_radius_profile_bad_input():
    m = tapered_model(True, n=4)
    with pytest.raises(ParameterError, match="breaks"):
        RadiusProfile(m, [0.0, 0.5], [0.01], **STEEL)
    with pytest.raises(ParameterError, match="radius"):
        RadiusProfile(m, [0.0, 0.5, 1.0], [0.01, -0.01], **STEEL)
    with pytest.raises(ParameterError, match="VaryingSection"):
        RadiusProfile(cantilever().model, [0.0, 1.0], [0.01], **STEEL)


# ------------------------------------------------------------ soft arm from the data
@pytest.mark.slow
def test_soft_arm_identification_from_data(ref_dir):
    """E, G and rho of the soft arm (10 elements, h = 0.05 s) from the authors' circle
    tip path (80 rows), starting 30 % off; the Hessian of the misfit at the optimum gives
    the confidence (least_squares_confidence). Measured (45 iterations): E = 6.0051e5 +- 77
    Pa (Table 4: 6e5), rho = 1073.1 +- 4.6 kg/m^3, G = 6.9e5 +- 7.7e4 Pa, rms 1.79e-4 m
    (nominal parameters: 3.00e-4 m). The data determine E sharply (1.3e-4 relative) and
    rho given G; G (shear, torsion: hardly excited) only to 11 %, correlated with rho at
    0.965 (the Hessian's softest direction is G). The +- assume independent residuals;
    these are model differences, so they are nominal."""
    from tests.test_actuation import DATA

    p = SOFT_ARM
    data = np.loadtxt(ref_dir / DATA / "ex04_pressure_circle_results.csv", delimiter=",",
                      skiprows=1)[1:, 1:4]
    prob = demo("soft_arm").problem("circle")
    G0 = p.E / (2 * (1 + p.nu))
    sec = SectionParameters(prob.model, ["E", "G", "rho"], E=p.E, G=G0, rho=p.rho,
                            radius=p.diameter / 2)
    w = 1.0 / np.sum((data - [0, 0, p.length]) ** 2)
    adj = Adjoint(prob.integrator(), p.t_end, TipTracking(data, weight=w), [sec])
    res = minimize(adj, x0=[1.3 * p.E, 1.3 * G0, 0.7 * p.rho],
                   options={"gtol": 1e-10, "ftol": 1e-15, "maxiter": 100})
    std, corr = least_squares_confidence(res.fun, hessian(adj, res.p), data.size, w)
    E, G, rho = res.p
    print(f"E = {E:.6g} +- {std[0]:.2g} Pa, G = {G:.6g} +- {std[1]:.2g} Pa, rho = "
          f"{rho:.6g} +- {std[2]:.2g} kg/m^3; rms {np.sqrt(res.fun / w / len(data)):.3e} m;"
          f" correlation {corr[0, 2]:.3f} (E, rho)")
    assert_claim("adj-E-vs-paper", E / p.E - 1.0, 2e-3)
    assert_printed("adj-E", E, 77.0, spread=std[0])
    assert_printed("adj-rho", rho, 4.6, spread=std[2])
    assert_printed("adj-G-spread", std[1] / G)
    assert corr[1, 2] > 0.9
    assert res.fun / w / len(data) < (2e-4) ** 2


MPI_SCRIPT = """
import json, sys
import numpy as np
import fxrod
from fxrod.analysis.adjoint import Adjoint, InputHistory, SectionParameters, TipTracking
from fxrod.studies.cases import demo
prob = demo("cantilever_vibration").problem(n_elements=4, h=2e-3, t_end=0.02)
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


def test_parameters_that_set_the_same_input_are_refused():
    """SectionParameters and a ConstantParameter on one of its Constants (or two histories
    of one load's force) would overwrite each other: refused in one line naming both.
    Histories of the actuators of one extension (a shared Constant, separate inputs) are
    not: test_taylor_actuation."""
    prob = cantilever()
    m = prob.model
    sec = SectionParameters(m, ["E"], E=E, G=G, rho=RHO, radius=R)
    with pytest.raises(ParameterError, match="section and rhoA"):
        Adjoint(prob.integrator(), T, tracking(), [sec, ConstantParameter("rhoA", m.rhoA)])
    te = (np.arange(10) + 0.5) * H
    with pytest.raises(ParameterError, match="f1 and f2"):
        Adjoint(prob.integrator(), T, tracking(), [InputHistory("f1", m.loads[0], te),
                                                   InputHistory("f2", m.loads[0], te)])
