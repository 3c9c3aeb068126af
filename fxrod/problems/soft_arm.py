"""Soft-robot examples: the data of the pneumatic soft arm of Ex. 6.4 (theory §4.4) and of a
tendon hook, the arm's input paths and the exact static solutions used to check them (SI
units throughout). The models are assembled in plain sight in ``demos/soft_arm.py`` and
``demos/tendon_hook.py`` (``fxrod.studies.cases.demo("soft_arm").problem(...)``).

The read-outs of the demos built on them: the hook's end state against its closed form
(:func:`end_state_error`), the tip-control table and summary (``demos/tip_control.py``), and
the grasp's exact contact onset, measured onset and summary (``demos/soft_arm_grasp.py``).

Soft arm (theory §4.4): a silicone rod of length 0.1755 m, diameter d = 0.06 m, E = 6e5 Pa,
nu = 0.35, clamped at the origin along e3 with directors ``d1 = -e1, d2 = -e2, d3 = e3``
(director-orientation note of theory §4.4), three chambers at the material offsets
``r_k (cos alpha_k, sin alpha_k)``, ``alpha_k = pi/6, 5 pi/6, 3 pi/2``, with
``tau_k = f(t)/2 (1 + cos(theta(t) - alpha_k))`` (79)-(81).

Parameters identified from the authors' data (calibrated, tests/test_actuation.py; the
heart path is held out):
``r_k = 0.065 m`` (the text's "6.5?10^-2") and density ``rho = 1000 kg/m^3``.
The method notes (theory §4.4) first recommended r_k = 0.0625 m and rho = 1080 kg/m^3
from the literature; with those the tips miss
the data by up to 5.0e-3 m (circle) and 4.0e-3 m (heart). Reason: the notes' static fit
took the bending angle as ``K l (1 + N/EA)`` (curvature per deformed length), but in this
Cosserat model K is per reference length (``K = axial(R^T dR/ds)``, s the reference arc
length), so the angle is ``K l``; the data's plateau radius 0.09266 m then needs
r_k = 0.065 m (exact static arc: 0.09238 m; the remaining 3e-4 m is dynamic). With
r_k = 0.065 the density is sharply identified by the dynamics: rms tip error over the
circle run 6.0e-4, 4.6e-4, 3.0e-4, 7.0e-4 m for rho = 900, 950, 1000, 1050 kg/m^3 (9.5e-4 at
1080). Inputs are evaluated at ``t_{n+1/2}`` (averaging the end-point inputs fits worse:
rms 4.7e-4 m). Note that with d = 0.06 m the chamber offset lies outside the section
(radius 0.03 m): the published geometry is inconsistent (theory §4.4), so the demo disables
the offset check explicitly.

Exact statics (used by the tests): a free-ended rod with no loads but actuators whose
material stress ``sigma_act`` is constant on a segment is in equilibrium with
``sigma = -sigma_act`` there (the total stress resultant vanishes at the free end and is
constant without loads), so the strains ``Gamma = e3 - C_N N_act``, ``K = -C_M M_act`` are
constant and the centreline is a circular arc (a helix in general), integrated exactly by
:func:`constant_strain_curve`. For chambers ``sigma_act = sum tau_k (0, 0, 1, rho_k2,
-rho_k1, 0)``. For straight-routed tendons the same holds with ``tau_k = T_k``: on the arc
``K = T (-rho_2/k_b1, rho_1/k_b2, 0)`` is normal to e3, so ``R^T r_k' = Gamma + K x rho_k =
(1 - T/k_e - T(rho_1^2/k_b2 + rho_2^2/k_b1)) e3`` is parallel to e3 (concentric arcs): the
tendon direction is d3, the tendon shortens by the axial compression plus ``|K| |rho_k|``, and
the equations ``N = -T a/|a|``, ``M = -T rho x a/|a|`` are solved exactly (shear is zero,
``a_3 > 0`` is required).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from fxrod.core.rod import Section
from fxrod.errors import ParameterError


# ---------------------------------------------------------------------------- soft arm
@dataclass(frozen=True)
class SoftArmParameters:
    """Ex. 6.4 parameters (Table 4 and theory §4.4), SI units.

    Attributes
    ----------
    length : float
        Arm length l [m].
    diameter : float
        Section diameter d [m] (0.06 reproduces the data; the text prints 0.03).
    chamber_radius : float
        Chamber offset r_k [m] (0.065 reproduces the data, module docstring).
    E : float
        Young's modulus [Pa].
    nu : float
        Poisson ratio (G = E/(2(1 + nu)) = 2.22e5 Pa).
    rho : float
        Density [kg/m^3] (unreadable in the text; 1000 fits the data, module docstring).
    f_max : float
        Amplitude of the chamber forces [N] (<= 0).
    t1, t2, t_end : float
        End of bending, end of the revolution, end of the run [s] (79)-(80).
    h : float
        Time step [s].
    n_elements : int
        Number of elements.
    """

    length: float = 0.1755
    diameter: float = 0.06
    chamber_radius: float = 0.065
    E: float = 6e5
    nu: float = 0.35
    rho: float = 1.0e3
    f_max: float = -50.0
    t1: float = 0.5
    t2: float = 3.5
    t_end: float = 4.0
    h: float = 0.05
    n_elements: int = 10

    @property
    def alphas(self) -> np.ndarray:
        """Chamber angles alpha_k [rad] in the material (d1, d2) plane."""
        return np.array([math.pi / 6, 5 * math.pi / 6, 9 * math.pi / 6])

    @property
    def offsets(self) -> np.ndarray:
        """Chamber offsets ``r_k (cos alpha_k, sin alpha_k)`` [m], shape (3, 2)."""
        a = self.alphas
        return self.chamber_radius * np.c_[np.cos(a), np.sin(a)]

    @property
    def section(self) -> Section:
        """Solid circular silicone section (k_s = GA, k_e = EA, k_b = EI, k_t = G I_T)."""
        return Section.circular(radius=0.5 * self.diameter, E=self.E, rho=self.rho, nu=self.nu)


SOFT_ARM = SoftArmParameters()
PATHS = ("circle", "heart")


def circle_amplitude(t: float, p: SoftArmParameters = SOFT_ARM) -> float:
    """Amplitude f(t) [N] of the circle input (79): cosine ramp to f_max on [0, t1],
    constant to t2, cosine ramp back to 0 at T (third branch from the data, theory §4.4)."""
    if t <= 0.0:
        return 0.0
    if t <= p.t1:
        return 0.5 * p.f_max * (1.0 - math.cos(math.pi * t / p.t1))
    if t <= p.t2:
        return p.f_max
    if t <= p.t_end:
        return 0.5 * p.f_max * (1.0 + math.cos(math.pi * (t - p.t2) / (p.t_end - p.t2)))
    return 0.0


def circle_phase(t: float, p: SoftArmParameters = SOFT_ARM) -> float:
    """Bending direction theta(t) [rad] of the circle input (80): 0 -> 2 pi smoothly on
    [t1, t2]."""
    if t <= p.t1:
        return 0.0
    if t <= p.t2:
        return math.pi * (1.0 - math.cos(math.pi * (t - p.t1) / (p.t2 - p.t1)))
    return 2.0 * math.pi


def heart_curve(u: float) -> tuple[float, float]:
    """Heart curve (81) ``(sin^3 u, cos u - cos 2u)`` (exponent 3 recovered from the data)."""
    return math.sin(u) ** 3, math.cos(u) - math.cos(2.0 * u)


def heart_amplitude(t: float, p: SoftArmParameters = SOFT_ARM) -> float:
    """``f(t) = f_max r(2 pi t/T)/2`` [N] with r the heart curve's radius (max 2 at u = pi)."""
    x, y = heart_curve(2.0 * math.pi * t / p.t_end)
    return p.f_max * 0.5 * math.hypot(x, y)


def heart_phase(t: float, p: SoftArmParameters = SOFT_ARM) -> float:
    """``theta(t) = atan2(y, x)`` [rad] of the heart curve at ``u = 2 pi t/T`` (81)."""
    x, y = heart_curve(2.0 * math.pi * t / p.t_end)
    return math.atan2(y, x)


def chamber_forces(path: str, t: float, p: SoftArmParameters = SOFT_ARM) -> np.ndarray:
    """``tau_k(t) = f(t)/2 (1 + cos(theta(t) - alpha_k))`` [N], k = 1..3 (79)-(81)."""
    if path == "circle":
        f, th = circle_amplitude(t, p), circle_phase(t, p)
    elif path == "heart":
        f, th = heart_amplitude(t, p), heart_phase(t, p)
    else:
        raise ParameterError("path", path, "'circle' or 'heart'")
    return 0.5 * f * (1.0 + np.cos(th - p.alphas))


# ---------------------------------------------------------------------------- statics
def skew(v: Sequence[float]) -> np.ndarray:
    """Matrix of ``x -> v x x``."""
    a, b, c = (float(x) for x in v)
    return np.array([[0.0, -c, b], [c, 0.0, -a], [-b, a, 0.0]])


def constant_strain_curve(Gamma, K, s: np.ndarray, phi0=(0.0, 0.0, 0.0), R0=None):
    """Exact configuration of a rod segment with constant strains (theory §1.2).

    ``R' = R skew(K)``, ``phi' = R Gamma``, so ``R(s) = R0 exp(s skew K)`` and
    ``phi(s) = phi0 + R0 (s I + (1 - cos ks)/k^2 S + (ks - sin ks)/k^3 S^2) Gamma`` with
    ``S = skew K``, ``k = |K|`` (Rodrigues).

    Parameters
    ----------
    Gamma, K : 3-vectors
        Constant material strains (``Gamma`` dimensionless, ``K`` [1/m]).
    s : array
        Arc lengths [m] from the segment start.
    phi0 : 3-vector
        Position [m] at ``s = 0``.
    R0 : (3, 3) array, optional
        Directors at ``s = 0`` as columns (default identity).

    Returns
    -------
    phi : (n, 3) array [m], R : (n, 3, 3) array
    """
    G = np.asarray(Gamma, dtype=float)
    Kv = np.asarray(K, dtype=float)
    R0 = np.eye(3) if R0 is None else np.asarray(R0, dtype=float)
    S = skew(Kv)
    k = float(np.linalg.norm(Kv))
    s = np.atleast_1d(np.asarray(s, dtype=float))
    phis, Rs = [], []
    for si in s:
        x = k * si
        if x < 1e-4:  # series of the coefficients (relative error < 1e-17)
            c1 = si**2 * (0.5 - x**2 / 24.0)
            c2 = si**3 * (1.0 / 6.0 - x**2 / 120.0)
            e1, e2 = si * (1.0 - x**2 / 6.0), si**2 * (0.5 - x**2 / 24.0)
        else:
            c1 = (1.0 - math.cos(x)) / k**2
            c2 = (x - math.sin(x)) / k**3
            e1, e2 = math.sin(x) / k, (1.0 - math.cos(x)) / k**2
        integ = si * np.eye(3) + c1 * S + c2 * S @ S
        rot = np.eye(3) + e1 * S + e2 * S @ S
        phis.append(np.asarray(phi0, dtype=float) + R0 @ integ @ G)
        Rs.append(R0 @ rot)
    return np.array(phis), np.array(Rs)


def static_strains(section: Section, taus: Sequence[float], offsets: Sequence) -> tuple:
    """Constant strains of a free segment under constant-offset actuators (module docstring).

    ``sigma_act = sum_k tau_k (0, 0, 1, rho_k2, -rho_k1, 0)``, ``Gamma = e3 - N_act/k``,
    ``K = -M_act/k`` (componentwise stiffnesses of ``section``). Valid for chambers and for
    straight-routed tendons (``tau_k = T_k``, concentric arcs).

    Returns
    -------
    Gamma, K : 3-vectors
    """
    sig = np.zeros(6)
    for tau, off in zip(taus, offsets, strict=True):
        r1, r2 = (float(x) for x in off)
        sig += float(tau) * np.array([0.0, 0.0, 1.0, r2, -r1, 0.0])
    eps = -sig / section.stiffness
    return np.array([0.0, 0.0, 1.0]) + eps[:3], eps[3:]


def tendon_stretch(section: Section, Gamma, K, offset) -> float:
    """``a_3 = e3 . (Gamma + K x rho)`` of a straight-routed tendon on the arc (must be > 0:
    otherwise the tendon line would fold back and no such static state exists)."""
    rho = np.array([offset[0], offset[1], 0.0])
    return float((np.asarray(Gamma) + np.cross(K, rho))[2])


# ---------------------------------------------------------------------------- tendon hook
@dataclass(frozen=True)
class HookParameters:
    """A soft tendon-driven finger curling into a hook (SI units).

    A silicone rod along e1, clamped at the origin, ``d1 = e3`` (up), ``d2 = -e2``; one tendon
    at the material offset ``(offset, 0)`` (above the centreline) over ``[s_a, L]``, i.e.
    guided at ``s_a`` and anchored at the tip. The tension is chosen so that the distal part
    curls through ``hook_angle``.
    """

    length: float = 0.2
    radius: float = 0.01
    E: float = 1e6
    nu: float = 0.45
    rho: float = 1.1e3
    offset: float = 0.008
    s_a: float = 0.05
    hook_angle: float = 1.25 * math.pi
    n_elements: int = 16

    @property
    def section(self) -> Section:
        return Section.circular(radius=self.radius, E=self.E, rho=self.rho, nu=self.nu)

    @property
    def tension(self) -> float:
        """Tension T [N] with ``K_2 (L - s_a) = T rho (L - s_a)/k_b = hook_angle``."""
        return self.hook_angle * self.section.k_b2 / (self.offset * (self.length - self.s_a))


HOOK = HookParameters()


def tendon_hook_exact(p: HookParameters = HOOK, tension: float | None = None,
                      s: np.ndarray | None = None):
    """Closed-form static state of the hook under the tension ``T`` [N] (module docstring):
    straight, unstressed shank on ``[0, s_a]``; on ``[s_a, L]`` the constant strains
    ``Gamma = (1 - T/k_e) e3``, ``K = (0, T rho/k_b, 0)`` (an arc of radius
    ``(1 - T/k_e)/K_2`` curling towards the tendon).

    Returns
    -------
    phi : (n, 3) array [m], R : (n, 3, 3) array at the arc lengths ``s`` (default: tip only).
    """
    T = p.tension if tension is None else float(tension)
    sec = p.section
    G, K = static_strains(sec, [T], [(p.offset, 0.0)])
    if tendon_stretch(sec, G, K, (p.offset, 0.0)) <= 0.0:
        raise ParameterError("tension", T, "small enough that the tendon line keeps a_3 > 0")
    R0 = np.column_stack([[0.0, 0.0, 1.0], [0.0, -1.0, 0.0], [1.0, 0.0, 0.0]])
    s = np.array([p.length]) if s is None else np.atleast_1d(np.asarray(s, dtype=float))
    phis, Rs = [], []
    for si in s:
        if si <= p.s_a:
            phis.append(R0 @ [0.0, 0.0, si])
            Rs.append(R0)
        else:
            ph, R = constant_strain_curve(G, K, [si - p.s_a], R0 @ [0.0, 0.0, p.s_a], R0)
            phis.append(ph[0])
            Rs.append(R[0])
    return np.array(phis), np.array(Rs)


def end_state_error(sim, p: HookParameters = HOOK) -> tuple[float, float] | None:
    """The hook's end state against :func:`tendon_hook_exact`: ``max |phi - phi_exact| / L``
    [-] and ``max |d_k - d_k,exact|`` [-] at the nodes of the run ``sim``
    (:class:`fxrod.runs.simulation.Simulation`; rank 0, None elsewhere)."""
    g = sim.centreline()
    if g is None:
        return None
    s, q = g
    phi, R = tendon_hook_exact(p, s=s)
    e_pos = float(np.max(np.linalg.norm(q[:, 0:3] - phi, axis=1))) / p.length
    d = q[:, 3:12].reshape(-1, 3, 3).transpose(0, 2, 1)   # columns d_k
    return e_pos, float(np.max(np.abs(d - R)))


def write_tip_csv(path, sim, target: np.ndarray) -> None:
    """A tip-control table (``demos/tip_control.py``): ``t`` [s], ``tip_1..3`` of the run
    ``sim`` and ``target_1..3`` [m], one row a recorded time, with its units file."""
    import csv

    from fxrod.output.tables import write_columns_json

    columns = {"t": "s", **{f"{c}_{k}": "m" for c in ("tip", "target") for k in (1, 2, 3)}}
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(list(columns))
        w.writerows(np.column_stack([sim.column("t"), *(sim.column(f"tip_{k}") for k in
                                                         (1, 2, 3)), target]).tolist())
    write_columns_json(path, columns, meanings={
        **{f"target_{k}": f"target of the tip, component {k}" for k in (1, 2, 3)}})


def tip_control_summary(sim, target: np.ndarray, efforts, atol: float, clipped: int,
                        t_tracking: float) -> str:
    """The read-out of a tip-control run ``sim`` (``demos/tip_control.py``) against its
    ``target`` [m] (one row a recorded time): the tip error [mm] at the start and the end,
    the largest after ``t_tracking`` [s], the clipped steps, and the energy balance (the
    largest residual [J] and its ratio to ``atol |e|_2``, ``efforts`` the steps' ``|e|_2``),
    with the port and external work [J]."""
    t = sim.column("t")
    tip = np.column_stack([sim.column(f"tip_{k}") for k in (1, 2, 3)])
    error = np.linalg.norm(tip - target, axis=1)
    residual = np.abs(sim.column("energy_residual")[1:])
    ratio = np.max(residual / (atol * np.array(efforts)))
    lines = [f"tip error {1e3 * error[0]:.2f} mm at t = 0, {1e3 * error[-1]:.2f} mm at "
             f"t = {t[-1]:.2f} s; clipped steps {clipped}"]
    tracking = t > t_tracking
    if np.any(tracking):
        lines.append(f"while tracking the circle (t > {t_tracking:g} s): max tip error "
                     f"{1e3 * error[tracking].max():.2f} mm")
    lines.append(f"energy balance: max |residual| {residual.max():.2e} J = {ratio:.2e} of "
                 f"atol |e|_2; port work {sim.column('port_work')[-1]:.4e} J, "
                 f"external work {sim.column('external_work')[-1]:.4e} J")
    return "\n".join(lines)


def one_side_forces(f: float, p: SoftArmParameters = SOFT_ARM) -> np.ndarray:
    """``tau_k = f/2 (1 + cos alpha_k)`` [N], k = 1..3: the amplitude ``f`` [N] in the bending
    direction theta = 0 of (79) (towards +e1)."""
    return 0.5 * f * (1.0 + np.cos(p.alphas))


def grasp_gap(f: float, centre, axis, radius: float, p: SoftArmParameters = SOFT_ARM,
              n_points: int = 2001) -> float:
    """Smallest surface gap [m] between a cylinder (a point ``centre`` of its axis [m], the
    axis direction ``axis``, radius ``radius`` [m]) and the exact static arc of the
    unobstructed arm under :func:`one_side_forces` of the amplitude ``f`` [N] (constant
    strains, :func:`static_strains`, :func:`constant_strain_curve`)."""
    gamma, kappa = static_strains(p.section, one_side_forces(f, p), p.offsets)
    R0 = np.column_stack([[-1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0]])   # d1, d2, d3
    phi, _ = constant_strain_curve(gamma, kappa, np.linspace(0.0, p.length, n_points), R0=R0)
    d = phi - np.asarray(centre)
    d -= np.outer(d @ np.asarray(axis), axis)
    return float(np.min(np.linalg.norm(d, axis=1))) - radius - 0.5 * p.diameter


def grasp_onset_force(f_max: float, centre, axis, radius: float,
                      p: SoftArmParameters = SOFT_ARM) -> float:
    """Amplitude f* [N] at which the static arc first touches the cylinder (:func:`grasp_gap`
    = 0, bisection on [f_max, 0]); NaN if it never does."""
    from scipy.optimize import brentq

    def gap(f: float) -> float:
        return grasp_gap(f, centre, axis, radius, p)

    if gap(f_max) > 0.0:
        return math.nan
    return brentq(gap, f_max, 0.0, xtol=1e-10)


def contact_onset(sim) -> float:
    """First time [s] the smallest gap (column ``contact_gap_min`` of the run ``sim``) crosses
    zero, linear between the recorded steps; NaN without contact."""
    t, g = sim.column("t"), sim.column("contact_gap_min")
    hit = np.flatnonzero(g < 0.0)
    if hit.size == 0 or hit[0] == 0:
        return math.nan
    i = hit[0]
    return float(t[i - 1] + (t[i] - t[i - 1]) * g[i - 1] / (g[i - 1] - g[i]))


def grasp_summary(sim, name: str, onset_exact: float, penetration_bound: float,
                  wrap_radius: float) -> tuple[dict[str, float], str]:
    """The summary of a grasp run ``sim`` and its line: the steps, the contact onset
    (:func:`contact_onset`) against ``onset_exact`` [s], the contact length [m], normal
    force [N] and wrap angle (contact length over ``wrap_radius`` [m], rad) at the end, the
    largest penetration against ``penetration_bound`` [m], the largest energy residual over
    the largest port work, the chamber (port) work and the friction's dissipation [J]."""
    port = sim.column("port_work")
    row = sim.rows[-1]
    s = {c: float(row[c]) for c in ("t", "port_work", "dissipated")}
    s.update(steps=sim.integ.step_count, onset_time=contact_onset(sim),
             onset_time_exact=onset_exact,
             contact_length=float(sim.column("contact_contact_length")[-1]),
             normal_force=float(sim.column("contact_normal_force")[-1]),
             max_penetration=float(max(0.0, -sim.column("contact_gap_min").min())),
             max_relative_energy_residual=float(np.max(np.abs(sim.column("energy_residual")))
                                                / max(float(np.max(np.abs(port))), 1e-300)))
    s["penetration_bound"] = penetration_bound
    s["wrap_angle"] = s["contact_length"] / wrap_radius
    text = (f"{name}: {s['steps']} steps to t = {s['t']:g} s; contact from t = "
            f"{s['onset_time']:.4f} s (static arc: {s['onset_time_exact']:.4f} s); at the end "
            f"contact length {s['contact_length']:.4f} m (wrap {math.degrees(s['wrap_angle']):.0f}"
            f" deg), normal force {s['normal_force']:.3f} N; max penetration "
            f"{s['max_penetration']:.3e} m (bound {s['penetration_bound']:.3e} m); max |energy "
            f"residual|/port work = {s['max_relative_energy_residual']:.2e}; chamber work "
            f"{s['port_work']:.6g} J, friction {s['dissipated']:.6g} J")
    return s, text
