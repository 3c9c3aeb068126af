"""Controllers on the actuation port (zero-order hold) and per-step callbacks with arrays
(fxrod.runs.control, fxrod.runs.callbacks; issue 36 items 1 and 2).

The plant: a soft cantilever along e1 (L = 0.2 m, r = 10 mm, E = 10 MPa, rho = 1100
kg/m^3), clamped at s = 0 with d1 = e3 (up), sagging 8.6 mm under gravity (linear beam:
q L^4 / 8 EI), with one tendon 8 mm above the centreline over the whole length that lifts
the tip (linear beam: c = rho_t L^2 / 2 EI = 2.04 mm/N).
"""

from __future__ import annotations

import math
import types

import numpy as np
import pytest

from fxrod.core.forms.actuation import Actuation, Tendon
from fxrod.core.forms.drag import AmbientDamping
from fxrod.core.loads import Gravity
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.core.supports import Clamp
from fxrod.errors import ParameterError
from fxrod.output.tables import read_csv
from fxrod.runs.callbacks import ArrayRecorder, Callback
from fxrod.runs.integrators import Integrator
from fxrod.runs.simulation import Simulation
from fxrod.solvers.settings import SolverSettings
from tests.roundoff import effort_norm, newton_bound, roundoff

L, RADIUS, E, RHO, OFFSET = 0.2, 0.01, 1e7, 1100.0, 0.008
SEC = Section.circular(radius=RADIUS, E=E, rho=RHO, nu=0.45)
#: Newton stops on the residual norm only (|F|_2 <= atol), what newton_bound assumes.
SETTINGS = SolverSettings(atol=1e-12, stol=0.0)
KP = 2000.0            # proportional gain [N/m]
Z_TARGET = 0.0         # target tip height [m]
H = 2e-3               # step [s]


def cantilever(tension, dynamic: bool = True, n_elements: int = 8) -> RodModel:
    """The plant; dynamic: gravity and ambient damping (decay rate c_v / 2 rhoA = 60 1/s of
    every translational mode), quasi-static: gravity and tension ramped with the load
    factor."""
    rod = Rod(SEC, start=(0.0, 0.0, 0.0), end=(L, 0.0, 0.0), d1=(0.0, 0.0, 1.0),
              n_elements=n_elements)
    ext = [Actuation([Tendon((OFFSET, 0.0), tension, name="lift")])]
    if dynamic:
        ext.append(AmbientDamping(41.5, 1e-3))
    g = (0.0, 0.0, -9.81) if dynamic else (lambda t: (0.0, 0.0, -9.81 * t))
    return RodModel(rod, loads=[Gravity(g)], supports=[Clamp("0")], extensions=ext,
                    quasistatic=not dynamic)


def p_control(t, y):
    """P control of the tip height: a tendon only pulls."""
    return [max(0.0, KP * (Z_TARGET - y["tip"][2]))]


@pytest.fixture(scope="module")
def controlled():
    """0.6 s of the P loop (300 steps), every step's efforts, port outputs and inputs."""
    model = cantilever(0.0)
    log = {"eff": [], "y": [], "u": [], "w": [model.w0.x.array.copy()]}

    def ledger_log(t, state):
        if t > 0.0:
            log["eff"].append(effort_norm(model, log["w"][-1], H))
            log["w"].append(model.w0.x.array.copy())
        log["y"].append(state["port_outputs"].copy())
        log["u"].append(state["inputs"].copy())

    sim = Simulation(Integrator(model, H, SETTINGS), controller=p_control,
                     callbacks=[ledger_log])
    sim.run(0.6)
    return sim, log


def test_p_control_steady_state_is_static_equilibrium(controlled):
    """(a) The P loop settles where the static cantilever under the tension it converged
    to has its tip: mean over the last 0.2 s T = 3.42234 N, tip z = -1.7112 mm (a residual
    chatter of the high-frequency modes, which the midpoint rule damps weakly, of 1e-4 N);
    the quasi-static run with that constant tension: |dz| 5.5e-10 m (bound 2e-8 m), the
    fixed point |T - K_p (z* - z_static(T))| = 2.7e-6 N (bound 5e-5 N). Linear beam closed
    form T = K_p (z* - z_g)/(1 + K_p c) = 3.4025 N: 0.58 % below (bound 1 %; shear, the
    tendon's axial compression, geometry)."""
    sim, _ = controlled
    u = np.array([h[1][0] for h in sim.control.history])
    t = np.array([h[0] for h in sim.control.history])
    assert t[0] == 0.0 and len(u) == 300 and np.allclose(np.diff(t), H)
    z = sim.column("tip_3")
    T, z_mean = u[-100:].mean(), z[-100:].mean()
    assert abs(u[-100:] - T).max() < 1e-3         # settled (chatter 1e-4 N)
    static = Simulation(Integrator(cantilever(lambda s: T * s, dynamic=False), 0.25))
    static.run(1.0)
    z_static = static.column("tip_3")[-1]
    EI = E * math.pi * RADIUS**4 / 4
    z_g = -RHO * math.pi * RADIUS**2 * 9.81 * L**4 / (8 * EI)
    c = OFFSET * L**2 / (2 * EI)
    T_lin = KP * (Z_TARGET - z_g) / (1 + KP * c)
    fixed = T - KP * (Z_TARGET - z_static)
    print(f"T = {T:.6f} N, z = {z_mean:.6e} m, |dz| {abs(z_static - z_mean):.1e} m, "
          f"fixed point {fixed:.2e} N, T_lin {T_lin:.5f} N")
    assert abs(z_static - z_mean) < 2e-8
    assert abs(fixed) < 5e-5
    assert abs(T / T_lin - 1) < 0.01


def test_energy_balance_with_controller_work(controlled):
    """(c) The ledger books the controller's work through the actuation port: the balance
    residual of every step stays below the Newton bound atol |e|_2 plus round-off
    (measured max |residual| / bound 0.011, |residual| <= 1.6e-13 J against the port work
    of 5.4e-4 J); the port outputs are collocated with the held inputs: the port work of
    every step equals h u_n (y_n + y_{n+1})/2 within 1 % of the largest step work
    (measured 4.1e-4: the midpoint rule's O(h^3) per step; a sign flipped in y fails
    it)."""
    sim, log = controlled
    res = sim.column("energy_residual")[1:]
    scale = np.maximum.reduce([np.abs(sim.column(c)) for c in ("H", "port_work",
                                                               "external_work")])[1:]
    bound = newton_bound(SETTINGS, np.array(log["eff"])) + roundoff(scale)
    print(f"max |residual| {np.max(np.abs(res)):.2e} J, ratio {np.max(np.abs(res) / bound):.2e}")
    assert np.all(np.abs(res) <= bound)
    W = np.diff(sim.column("port_work"))
    assert sim.column("port_work")[-1] > 1e-4                # the controller does work
    u = np.array([h[1][0] for h in sim.control.history])
    y = np.array(log["y"])[:, 0]
    assert np.allclose(np.array(log["u"])[1:, 0], u)        # the held inputs
    trap = H * u * 0.5 * (y[:-1] + y[1:])
    err = np.max(np.abs(W - trap)) / np.max(np.abs(W))
    print(f"port work vs h u (y_n + y_n+1)/2: max error {err:.2e} of the largest")
    assert err < 0.01


def test_zero_order_hold_equals_input_function():
    """(b) A controller returning a known sequence u_n gives the run of the same
    piecewise-constant input written as a function of t, bit for bit (every column of
    every row); the controller is called once before each step, at t_n."""
    u = 2.0 + np.sin(np.arange(20))
    calls = []

    def sequence(t, y):
        calls.append(t)
        return [u[len(calls) - 1]]

    a = Simulation(Integrator(cantilever(0.0), H), controller=sequence)
    a.run(20 * H)
    b = Simulation(Integrator(cantilever(lambda t: u[min(int(t / H), 19)]), H))
    b.run(20 * H)
    assert np.allclose(calls, H * np.arange(20), rtol=0, atol=1e-15)
    assert a.columns == b.columns and len(a.rows) == len(b.rows) == 21
    for c in a.columns:
        assert np.array_equal(a.column(c), b.column(c)), c


def test_run_gives_the_actuators_back_their_inputs():
    """After a controlled run the model is the open-loop model again: every actuator's input
    is its own function of t (here the constant 0 N), not the controller's last held force,
    so an analysis of the model afterwards does not run on it; a continued run asks the
    controller again before its first step."""
    sim = Simulation(Integrator(cantilever(0.0), H), controller=lambda t, y: [3.0])
    actuators = sim.control.port.actuators
    own = [a.force for a in actuators]
    sim.run(5 * H)
    assert [a.force for a in actuators] == own and actuators[0].tau(0.0) == 0.0
    sim.run(8 * H)
    assert len(sim.control.history) == 8 and actuators[0].tau(0.0) == 0.0


@pytest.mark.parametrize("bad,match", [
    (lambda n: [math.nan] if n == 5 else [1.0], r"'bad' at t = 0\.01 = \[nan\].*finite"),
    (lambda n: [1.0, 2.0] if n == 5 else [1.0], r"'bad' at t = 0\.01 .*shape \(1,\)"),
    (lambda n: [-1.0] if n == 5 else [1.0], r"'bad' at t = 0\.01, tension of tendon"),
], ids=["nan", "shape", "sign"])
def test_bad_controller_output_stops_run(tmp_path, bad, match):
    """(d) A non-finite, wrongly shaped or negative tendon output at step 5 (t = 0.01 s)
    stops the run with one line naming the controller, the value and t; the CSV keeps its
    six rows t = 0 .. 0.01 s and the arrays recorded so far are written."""
    n = [0]

    def bad_ctrl(t, y):
        n[0] += 1
        return bad(n[0] - 1)

    bad_ctrl.__name__ = "bad"
    sim = Simulation(Integrator(cantilever(0.0), H), out_dir=tmp_path, name="run",
                     controller=bad_ctrl, callbacks=[ArrayRecorder(fields="tip")])
    with pytest.raises(ParameterError, match=match) as err:
        sim.run(20 * H)
    assert "\n" not in str(err.value)
    data = read_csv(tmp_path / "run.csv")
    assert np.allclose(data["t"], H * np.arange(6))
    assert np.all(np.isfinite(data["tip_3"]))
    assert np.array_equal(np.load(tmp_path / "run_arrays.npz")["step"], np.arange(6))


def test_refusals_in_one_line(tmp_path):
    """Restart and MPI with a controller or callbacks, unknown fields, a model without
    actuators (for a controller, for the port's arrays): refused in one line before a step
    is taken."""
    fake = types.SimpleNamespace(model=types.SimpleNamespace(comm=types.SimpleNamespace(
        size=2)))
    with pytest.raises(ParameterError, match=r"MPI size = 2: must be 1 with a controller"):
        Simulation(fake, controller=p_control)
    model = cantilever(0.0)
    with pytest.raises(ParameterError, match="restart .* None with callbacks"):
        Simulation(Integrator(model, H), out_dir=tmp_path, restart=tmp_path,
                   callbacks=[print])
    with pytest.raises(ParameterError, match="ArrayRecorder fields"):
        ArrayRecorder(fields=("position",))
    with pytest.raises(ParameterError, match="every"):
        Callback(print, every=0)
    rod = Rod(SEC, start=(0.0, 0.0, 0.0), end=(L, 0.0, 0.0), d1=(0.0, 0.0, 1.0), n_elements=2)
    bare = Integrator(RodModel(rod, supports=[Clamp("0")]), H)
    with pytest.raises(ParameterError, match="Actuation extension"):
        Simulation(bare, controller=p_control)
    with pytest.raises(ParameterError, match="without 'inputs' and 'port_outputs'"):
        Simulation(bare, callbacks=[ArrayRecorder(fields=("tip", "port_outputs"))])


def test_array_recorder_every_k(tmp_path):
    """(e) ArrayRecorder(every=3) keeps steps 0, 3, 6, 9 of a 10-step run; its positions
    equal the run's own snapshots (sim.snapshots, from sim.centreline()), its directors
    and velocities the gathered nodes and the tip velocity at those steps, and the .npz
    holds the same arrays."""
    model = cantilever(1.0)
    seen = {}

    def centreline(t, state):
        s, q = sim.centreline()
        seen[round(t / H)] = (s, q, model.nodes.tip_velocity())

    rec = ArrayRecorder(every=3)
    sim = Simulation(Integrator(model, H), out_dir=tmp_path, name="arm",
                     snapshot_times=H * np.arange(11), callbacks=[rec, centreline])
    sim.run(10 * H)
    data = np.load(tmp_path / "arm_arrays.npz")
    assert list(data["step"]) == [0, 3, 6, 9]
    assert np.allclose(data["t"], H * data["step"], rtol=0, atol=1e-15)
    snaps = list(sim.snapshots.values())
    assert len(snaps) == 11
    for i, k in enumerate(data["step"]):
        s, q, v_tip = seen[k]
        assert np.array_equal(data["positions"][i], snaps[k])
        assert np.array_equal(data["s"], s)
        assert np.array_equal(data["directors"][i], q[:, 3:12].reshape(-1, 3, 3))
        assert np.array_equal(data["velocities"][i][-1], v_tip)
    assert np.max(np.abs(data["velocities"][-1])) > 1e-3    # the rod moves
    for k, v in rec.arrays().items():
        assert np.array_equal(v, data[k]), k


def test_controller_in_load_stepping_finds_the_fixed_point(controlled):
    """Controllers x load stepping: in a quasi-static run (t the load factor, gravity
    ramped over [0, 0.5] then held) a relaxed P law ``u <- u + a (K_p (z* - z) - u)``,
    ``a = 0.2 ~ 1/(1 + K_p c)``, iterates to the fixed point T = K_p (z* - z(T)) of the
    static cantilever: measured |T - K_p (z* - z)| 3.3e-11 N after 20 load steps (bound
    1e-6 N), and T equals the dynamic loop's steady mean to 5.4e-7 N (bound 1e-4 N, its
    chatter)."""
    u = [0.0]

    def relaxed(t, y):
        u[0] += 0.2 * (KP * (Z_TARGET - y["tip"][2]) - u[0])
        return [max(0.0, u[0])]

    rod = Rod(SEC, start=(0.0, 0.0, 0.0), end=(L, 0.0, 0.0), d1=(0.0, 0.0, 1.0),
              n_elements=8)
    model = RodModel(rod, loads=[Gravity(lambda t: (0.0, 0.0, -9.81 * min(1.0, 2 * t)))],
                     supports=[Clamp("0")],
                     extensions=[Actuation([Tendon((OFFSET, 0.0), 0.0, name="lift")])],
                     quasistatic=True)
    sim = Simulation(Integrator(model, 0.05), controller=relaxed)
    sim.run(1.0)
    T = sim.control.history[-1][1][0]
    z = sim.column("tip_3")[-1]
    dyn = np.mean([h[1][0] for h in controlled[0].control.history][-100:])
    print(f"fixed point {abs(T - KP * (Z_TARGET - z)):.1e} N, T - T_dyn {T - dyn:.1e} N")
    assert abs(T - KP * (Z_TARGET - z)) < 1e-6
    assert abs(T - dyn) < 1e-4
