"""demos/gripper.py: two soft fingers hold a ball by friction, then let it fall.

Checked against closed forms (h = 2 ms, 6 elements a finger, a 40 ms hold):

* held (a window from T_SETTLE, the pairs' damping having settled the grip, to the release): the
  ball's vertical momentum balance over the window, ``h sum F_z - m g tau = p_z(t2) -
  p_z(t1)`` (the midpoint rule's, to the Newton tolerance ``atol`` [N s] a step), so the
  mean vertical contact force is ``m g`` within ``(|p_z(t1)| + |p_z(t2)|)/tau``, itself below
  1 % of the weight (it is held, not sliding or bouncing; the window's ends are the
  instants of least vertical speed within 10 ms of T_SETTLE and of the release);
* Coulomb: at every finger node touching the ball the friction is at most ``mu`` times the
  normal force (the regularised law ``mu P |v_t|/sqrt(v_t^2 + v_reg^2)``; round-off);
* released, out of contact, the ball falls at g: the midpoint rule is exact for a
  constant force, so ``(z_{n+1} - 2 z_n + z_{n-1})/h^2 = -g`` within the Newton tolerance
  ``atol/(m h)`` and the round-off of the differences;
* the energy ledger (the clamps' work booked) closes every step to the Newton bound.
"""

from __future__ import annotations

import csv

import numpy as np

from fxrod.runs.integrators import Integrator
from fxrod.solvers.settings import SolverSettings
from fxrod.studies.cases import demo
from tests.conftest import assert_units_files
from tests.roundoff import effort_norm, newton_bound, roundoff

SETTINGS = SolverSettings(atol=1e-10)
H, N, T_RELEASE, T_END = 2e-3, 6, 0.12, 0.19


def _body_vz(model) -> float:
    """The ball's vertical velocity [m/s] at t_n (serial)."""
    st = model.structure
    s = model.space.Q.tabulate_dof_coordinates()[:, 0]
    node = int(np.argmin(np.abs(s - st.coordinate(st.body_rod(0), "0"))))
    return float(model.v0.x.array.reshape(-1, 12)[node, 2])


def test_grip_hold_release(tmp_path):
    """Squeeze, hold 40 ms, release (95 steps): held by friction at the momentum balance,
    Coulomb at every pair, free fall at g, the ledger closed; gripper.csv, units, png."""
    c = demo("gripper")
    model, contact = c.gripper(T_RELEASE, N)
    m = model.structure.bodies[0].mass
    W = m * c.G
    it = Integrator(model, H, SETTINGS)
    t, z, Fz, vz, touch = [0.0], [contact.body_pose(0)[0][2]], [0.0], [0.0], [False]
    res, bound, coulomb = [], [], []
    for _ in range(round(T_END / H)):
        if it.t >= c.T_SETTLE - 1e-12:
            contact.set_damping(0.0)
        w_prev = model.w0.x.array.copy()
        r = it.step()
        normal, friction = contact.force_on_body(0)
        t.append(it.t)
        z.append(contact.body_pose(0)[0][2])
        Fz.append(normal[2] + friction[2])
        touch.append(bool(np.any(normal) or np.any(friction)))
        vz.append(_body_vz(model))
        res.append(r.energy_residual)
        H_now = model.ledger.current()["H"]
        bound.append(newton_bound(SETTINGS, effort_norm(model, w_prev, H))
                     + roundoff(max(abs(H_now), W * c.LENGTH)))
        if it.t > c.T_SETTLE:      # undamped pairs: the normal force is the penalty's
            fn, ft = contact.pair_forces()
            if fn.size:
                P, f = np.linalg.norm(fn, axis=1), np.linalg.norm(ft, axis=1)
                coulomb.append(np.max(f - c.MU * P * (1.0 + roundoff(1.0))))
    t, z, Fz, vz, touch = map(np.array, (t, z, Fz, vz, touch))
    # held: the momentum balance over the window [T_SETTLE, T_RELEASE]
    # (its ends where the ball's vertical speed, left by the fingers' swaying, is least)
    ends = [np.flatnonzero((t >= a - 1e-12) & (t <= a + 0.01)) for a in (c.T_SETTLE,
                                                                        T_RELEASE - 0.01)]
    i1, i2 = (int(e[np.argmin(np.abs(vz[e]))]) for e in ends)
    tau = t[i2] - t[i1]
    impulse = H * np.sum(Fz[i1 + 1:i2 + 1])
    steps = i2 - i1
    p1, p2 = m * vz[i1], m * vz[i2]
    gap = impulse - W * tau - (p2 - p1)
    mean = impulse / tau
    window = (abs(p1) + abs(p2)) / tau
    print(f"held {tau * 1e3:.0f} ms: mean vertical contact force {mean:.9f} N vs m g "
          f"{W:.9f} N (rel {mean / W - 1:+.2e}, bound {window / W:.1e}); momentum balance "
          f"off by {gap:.1e} N s; ball moved {(z[i2] - z[i1]) * 1e6:+.2f} um")
    assert abs(gap) <= newton_bound(SETTINGS, 1.0, steps) + roundoff(W * tau, steps)
    assert abs(mean - W) <= window + (abs(gap)) / tau
    assert window <= 0.01 * W
    # Coulomb at every pair after the settling
    assert coulomb and max(coulomb) <= 0.0
    # released: out of contact the ball falls at g
    free = np.flatnonzero(~touch)
    free = free[(free > i2) & np.isin(free - 1, free) & np.isin(free + 1, free)]
    assert free.size >= 10
    acc = (z[free + 1] - 2.0 * z[free] + z[free - 1]) / H**2
    tol = SETTINGS.atol / (m * H) + roundoff(4.0 * np.abs(z).max()) / H**2
    print(f"free fall over {free.size} steps: acceleration {acc.mean():.9f} m/s^2 "
          f"(max |a + g| {np.abs(acc + c.G).max():.1e}, tol {tol:.1e})")
    assert np.all(np.abs(acc + c.G) <= tol)
    # the ledger closes every step
    assert np.all(np.abs(res) <= bound)
    # the demo's outputs
    run = c.grip(T_RELEASE, 0.01, H, N)
    c.write_outputs(run, tmp_path)
    assert_units_files(tmp_path)
    with open(tmp_path / "gripper.csv") as fh:
        assert next(csv.reader(fh)) == ["t", "body_1", "body_2", "body_3", "normal_1",
                                        "normal_2", "normal_3", "friction_1", "friction_2",
                                        "friction_3"]
    assert (tmp_path / "gripper.png").is_file()
