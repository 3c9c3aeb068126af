"""Rod-rod contact between centreline nodes (fxrod.core.forms.rodcontact): statics of two crossing
rods against linear (Timoshenko) beam theory and against the supports' reactions; two free
rods colliding with an exact energy balance and conserved momenta; bad input."""

from __future__ import annotations

import numpy as np
import pytest

from fxrod.core.forms.rodcontact import ID, ROD, RodContact, S
from fxrod.core.joints import Rigid
from fxrod.core.loads import EndLoad
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.core.structure import Structure
from fxrod.core.supports import Clamp
from fxrod.errors import ParameterError
from fxrod.runs.integrators import Integrator
from fxrod.runs.simulation import Simulation
from fxrod.solvers.settings import SolverSettings
from tests.claims import assert_claim

R = 0.01
SEC = Section.circular(radius=R, E=1e7, rho=1000.0, nu=0.3)
TIGHT = SolverSettings(atol=1e-13, rtol=1e-14, jacobian_lag=1)


def crossing(P: float, k: float):
    """A cantilever (rod 1, length 0.5 m along y) whose free end rests on the midpoint of a
    clamped-clamped beam (rod 0, 1 m along x) and carries the end load P [N] downwards."""
    lower = Rod(SEC, start=(-0.5, 0, 0), end=(0.5, 0, 0), d1=(0, 1, 0), n_elements=8)
    upper = Rod(SEC, start=(0, -0.5, 2 * R), end=(0, 0, 2 * R), d1=(1, 0, 0), n_elements=4)
    contact = RodContact(radius=R, stiffness=k)
    model = RodModel(Structure([lower, upper]), [EndLoad("L", force=lambda t: (0, 0, -P * t),
                                                         rod=1)],
                     [Clamp("0", rod=0), Clamp("L", rod=0), Clamp("0", rod=1)], [contact],
                     quasistatic=True)
    return model, contact


def test_crossing_rods_statics():
    """The contact force carried by the clamped-clamped beam equals its clamps' reactions
    (statics, 1e-8 relative), the load minus the cantilever's clamp reaction (1e-8); it matches
    linear Timoshenko theory F = P c_u / (c_u + c_l + 1/k) (c_u = L_u^3/3EI + L_u/GA,
    c_l = L^3/192EI + L/4GA) to 1e-3; the overlap is F/k (the penalty's bound)."""
    P, k = 1e-3, 1e4
    model, contact = crossing(P, k)
    integ = Integrator(model, 0.5, TIGHT)
    integ.step()
    integ.step()
    f = contact.force_on(0)
    F = -f[2]
    reactions, _ = model.support_response()
    lower = reactions["clamp_0"][:3] + reactions["clamp_L"][:3]
    upper = reactions["clamp_r1_0"][:3]
    assert_claim("rodcontact-reactions", (lower + f) / F, 1e-8)
    assert np.max(np.abs(contact.force_on(1) + f)) == 0.0
    assert_claim("rodcontact-reactions", (upper - f - (0, 0, P)) / P, 1e-8)
    EI, GA = SEC.stiffness[3], SEC.stiffness[0]
    c_u = 0.5**3 / (3 * EI) + 0.5 / GA
    c_l = 1.0 / (192 * EI) + 1.0 / (4 * GA)
    F_ref = P * c_u / (c_u + c_l + 1.0 / k)
    assert_claim("rodcontact-theory", F / F_ref - 1.0, 1e-3)
    assert abs(-contact.min_gap() - F / k) <= 1e-3 * F / k


def free_rods(n: int = 6):
    """Two free rods 0.2 m long, crossed at right angles 2.4 R apart, approaching at 0.5 m/s
    (one sliding at 0.1 m/s, the other spinning at 2 rad/s), with a stiff pair penalty."""
    a = Rod(SEC, start=(-0.1, 0, 0), end=(0.1, 0, 0), d1=(0, 1, 0), n_elements=n)
    b = Rod(SEC, start=(0, -0.1, 2.4 * R), end=(0, 0.1, 2.4 * R), d1=(1, 0, 0), n_elements=n)
    contact = RodContact(radius=R, stiffness=1e4)
    model = RodModel(Structure([a, b]), [], [], [contact])
    return model, contact


def test_free_rods_collide_energy_and_momenta():
    """Through the impact (contact active in several steps) the ledger balance is zero to the
    Newton tolerance, linear and angular momenta are constant to round-off, and the rods
    separate (the velocity of approach reverses)."""
    model, contact = free_rods()
    first = lambda s: (s < 0.3)[None, :]  # noqa: E731  (rod 0 on [0, 0.2], rod 1 on [0.4, 0.6])
    model.set_velocity(v_phi=lambda s: np.where(first(s), [[0.1], [0.0], [0.5]],
                                                [[0.0], [0.0], [-0.5]]),
                       omega=lambda s: np.where(first(s), 0.0, [[0.0], [0.0], [2.0]]))
    sim = Simulation(Integrator(model, 5e-4, TIGHT))
    sim.run(0.02)
    res = np.abs(sim.column("energy_residual"))
    H = sim.column("H")
    assert_claim("rodcontact-balance", res / H[0], 1e-10)
    p0 = SEC.rhoA * 0.2 * 0.5           # one rod's momentum of approach [kg m/s]
    for c, scale in (("p_1", p0), ("p_2", p0), ("p_3", p0),
                     ("J_1", 0.1 * p0), ("J_2", 0.1 * p0), ("J_3", 0.1 * p0)):
        assert_claim("rodcontact-momenta", np.ptp(sim.column(c)) / scale, 1e-12)
    assert np.max(sim.column("strain_energy")) > 0.0


@pytest.mark.parametrize("kw", [dict(radius=-1e-3, stiffness=1.0),
                                dict(radius=1e-3, stiffness=-1.0),
                                dict(radius=1e-3, stiffness=1.0, exclude=1e-3)])
def test_bad_input(kw):
    with pytest.raises(ParameterError):
        RodContact(**kw)


def test_overlap_at_start_refused():
    """Rods crossing closer than 2 r at t = 0 are refused before the run."""
    a = Rod(SEC, start=(-0.1, 0, 0), end=(0.1, 0, 0), d1=(0, 1, 0), n_elements=4)
    b = Rod(SEC, start=(0, -0.1, R), end=(0, 0.1, R), d1=(1, 0, 0), n_elements=4)
    with pytest.raises(ParameterError, match="overlap"):
        RodModel(Structure([a, b]), [], [], [RodContact(radius=R, stiffness=1.0)])


@pytest.mark.mpi
def test_crossing_rods_mpi_equals_serial():
    """The crossing-rods statics on 2 ranks give the serial contact force and reactions to
    1e-10 (every rank gathers all nodes; each adds the rows it owns)."""
    from tests.conftest import run_mpi

    code = ("import numpy as np\n"
            "from tests.test_rodcontact import crossing, TIGHT\n"
            "from fxrod.runs.integrators import Integrator\n"
            "model, contact = crossing(1e-3, 1e4)\n"
            "integ = Integrator(model, 0.5, TIGHT)\n"
            "integ.step(); integ.step()\n"
            "f = contact.force_on(0)\n"
            "if model.comm.rank == 0: print('F', *f.tolist())\n")
    out = run_mpi(["-c", code]).stdout
    f_mpi = np.array([float(v) for v in out.split("F", 1)[1].split()[:3]])
    model, contact = crossing(1e-3, 1e4)
    integ = Integrator(model, 0.5, TIGHT)
    integ.step()
    integ.step()
    f = contact.force_on(0)
    assert np.max(np.abs(f_mpi - f)) <= 1e-10 * np.max(np.abs(f))


def test_joints_neighbours_excluded_and_far_pairs_kept():
    """Rods welded at a joint share a point: pairs closer than ``exclude`` along the rods
    through the joint never interact (the structure is accepted, no pair at t = 0, and the
    L-frame's statics equal those without contact to round-off); a pair far from the joint
    along the rods is still found."""
    sec = Section.circular(radius=R, E=1e7, rho=1000.0, nu=0.3)
    column = Rod(sec, start=(0, 0, 0), end=(0, 0, 0.2), d1=(1, 0, 0), n_elements=16)
    beam = Rod(sec, start=(0, 0, 0.2), end=(0.2, 0, 0.2), d1=(0, 1, 0), n_elements=16)

    def frame(extensions):
        st = Structure([column, beam], [Rigid((0, "L"), (1, "0"))])
        model = RodModel(st, [EndLoad("L", rod=1, force=(0, 0, -1e-3))], [Clamp("0")],
                         extensions, quasistatic=True)
        Integrator(model, 1.0, TIGHT).advance_to(1.0)
        return model

    contact = RodContact(radius=R, stiffness=1e4)
    with_contact, without = frame([contact]), frame([])
    x = contact._positions(contact.w0).copy()
    assert len(contact._table(x, x, 2 * R)) == 0
    assert np.max(np.abs(with_contact.w.x.array - without.w.x.array)) <= 1e-14
    # a node of the column 0.05 m below the joint and one of the beam 0.05 m from it, put
    # 1.5 r apart: 0.1 m along the rods > exclude, so the pair counts
    rod, s = contact._static[:, ROD], contact._static[:, S]
    a = int(np.argmin(np.abs(s - 0.15) + 10 * (rod != 0)))
    b = int(np.argmin(np.abs(s - 0.05) + 10 * (rod != 1)))
    x[b] = x[a] + (1.5 * R, 0.0, 0.0)
    found = contact._table(x, x, 2 * R)
    ids = contact._static[[a, b], ID]
    assert sorted(ids) in np.column_stack([found.a[:, ID], found.b[:, ID]]).tolist()
