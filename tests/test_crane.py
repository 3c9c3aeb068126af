"""demos/crane.py: the payload's swing after the trolley stops against closed forms.

The hanger is on ball joints at both ends (the carriage, moved by a clamp, and the payload),
so its bending stiffness only resists its own bending: the swing's frequency lies between

* above: the compound pendulum of the rigid, statically stretched hanger with the payload
  (Rayleigh's quotient of that rigid rotation, ``demos/crane.py:pendulum_frequency``), and
* below: the extensible string (no bending stiffness), ``(P u')' + rho A omega^2 u = 0``,
  ``P = T/(1 + T/EA)``, ``T = g (M + rho A (L - s))``, ``u(0) = 0``,
  ``P u'(L) = M omega^2 u(L)``, solved by shooting;

widened by the sections' rotary inertia ``M11 L/I`` (only in the upper bound), the
coupling with the axial bouncing of the release from the unstretched hanger (relative
amplitude ``eps = M g/EA``: ``eps^2``) and P2's ``(beta/N)^4`` (beta the string's
wavenumber at the payload), as in tests/test_free_bodies.py. The measured rate (zero
crossings of the payload's offset from the stopped trolley) is corrected there for the
midpoint rule (Cayley) and the amplitude (``1 + theta_0^2/16``); what is left of the
amplitude correction, ``O(theta_0^4)``, is below ``theta_0^4``.
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

from fxrod.core.freebody import FreeBody
from fxrod.studies.cases import demo
from tests.conftest import assert_units_files


def _string_frequency(c, upper: float) -> float:
    """The extensible string's lowest frequency [rad/s] below ``upper``."""
    M = FreeBody.sphere(c.BALL_RADIUS, c.STEEL, (0, 0, 0)).mass
    rhoA, EA, L, g = c.HANGER.rhoA, c.HANGER.k_e, c.LENGTH, c.G

    def P(s):
        T = g * (M + rhoA * (L - s))
        return T / (1.0 + T / EA)

    def end_balance(om):
        y = solve_ivp(lambda s, y: [y[1] / P(s), -rhoA * om**2 * y[0]], (0.0, L),
                      [0.0, P(0.0)], rtol=1e-12, atol=1e-14).y[:, -1]
        return y[1] - M * om**2 * y[0]

    return brentq(end_balance, 0.9 * upper, upper, xtol=1e-14)


def test_swing_after_the_trolley_stops(tmp_path):
    """Two swings after the stop (8 s at h = 0.01 s): the frequency inside the bracket of
    the string and the rigid stretched hanger; crane.csv has t, body_1..3 and its units."""
    c = demo("crane")
    h, N = 0.01, 8
    run = c.swing(2.0 * c.T_ACCEL + 6.0, h, N)
    w, theta0 = c.measured_frequency(run, h)
    w_R = c.pendulum_frequency()
    w_S = _string_frequency(c, w_R)
    M = FreeBody.sphere(c.BALL_RADIUS, c.STEEL, (0, 0, 0)).mass
    sec, L, g = c.HANGER, c.LENGTH, c.G
    eps = M * g / sec.k_e
    widen = (eps**2 + sec.M11 * L / (M * L**2) + theta0**4
             + (w_R * L * np.sqrt(sec.rhoA / (M * g)) / N) ** 4)
    print(f"crane: {w:.8f} rad/s (theta_0 {theta0:.4f}); bracket [{w_S:.8f}, {w_R:.8f}] "
          f"(rel {w / w_S - 1:+.2e}, {w / w_R - 1:+.2e}; widened by {widen:.1e}); "
          f"sqrt(g/L) {np.sqrt(g / L):.8f}")
    assert w_S * (1.0 - widen) <= w <= w_R * (1.0 + widen)
    # the bracket resolves the hanger's mass and stretch (against the point-mass pendulum
    # on an inextensible string, sqrt(g/L)) ten times over
    assert 10.0 * (w_R - w_S + widen * w_R) < abs(w - np.sqrt(g / L))
    assert theta0 > 0.01                             # the trolley did set it swinging
    c.write_csv(run, tmp_path / "crane.csv")
    assert_units_files(tmp_path)
    with open(tmp_path / "crane.csv") as fh:
        assert fh.readline().strip() == "t,body_1,body_2,body_3"
