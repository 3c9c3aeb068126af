"""Pneumatic chambers and tendons (theory §3.2, eqs. 68-73) and the soft arm of Ex. 6.4
(theory §4.4): tip positions vs the authors' data, the identification of the calibrated
parameters, the discrete power balance with the actuator port, the exact static arc and the
tendon hook's closed form (with their order 4), input tables, input validation, MPI."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from fxrod.core.forms.actuation import Actuation, InputTable, PressureChamber, Tendon
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod
from fxrod.core.supports import Clamp
from fxrod.errors import ParameterError
from fxrod.problems.paper import PAPER_SETTINGS
from fxrod.problems.soft_arm import (
    HOOK,
    SOFT_ARM,
    chamber_forces,
    constant_strain_curve,
    static_strains,
    tendon_hook_exact,
)
from fxrod.runs.integrators import Integrator
from fxrod.runs.simulation import Simulation
from fxrod.studies.cases import demo
from tests.claims import assert_claim, assert_printed

ARM, HOOK_DEMO = demo("soft_arm"), demo("tendon_hook")

DATA = "kinon2026/results/example_04_soft_robotic_arm"
CIRCLE_TIMES = (0.5, 1.5, 2.0, 2.5, 3.5, 4.0)
HEART_TIMES = (1.0, 2.0, 3.0, 4.0)


def data_tips(ref_dir, path: str) -> dict[float, np.ndarray]:
    a = np.loadtxt(ref_dir / DATA / f"ex04_pressure_{path}_results.csv", delimiter=",",
                   skiprows=1)
    return {round(float(r[0]), 6): r[1:4] for r in a}


def tips(sim: Simulation) -> dict[float, np.ndarray]:
    t = sim.column("t")
    x = np.c_[sim.column("tip_1"), sim.column("tip_2"), sim.column("tip_3")]
    return {round(float(ti), 6): xi for ti, xi in zip(t, x, strict=True)}


def run_arm(path: str, t_end: float = SOFT_ARM.t_end, **kw) -> Simulation:
    model = ARM.problem(path, **kw).model
    sim = Simulation(Integrator(model, SOFT_ARM.h, PAPER_SETTINGS))
    sim.run(t_end)
    return sim


@pytest.fixture(scope="module")
def circle():
    return run_arm("circle")


@pytest.fixture(scope="module")
def heart():
    return run_arm("heart")


# ------------------------------------------------------------------ soft arm vs data
def test_circle_tip_vs_data(circle, ref_dir):
    """Measured (n_e = 10, h = 0.05): errors 5.6e-5, 1.3e-4, 1.8e-4, 2.8e-4, 4.7e-4, 4.8e-4
    m at t = 0.5, 1.5, 2, 2.5, 3.5, 4 (max over all 81 data rows 5.6e-4 at t = 3.7).

    Calibration, not validation: rho = 1000 kg/m^3 was identified from the rms of these
    errors (test_soft_arm_density_scan) and r_k = 0.065 m selected with the plateau radius
    of the same data (test_plateau_geometry_closed_form)."""
    ref, ours = data_tips(ref_dir, "circle"), tips(circle)
    assert_claim("arm-circle-tips", [np.linalg.norm(ours[t] - ref[t]) for t in CIRCLE_TIMES],
                 6e-4)
    assert_claim("arm-circle-all", [np.linalg.norm(ours[t] - ref[t]) for t in ref], 7e-4)


def test_circle_revolution_at_constant_height(circle, ref_dir):
    """During the revolution (t in [0.5, 3.5] s) the tip stays at z in [0.14647, 0.14753] m
    (data: [0.14653, 0.14766] m, ends 6e-5 and 1.3e-4 m apart) at a radius of ~0.0927 m
    about e3."""
    t = circle.column("t")
    rev = (t >= 0.5 - 1e-9) & (t <= 3.5 + 1e-9)
    z = circle.column("tip_3")[rev]
    r = np.hypot(circle.column("tip_1"), circle.column("tip_2"))[rev]
    zd = np.array([v[2] for k, v in data_tips(ref_dir, "circle").items() if 0.5 <= k <= 3.5])
    print(f"circle: z in [{z.min():.5f}, {z.max():.5f}] m (data [{zd.min():.5f}, "
          f"{zd.max():.5f}]), tip radius in [{r.min():.5f}, {r.max():.5f}] m")
    assert np.ptp(z) <= 1.5e-3
    assert_claim("arm-height", [z.min() - zd.min(), z.max() - zd.max()], 2e-4)
    assert np.ptp(r) <= 2e-3 and abs(r.mean() - 0.0927) <= 1e-3
    # a full revolution: the tip direction turns through 2 pi
    ang = np.unwrap(np.arctan2(circle.column("tip_2")[rev], circle.column("tip_1")[rev]))
    assert abs(ang[-1] - ang[0] - 2 * math.pi) <= 0.02


def test_heart_tip_vs_data(heart, ref_dir):
    """Measured: errors 8.0e-5, 1.4e-4, 2.1e-4, 2.3e-4 m at t = 1, 2, 3, 4 (max over all
    rows 2.3e-4); z in [0.14690, 0.17550] m over the run. The heart path was not used to
    identify r_k and rho (both from the circle run): a held-out comparison."""
    ref, ours = data_tips(ref_dir, "heart"), tips(heart)
    assert_claim("arm-heart", [np.linalg.norm(ours[t] - ref[t]) for t in HEART_TIMES], 3e-4)
    assert_claim("arm-heart", [np.linalg.norm(ours[t] - ref[t]) for t in ref], 3e-4)
    z = heart.column("tip_3")
    print(f"heart: z in [{z.min():.5f}, {z.max():.5f}] m")


def test_plateau_geometry_closed_form(ref_dir):
    """The geometry calibration (README 'Soft arm'): the exact static arc at the plateau
    (|f| = 50 N, t = 1 s) has the tip radius 0.09238 m with r_k = 0.065 m (the text's value)
    but 0.08955 m with r_k = 0.0625 m (theory §4.4's earlier fit, which took the curvature per
    deformed length); the data's mean radius during the revolution (t in [0.5, 3.5] s) is
    0.09266 m (the 2.7e-4 m left is dynamics: the static arc ignores the revolution). With the
    text's diameter 0.03 m the same arc would curl through 18 rad (1.1 rad with d = 0.06 m);
    the length 0.1755 m is the data's initial tip height."""
    ref = data_tips(ref_dir, "circle")
    assert np.array_equal(ref[0.0], [0.0, 0.0, SOFT_ARM.length])
    assert_printed("arm-length", ref[0.0][2])
    r_data = np.mean([np.hypot(v[0], v[1]) for k, v in ref.items() if 0.5 <= k <= 3.5])
    sec = SOFT_ARM.section
    out = {}
    for rk in (0.065, 0.0625):
        p = dataclasses.replace(SOFT_ARM, chamber_radius=rk)
        G, K = static_strains(sec, chamber_forces("circle", 1.0, p), p.offsets)
        phi, _ = constant_strain_curve(G, K, [p.length])
        out[rk] = float(np.hypot(phi[0, 0], phi[0, 1]))
    assert abs(out[0.065] - r_data) <= 5e-4, (out, r_data)
    assert abs(out[0.0625] - r_data) >= 2.5e-3, (out, r_data)
    assert_printed("arm-data-radius", r_data)
    assert_printed("arm-arc-radius", out[0.065])
    assert_printed("arm-arc-radius-0625", out[0.0625])
    angle = {}
    for d in (0.03, 0.06):
        p = dataclasses.replace(SOFT_ARM, diameter=d)
        G, K = static_strains(p.section, chamber_forces("circle", 1.0, p), p.offsets)
        angle[d] = float(np.linalg.norm(K)) * p.length
    assert_printed("arm-curl-text", angle[0.03])
    assert_printed("arm-curl", angle[0.06])


def test_soft_arm_density_scan(ref_dir):
    """Reproduces the identification of rho (theory §4.4): with r_k = 0.065 m the rms tip
    error over the 81 rows of the circle data is 6.0e-4, 4.6e-4, 3.0e-4, 7.0e-4, 9.5e-4 m
    for rho = 900, 950, 1000, 1050, 1080 kg/m^3 (1080: DragonSkin 30's nominal density).
    The minimum of the scan is the value the soft arm uses; the tip errors against the
    circle data are therefore a fit, not a validation."""
    ref = data_tips(ref_dir, "circle")
    rms = {}
    for rho in (900.0, 950.0, 1000.0, 1050.0, 1080.0):
        sim = run_arm("circle", p=dataclasses.replace(SOFT_ARM, rho=rho))
        ours = tips(sim)
        rms[rho] = math.sqrt(np.mean([np.sum((ours[t] - ref[t]) ** 2) for t in ref]))
    print("rms tip error by rho:", {k: f"{v:.2e}" for k, v in rms.items()})
    assert min(rms, key=rms.get) == SOFT_ARM.rho == 1000.0
    assert_printed("arm-rms-1000", rms[1000.0])
    assert_printed("arm-rms-950-1050", [rms[950.0], rms[1050.0]])
    assert_printed("arm-rms-1080", rms[1080.0])


# ------------------------------------------------------------------ power balance
def test_power_balance_soft_arm(circle, heart):
    """H_{n+1} - H_n - W_act^n = 0 per step (measured max 3.8e-12 J (circle), 2.7e-11 J
    (heart), H up to 1.7 J). Not fitted: it holds for any parameters."""
    for sim in (circle, heart):
        res = sim.column("energy_residual")[1:]
        H = sim.column("H")[1:]
        assert H.max() < 2.0
        assert_claim("arm-power", res, 6e-11)
        w = sim.column("port_work")
        assert np.max(np.abs(w)) > 1e-3            # the chambers do work
        assert np.max(sim.column("constraint_max")) <= 1e-10


@pytest.mark.parametrize("formulation", ["material", "spatial"])
def test_power_balance_tendon_dynamic(formulation):
    """A tendon (nonlinear direction r_k'/|r_k'|) on an s-range whose start cuts an element:
    the power balance is still exact (same integrand and quadrature in the residual and in
    W_act). Measured max |residual| 1.4e-11 J with H up to 0.74 J."""
    p = dataclasses.replace(HOOK, n_elements=8, s_a=0.06)
    T = p.tension

    def tension(t):
        return T * 0.5 * (1.0 - math.cos(math.pi * min(t, 0.2) / 0.2))

    with pytest.warns(UserWarning, match="not an element boundary"):
        model = HOOK_DEMO.problem(p=p, tension=tension, formulation=formulation,
                                  check_times=None, quasistatic=False).model
    sim = Simulation(Integrator(model, 0.01, PAPER_SETTINGS))
    sim.run(0.3)
    res = sim.column("energy_residual")[1:]
    H = sim.column("H")[1:]
    assert H.max() > 0.1
    assert np.all(np.abs(res) <= 1e-9 * np.maximum(1.0, H)), np.max(np.abs(res))


# ------------------------------------------------------------------ exact statics
@pytest.mark.parametrize("formulation,tol", [("material", 1e-7), ("spatial", 1e-7)])
def test_pressure_static_arc_exact(formulation, tol):
    """Chambers only: constant material stress offsets (theory §3.2 useful fact), so the
    quasi-static end state is the exact arc of constant strains. Measured max nodal position
    error (n_e = 10): 4.1e-8 m (material), 5.7e-8 m (spatial); 6.4e-7 -> 4.1e-8 -> 2.5e-9 m
    for n_e = 5, 10, 20 (order 4)."""
    rod, q, G, phi, R = _static_arc(SOFT_ARM.n_elements, formulation)  # theta = 0.42 rad
    assert_claim("arm-arc", q[:, 0:3] - phi, tol)
    assert np.max(np.abs(q[:, 3:12].reshape(-1, 3, 3).transpose(0, 2, 1) - R)) <= 1e-6
    # the arc bends towards +(cos theta, sin theta) and elongates by 1.5 |f| / EA
    th = math.atan2(phi[-1, 1], phi[-1, 0])
    assert abs(th - 0.42089360723846625) <= 1e-9
    assert abs(G[2] - 1.0 - 75.0 / rod.section.k_e) <= 1e-12


def _static_arc(n_elements: int, formulation: str = "material"):
    """The quasi-static pressure-only arm at the plateau (chamber forces of the circle input
    at t = 1, ramped by the load factor) and its exact constant-strain arc: ``(rod, nodal q,
    strains Gamma, exact positions, exact frames)``."""
    tau = chamber_forces("circle", 1.0)
    rod = ARM.arm(n_elements=n_elements)
    act = ARM.chambers([lambda t, k=k: t * tau[k] for k in range(3)],
                             formulation=formulation)
    model = RodModel(rod, supports=[Clamp("0")], extensions=[act], quasistatic=True)
    sim = Simulation(Integrator(model, 0.25))
    sim.run(1.0)
    s, q = sim.centreline()
    G, K = static_strains(rod.section, tau, SOFT_ARM.offsets)
    phi, R = constant_strain_curve(G, K, s, R0=rod.frame)
    return rod, q, G, phi, R


def _static_arc_error(n_elements: int, formulation: str = "material") -> float:
    """Max nodal position error [m] of the quasi-static pressure-only arm at the plateau."""
    _, q, _, phi, _ = _static_arc(n_elements, formulation)
    return float(np.max(np.abs(q[:, 0:3] - phi)))


@pytest.mark.parametrize("formulation", ["material", "spatial"])
def test_pressure_static_arc_order_four(formulation):
    """The arc's nodal error against the closed form falls with order 4 in the element
    length: measured 6.4e-7 -> 4.1e-8 -> 2.5e-9 m (material), 8.8e-7 -> 5.7e-8 -> 3.6e-9 m
    (spatial) for n_e = 5, 10, 20: orders 3.96-3.99."""
    e = np.array([_static_arc_error(n, formulation) for n in (5, 10, 20)])
    assert_printed("arm-order", np.log2(e[:-1] / e[1:]), 0.1)


def test_tendon_hook_order_four():
    """The tendon hook (T = 25.70 N, 225 deg) against its closed form for n_e = 8, 16, 32:
    max |phi - phi_exact| / L = 2.9e-4, 1.8e-5, 1.1e-6 (order 3.99, 4.00), directors 1.2e-3,
    7.8e-5, 4.9e-6. n_e = 16 is the demo's mesh."""
    e_pos, e_dir = {}, {}
    for n in (8, 16, 32):
        p = dataclasses.replace(HOOK, n_elements=n)
        sim = Simulation(HOOK_DEMO.problem(p=p, check_times=None).integrator())
        sim.run(1.0)
        s, q = sim.centreline()
        phi, R = tendon_hook_exact(p, s=s)
        e_pos[n] = float(np.max(np.linalg.norm(q[:, 0:3] - phi, axis=1))) / p.length
        d = q[:, 3:12].reshape(-1, 3, 3).transpose(0, 2, 1)
        e_dir[n] = float(np.max(np.abs(d - R)))
    assert_claim("arm-hook", e_pos[16], 5e-5)
    assert e_dir[16] <= 2e-4, e_dir
    for e in (e_pos, e_dir):
        assert_printed("arm-order", np.log2(np.array([e[8], e[16]]) / [e[16], e[32]]), 0.1)


def test_tendon_hook_closed_form(tmp_path):
    """The tendon demo's end state (T = 25.70 N, 225 deg hook) vs the closed form: measured
    max |phi - phi_exact|/L = 1.8e-5, max |d - d_exact| = 7.8e-5 (n_e = 16, 10 load steps)."""
    from fxrod.studies.cases import CASES

    sim = CASES["tendon-hook"].run(tmp_path, pictures=False).sim
    e_pos, e_dir = HOOK_DEMO.end_state_error(sim)
    assert e_pos <= 1e-3 and e_dir <= 1e-3, (e_pos, e_dir)
    assert e_pos <= 5e-5 and e_dir <= 2e-4            # measured 1.8e-5, 7.8e-5
    # every load step is an exact discrete equilibrium: the CSV tip follows the closed form
    tip = np.c_[sim.column("tip_1"), sim.column("tip_2"), sim.column("tip_3")]
    ex = np.c_[sim.column("tip_exact_1"), sim.column("tip_exact_2"), sim.column("tip_exact_3")]
    assert np.max(np.linalg.norm(tip - ex, axis=1)) / HOOK.length <= 1e-4
    # closed form itself: 225 deg of tip rotation, arc radius (1 - T/k_e)/K_2
    _, R = tendon_hook_exact()
    d3 = R[0][:, 2]
    assert abs(math.atan2(d3[2], d3[0]) - (1.25 * math.pi - 2 * math.pi)) <= 1e-12


# ------------------------------------------------------------------ inputs
def test_input_table_from_authors_csv(ref_dir, circle):
    """The authors' input table (1000 samples) drives the arm like the formula (79)-(80):
    tips agree to 1e-5 m up to t = 1 s (linear interpolation error of the table)."""
    path = ref_dir / DATA / "ex04_pressure_circle_input.csv"
    tables = [InputTable.from_csv(path, f"p{k + 1}") for k in range(3)]
    assert abs(tables[0](0.5005) - chamber_forces("circle", 0.5005)[0]) <= 1e-5
    rod = ARM.arm()
    model = RodModel(rod, supports=[Clamp("0")],
                     extensions=[ARM.chambers(tables)])
    sim = Simulation(Integrator(model, SOFT_ARM.h, PAPER_SETTINGS))
    sim.run(1.0)
    a, b = tips(sim), tips(circle)
    assert max(np.linalg.norm(a[t] - b[t]) for t in a) <= 1e-5


def _rod(n_elements=16):
    return Rod(HOOK.section, (0.0, 0.0, 0.0), (0.2, 0.0, 0.0), (0.0, 0.0, 1.0), n_elements)


def test_bad_inputs_are_rejected():
    r = _rod()
    # negative tendon tension: constant, callable (at t = 0), table, on a time grid
    with pytest.raises(ParameterError, match=r"tension of tendon .*t = 0.*>= 0 N"):
        Tendon((0.005, 0.0), -1.0)
    with pytest.raises(ParameterError, match="tendon 'flexor' at t = 1.1"):
        Actuation([Tendon((0.005, 0.0), lambda t: 1.0 - t, name="flexor")],
                  check_times=np.linspace(0.0, 2.0, 21))
    with pytest.raises(ParameterError, match="at t = 2"):
        Tendon((0.005, 0.0), InputTable([0.0, 1.0, 2.0], [0.0, 1.0, -1.0]))
    # positive chamber force
    with pytest.raises(ParameterError, match=r"pressure chamber .*<= 0 N"):
        PressureChamber((0.005, 0.0), 3.0)
    with pytest.raises(ParameterError, match="pressure"):
        PressureChamber.from_pressure((0.005, 0.0), -1e4, area=1e-5)
    # offsets outside the section (radius 0.01 m), also with the chamber's own area: checked
    # against the rod when the model binds the extension, before any form is compiled
    with pytest.raises(ParameterError, match=r"offset .*section radius 0.01"):
        RodModel(r, extensions=[Actuation([Tendon((0.008, 0.008), 1.0)])])
    with pytest.raises(ParameterError, match="must lie inside the section"):
        RodModel(r, extensions=[Actuation([PressureChamber((0.008, 0.0), -1.0, area=2e-5)])])
    # empty s-ranges: reversed, outside the rod, between quadrature points
    with pytest.raises(ParameterError, match="non-empty interval"):
        Tendon((0.005, 0.0), 1.0, s_range=(0.1, 0.1))
    with pytest.raises(ParameterError, match=r"inside the rod \[0, 0.2\]"):
        RodModel(r, extensions=[Actuation([Tendon((0.005, 0.0), 1.0, s_range=(0.1, 0.3))])])
    with pytest.raises(ParameterError, match="containing quadrature points"):
        RodModel(r, extensions=[Actuation([Tendon((0.005, 0.0), 1.0, s_range=(0.1, 0.1001))])])
    # tables are not extrapolated; unknown columns are named
    with pytest.raises(ParameterError, match="not extrapolated"):
        InputTable([0.0, 1.0], [0.0, 1.0])(1.5)
    with pytest.raises(ParameterError, match="formulation"):
        Actuation([Tendon((0.005, 0.0), 1.0)], formulation="exact")


def test_input_sign_checked_during_run():
    """A callable that turns negative after t = 0.15 stops the run with a clear error."""
    model = HOOK_DEMO.problem(p=dataclasses.replace(HOOK, n_elements=4), check_times=None,
                              tension=lambda t: 10.0 * (0.15 - t) if t > 0.0 else 0.0).model
    integ = Integrator(model, 0.1)
    with pytest.raises(ParameterError, match=r"tendon 'flexor' at t = 0.2 = -0.5"):
        integ.advance_to(1.0)
    assert integ.t == pytest.approx(0.1)


def test_bad_input_csv(tmp_path):
    path = tmp_path / "u.csv"
    path.write_text("t,T\n0,0\n1,2\n")
    assert InputTable.from_csv(path, "T")(0.25) == pytest.approx(0.5)
    with pytest.raises(ParameterError, match="one of the columns"):
        InputTable.from_csv(path, "p")
    path.write_text("t,T\n0,0\n0,2\n1,3\n")
    with pytest.raises(ParameterError, match="strictly increasing"):
        InputTable.from_csv(path, "T")


# ------------------------------------------------------------------ MPI
@pytest.mark.mpi
def test_soft_arm_demo_mpi(tmp_path, circle):
    """``mpirun -n 2 demos/soft_arm.py --quick`` writes the serial tips and chamber forces."""
    from fxrod.output.tables import read_csv
    from tests.conftest import run_mpi

    run_mpi(["demos/soft_arm.py", "--quick", "--no-pictures", "--quiet",
             "--out", str(tmp_path)])
    d = read_csv(tmp_path / "soft_arm_circle.csv")
    assert d["t"][-1] == pytest.approx(1.0) and len(d["t"]) == 21
    n = len(d["t"])
    for c in ("tip_1", "tip_2", "tip_3", "H", "port_work", "energy_residual"):
        assert np.max(np.abs(d[c] - circle.column(c)[:n])) <= 1e-10 * max(
            1.0, np.max(np.abs(d[c]))), c
    tau = np.array([chamber_forces("circle", t) for t in d["t"]])
    assert np.max(np.abs(np.c_[d["tau_1"], d["tau_2"], d["tau_3"]] - tau)) <= 1e-12


# ------------------------------------------------------------------ slow studies
@pytest.mark.slow
def test_soft_arm_mesh_and_formulation_study(ref_dir):
    """n_e = 20 changes the tips by < 1e-6 m (spatially converged); the spatial form of (68)
    differs from the material form by ~1e-4 m; both fit the data to < 1e-3 m."""
    base = tips(run_arm("circle"))
    fine = tips(run_arm("circle", n_elements=20))
    spat = tips(run_arm("circle", formulation="spatial"))
    ref = data_tips(ref_dir, "circle")
    assert max(np.linalg.norm(fine[t] - base[t]) for t in base) <= 1e-6
    assert max(np.linalg.norm(spat[t] - base[t]) for t in base) <= 5e-4
    assert max(np.linalg.norm(spat[t] - ref[t]) for t in ref) <= 1e-3
