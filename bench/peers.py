"""fxrod side by side with PyElastica, Exudyn, MoorDyn and MuJoCo, in one run on this machine.

    python bench/peers.py [--runs 3] [--quick] [--skip-peers] [--only snake]
                          [--json bench/peers.json]

Five comparisons, wall time of the stepping only (models built, kernels compiled and numba
functions jitted before the clock starts), ``--runs`` runs each (default 3):

1. Ex. 6.2 cantilever (Kinon, Eugster & Betsch 2026), aluminium Kirchhoff rod hit by the
   smooth 50 ms tip impulse, to t = 0.3 s. fxrod: n_e 8, h 1e-3 s (the case
   ``cantilever-vibration``) with fxrod's default solver settings (modified Newton, one
   Jacobian per step; the chain solver's saddle-point variant), with the lag counted across
   steps (``jacobian_persists=True``: a Jacobian every ~1.5 steps), and with the case's full
   Newton (which keeps the nodal constraints at round-off instead of ~atol; the same tip to
   1e-12 m), with the chain solver and with MUMPS. PyElastica (Cosserat rod, position
   Verlet) with 100 and 400 elements at its stable step: the largest step tried that stays
   finite, 6e-7 s (100 elements; 7e-7 s blows up within 10 ms) and 3e-7 s (400; 4e-7 s blows
   up). Error: the largest distance [m] between the tip and the authors' tip data over the
   301 data times (every 1 ms).
2. ANCF companion, the blog's steel cantilever (1 m, 0.02 x 0.02 m, E 2.07e11 Pa) released
   at rest under gravity, 300 steps to 0.3 s with 10 and 40 elements. fxrod: the
   energy-consistent midpoint step (:class:`fxrod.ancf.EnergyConsistentStepper`) on its
   default fast path (:mod:`fxrod.ancf.banded`), and on the general path (SNES, DOLFINx's
   assembly, MUMPS; ``fast_assembly=False``) for comparison. Exudyn:
   ``ObjectANCFCable2D`` (same Gerstmayr axial strain, cubic Hermite), generalized-alpha with
   spectral radius 1 (trapezoidal), its default Newton. Reference: fxrod's ANCF with 40
   elements and 3000 and 6000 steps, Richardson-extrapolated (both steppers are second
   order); error: the largest tip distance [m] from it over the 301 times.

3. Continuum snake (demos/snake.py; PyElastica's examples/ContinuumSnakeCase): a 0.35 m
   soft rod on the ground with kinetic friction forward/backward/lateral ``mu, 1.5 mu,
   2 mu`` driven by a travelling wave of period 2 s, to 6 periods (``--quick``: 3). fxrod:
   16 elements, 100 steps per period, the intrinsic curvature ``kappa_0 = (7/L) sin(2 pi
   s/L + omega t)`` (``CurvatureWave``) and the componentwise friction law
   (``friction_law="componentwise"``, PyElastica's). PyElastica: its example (50 elements,
   position Verlet at dt 1e-4 s, plane contact k 1, nu 1e-6, slip tolerance 1e-8, linear
   damping 2e-3), once with its own muscle torque (b-spline amplitude, 2.6e-3 to 4.2e-3 N m,
   linear ramp over a period) and once with fxrod's drive (its ``rest_kappa`` set to the
   same kappa_0 and smooth ramp every step). Speed: the centre of mass's displacement from
   the end of period 2 to the last period's end over the time (``snake.snake_speed``);
   ``speed_ratio`` is the row's speed over fxrod's.

4. Mooring line (demos/mooring.py): a 250 m chain (115 kg/m, EA 5.4e8 N, volume-equivalent
   diameter 0.137 m) from an anchor on a frictionless seabed to a fairlead about 44 m above
   it, in still water: the static profile. fxrod: the demo's 128 elements, 4 quasi-static
   load steps (weight and buoyancy ramped in), clamped ends, EI 1e3 N m^2, seabed penalty k
   1e6 N/m^2 raised by w/k. MoorDyn (its Python package; lumped masses, no bending): its
   input file written to a temporary folder with the same line type (diameter, mass per
   length, EA, C_dn 2.4, C_dt 1.15, C_a 1), 128 segments, the anchor a fixed point, the
   fairlead a coupled one, seabed stiffness ``kbot = k/D`` (MoorDyn's contact force per length
   is ``kbot D`` times the penetration) through the anchor (the lying chain sinks w/k = 1 mm;
   MoorDyn's static solve stalls with the anchor 1 mm above its seabed), no seabed damping
   or friction; its initial-condition static solve (``Init``) with ``threshIC`` 1e-3 and
   1e-4 (its residual acceleration, m/s^2). Wall time: fxrod's load steps, MoorDyn's
   ``Create`` and ``Init``. Each against Irvine's elastic catenary on the seabed through the
   same fairlead: H and V (the fairlead's pull on the line), the tension there, and the
   largest distance [m] of the nodes from the closed-form profile at their arc lengths.
   ``ratio``: the row's wall time over fxrod's.

   Then the dynamic decay (demos/mooring.py's ``decay``, ``--quick``: to 10 s): from the
   static state the fairlead moves 2 m away from the anchor over 5 s (quintic ramp) and is
   held, to 80 s. fxrod: 64 elements, EI 3e5 N m^2 (the tension leaves the elements' shear
   mode stable), the fairlead clamped and turned to the new catenary's end angle, Morison
   drag (C_dn 2.4, C_dt 1.15 on the diameter and the surface pi D), added mass C_a 1 across
   the line, the seabed penalty k 1e6 N/m^2 and the line lifted by w/k, the implicit
   midpoint rule at h 0.05 s (Newton to 1e-6). MoorDyn: the same line type with
   ``Cd`` = C_dn, ``CdAx`` = C_dt, ``Ca`` = C_a, ``CaAx`` 0, EI 0 (a cable; with EI 3e5 its
   ``Init`` stopped 4 kN off), the same 64 segments, ``kbot = k/D`` through the anchor (so
   the lying chain rests w/k below the anchor, as fxrod's below its lifted anchor),
   ``threshIC`` 1e-4, its RK2 at dtM 1e-4 s, the fairlead a coupled point (pinned) driven by
   ``moordyn.Step`` every 0.05 s with the ramp's position and the step's mean velocity;
   internal axial damping ``BA`` -1 (critical, MoorDyn's usual chain setting) and 0 (none,
   as fxrod's line). Compared: the settled fairlead force (mean over the last 20 s) against
   Irvine's catenary through the new fairlead (above the lying chain), the peak tension,
   the largest difference of the fairlead tension from fxrod's over the run (MoorDyn's
   end-of-step force averaged over each step, as fxrod's reaction is the step's average),
   relative to the static change of the tension, and wall time: fxrod's steps, MoorDyn's
   ``Step`` calls (its ``Create`` and ``Init`` in ``init_s``).

5. Ex. 6.2 in MuJoCo (its ``mujoco`` package; the composite cable of MuJoCo 3 is the 1D flex
   of MuJoCo 4): a discrete elastic rod (Bergou et al. 2008: bending and torsion at the
   vertices, inextensible edges by equality constraints), clamped by a pinned ghost edge, the
   masses lumped at the vertices (:func:`mujoco_rod`), the tip force on the tip vertex and the
   tip moment split into a twist on the tip edge and a couple on its two vertices
   (:func:`mujoco_end_load`), MuJoCo's implicit ``discrete`` integrator with its Newton
   solver, in the runs of :data:`MUJOCO_RUNS`; its error falls about as 1/n with the edges (the
   clamp and the vertex bending are first order; a static tip moment bends it by ``(1 + 1/n)``
   times the beam's rotation). MuJoCo's best error is then the target of fxrod's coarse meshes
   (:data:`FXROD_LADDER`, h 1e-3 s, default settings): the coarsest that reaches it, and the
   ratio of the two wall times (``mujoco_match``).

A peer that is not installed (``pip install .[peers]``) is skipped with a line that says so.
``ratio`` is the row's mean wall time over fxrod's (default path) in the same comparison.
``--skip-peers`` measures fxrod's rows only. ``--only cantilever``, ``ancf``, ``snake``,
``mooring`` (alias ``moordyn``) or ``mujoco`` runs one comparison and replaces only its rows in the
``--json`` file. ``--quick``: one run, the cantilever to 0.02 s (errors then against the
data up to 0.02 s), the ANCF reference from 600/1200 steps (a smoke test of the script, not a
measurement).
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import math
import os
import statistics
import time

import numpy as np

import fxrod  # noqa: F401  (imports dolfinx_solver before petsc4py)
from fxrod.data import reference_path
from fxrod.problems.mooring import catenary_curve, elastic_catenary, quintic_ramp, window_means
from fxrod.solvers.settings import SolverSettings

#: PyElastica's position-Verlet steps per 1 ms by element count: dt = 1 ms / 1667 ~ 6.0e-7 s
#: and 1 ms / 3334 ~ 3.0e-7 s, the stable steps of the module docstring.
ELASTICA_STEPS_PER_MS = {100: 1667, 400: 3334}
#: The comparisons (``--only``), each a list of rows in the JSON.
COMPARISONS = ("cantilever", "ancf", "snake", "mooring", "mujoco")
#: Names ``--only`` also takes: the peer's for its comparison.
ALIASES = {"moordyn": "mooring"}
DATA = ("kinon2026/results/example_02_dynamic_cantilever", "ex02_cantilever_results.csv")


def cantilever_data(t_end: float) -> tuple[np.ndarray, np.ndarray]:
    """Times [s] (every 1 ms up to ``t_end``) and tip positions [m] of the authors' data."""
    with open(reference_path(*DATA)) as fh:
        rows = [r for r in csv.DictReader(fh) if float(r["time"]) <= t_end + 1e-9]
    t = np.array([float(r["time"]) for r in rows])
    tip = np.array([[float(r[f"tip_position_I_{i}"]) for i in (1, 2, 3)] for r in rows])
    return t, tip


def max_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Largest Euclidean distance [m] between matching rows of two tip histories."""
    return float(np.max(np.linalg.norm(a - b, axis=1)))


# ---------------------------------------------------------------- Ex. 6.2 cantilever
def fxrod_cantilever(t_end: float, linear_solver: str = "auto",
                     jacobian_lag: int | None = None,
                     persists: bool = False, n_e: int = 8) -> tuple[float, np.ndarray]:
    """fxrod, ``n_e`` elements, h 1e-3 (``linear_solver``: the default, i.e. the chain solver's
    saddle-point variant, or ``"mumps"``; ``jacobian_lag``: the case's full Newton when
    None; ``persists``: the lag counted across steps): (wall time of the steps [s], tip
    every 1 ms [m])."""
    from fxrod.studies.cases import demo

    prob = demo("cantilever_vibration").problem(n_e, h=1e-3, t_end=t_end)
    lag = {} if jacobian_lag is None else {"jacobian_lag": jacobian_lag}
    integ = prob.integrator(linear_solver=linear_solver, jacobian_persists=persists, **lag)
    nodes = prob.model.nodes
    n = round(t_end / 1e-3)
    tips = [nodes.tip()]
    t0 = time.perf_counter()
    for _ in range(n):
        integ.step()
        tips.append(nodes.tip())
    return time.perf_counter() - t0, np.array(tips)


def elastica_cantilever(n_e: int, t_end: float) -> tuple[float, np.ndarray]:
    """PyElastica, ``n_e`` elements, position Verlet at :data:`ELASTICA_STEPS_PER_MS`: (wall time of
    the steps [s], tip every 1 ms [m])."""
    import elastica as ea

    E, nu, rho, r = 7.2e10, 0.35, 2850.0, 2e-3  # fxrod.problems.paper.cantilever_vibration_section

    class TipImpulse(ea.NoForces):
        """The paper's tip force f (0, 1, 1) N and moment f (0.25, 0, 0) N m (spatial),
        f = (1 - cos(40 pi t))/2 on [0, 0.05] s; PyElastica takes torques in the director
        frame."""

        def apply_forces(self, system, time=0.0):
            if time < 0.05:
                f = 0.5 * (1.0 - np.cos(40.0 * np.pi * time))
                system.external_forces[:, -1] += f * np.array([0.0, 1.0, 1.0])

        def apply_torques(self, system, time=0.0):
            if time < 0.05:
                f = 0.5 * (1.0 - np.cos(40.0 * np.pi * time))
                system.external_torques[:, -1] += (system.director_collection[:, :, -1]
                                                   @ np.array([0.25 * f, 0.0, 0.0]))

    class Collection(ea.BaseSystemCollection, ea.Constraints, ea.Forcing):
        pass

    sim = Collection()
    rod = ea.CosseratRod.straight_rod(n_e, np.zeros(3), np.array([1.0, 0.0, 0.0]),
                                      np.array([0.0, -1.0, 0.0]), 1.0, r, rho,
                                      youngs_modulus=E, shear_modulus=E / (2 * (1 + nu)))
    sim.append(rod)
    sim.constrain(rod).using(ea.OneEndFixedBC, constrained_position_idx=(0,),
                             constrained_director_idx=(0,))
    sim.add_forcing_to(rod).using(TipImpulse)
    sim.finalize()
    stepper = ea.PositionVerlet()
    per_ms = ELASTICA_STEPS_PER_MS[n_e]
    dt = 1e-3 / per_ms
    t = np.float64(0.0)
    tips = [rod.position_collection[:, -1].copy()]
    t0 = time.perf_counter()
    for _ in range(round(t_end / 1e-3)):
        for _ in range(per_ms):
            t = stepper.step(sim, t, np.float64(dt))
        tips.append(rod.position_collection[:, -1].copy())
    return time.perf_counter() - t0, np.array(tips)


# ---------------------------------------------------------------- Ex. 6.2 in MuJoCo
#: MuJoCo's runs of Ex. 6.2: (edges, time step [s]); finer rows were not more accurate.
MUJOCO_RUNS = ((40, 1e-4), (80, 1e-4), (160, 5e-5), (160, 2.5e-5))
#: fxrod's element counts (h 1e-3 s) tried, coarsest first, to reach MuJoCo's best error.
FXROD_LADDER = (2, 3, 4, 6, 8)
ALUMINIUM = dict(E=7.2e10, nu=0.35, rho=2850.0, r=2e-3, L=1.0)  # paper.cantilever_vibration_section


def mujoco_rod(n: int, dt: float, damping: float = 0.0):
    """Ex. 6.2's rod as MuJoCo's 1D flex (a discrete elastic rod: bending and torsion at the
    vertices, the edges kept at length by equality constraints with a time constant of
    2 ``dt``, its ``discrete`` implicit integrator and Newton solver) of ``n`` edges of
    length L/n from x = 0 to L, clamped by pinning a ghost edge [-L/n, 0] (MuJoCo's
    ``<pin id="0 1"/>``). Masses lumped at the vertices, rho A L/n, half at the tip; the edges'
    polar inertia rho J L/n on their twist joints; ``damping``: the flex's Rayleigh
    coefficient [s] (0 in the dynamic runs). Returns (model, data, the vertices' body ids
    from x = 0 to the tip, the tip edge's twist dof, the edge length [m])."""
    import mujoco

    E, nu, rho, r, L = (ALUMINIUM[k] for k in ("E", "nu", "rho", "r", "L"))
    ell, area = L / n, math.pi * r * r
    xml = f"""<mujoco><option timestep="{dt}" gravity="0 0 0" integrator="discrete"
     solver="Newton" tolerance="1e-12" iterations="200"/><worldbody>
     <flexcomp name="rod" type="grid" dim="1" count="{n + 2} 1 1" spacing="{ell} 1 1"
      pos="{(L - ell) / 2} 0 0" radius="{r}" mass="{rho * area * ell * (n + 2)}">
     <pin id="0 1"/><edge equality="true" solref="{2 * dt} 1"/>
     <elasticity young="{E}" shear="{E / (2 * (1 + nu))}" damping="{damping}"/>
     <contact contype="0" conaffinity="0"/></flexcomp></worldbody></mujoco>"""
    m = mujoco.MjModel.from_xml_string(xml)
    verts = [m.body(f"rod_{i}").id for i in range(2, n + 2)]
    m.body_mass[verts[-1]] = 0.5 * rho * area * ell        # the tip's half edge
    d = mujoco.MjData(m)
    mujoco.mj_setConst(m, d)                                # the mass matrix from body_mass
    mujoco.mj_forward(m, d)
    return m, d, verts, m.joint("rod_twist").dofadr[0], ell


def mujoco_end_load(d, verts: list[int], twist_dof: int, ell: float,
                    force: np.ndarray, moment: np.ndarray) -> None:
    """Set a spatial force [N] and moment [N m] on the rod's tip: the force on the tip vertex,
    the moment's part along the tip edge on its twist joint, the rest as a couple of forces
    on the edge's two vertices."""
    d.xfrc_applied[:] = 0.0
    d.qfrc_applied[:] = 0.0
    edge = d.xpos[verts[-1]] - d.xpos[verts[-2]]
    t = edge / np.linalg.norm(edge)
    twist = float(moment @ t)
    couple = np.cross(moment - twist * t, t) / ell
    d.xfrc_applied[verts[-1], :3] = force + couple
    d.xfrc_applied[verts[-2], :3] = -couple
    d.qfrc_applied[twist_dof] = twist


def mujoco_cantilever(n: int, dt: float, t_end: float) -> tuple[float, np.ndarray]:
    """MuJoCo, ``n`` edges, step ``dt``: (wall time of the steps [s], tip every 1 ms [m]);
    the load of :func:`elastica_cantilever` set before every step."""
    import mujoco

    m, d, verts, twist_dof, ell = mujoco_rod(n, dt)
    per_ms = round(1e-3 / dt)
    tips = [d.xpos[verts[-1]].copy()]
    t0 = time.perf_counter()
    for _ in range(round(t_end / 1e-3)):
        for _ in range(per_ms):
            f = 0.5 * (1.0 - math.cos(40.0 * math.pi * d.time)) if d.time < 0.05 else 0.0
            mujoco_end_load(d, verts, twist_dof, ell, f * np.array([0.0, 1.0, 1.0]),
                            f * np.array([0.25, 0.0, 0.0]))
            mujoco.mj_step(m, d)
        tips.append(d.xpos[verts[-1]].copy())
    return time.perf_counter() - t0, np.array(tips)


# ---------------------------------------------------------------- ANCF release
STEEL = dict(E=2.07e11, rho=7850.0, b=0.02, h=0.02, L=1.0, g=9.81)


def fxrod_ancf(n_e: int, steps: int, t_end: float = 0.3,
               fast: bool = True) -> tuple[float, np.ndarray]:
    """fxrod's ANCF companion (``fast``: its fast path, else SNES): (wall time of the steps
    [s], tip at the 301 times [m])."""
    from fxrod.ancf import ANCFBeam, EnergyConsistentStepper, blog_beam, default_settings

    beam = ANCFBeam(blog_beam(), n_e, gravity=(0.0, -STEEL["g"]))
    st = EnergyConsistentStepper(beam, t_end / steps,
                                 settings=default_settings(beam, fast_assembly=fast))
    every = steps // 300
    tips = [beam.tip().copy()]
    t0 = time.perf_counter()
    for k in range(steps):
        st.step()
        if (k + 1) % every == 0:
            tips.append(beam.tip().copy())
    return time.perf_counter() - t0, np.array(tips)


def exudyn_ancf(n_e: int, steps: int = 300, t_end: float = 0.3) -> tuple[float, np.ndarray]:
    """Exudyn's ``ObjectANCFCable2D``: (wall time of ``SolveDynamic`` [s], tip at the 301
    times [m])."""
    import exudyn as exu
    from exudyn.beams import GenerateBeamElementsAlongLine
    from exudyn.itemInterface import ObjectANCFCable2D, SensorNode

    s = STEEL
    A, I = s["b"] * s["h"], s["b"] * s["h"] ** 3 / 12.0
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    cable = ObjectANCFCable2D(massPerLength=s["rho"] * A,
                              bendingStiffness=s["E"] * I,
                              axialStiffness=s["E"] * A, useReducedOrderIntegration=0)
    beam = GenerateBeamElementsAlongLine(mbs, [0.0, 0.0, 0.0], [s["L"], 0.0, 0.0], n_e, cable,
                                         gravity=[0.0, -s["g"], 0.0],
                                         groundConstraintsStart=[1, 1, 1, 1])
    sensor = mbs.AddSensor(SensorNode(nodeNumber=beam["nodes"][-1], storeInternal=True,
                                      outputVariableType=exu.OutputVariableType.Position))
    mbs.Assemble()
    ss = exu.SimulationSettings()
    ss.timeIntegration.numberOfSteps = steps
    ss.timeIntegration.endTime = t_end
    ss.timeIntegration.generalizedAlpha.spectralRadius = 1.0
    ss.timeIntegration.verboseMode = 0
    ss.solution.file.write = False
    ss.solution.sensors.writePeriod = t_end / 300
    t0 = time.perf_counter()
    mbs.SolveDynamic(ss)
    wall = time.perf_counter() - t0
    data = mbs.GetSensorStoredData(sensor)
    return wall, np.asarray(data)[:, 1:3]


def ancf_reference(steps: int) -> np.ndarray:
    """Tip [m] at the 301 times: fxrod's ANCF, 40 elements, ``steps`` and ``2 steps``,
    Richardson-extrapolated (second order)."""
    coarse = fxrod_ancf(40, steps)[1]
    fine = fxrod_ancf(40, 2 * steps)[1]
    return fine + (fine - coarse) / 3.0


# ---------------------------------------------------------------- continuum snake
def _snake_module():
    """demos/snake.py as a module."""
    import importlib.util as iu

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "demos", "snake.py")
    spec = iu.spec_from_file_location("snake", path)
    mod = iu.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def fxrod_snake(periods: int) -> tuple[float, np.ndarray, np.ndarray]:
    """fxrod's snake (demos/snake.py defaults): (wall time of the steps [s], times [s],
    centre of mass [m])."""
    S = _snake_module()
    run = S.snake(periods=periods)
    return run["wall_s"], run["t"], run["x"]


def elastica_snake(periods: int, drive: str = "muscle", dt: float = 1e-4,
                   n_e: int = 50) -> tuple[float, np.ndarray, np.ndarray]:
    """PyElastica's continuum snake, ``drive`` its ``"muscle"`` torque or fxrod's
    ``"curvature"`` wave (``rest_kappa``): (wall time of the steps [s], times [s], centre of
    mass [m] in fxrod's axes: e1 along the initial body, e3 up), sampled ten times a
    period."""
    import elastica as ea

    S = _snake_module()
    L, r, T = S.LENGTH, S.RADIUS, S.PERIOD

    class Collection(ea.BaseSystemCollection, ea.Constraints, ea.Forcing, ea.Damping,
                     ea.CallBacks, ea.Contact):
        pass

    sim = Collection()
    up = np.array([0.0, 1.0, 0.0])                     # PyElastica's example: y up, z along
    rod = ea.CosseratRod.straight_rod(n_e, np.zeros(3), np.array([0.0, 0.0, 1.0]), up, L, r,
                                      S.DENSITY, youngs_modulus=S.E, shear_modulus=S.E / 1.5)
    sim.append(rod)
    sim.add_forcing_to(rod).using(ea.GravityForces, acc_gravity=-S.G * up)
    if drive == "muscle":
        b = np.array([3.4e-3, 3.3e-3, 4.2e-3, 2.6e-3, 3.6e-3, 3.5e-3])
        sim.add_forcing_to(rod).using(ea.MuscleTorques, base_length=L, b_coeff=b, period=T,
                                      wave_number=2.0 * np.pi / 1.0, phase_shift=0.0,
                                      rest_lengths=rod.rest_lengths, ramp_up_time=T,
                                      direction=up, with_spline=True)
    else:
        s = np.cumsum(rod.rest_lengths)[:-1]           # the interior nodes (Voronoi points)
        k, om, A = 2.0 * np.pi / S.WAVELENGTH, 2.0 * np.pi / T, S.AMPLITUDE

        class Wave(ea.NoForces):
            """fxrod's CurvatureWave as PyElastica's rest curvature about d1 (= up)."""

            def apply_torques(self, system, time=0.0):
                x = min(max(time / T, 0.0), 1.0)
                system.rest_kappa[0, :] = (A * (3.0 * x * x - 2.0 * x ** 3)
                                           * np.sin(k * s + om * time))

        sim.add_forcing_to(rod).using(Wave)
    plane = ea.Plane(plane_origin=-r * up, plane_normal=up)
    sim.append(plane)
    mu = S.MU_F
    sim.detect_contact_between(rod, plane).using(
        ea.RodPlaneContactWithAnisotropicFriction, k=1.0, nu=1e-6, slip_velocity_tol=1e-8,
        static_mu_array=np.zeros(3), kinetic_mu_array=np.array([mu, 1.5 * mu, 2.0 * mu]))
    sim.dampen(rod).using(ea.AnalyticalLinearDamper, damping_constant=2e-3, time_step=dt)
    sim.finalize()
    stepper = ea.PositionVerlet()
    per = round(T / dt / 10)
    t = np.float64(0.0)
    ts, com = [0.0], [rod.compute_position_center_of_mass().copy()]
    t0 = time.perf_counter()
    for _ in range(10 * periods):
        for _ in range(per):
            t = stepper.step(sim, t, np.float64(dt))
        ts.append(float(t))
        com.append(rod.compute_position_center_of_mass().copy())
    wall = time.perf_counter() - t0
    com = np.array(com)
    return wall, np.array(ts), np.column_stack([com[:, 2], com[:, 0], com[:, 1]])


def _measure_snake(label: str, fn, runs: int) -> dict:
    S = _snake_module()
    walls, speed = [], None
    for _ in range(runs):
        wall, t, x = fn()
        if not np.all(np.isfinite(x)):
            raise RuntimeError(f"{label}: non-finite centre of mass")
        walls.append(wall)
        speed = S.snake_speed(t, x, S.PERIOD, skip=2)
    return {"label": label, "wall_s": walls, "mean_s": statistics.fmean(walls),
            "speed_m_s": speed, "periods": int(round(t[-1] / S.PERIOD))}


def _snake(out: dict, a, runs: int) -> None:
    """The continuum snake rows of ``out``."""
    periods = 3 if a.quick else 6
    fxrod_snake(1)  # compile the forms before timing
    out["snake"].append(_measure_snake("fxrod snake 16 el, 100 steps/period",
                                       lambda: fxrod_snake(periods), runs))
    if a.skip_peers:
        out["skipped"].append("snake: PyElastica (--skip-peers)")
    elif _have("elastica"):
        elastica_snake(1, "muscle", n_e=50)          # jit
        for drive in ("muscle", "curvature"):
            out["snake"].append(_measure_snake(
                f"PyElastica snake 50 el, dt 1e-4, {drive} drive",
                lambda drive=drive: elastica_snake(periods, drive), runs))
    else:
        out["skipped"].append("snake: PyElastica not installed (pip install .[peers])")


# ---------------------------------------------------------------- mooring line
#: MoorDyn's segments: fxrod's elements in demos/mooring.py.
MOORING_ELEMENTS = 128
#: MoorDyn's ``threshIC`` (residual acceleration of its static solve, m/s^2), one row each.
MOORDYN_THRESHOLDS = (1e-3, 1e-4)
#: Water depth [m] under the fairlead's surface: MoorDyn's z = 0 is the free surface.
MOORDYN_FREEBOARD = 6.0


def _mooring_module():
    """demos/mooring.py as a module."""
    import importlib.util as iu

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "demos",
                        "mooring.py")
    spec = iu.spec_from_file_location("mooring", path)
    mod = iu.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _fairlead(M) -> np.ndarray:
    """The fairlead ``(x, z)`` [m] of demos/mooring.py's line ``M`` from its anchor."""
    return catenary_curve(M.H_REFERENCE, M.LENGTH, M.WET_WEIGHT)[1][[0, 2]]


def catenary_profile(M, s: np.ndarray, H: float, V: float) -> np.ndarray:
    """``(x, z)`` [m] of Irvine's elastic catenary on the seabed (fairlead force (H, V) [N])
    at the unstretched arc lengths ``s`` [m] of demos/mooring.py's line ``M``."""
    w, L, ea = M.WET_WEIGHT, M.LENGTH, M.EA
    lb = L - V / w
    u = np.maximum(s - lb, 0.0)
    x = np.minimum(s, lb) * (1.0 + H / ea) + H * u / ea + H / w * np.arcsinh(w * u / H)
    z = w * u ** 2 / (2 * ea) + H / w * (np.sqrt(1.0 + (w * u / H) ** 2) - 1.0)
    return np.column_stack([x, z])


def moordyn_input(M, fairlead: np.ndarray, n_seg: int, thresh: float, ei: float = 0.0,
                  ba: float = -1.0, dt: float = 1e-4) -> str:
    """MoorDyn's (v2) input file for demos/mooring.py's line ``M``: the anchor at
    ``(0, 0, -depth)`` on the seabed, the fairlead ``(x_f, z_f)`` above it (module
    docstring); ``ei`` the line's bending stiffness [N m^2], ``ba`` its internal axial
    damping (``BA/-zeta``: negative, the fraction of the segments' critical damping), ``dt``
    MoorDyn's time step ``dtM`` [s]."""
    x_f, z_f = fairlead
    depth = z_f + MOORDYN_FREEBOARD
    line_type = " ".join(f"{v:.17g}" for v in (M.DIAMETER, M.RHO_A, M.EA, ba, ei, M.C_DN,
                                                M.C_A, M.C_DT, 0.0))
    return f"""--------------------- MoorDyn Input File ------------------------------------
fxrod bench/peers.py: the chain of demos/mooring.py in still water
----------------------- LINE TYPES ------------------------------------------
TypeName   Diam    Mass/m     EA     BA/-zeta    EI    Cd     Ca     CdAx    CaAx
(name)     (m)     (kg/m)     (N)    (N-s/-)     (N-m^2)  (-)  (-)   (-)     (-)
chain {line_type}
---------------------- POINTS --------------------------------
ID     Attachment  X       Y     Z      M      V       CdA   CA
(#)    (-)         (m)     (m)   (m)    (kg)   (m^3)  (m^2)  (-)
1      Fixed   0.0  0.0  {-depth:.17g}  0  0  0  0
2      Coupled {x_f:.17g} 0.0 {z_f - depth:.17g} 0  0  0  0
---------------------- LINES --------------------------------------
ID    LineType   AttachA  AttachB  UnstrLen  NumSegs  Outputs
(#)   (name)     (#)      (#)      (m)         (-)      (-)
1     chain      1        2        {M.LENGTH:.17g}  {n_seg}   -
---------------------- OPTIONS -----------------------------------------
0        writeLog
{dt:.17g}     dtM
{M.STIFFNESS / M.DIAMETER:.17g}   kbot
0.0      cbot
{depth:.17g}  WtrDpth
{M.RHO_W:.17g}  WtrDnsty
{M.G:.17g}   g
1.0      dtIC
400      TmaxIC
4.0      CdScaleIC
{thresh:.17g}    threshIC
------------------------- OUTPUTS --------------------------------------------
------------------------- need this line --------------------------------------
"""


class _Quiet:
    """Redirect the C library's stdout (MoorDyn prints as it loads) to /dev/null."""

    def __enter__(self):
        import sys

        sys.stdout.flush()
        self.fd = os.dup(1)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)

    def __exit__(self, *exc):
        os.dup2(self.fd, 1)
        os.close(self.fd)


def moordyn_mooring(thresh: float, n_seg: int = MOORING_ELEMENTS) -> dict:
    """MoorDyn's static solve of demos/mooring.py's line: (wall time of ``Create`` and
    ``Init`` [s], H and V [N] (the fairlead's pull on the line), the nodes' unstretched arc
    lengths [m] and ``(x, z)`` positions from the anchor [m])."""
    import tempfile

    import moordyn

    M = _mooring_module()
    fairlead = _fairlead(M)
    text = moordyn_input(M, fairlead, n_seg, thresh)
    depth = fairlead[1] + MOORDYN_FREEBOARD
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "lines.txt")
        with open(path, "w") as fh:
            fh.write(text)
        cwd = os.getcwd()
        os.chdir(tmp)                                # MoorDyn writes its outputs here
        try:
            with _Quiet():
                t0 = time.perf_counter()
                system = moordyn.Create(path)
                moordyn.Init(system, [fairlead[0], 0.0, fairlead[1] - depth], [0.0, 0.0, 0.0])
                wall = time.perf_counter() - t0
                force = moordyn.GetPointForce(moordyn.GetPoint(system, 2))
                line = moordyn.GetLine(system, 1)
                pos = np.array([moordyn.GetLineNodePos(line, i) for i in range(n_seg + 1)])
                moordyn.Close(system)
        finally:
            os.chdir(cwd)
    return {"wall_s": wall, "H": -force[0], "V": -force[2],
            "s": np.linspace(0.0, M.LENGTH, n_seg + 1),
            "xz": np.column_stack([pos[:, 0], pos[:, 2] + depth])}


def fxrod_mooring() -> dict:
    """fxrod's static solve (demos/mooring.py, still water): the same keys as
    :func:`moordyn_mooring`."""
    M = _mooring_module()
    run = M.mooring(MOORING_ELEMENTS)
    F = run["fairlead_force"]
    return {"wall_s": run["wall_s"], "H": F[0], "V": F[1], "s": run["s"],
            "xz": np.column_stack([run["x"], run["z"]])}


def _measure_mooring(label: str, fn, runs: int) -> dict:
    M = _mooring_module()
    fairlead = _fairlead(M)
    H, Ls = elastic_catenary(*fairlead, M.LENGTH, M.WET_WEIGHT, M.EA)
    V = M.WET_WEIGHT * Ls
    walls = []
    for _ in range(runs):
        run = fn()
        walls.append(run["wall_s"])
    err = float(np.max(np.linalg.norm(run["xz"] - catenary_profile(M, run["s"], H, V),
                                      axis=1)))
    return {"label": label, "wall_s": walls, "mean_s": statistics.fmean(walls),
            "H_N": float(run["H"]), "V_N": float(run["V"]),
            "tension_N": float(math.hypot(run["H"], run["V"])),
            "H_error": float(run["H"] / H - 1.0), "V_error": float(run["V"] / V - 1.0),
            "max_profile_error_m": err}


def _mooring(out: dict, a, runs: int) -> None:
    """The mooring line rows of ``out`` and Irvine's closed form ``mooring_irvine``."""
    M = _mooring_module()
    fairlead = _fairlead(M)
    H, Ls = elastic_catenary(*fairlead, M.LENGTH, M.WET_WEIGHT, M.EA)
    out["mooring_irvine"] = {"H_N": H, "V_N": M.WET_WEIGHT * Ls,
                             "tension_N": math.hypot(H, M.WET_WEIGHT * Ls),
                             "suspended_m": Ls, "fairlead_m": [float(v) for v in fairlead]}
    M.mooring(8)  # compile the forms before timing
    out["mooring"].append(_measure_mooring(
        f"fxrod mooring {MOORING_ELEMENTS} el, 4 load steps", fxrod_mooring, runs))
    if a.skip_peers:
        out["skipped"].append("mooring: MoorDyn (--skip-peers)")
    elif _have("moordyn"):
        for thresh in MOORDYN_THRESHOLDS:
            out["mooring"].append(_measure_mooring(
                f"MoorDyn {MOORING_ELEMENTS} segments, threshIC {thresh:g}",
                lambda thresh=thresh: moordyn_mooring(thresh), runs))
    else:
        out["skipped"].append("mooring: MoorDyn not installed (pip install .[peers])")
    _mooring_decay(out, a, runs)


# ---------------------------------------------------------------- mooring line: decay
#: MoorDyn's time step [s] in the decay (its RK2 is stable to about 5e-4 s on 3.9 m
#: segments); its coupling step is fxrod's step ``M.DECAY_H``.
MOORDYN_DECAY_DT = 1e-4
#: MoorDyn's ``threshIC`` of the decay's initial static solve [m/s^2].
MOORDYN_DECAY_THRESH = 1e-4
#: The window [s] over which the settled fairlead force is averaged (the oscillation left
#: has periods of 2.5 s and less).
DECAY_WINDOW = 20.0


def moordyn_decay_line(ei: float = 0.0, ba: float = 0.0,
                       thresh: float = MOORDYN_DECAY_THRESH):
    """MoorDyn's line of demos/mooring.py's decay (``M.decay``) in the current folder (it
    writes its outputs there): the input file ``lines.txt`` with the same
    ``M.DECAY_ELEMENTS`` segments, ``ei`` [N m^2] the line's bending stiffness, ``ba`` its
    internal axial damping (MoorDyn's ``BA/-zeta``), created and its static solve (``Init``,
    ``threshIC`` ``thresh`` [m/s^2]) run with the fairlead at its start. Returns (the system,
    ``where``: t [s] -> the fairlead's prescribed position in MoorDyn's frame [m], the water
    depth [m], the wall time of ``Create`` and ``Init`` [s]); the caller closes the system.
    The fairlead (a coupled point, pinned) moves by ``M.SHIFT`` along x on the quintic ramp
    over ``M.RAMP``: ``moordyn.Step`` takes its position at the step's start and its
    velocity and moves it linearly over the step, so the velocity to give is the step's
    mean (the ramp's positions at the step ends are then exact)."""
    import moordyn

    M = _mooring_module()
    x_f, z_f = _fairlead(M)
    depth = z_f + MOORDYN_FREEBOARD
    with open("lines.txt", "w") as fh:
        fh.write(moordyn_input(M, np.array([x_f, z_f]), M.DECAY_ELEMENTS, thresh, ei=ei,
                               ba=ba, dt=MOORDYN_DECAY_DT))

    def where(t: float) -> list[float]:
        return [x_f + M.SHIFT * quintic_ramp(t, M.RAMP), 0.0, z_f - depth]

    with _Quiet():
        t0 = time.perf_counter()
        system = moordyn.Create("lines.txt")
        moordyn.Init(system, where(0.0), [0.0, 0.0, 0.0])
        init = time.perf_counter() - t0
    return system, where, depth, init


def moordyn_step(system, where, t: float, h: float) -> np.ndarray:
    """One ``moordyn.Step`` of ``h`` [s] from ``t`` [s] with the fairlead on ``where``
    (:func:`moordyn_decay_line`); returns the fairlead's pull on the line ``(F_x, F_z)``
    [N] at the step's end."""
    import moordyn

    a, b = where(t), where(t + h)
    v = [(q - p) / h for p, q in zip(a, b, strict=True)]
    return -np.asarray(moordyn.Step(system, a, v, t, h))[[0, 2]]


def moordyn_decay(t_end: float, ei: float = 0.0, ba: float = 0.0) -> dict:
    """MoorDyn's decay (:func:`moordyn_decay_line`), ``moordyn.Step`` every ``M.DECAY_H`` to
    ``t_end`` [s]. Returns ``t`` [s], ``fairlead_force`` ``(F_x, F_z)`` [N] (the pull on the
    line at the step's end), ``mid`` ``(x, z)`` [m] of the node at mid-length (from the
    anchor), ``wall_s`` of the steps [s] and ``init_s`` of ``Create`` and ``Init`` [s]."""
    import tempfile

    import moordyn

    M = _mooring_module()
    n_seg, h = M.DECAY_ELEMENTS, M.DECAY_H
    steps = int(round(t_end / h))
    F, mid = np.empty((steps + 1, 2)), np.empty((steps + 1, 2))
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)                                # MoorDyn writes its outputs here
        try:
            system, where, depth, init = moordyn_decay_line(ei, ba)
            point, line = moordyn.GetPoint(system, 2), moordyn.GetLine(system, 1)
            with _Quiet():
                F[0] = -np.asarray(moordyn.GetPointForce(point))[[0, 2]]
                mid[0] = np.asarray(moordyn.GetLineNodePos(line, n_seg // 2))[[0, 2]]
                t0 = time.perf_counter()
                for i in range(steps):
                    F[i + 1] = moordyn_step(system, where, i * h, h)
                    mid[i + 1] = np.asarray(moordyn.GetLineNodePos(line, n_seg // 2))[[0, 2]]
                wall = time.perf_counter() - t0
                moordyn.Close(system)
        finally:
            os.chdir(cwd)
    mid[:, 1] += depth
    return {"t": h * np.arange(steps + 1), "fairlead_force": F, "mid": mid, "wall_s": wall,
            "init_s": init}


def fxrod_decay(t_end: float) -> dict:
    """fxrod's decay (demos/mooring.py's ``decay``: its static pre-solve, then the steps):
    the keys of :func:`moordyn_decay`, ``wall_s`` of the steps only."""
    run = _mooring_module().decay(t_end)
    return {k: run[k] for k in ("t", "fairlead_force", "mid", "wall_s")}


def _decay_row(label: str, fn, runs: int, ref: dict, base: dict | None) -> tuple[dict, dict]:
    """A decay row: wall times of ``runs`` runs of ``fn``; from the last run the settled
    fairlead force (the mean over the last :data:`DECAY_WINDOW`, a quarter of the run if
    shorter) against Irvine's catenary through the new fairlead (``ref``), its change from
    the window before, the tension's range over the last window (the oscillation left), the
    peak tension, the settled mid-length node and, against fxrod's run ``base``, the largest
    difference of the fairlead tension over the run (MoorDyn's end-of-step force averaged
    over each step, as fxrod's reaction is) and of the mid-length node. Returns (row, the
    last run)."""
    walls = []
    for _ in range(runs):
        run = fn()
        walls.append(run["wall_s"])
    t, F = run["t"], run["fairlead_force"]
    window = min(DECAY_WINDOW, t[-1] / 4)            # --quick: 2.5 s of 10 s
    mean, before = window_means(t, F, window)
    mid, _ = window_means(t, run["mid"], window)
    T = np.hypot(F[:, 0], F[:, 1])
    row = {"label": label, "wall_s": walls, "mean_s": statistics.fmean(walls),
           "t_end_s": float(t[-1]), "initial_tension_N": float(T[0]),
           "peak_tension_N": float(T.max()), "H_N": float(mean[0]), "V_N": float(mean[1]),
           "H_error": float(mean[0] / ref["H_new_N"] - 1.0),
           "V_error": float(mean[1] / ref["V_new_N"] - 1.0),
           "unsettled_N": float(np.max(np.abs(mean - before))),
           "last_window_range_N": float(np.ptp(T[t > t[-1] - window])),
           "mid_x_m": float(mid[0]), "mid_z_m": float(mid[1])}
    if "init_s" in run:
        row["init_s"] = float(run["init_s"])
    if base is not None:
        Tb = np.hypot(*base["fairlead_force"].T)
        Tm = np.concatenate([T[:1], 0.5 * (T[1:] + T[:-1])])
        dT = np.abs(Tm - Tb)
        row["max_tension_difference_N"] = float(dT.max())
        row["at_s"] = float(t[np.argmax(dT)])
        row["tension_difference"] = float(dT.max() / ref["tension_change_N"])
        row["max_mid_difference_m"] = float(np.max(np.linalg.norm(run["mid"] - base["mid"],
                                                                  axis=1)))
    return row, run


def _mooring_decay(out: dict, a, runs: int) -> None:
    """The decay rows ``out["mooring_decay"]`` and Irvine's catenaries through the old and
    the new fairlead ``out["mooring_decay_irvine"]`` (above the lying chain)."""
    M = _mooring_module()
    t_end = 10.0 if a.quick else 80.0
    x_f, z_f = _fairlead(M)
    z_f += M.WET_WEIGHT / M.STIFFNESS            # above the lying chain (module docstring)
    ref = {"shift_m": M.SHIFT, "ramp_s": M.RAMP, "fairlead_m": [float(x_f), float(z_f)]}
    for key, x in (("old", x_f), ("new", x_f + M.SHIFT)):
        H, Ls = elastic_catenary(x, z_f, M.LENGTH, M.WET_WEIGHT, M.EA)
        ref |= {f"H_{key}_N": H, f"V_{key}_N": M.WET_WEIGHT * Ls,
                f"tension_{key}_N": math.hypot(H, M.WET_WEIGHT * Ls)}
    ref["tension_change_N"] = ref["tension_new_N"] - ref["tension_old_N"]
    out["mooring_decay_irvine"] = ref
    M.decay(M.DECAY_H)  # compile the forms before timing
    row, base = _decay_row(f"fxrod decay {M.DECAY_ELEMENTS} el, EI {M.DECAY_EI:g}, "
                           f"h {M.DECAY_H:g}", lambda: fxrod_decay(t_end), runs, ref, None)
    out["mooring_decay"].append(row)
    if a.skip_peers:
        out["skipped"].append("mooring: MoorDyn decay (--skip-peers)")
    elif _have("moordyn"):
        for ba in (-1.0, 0.0):
            out["mooring_decay"].append(_decay_row(
                f"MoorDyn decay {M.DECAY_ELEMENTS} segments, dtM {MOORDYN_DECAY_DT:g}, "
                f"BA {ba:g}", lambda ba=ba: moordyn_decay(t_end, ba=ba), runs, ref, base)[0])
    else:
        out["skipped"].append("mooring: MoorDyn decay not installed (pip install .[peers])")


# ---------------------------------------------------------------- driver
def _measure(label: str, fn, runs: int, ref: np.ndarray) -> dict:
    walls, err = [], None
    for _ in range(runs):
        wall, tips = fn()
        walls.append(wall)
        if not np.all(np.isfinite(tips)):
            raise RuntimeError(f"{label}: non-finite tip (unstable step)")
        err = max_distance(tips[: len(ref)], ref)
    return {"label": label, "wall_s": walls, "mean_s": statistics.fmean(walls),
            "max_tip_error_m": err}


def _have(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="smoke test (see module docstring)")
    ap.add_argument("--skip-peers", action="store_true",
                    help="fxrod's rows only (re-measure them without the long peer runs)")
    ap.add_argument("--only", choices=COMPARISONS + tuple(ALIASES),
                    help="one comparison; its rows replace those in the --json file")
    ap.add_argument("--json", default=None,
                    help="write the results to this JSON file (without it: print only)")
    a = ap.parse_args(argv)
    a.only = ALIASES.get(a.only, a.only)
    runs = 1 if a.quick else a.runs
    t_end = 0.02 if a.quick else 0.3
    out: dict = {name: [] for name in COMPARISONS} | {"mooring_decay": [], "skipped": []}
    if a.only in (None, "cantilever"):
        _cantilever(out, a, runs, t_end)
    if a.only in (None, "ancf"):
        _ancf(out, a, runs)
    if a.only in (None, "snake"):
        _snake(out, a, runs)
    if a.only in (None, "mooring"):
        _mooring(out, a, runs)
    if a.only in (None, "mujoco"):
        _mujoco(out, a, runs, t_end)
    _ratios(out)
    _print(out)
    out["t_end"] = t_end
    out["quick"] = a.quick
    if a.json and not a.quick:
        if a.only and os.path.exists(a.json):  # keep the other comparison's rows
            with open(a.json) as fh:
                old = json.load(fh)
            for other in COMPARISONS:
                if other != a.only:
                    out[other] = old.get(other, [])
            for key, owner in (("mooring_irvine", "mooring"), ("mooring_decay", "mooring"),
                               ("mooring_decay_irvine", "mooring"), ("mujoco_match", "mujoco")):
                if a.only != owner and key in old:
                    out[key] = old[key]
            out["skipped"] = [x for x in old["skipped"] if _comparison_of(x) != a.only] \
                + out["skipped"]
        with open(a.json, "w") as fh:
            json.dump(out, fh, indent=1)
    return out


def _comparison_of(skipped: str) -> str:
    """The comparison a ``skipped`` line of an earlier run belongs to (``"snake: ..."``;
    the older lines name PyElastica for the cantilever, Exudyn for the ANCF release)."""
    head = skipped.split(":", 1)[0]
    if head in COMPARISONS:
        return head
    return "cantilever" if "PyElastica" in skipped else "ancf"


def _cantilever(out: dict, a, runs: int, t_end: float) -> None:
    """The Ex. 6.2 cantilever rows of ``out``."""
    t_data, tip_data = cantilever_data(t_end)
    fxrod_cantilever(0.002)  # compile the forms before timing
    lag = SolverSettings().jacobian_lag
    out["cantilever"].append(_measure(
        "fxrod n_e 8, h 1e-3", lambda: fxrod_cantilever(t_end, jacobian_lag=lag),
        runs, tip_data))
    out["cantilever"].append(_measure(
        "fxrod n_e 8, h 1e-3, lag persisting",
        lambda: fxrod_cantilever(t_end, jacobian_lag=lag, persists=True), runs, tip_data))
    out["cantilever"].append(_measure("fxrod n_e 8, h 1e-3, full Newton",
                                      lambda: fxrod_cantilever(t_end), runs, tip_data))
    out["cantilever"].append(_measure("fxrod n_e 8, h 1e-3, full Newton, MUMPS",
                                      lambda: fxrod_cantilever(t_end, "mumps"), runs, tip_data))
    if a.skip_peers:
        out["skipped"].append("PyElastica and Exudyn (--skip-peers)")
    elif _have("elastica"):
        elastica_cantilever(100, 0.001)  # jit
        for n in (100, 400):
            out["cantilever"].append(_measure(
                f"PyElastica {n} el, dt {1e-3 / ELASTICA_STEPS_PER_MS[n]:.2g}",
                lambda n=n: elastica_cantilever(n, t_end), runs, tip_data))
    else:
        out["skipped"].append("PyElastica not installed (pip install .[peers])")


def _mujoco(out: dict, a, runs: int, t_end: float) -> None:
    """The Ex. 6.2 rows of MuJoCo and of fxrod's coarse meshes, and ``out["mujoco_match"]``:
    MuJoCo's best error and wall time, and the coarsest fxrod mesh at that error or below."""
    if a.skip_peers or not _have("mujoco"):
        out["skipped"].append("mujoco: " + ("--skip-peers" if a.skip_peers else
                                            "MuJoCo not installed (pip install .[peers])"))
        return
    _, tip_data = cantilever_data(t_end)
    mujoco_cantilever(4, 1e-3, 0.002)                       # load the library
    for n, dt in MUJOCO_RUNS[:1] if a.quick else MUJOCO_RUNS:
        out["mujoco"].append(_measure(f"MuJoCo 1D flex {n} edges, dt {dt:g}",
                                      lambda n=n, dt=dt: mujoco_cantilever(n, dt, t_end),
                                      runs, tip_data))
    best = min(out["mujoco"], key=lambda r: r["max_tip_error_m"])
    fxrod_cantilever(0.002, n_e=2)                          # compile the forms
    lag = SolverSettings().jacobian_lag
    match = None
    for n_e in FXROD_LADDER:
        row = _measure(f"fxrod n_e {n_e}, h 1e-3",
                       lambda n_e=n_e: fxrod_cantilever(t_end, jacobian_lag=lag, n_e=n_e),
                       runs, tip_data)
        out["mujoco"].append(row)
        if row["max_tip_error_m"] <= best["max_tip_error_m"]:
            match = row
            break
    out["mujoco_match"] = {"mujoco": best["label"], "fxrod": match and match["label"],
                           "mujoco_error_m": best["max_tip_error_m"],
                           "fxrod_error_m": match and match["max_tip_error_m"],
                           "ratio": match and best["mean_s"] / match["mean_s"]}


def _ancf(out: dict, a, runs: int) -> None:
    """The ANCF release rows of ``out``."""
    ref = ancf_reference(600 if a.quick else 3000)
    for n in (10, 40):
        out["ancf"].append(_measure(f"fxrod ANCF {n} el, 300 steps",
                                    lambda n=n: fxrod_ancf(n, 300), runs, ref))
        out["ancf"].append(_measure(f"fxrod ANCF general path {n} el, 300 steps",
                                    lambda n=n: fxrod_ancf(n, 300, fast=False), runs, ref))
    if a.skip_peers:
        pass
    elif _have("exudyn"):
        for n in (10, 40):
            out["ancf"].append(_measure(f"Exudyn ANCFCable2D {n} el, 300 steps",
                                        lambda n=n: exudyn_ancf(n), runs, ref))
    else:
        out["skipped"].append("Exudyn not installed (pip install .[peers])")


def _ratios(out: dict) -> None:
    """Each row's mean wall time over fxrod's (default path) in the same comparison."""
    for key in ("mooring", "mooring_decay"):
        for r in out[key]:
            r["ratio"] = r["mean_s"] / out[key][0]["mean_s"]
    for r in out["mujoco"]:  # over the fxrod row at MuJoCo's best error
        r["ratio"] = r["mean_s"] / out["mujoco"][-1]["mean_s"]
    for r in out["snake"]:
        r["ratio"] = r["mean_s"] / out["snake"][0]["mean_s"]
        r["speed_ratio"] = r["speed_m_s"] / out["snake"][0]["speed_m_s"]
    for key, base in (("cantilever", 0), ("ancf", None)):
        rows = out[key]
        for r in rows:
            if base is not None:
                ref_row = rows[base]
            else:  # the fxrod ANCF row with the same element count
                n = r["label"].split(" el")[0].split()[-1]
                ref_row = next(x for x in rows if x["label"].startswith(f"fxrod ANCF {n} el"))
            r["ratio"] = r["mean_s"] / ref_row["mean_s"]


def _print(out: dict) -> None:
    """The table of ``out``."""
    if out["cantilever"] or out["ancf"] or out["mujoco"]:
        print(f"{'comparison':<40} {'wall [s] (runs)':<30} {'mean [s]':>9} "
              f"{'tip err [m]':>11} {'ratio':>8}")
    for key in ("cantilever", "ancf", "mujoco"):
        for r in out[key]:
            ws = ", ".join(f"{w:.3g}" for w in r["wall_s"])
            print(f"{r['label']:<40} {ws:<30} {r['mean_s']:>9.3g} {r['max_tip_error_m']:>11.2e} "
                  f"{r['ratio']:>8.3g}")
    if out["snake"]:
        print(f"{'continuum snake':<44} {'wall [s] (runs)':<26} {'mean [s]':>9} "
              f"{'speed [m/s]':>11} {'ratio':>8} {'speed ratio':>11}")
    for r in out["snake"]:
        ws = ", ".join(f"{w:.3g}" for w in r["wall_s"])
        print(f"{r['label']:<44} {ws:<26} {r['mean_s']:>9.3g} {r['speed_m_s']:>11.4g} "
              f"{r['ratio']:>8.3g} {r['speed_ratio']:>11.4g}")
    if out["mooring"]:
        ref = out["mooring_irvine"]
        print(f"{'mooring line':<40} {'wall [s] (runs)':<22} {'mean [s]':>9} {'H [N]':>9} "
              f"{'V [N]':>9} {'T [N]':>9} {'profile [m]':>11} {'ratio':>7}")
        print(f"{'Irvine elastic catenary':<40} {'':<22} {'':>9} {ref['H_N']:>9.6g} "
              f"{ref['V_N']:>9.6g} {ref['tension_N']:>9.6g}")
    for r in out["mooring"]:
        ws = ", ".join(f"{w:.3g}" for w in r["wall_s"])
        print(f"{r['label']:<40} {ws:<22} {r['mean_s']:>9.3g} {r['H_N']:>9.6g} "
              f"{r['V_N']:>9.6g} {r['tension_N']:>9.6g} {r['max_profile_error_m']:>11.2e} "
              f"{r['ratio']:>7.3g}")
    if out["mooring_decay"]:
        ref = out["mooring_decay_irvine"]
        print(f"{'mooring decay':<46} {'wall [s]':>8} {'H [N]':>9} {'V [N]':>9} "
              f"{'peak T [N]':>10} {'dT max [N]':>10} {'dT/change':>9} {'ratio':>7}")
        print(f"{'Irvine, new fairlead (old T ' + format(ref['tension_old_N'], '.6g') + ' N)':<46}"
              f" {'':>8} {ref['H_new_N']:>9.6g} {ref['V_new_N']:>9.6g}")
    for r in out["mooring_decay"]:
        print(f"{r['label']:<46} {r['mean_s']:>8.3g} {r['H_N']:>9.6g} {r['V_N']:>9.6g} "
              f"{r['peak_tension_N']:>10.6g} {r.get('max_tension_difference_N', 0.0):>10.4g} "
              f"{r.get('tension_difference', 0.0):>9.3g} {r['ratio']:>7.3g}")
    for line in out["skipped"]:
        print(f"skipped: {line}")


if __name__ == "__main__":
    main()
