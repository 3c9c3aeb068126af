"""The README's results and the tests that assert them stay in sync.

:data:`CLAIMS` maps every number of the README section "Results against the references" to
the test that asserts it, the asserted tolerance and the tier. From it:

* ``docs/validation.md`` is generated (``python tests/test_validation_doc.py`` rewrites it)
  and must equal the rendering of :data:`CLAIMS`;
* every README fragment of a claim occurs in the README (whitespace-normalised);
* every number of the results section lies inside a claim's fragment or one of the
  :data:`SETTINGS` fragments (parameters, equation and section references);
* every test exists, its tier (``@pytest.mark.slow`` or not) is the claim's, and the
  asserted tolerance literals occur in the test function's source;
* for an upper bound, the asserted tolerance is at most 3x the stated number.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOC = ROOT / "docs" / "validation.md"
SECTION = "## Results against the references"
MAX_MARGIN = 3.0

FS = "tests/test_flying_spaghetti.py"
CV = "tests/test_cantilever_vibration.py"
VE = "tests/test_viscoelastic.py"
QS = "tests/test_quasistatic.py"
SA = "tests/test_actuation.py"
AE = "tests/test_ancf_element.py"
AD = "tests/test_ancf_dynamics.py"
AG = "tests/test_ancf_graded.py"
XF = "tests/test_cross_formulation.py"
HL = "tests/test_hamel_lattice.py"
RL = "tests/test_reliability.py"
CU = "tests/test_curved.py"
VS = "tests/test_varying_section.py"
SU = "tests/test_supports.py"
LI = "tests/test_linear.py"
ST = "tests/test_structures.py"
CO = "tests/test_continuation.py"
LS = "tests/test_linear_structures.py"
PH = "tests/test_phmodel.py"
MX = "tests/test_modes_cross_formulation.py"
CT = "tests/test_contact.py"
AJ = "tests/test_adjoint.py"


@dataclass(frozen=True)
class Claim:
    """One README claim.

    Attributes
    ----------
    example : str
        README paragraph (table heading in docs/validation.md).
    what : str
        The claim in words.
    value : str
        The stated value(s).
    fragments : tuple of str
        Verbatim README text (whitespace-normalised) holding the claim's numbers.
    tests : tuple of str
        ``file::function`` of the asserting test(s).
    asserted : str
        The asserted tolerance(s), in words.
    literals : tuple of str
        Source text each test function must contain (the tolerance literals).
    bounds : tuple of (float, float)
        (stated, asserted) pairs of upper bounds: asserted <= 3 stated.
    tier : str
        "default" or "slow".
    """

    example: str
    what: str
    value: str
    fragments: tuple[str, ...]
    tests: tuple[str, ...]
    asserted: str
    literals: tuple[str, ...] = ()
    bounds: tuple[tuple[float, float], ...] = ()
    tier: str = "default"


def C(example, what, value, fragments, tests, asserted, literals=(), bounds=(),
      tier="default") -> Claim:
    def as_tuple(x):
        return (x,) if isinstance(x, str) else tuple(x)

    return Claim(example, what, value, as_tuple(fragments), as_tuple(tests), asserted,
                 as_tuple(literals), tuple(bounds), tier)


F61, F62, VIS, F63 = ("Flying spaghetti (Ex. 6.1)", "Cantilever vibrations (Ex. 6.2)",
                      "Viscoelastic cantilever (Ex. 6.2)", "Quasi-static cantilever (Ex. 6.3)")
F64, ANCF, HAM, NOTES = "Soft arm (Ex. 6.4)", "ANCF", "Hamel FVI", "Solver notes"
SHAPE = "Rods of any shape, supports, modes"
STRUCT = "Structures"
PATHS, CONTACT, GRAD = "Paths through limit points", "Contact", "Gradients"

CLAIMS: tuple[Claim, ...] = (
    # ------------------------------------------------------------------ Ex. 6.1
    C(F61, "energy residual per step, full Newton (paper's data: <= ~2e-12)", "<= 2.7e-12",
      ["<= 2.7e-12 with full Newton", "the paper's data: <= ~2e-12"],
      f"{FS}::test_full_newton_balance_at_paper_level", "<= 5e-12", "5e-12",
      [(2.7e-12, 5e-12)]),
    C(F61, "energy residual per step, modified Newton", "<= 5.0e-11, <= 1e-13 of H",
      ["<= 5.0e-11 with the default modified Newton (at most 1e-13 of H"],
      f"{FS}::test_energy_balance_every_step", "<= 1e-10; <= 2e-13 max(1, H)",
      ["1e-10", "2e-13"], [(5.0e-11, 1e-10), (1e-13, 2e-13)]),
    C(F61, "linear momentum p = (p_1(t), 0, 0), theory (4.1.1)", "1.2e-12 (1e-12 while loaded)",
      ["p = (p_1(t), 0, 0) with p_1 of theory (4.1.1) to 1.2e-12 (p_1 = 4t^2 while loaded "
       "to 1e-12)"],
      f"{FS}::test_linear_momentum", "<= 3e-12; <= 1e-12 while loaded", ["3e-12", "1e-12"],
      [(1.2e-12, 3e-12), (1e-12, 1e-12)]),
    C(F61, "centre of mass r_1(t) of (75) plus the midpoint deviation (4.1.2)", "1e-12",
      ["the centre of mass r_1(t) of (75) plus the midpoint deviation h^2 t/15 of (4.1.2) to "
       "1e-12"],
      f"{FS}::test_centre_of_mass", "<= 1e-12", "1e-12", [(1e-12, 1e-12)]),
    C(F61, "J constant after the load; J(15) vs the authors' data",
      "1.2e-12 relative; 4.1e-7 relative",
      ["J constant after the load to 1.2e-12 relative and J(15) within 4.1e-7 (relative) of "
       "the authors' (-0.0555822, 524.671105, 274.488893)"],
      f"{FS}::test_angular_momentum_conserved_and_matches_data",
      "<= 3e-12 |J|; <= 1e-6 |J_data|", ["3e-12", "1e-6"], [(1.2e-12, 3e-12), (4.1e-7, 1e-6)]),
    C(F61, "nodal |g|, full Newton", "<= 1e-15", ["|g| <= 1e-15 (full Newton)"],
      f"{FS}::test_full_newton_balance_at_paper_level", "<= 3e-15", "3e-15", [(1e-15, 3e-15)]),
    C(F61, "nodal |g|, modified Newton", "2.1e-12",
      ["2.1e-12 (modified Newton, drifting by atol-sized residuals)"],
      f"{FS}::test_orthonormality", "<= 5e-12", "5e-12", [(2.1e-12, 5e-12)]),
    C(F61, "strain consistency (54), full Newton", "3.4e-13",
      ["strain consistency (54) 3.4e-13 (full Newton)"],
      f"{FS}::test_full_newton_balance_at_paper_level", "<= 1e-12", "1e-12",
      [(3.4e-13, 1e-12)]),
    C(F61, "strain consistency (54), modified Newton", "3.9e-12", ["3.9e-12 (modified Newton)"],
      f"{FS}::test_mixed_strains_consistent", "<= 1e-11", "1e-11", [(3.9e-12, 1e-11)]),
    C(F61, "time convergence order (h = 0.1 -> 0.025)", "2.0",
      ["time convergence order 2.0 (h = 0.1 -> 0.025)"],
      f"{FS}::test_time_convergence_order_two", "order >= 1.9 (position and velocity)", "1.9"),
    C(F61, "objectivity: rotated problem, rotated trajectory", "1e-9",
      ["the rotated trajectory to 1e-9"], f"{FS}::test_objectivity", "<= 1e-9", "1e-9",
      [(1e-9, 1e-9)]),
    C(F61, "paper's convergence table: observed orders for h <= 0.1 vs the paper's",
      "within the spread of the paper's orders (0.028 / 0.16)",
      ["(errors at t = 5 against h = 1e-3)",
       "for h <= 0.1 they agree with the paper's within the spread of the paper's own observed "
       "orders (0.028 position, 0.16 velocity)"],
      f"{FS}::test_time_convergence_paper_table",
      "|p - p_paper| <= ptp(p_paper) per pair; p >= 1.9", ["np.ptp(p_paper)", "1.9"],
      tier="slow"),
    C(F61, "H vs the authors' data at t = 0.1, 2.5, 5, 15", "-1.0e-2, -4.6e-5, -3.1e-6 relative",
      ["our H differs from the data's by -1.0e-2, -4.6e-5, -3.1e-6 relative at t = 0.1, 2.5, 5 "
       "(and 15)"],
      f"{FS}::test_energy_vs_authors_data", "|.| <= 1.2e-2, 5.5e-5, 3.7e-6, 3.7e-6",
      ["1.2e-2", "5.5e-5", "3.7e-6"], [(1.0e-2, 1.2e-2), (4.6e-5, 5.5e-5), (3.1e-6, 3.7e-6)]),
    C(F61, "first step vs data: kinetic energy, angular momentum", "2.4 % below; 3.4e-8",
      ["their first-step kinetic energy is 2.4 % below ours",
       "the angular momentum after the first step agrees to 3.4e-8 relative"],
      f"{FS}::test_energy_vs_authors_data", "0 < T/T_data - 1 <= 2.5e-2; <= 1e-7",
      ["2.5e-2", "1e-7"], [(2.4e-2, 2.5e-2), (3.4e-8, 1e-7)]),
    C(F61, "h = 2.5: six full steps; H, p, J, |g|; Newton iterations",
      "1e-15, 1e-12, 1e-13, 2e-15; <= 25 iterations",
      ["h = 2.5 (the paper: \"also works\") runs to t = 15 in six full steps",
       "H is constant after the load to 1e-15 relative (round-off), p = (50, 0, 0) to 1e-12, "
       "J constant to 1e-13 relative, nodal |g| <= 2e-15",
       "finds them in at most 25 iterations"],
      f"{FS}::test_large_step_robustness",
      "<= 1e-15 H; <= 1e-12; <= 1e-13 |J|; <= 4e-15; its <= 25",
      ["1e-15", "1e-12", "1e-13", "4e-15", "<= 25"],
      [(1e-15, 1e-15), (1e-12, 1e-12), (1e-13, 1e-13), (2e-15, 4e-15), (25, 25)]),
    C(F61, "h = 2.5 without the line-search retry", "fails at t = 7.5",
      ["the step from t = 7.5 fails (tested)"],
      f"{FS}::test_large_step_fails_without_line_search_retry",
      "ConvergenceError naming t = 7.5", "t = 7.5"),
    # ------------------------------------------------------------------ Ex. 6.2
    C(F62, "H after the pulse vs the data; constant", "5.8e-6 relative; 8e-14 relative",
      ["within 5.8e-6 (relative) of the data's 0.0918609816 J and constant to 8e-14 relative"],
      f"{CV}::test_energy_constant_after_pulse", "<= 1.5e-5; ptp <= 2e-13 H",
      ["1.5e-5", "2e-13"], [(5.8e-6, 1.5e-5), (8e-14, 2e-13)]),
    C(F62, "tip position vs the data at t = 0.05, 0.15, 0.3", "2.7e-6, 2.1e-6, 2.0e-5 m",
      ["tip at t = 0.05, 0.15, 0.3 equal to the data to 2.7e-6, 2.1e-6, 2.0e-5 m"],
      f"{CV}::test_tip_vs_paper_data", "<= 6e-6, 6e-6, 4e-5 m", ["6e-6", "4e-5"],
      [(2.7e-6, 6e-6), (2.1e-6, 6e-6), (2.0e-5, 4e-5)]),
    C(F62, "mid-node constraints", "|g| <= 1.7e-15", ["mid-node |g| <= 1.7e-15"],
      f"{CV}::test_constraints_and_strain_consistency", "<= 5e-15", "5e-15",
      [(1.7e-15, 5e-15)]),
    C(F62, "large step runs", "h = 5e-2", ["h = 5e-2 runs too"], f"{CV}::test_large_step_runs",
      "reaches t = 0.3; balance <= 1e-9 max(1, H)", "5e-2"),
    C(VIS, "H(0.05, 0.1, 0.3) vs the data (calibrated reading, see below)",
      "2.6e-6, 1.1e-5, 4.5e-5 relative",
      ["H(0.05, 0.1, 0.3) within 2.6e-6, 1.1e-5, 4.5e-5 (relative) of the data's 0.0872123, "
       "0.0643678, 0.0178927"],
      f"{VE}::test_ex62_energy_vs_data", "<= 6e-6, 3e-5, 1e-4", ["6e-6", "3e-5", "1e-4"],
      [(2.6e-6, 6e-6), (1.1e-5, 3e-5), (4.5e-5, 1e-4)]),
    C(VIS, "exact discrete dissipation: balance residual", "1.2e-15 J",
      ["exact discrete dissipation (balance residual 1.2e-15 J)"],
      f"{VE}::test_ex62_energy_balance_and_dissipation", "<= 3e-15 J", "3e-15",
      [(1.2e-15, 3e-15)]),
    C(VIS, "calibration: the rejected branch convention misses the data", "1.1-21 %",
      ["misses the data by 1.1-21 %"], f"{VE}::test_ex62_branch_convention_does_not_match_data",
      "all |miss| >= 1e-2, max in [0.2, 0.22]", ["1e-2", "0.22"]),
    C(VIS, "relaxation at a held stretch vs its closed form (not fitted)", "order 2",
      ["closed form (order 2)"], f"{VE}::test_relaxation_closed_form_order2",
      "|order - 2| <= 0.02; the discrete recursion to 1e-12", "0.02"),
    # ------------------------------------------------------------------ Ex. 6.3
    C(F63, "midpoint load stepping (paper's scheme)", "second order",
      ["the expected second-order load-stepping error"],
      f"{QS}::test_midpoint_load_stepping_error_is_second_order",
      "error ratio in (3.6, 4.4) for h halved", "4.4"),
    C(F63, "tip error vs the exact planar solutions at t = 1, n_e = 8/16/32/64",
      "Reissner 1.6e-3 ... 3.9e-7, elastica 2.3e-3 ... 5.5e-7; order 4.0",
      ["Tip error vs the exact planar solutions at t = 1: 1.6e-3 (n_e = 8), 9.9e-5 (16), "
       "6.2e-6 (32), 3.9e-7 (64) for the Reissner rod, 2.3e-3, 1.4e-4, 8.8e-6, 5.5e-7 for the "
       "elastica: order 4.0"],
      f"{QS}::test_tip_vs_exact_and_convergence", "<= 1.25x each; |order - 4| <= 0.1",
      ["1.25 *", "0.1"], [(1.0, 1.25)]),
    C(F63, "published n_e = 8 / 16 states", "3e-4",
      ["The published n_e = 8 / 16 states carry that same spatial error; ours match them to "
       "3e-4"],
      f"{QS}::test_close_to_published_states", "<= 3e-4", "3e-4", [(3e-4, 3e-4)]),
    # ------------------------------------------------------------------ Ex. 6.4
    C(F64, "calibrated geometry: l, d, r_k (closed-form plateau arc vs the data's radius)",
      "0.1755 m; 18 vs 1.1 rad; 0.09238 vs 0.09266 m (0.0625 m: 0.08955 m)",
      ["length l = 0.1755 m (the data's initial tip height) and d = 0.06 m (with the text's "
       "0.03 m the plateau arc would curl through 18 rad instead of 1.1 rad); the chamber "
       "offset r_k = 0.065 m (the text's garbled \"6.5?10^-2\"), selected by the plateau "
       "radius: the closed-form static arc gives 0.09238 m against the data's mean 0.09266 m "
       "during the revolution, while theory §4.4's earlier 0.0625 m (a "
       "curvature-per-deformed-length slip) gives 0.08955 m"],
      f"{SA}::test_plateau_geometry_closed_form",
      "printed digits (5e-6 m); 18 +- 0.5 rad, 1.1 +- 0.05 rad", ["5e-6", "0.5", "0.05"]),
    C(F64, "calibrated density: rms tip error scan over the circle run",
      "minimum 3.0e-4 m at 1000 kg/m^3; 4.6e-4, 7.0e-4, 9.5e-4 m",
      ["rho = 1000 kg/m^3 (not legible in the text), the minimum of the rms tip error over the "
       "circle run: 3.0e-4 m, against 4.6e-4 / 7.0e-4 m at 950 / 1050 kg/m^3 and 9.5e-4 m at "
       "DragonSkin 30's nominal 1080 kg/m^3"],
      f"{SA}::test_soft_arm_density_scan", "argmin = 1000; each within 5e-6 m + 2 %",
      ["0.05e-4", "0.02"]),
    C(F64, "circle tips vs the data (a fit)", "<= 4.8e-4 m at the published times; 5.6e-4 m",
      ["differ from the data by at most 4.8e-4 m at the published times (5.6e-4 m over all "
       "rows)"],
      f"{SA}::test_circle_tip_vs_data", "<= 6e-4 m; <= 7e-4 m", ["6e-4", "7e-4"],
      [(4.8e-4, 6e-4), (5.6e-4, 7e-4)]),
    C(F64, "heart path vs the data (held out)", "2.3e-4 m", ["matches its data to 2.3e-4 m"],
      f"{SA}::test_heart_tip_vs_data", "<= 3e-4 m", "3e-4", [(2.3e-4, 3e-4)]),
    C(F64, "tip height during the revolution vs the data's extremes", "1.3e-4 m",
      ["the tip height during the revolution matches the data's extremes to 1.3e-4 m"],
      f"{SA}::test_circle_revolution_at_constant_height", "<= 2e-4 m", "2e-4",
      [(1.3e-4, 2e-4)]),
    C(F64, "actuator power balance per step", "2.7e-11 J",
      ["power balance holds per step to 2.7e-11 J"], f"{SA}::test_power_balance_soft_arm",
      "<= 6e-11 max(1, H) J", "6e-11", [(2.7e-11, 6e-11)]),
    C(F64, "pressure-only static arc vs its closed form (n_e = 10)", "4.1e-8 m",
      ["to 4.1e-8 m (n_e = 10)"], f"{SA}::test_pressure_static_arc_exact", "<= 1e-7 m", "1e-7",
      [(4.1e-8, 1e-7)]),
    C(F64, "tendon hook vs its closed form (n_e = 16)", "1.8e-5 L", ["1.8e-5 L (n_e = 16)"],
      f"{SA}::test_tendon_hook_order_four", "<= 5e-5 L", "5e-5", [(1.8e-5, 5e-5)]),
    C(F64, "static arc and tendon hook: convergence order", "4", ["both with order 4"],
      (f"{SA}::test_pressure_static_arc_order_four", f"{SA}::test_tendon_hook_order_four"),
      "|order - 4| <= 0.1", "0.1"),
    # ------------------------------------------------------------------ ANCF
    C(ANCF, "R1: the Exudyn table (10 decimals)", "4.5e-11 m",
      ["the Exudyn R1 table (10 decimals) to 4.5e-11 m"], f"{AE}::test_r1_exudyn_table",
      "<= 1e-10 m", "1e-10", [(4.5e-11, 1e-10)]),
    C(ANCF, "R4: half circle, tip vs (0, 2L/pi)", "7.6e-7 m", ["half circle to 7.6e-7 m"],
      f"{AE}::test_r4_half_circle", "<= 2e-6 m", "2e-6", [(7.6e-7, 2e-6)]),
    C(ANCF, "R5: gravity deflection; below linear theory", "1.395079e-3 m; 1.6e-6",
      ["R5 deflection 1.395079e-3 m, 1.6e-6 below linear theory"],
      f"{AD}::test_r5_static_gravity_deflection",
      "printed digits (5e-10 m); 0 < gap < 3e-6", ["5e-10", "3e-6"], [(1.6e-6, 3e-6)]),
    C(ANCF, "R6: first frequency vs the closed form", "104.2415 rad/s, 1e-8",
      ["R6 104.2415 rad/s (the closed form to 1e-8)"], f"{AD}::test_r6_first_frequency",
      "rel <= 1e-8", "1e-8", [(1e-8, 1e-8)]),
    C(ANCF, "R8: central-difference stable step vs the table", "0.1 %",
      ["stable step within 0.1 % of the table"], f"{AD}::test_r8_critical_step_table",
      "rel <= 1e-3", "1e-3", [(1e-3, 1e-3)]),
    C(ANCF, "R1: Cosserat vs ANCF, Kirchhoff / shear-rigid extensible", "7.3e-4 m; 6.2e-6 m",
      ["Kirchhoff Cosserat vs ANCF 7.3e-4 m", "extensible Cosserat vs ANCF 6.2e-6 m"],
      f"{XF}::test_ancf_and_cosserat_agree_on_r1", "<= 1e-3 m; <= 1.5e-5 m",
      ["1e-3", "1.5e-5"], [(7.3e-4, 1e-3), (6.2e-6, 1.5e-5)]),
    C(ANCF, "graded cases (40 elements) vs linear theory (quadrature, shooting): the table",
      "table",
      ["Graded cases (40 elements)",
       "delta = (q L^4/(2 E0 I)) int_0^1 (1-xi)^3/(1-lam xi^n) dxi",
       "| 0 | - | 1.395079e-3 | 1.395082e-3 | 104.2415 | 104.2415 |",
       "| 0.3 | 1 | 1.488425e-3 | 1.488427e-3 | 101.0369 | 101.0369 |",
       "| 0.3 | 2 | 1.424981e-3 | 1.424983e-3 | 103.2323 | 103.2323 |",
       "| 0.6 | 1 | 1.608534e-3 | 1.608537e-3 | 97.3604 | 97.3604 |",
       "| 0.6 | 2 | 1.460022e-3 | 1.460025e-3 | 102.1053 | 102.1053 |"],
      f"{AG}::test_graded_case_matches_linear_theory",
      "printed digits; ANCF/linear - 1 in (-3e-6, 0); omega_1 rel 1e-8",
      ["printed(", "3e-6", "1e-8"]),
    C(ANCF, "graded softening (the blog: +31 % / x2.3)", "+6.7 % / +15.3 %",
      ["The blog's +31 % / x2.3 softening is wrong: it is +6.7 % / +15.3 %"],
      f"{AG}::test_graded_softening_is_modest", "0.0669 / 0.1530 +- 5e-4 (ANCF: 1e-5)",
      ["5e-4", "1e-5"]),
    # ------------------------------------------------------------------ Hamel
    C(HAM, "J_d(0) (theory §H7) and its closed form", "printed digits; 1e-14",
      ["J_d(0) = (9.259e-4, 1.8519e-2, -2.22037; 4.44444, 6.66667, 0), its closed form to "
       "1e-14"],
      f"{HL}::test_example2_Jd0_and_conservation_short", "printed digits; <= 1e-14",
      ["JD0_SPEC_TOL", "1e-14"], [(1e-14, 1e-14)]),
    C(HAM, "J_d over 10 000 steps (h = 1e-4)", "4.0e-14 / 7.0e-14",
      ["over 10 000 steps J_d varies by 4.0e-14 (angular) / 7.0e-14 (linear)"],
      f"{HL}::test_example2_10000_steps", "<= 1e-13 / 2e-13", ["1e-13", "2e-13"],
      [(4.0e-14, 1e-13), (7.0e-14, 2e-13)], tier="slow"),
    C(HAM, "leading-term / mid-frame momentum deviation over 1 s; energy",
      "9.6e-3/5.1e-3/2.6e-3 (O(dt)); 2.5e-6/5.8e-7/1.4e-7 (O(dt^2)); O(dt^2)",
      ["leading-term momentum deviation over 1 s 9.6e-3 / 5.1e-3 / 2.6e-3 (O(dt)), mid-frame "
       "2.5e-6 / 5.8e-7 / 1.4e-7 (O(dt^2)), energy fluctuation O(dt^2) without drift, for "
       "dt = 2e-4 / 1e-4 / 5e-5"],
      f"{HL}::test_momentum_orders_over_10000_steps",
      "orders within 0.15; sizes <= 1.1x; drift <= 1 % of the fluctuation",
      ["0.15", "1.1 *"], [(1.0, 1.1)], tier="slow"),
    C(HAM, "stable-step limit (element bound), enforced", "9.2e-4 s",
      ["stable-step limit 9.2e-4 s (an element bound) enforced"],
      f"{HL}::test_cfl_limit_value_and_refusal",
      "printed digits (5e-6 s); in (8e-4, 1e-3); h = 1e-3 refused", ["5e-6", "9.2e-4"]),
    # ------------------------------------------------------------------ outside the section
    C(NOTES, "Ex. 6.2, full Newton: nodal |g| over 300 steps", "2.3e-14",
      ["|g| stays below 2.3e-14 over 300 steps"],
      f"{CV}::test_constraints_and_strain_consistency", "<= 5e-14", "5e-14",
      [(2.3e-14, 5e-14)]),
    C(NOTES, "restart reproduces the uninterrupted run", "1e-12",
      ["a restart reproduces the uninterrupted run to round-off (tested at 1e-12)"],
      f"{RL}::test_restart_reproduces_uninterrupted_run", "<= 1e-12", "1e-12",
      [(1e-12, 1e-12)]),
    # ------------------------------------------------------------------ shapes
    C(SHAPE, "45-degree bend: tips vs Simo & Vu-Quoc (8 elements)", "within 0.117",
      ["the tips at F = 300, 450, 600 lie within 0.117 of Simo & Vu-Quoc's 8-element values "
       "for 8, 16 and 32 elements, converged to 6e-4 between 16 and 32"],
      f"{CU}::test_bend45_against_published_and_mesh_convergence",
      "<= 0.15 per component; 16 vs 32 <= 1e-2", ["0.15", "1e-2"], [(0.117, 0.15)]),
    C(SHAPE, "unloaded curved references at rest", "exactly 0",
      ["An unloaded arc, helix or spline is at rest exactly (residual, H and strains exactly 0)"],
      f"{CU}::test_unloaded_reference_is_at_rest", "== 0.0", "== 0.0"),
    C(SHAPE, "helical spring vs Castigliano", "6.0e-7",
      ["A helical spring matches Castigliano's linear spring rate to 6.0e-7"],
      f"{CU}::test_helical_spring_rate", "rel <= 1.8e-6", "1.8e-6", [(6.0e-7, 1.8e-6)]),
    C(SHAPE, "quarter ring straightened by its end moment, 16 elements; order 4", "6.1e-7 m",
      ["a quarter ring straightened by its end moment and a straight rod curling into its "
       "natural circle converge at order 4 (tip errors 6.1e-7"],
      f"{CU}::test_curved_rod_straightened_by_end_moment", "<= 1e-6 m; order >= 3.8",
      ["1e-6", "3.8"], [(6.1e-7, 1e-6)]),
    C(SHAPE, "straight rod curling into its natural circle, 16 elements; order 4", "1.3e-7 m",
      ["and 1.3e-7 m at 16 elements)"],
      f"{CU}::test_natural_curvature_curls_into_circle", "<= 3e-7 m; order >= 3.8",
      ["3e-7", "3.8"], [(1.3e-7, 3e-7)]),
    C(SHAPE, "tapered cantilever vs closed form (32 elements)", "9.0e-8",
      ["Tapered cantilever under its weight vs the closed form: 9.0e-8 (32 elements)"],
      f"{VS}::test_tapered_cantilever_under_gravity", "<= 2e-7; order >= 3.8", "2e-7",
      [(9.0e-8, 2e-7)]),
    C(SHAPE, "graded cantilever vs closed form and vs ANCF", "1.5e-8; 1.1e-8",
      ["graded cantilever vs the closed form 1.5e-8 and vs the ANCF beam 1.1e-8"],
      f"{VS}::test_graded_cantilever_vs_closed_form_and_ancf", "rel <= 4.4e-8; <= 3e-8",
      ["4.4e-8", "3e-8"], [(1.5e-8, 4.4e-8), (1.1e-8, 3e-8)]),
    C(SHAPE, "clamp reaction = tip load and lever arm", "1e-12",
      ["A clamp's reaction equals the tip load and its lever arm to 1e-12"],
      f"{SU}::test_clamp_reaction_statics", "rel <= 1e-12", "1e-12", [(1e-12, 1e-12)]),
    C(SHAPE, "reactions close the discrete momentum balance", "2.4e-13",
      ["the reactions close the discrete momentum balance to 2.4e-13"],
      f"{SU}::test_clamp_reaction_closes_momentum_balance", "<= 7e-13 max|dp|", "7e-13",
      [(2.4e-13, 7e-13)]),
    C(SHAPE, "prescribed base rotation: support work = H", "1e-10",
      ["a prescribed base rotation's work equals the rod's energy to 1e-10"],
      f"{SU}::test_elastic_support_ledger_and_prescribed_base_motion", "rel <= 1e-10", "1e-10",
      [(1e-10, 1e-10)]),
    C(SHAPE, "five bending pairs of a clamped Kirchhoff rod vs Euler-Bernoulli (32 elements)",
      "7.9e-5", ["the first five bending pairs of a clamped Kirchhoff rod vs Euler-Bernoulli "
                 "within 7.9e-5 at 32 elements"],
      f"{LI}::test_cantilever_five_bending_frequencies_and_effective_masses", "rel <= 1e-4",
      "1e-4", [(7.9e-5, 1e-4)]),
    C(SHAPE, "thick rod vs Timoshenko's frequency equation, four modes", "4.1e-5",
      ["a thick rod (r/L = 0.05) vs Timoshenko's frequency equation, four modes within 4.1e-5"],
      f"{LI}::test_thick_rod_against_timoshenko", "rel <= 1e-6, 1e-5, 3e-5, 1e-4",
      "[1e-6, 1e-5, 3e-5, 1e-4]", [(4.1e-5, 1e-4)]),
    C(SHAPE, "torsion and extension modes vs closed forms", "2.5e-6",
      ["torsion and extension modes vs their closed forms within 2.5e-6"],
      f"{LI}::test_torsion_and_axial_modes", "rel <= 5e-6", "5e-6", [(2.5e-6, 5e-6)]),
    C(SHAPE, "free-free: six zero modes, first bending pair", "0; 9.9e-7",
      ["six rigid-body modes at exactly 0, the first bending pair within 9.9e-7"],
      f"{LI}::test_free_free_rigid_modes_then_bending", "== 0.0; rel <= 2e-6",
      ["== 0.0", "2e-6"], [(9.9e-7, 2e-6)]),
    C(SHAPE, "prestressed string-beam vs the exact formula (mode 1)", "1e-6",
      ["a prestressed string-beam vs the exact beam-string formula within 1e-6 (mode 1)"],
      f"{LI}::test_prestressed_string", "rel <= 1e-6 (mode 1)", "1e-6", [(1e-6, 1e-6)]),
    C(SHAPE, "Euler column buckling load (16 elements)", "5.8e-7",
      ["the clamped-free Euler column at pi^2 EI/(4 L^2) within 5.8e-7 (16 elements)"],
      f"{LI}::test_euler_column_buckling", "rel <= 1.5e-6", "1.5e-6", [(5.8e-7, 1.5e-6)]),
    C(SHAPE, "free ring vs Blevins's ring formulas (n = 2, 3)", "1.4e-5",
      ["a free steel ring's in-plane and out-of-plane bending frequencies (n = 2, 3) vs "
       "Blevins's ring formulas within 1.4e-5"],
      f"{LS}::test_free_ring_in_and_out_of_plane", "rel <= 4.5e-6, 6e-6, 3.4e-5, 4e-5",
      "[4.5e-6, 6e-6, 3.4e-5, 4e-5]", [(1.4e-5, 4e-5)]),
    C(SHAPE, "L-frame with a rigid body vs an Euler-Bernoulli space frame", "3.2e-6",
      ["an L-frame carrying a rigid body vs an Euler-Bernoulli space frame, the first four "
       "frequencies within 3.2e-6"],
      f"{LS}::test_l_frame_with_tip_body_against_euler_bernoulli_frame",
      "rel <= 1e-6, 1.1e-6, 9e-6, 8e-6", "[1e-6, 1.1e-6, 9e-6, 8e-6]", [(3.2e-6, 9e-6)]),
    C(SHAPE, "linear PH model: pencil eigenvalues = modal frequencies", "1e-11",
      ["its pencil's eigenvalues equal the modal frequencies to 1e-11"],
      f"{PH}::test_structure_and_spectrum_of_a_frame_with_joint_and_body", "rel <= 1e-11",
      "1e-11", [(1e-11, 1e-11)]),
    C(SHAPE, "linear PH model: power balance per step", "1e-13 of H",
      ["each midpoint step balances power to 1e-13 of H"],
      f"{PH}::test_power_balance_along_a_trajectory", "<= 1e-13 max H", "1e-13",
      [(1e-13, 1e-13)]),
    C(SHAPE, "nonlinear vs linear impulse: second order in the amplitude", "4 within 1 %",
      ["the gap grows 4 times for twice the amplitude, within 1 %"],
      f"{PH}::test_small_impulse_nonlinear_vs_linear_is_second_order", "rel <= 0.01",
      "rel=0.01"),
    C(SHAPE, "ANCF vs Cosserat modes about the deformed cantilever", "8.9e-6",
      ["the first five in-plane frequencies about the deformed cantilever agree within 8.9e-6"],
      f"{MX}::test_ancf_and_cosserat_frequencies_of_the_deformed_r1_cantilever",
      "rel <= 2.5e-6 .. 2.6e-5", "[2.5e-6, 5e-6, 7.5e-7, 1.9e-5, 2.6e-5]", [(8.9e-6, 2.6e-5)]),
    # ------------------------------------------------------------------ structures
    C(STRUCT, "three rods welded straight = one rod", "1e-12",
      ["Three rods welded straight equal one rod of the same elements to 1e-12"],
      f"{ST}::test_welded_rods_equal_one_rod", "<= 1e-12", "1e-12", [(1e-12, 1e-12)]),
    C(STRUCT, "L-frame vs linear frame theory", "1e-4",
      ["matches linear frame theory (bending, shortening, shear) to 1e-4"],
      f"{ST}::test_right_angle_frame_linear", "rel <= 1e-4 (drop)", "1e-4", [(1e-4, 1e-4)]),
    C(STRUCT, "unloaded ring at rest; translating ring rigid", "exactly 0",
      ["an unloaded ring is at rest exactly (H and momenta exactly 0) and a translating ring "
       "stays rigid (strain energy exactly 0)"],
      [f"{ST}::test_ring_at_rest_and_closed", f"{ST}::test_ring_rigid_translation"],
      "== 0.0", "== 0.0"),
    C(STRUCT, "spinning ring hit by a pulse: energy balance every step", "1e-10 of H",
      ["a spinning ring hit by a pulse keeps the energy balance to 1e-10 of H every step"],
      f"{ST}::test_ring_free_flight_conserves", "<= 1e-10 max H", "1e-10", [(1e-10, 1e-10)]),
    C(STRUCT, "ball joint and hinge: joined positions coincide", "1e-14",
      ["the joined positions coincide to 1e-14"],
      [f"{ST}::test_spherical_double_pendulum", f"{ST}::test_revolute_joint_keeps_axis"],
      "<= 1e-14", "1e-14", [(1e-14, 1e-14)]),
    C(STRUCT, "right-angle cantilever: H after the pulse (h = 0.25)", "1.3e-12 of H",
      ["keeps H constant after the pulse to 1.3e-12 of H at their step h = 0.25"],
      f"{ST}::test_right_angle_cantilever_energy_after_pulse", "ptp(H) <= 3e-12 H", "3e-12",
      [(1.3e-12, 3e-12)]),
    C(STRUCT, "free star of three rods and a rigid body: p and J after the pulse", "1e-12",
      ["conserves p and J (rods plus body) to 1e-12 after the pulse"],
      f"{ST}::test_free_structure_with_rigid_body_conserves", "<= 1e-12 max(1, |x|)", "1e-12",
      [(1e-12, 1e-12)]),
    # ------------------------------------------------------------------ paths
    C(PATHS, "deep arch limit load vs DaDeppo & Schmidt (64 elements)", "8.9725; 0.0025",
      ["the limit load P R^2/EI = 8.9725 at 64 elements, within 0.0025 of DaDeppo & Schmidt's "
       "8.97"], f"{CO}::test_deep_arch_limit_load", "abs <= 0.005", "0.005",
      [(0.0025, 0.005)]),
    C(PATHS, "Euler column: bifurcation detected", "5.8e-7",
      ["Euler column: the bifurcation is detected at pi^2 EI/(4 L^2) within 5.8e-7"],
      f"{CO}::test_euler_column_bifurcation_and_elastica", "abs <= 1.5e-6", "1.5e-6",
      [(5.8e-7, 1.5e-6)]),
    C(PATHS, "Euler column: post-buckled branch vs the elastica", "5e-6 L; 5e-5 L",
      ["the post-buckled tip deflection follows the elastica within 5e-6 L (its height within "
       "5e-5 L)"], f"{CO}::test_euler_column_bifurcation_and_elastica",
      "abs <= 1.5e-5 L; <= 1e-4 L", ["1.5e-5", "1e-4"], [(5e-6, 1.5e-5), (5e-5, 1e-4)]),
    C(PATHS, "Lee's frame: limit loads vs Simo & Vu-Quoc (digitised)", "0.9 %; 0.6 %",
      ["the first and second limit loads P L^2/EI = 18.552 and -9.399, within 0.9 % and 0.6 % "
       "of Simo & Vu-Quoc's curves (digitised), with the stability index 0 before the first "
       "and 1 between them"], f"{ST}::test_lee_frame_snap_through_and_snap_back",
      "rel <= 1.5e-2", "1.5e-2", [(0.009, 0.015), (0.006, 0.015)]),
    C(PATHS, "Lee's frame: mesh convergence of the first limit load", "1.5e-5",
      ["the first converged to 1.5e-5 between 20 and 40 elements per member"],
      f"{ST}::test_lee_frame_mesh_convergence", "rel <= 4e-5", "4e-5", [(1.5e-5, 4e-5)],
      tier="slow"),
    # ------------------------------------------------------------------ contact
    C(CONTACT, "flat drop on frictionless ground", "1e-5; bound; 1e-11",
      ["A rod dropped flat on frictionless ground rebounds to its drop height within 1e-5, its "
       "deepest penetration within the penalty's closed-form bound, and the energy balance "
       "closes through the impacts to 1e-11 of the work of gravity"],
      f"{CT}::test_flat_drop_penetration_bound_and_rebound", "rel <= 1e-5; <= bound; "
      "<= 1e-11 |W|", ["1e-5", "1e-11"], [(1e-5, 1e-5), (1e-11, 1e-11)]),
    C(CONTACT, "sliding on a slope: Coulomb acceleration", "1e-4",
      ["On a slope of 30 degrees with mu = 0.3 a rod slides with g (sin a - mu cos a) to 1e-4"],
      f"{CT}::test_inclined_plane_slides_with_coulomb_acceleration", "rel <= 1e-4", "1e-4",
      [(1e-4, 1e-4)]),
    C(CONTACT, "sticking on a slope: creep at the regularised speed", "1e-3",
      ["at 20 degrees with mu = 0.5 it sticks, creeping at the regularised speed (its closed "
       "form to 1e-3)"], f"{CT}::test_inclined_plane_sticks_below_the_friction_angle",
      "rel <= 1e-3", "1e-3", [(1e-3, 1e-3)]),
    C(CONTACT, "capstan: T_out/T_in vs e^(mu theta)", "0.055 %; 0.022 %",
      ["Capstan: a rope pulled over a rough drum until it slips carries T_out/T_in = "
       "e^(mu theta) within 0.055 % for (mu, theta) = (0.3, pi) and (0.5, pi/2) (quick run; "
       "0.022 % in the full run)"],
      [f"{CT.replace('contact', 'capstan')}::test_capstan_quick_within_one_percent"],
      "rel <= 1.5e-3 (quick)", "1.5e-3", [(5.5e-4, 1.5e-3)]),
    C(CONTACT, "capstan, full run", "0.022 %", ["0.022 % in the full run"],
      [f"{CT.replace('contact', 'capstan')}::test_capstan_full_within_one_percent"],
      "rel <= 6e-4", "6e-4", [(2.2e-4, 6e-4)], tier="slow"),
    C(CONTACT, "soft-arm grasp: contact onset vs the exact static arc", "+1.6 %",
      ["the first contact comes at t = 0.2745 s against 0.2701 s from the exact static arc "
       "(+1.6 %, a dynamic lag that shrinks with a slower ramp)"],
      "tests/test_soft_arm_grasp.py::test_onset_against_the_static_arc", "rel <= 2.5e-2",
      "2.5e-2", [(0.016, 0.025)]),
    C(CONTACT, "soft-arm grasp: energy ledger every step", "1e-10 of the chamber work",
      ["the ledger closes every step to 1e-10 of the chamber work"],
      "tests/test_soft_arm_grasp.py::test_ledger_closes_every_step", "< 1e-10 W_port", "1e-10",
      [(1e-10, 1e-10)]),
    C(CONTACT, "rod-rod contact: statics of two crossing rods", "1e-8; 1e-3",
      ["a cantilever pressed onto a clamped beam transmits a contact force that balances the "
       "beam's clamp reactions to 1e-8 and matches linear beam theory to 1e-3"],
      "tests/test_rodcontact.py::test_crossing_rods_statics", "<= 1e-8; <= 1e-3",
      ["1e-8", "1e-3"], [(1e-8, 1e-8), (1e-3, 1e-3)]),
    C(CONTACT, "rod-rod contact: two free rods colliding", "1e-10 of H; 1e-12",
      ["two free rods colliding keep the energy balance to 1e-10 of H and p and J to 1e-12"],
      "tests/test_rodcontact.py::test_free_rods_collide_energy_and_momenta",
      "<= 1e-10 H; ptp <= 1e-12", ["1e-10", "1e-12"], [(1e-10, 1e-10), (1e-12, 1e-12)]),
    C(CONTACT, "adaptive step cutting rescues an impact", "8 iterations; 1e-9 of H",
      ["An impact step that Newton cannot solve in 8 iterations (h = 0.02 s on stiff ground) is "
       "cut automatically, and the balance closes to 1e-9 of H at every step"],
      f"{CT}::test_adaptive_step_cutting_rescues_the_impact", "<= 1e-9 max(1, H)", "1e-9",
      [(1e-9, 1e-9)]),
    C(CONTACT, "nodal contact forces of a resting rod sum to its weight", "1e-9",
      ["The nodal contact forces written to the CSV and ParaView sum to a resting rod's weight "
       "to 1e-9"],
      "tests/test_contact_output.py::test_rod_at_rest_nodal_forces_are_the_weight",
      "<= 1e-9 W", "1e-9", [(1e-9, 1e-9)]),
    C(CONTACT, "contact along arc-length paths vs closed forms and stepping", "1e-5; 1e-8",
      ["a cantilever pressed onto a sphere follows the propped cantilever with the penalty in "
       "series and two crossing rods follow linear beam theory, the force within 1e-5 in both, "
       "and every path equals quasi-static load stepping to 1e-8"],
      ["tests/test_continuation_contact.py::test_cantilever_pressed_on_a_sphere",
       "tests/test_continuation_contact.py::test_crossing_rods"], "rel <= 1e-5; <= 1e-8",
      ["1e-5", "1e-8"], [(1e-5, 1e-5), (1e-8, 1e-8)]),
    C(CONTACT, "twisted rod: straight branch vs the closed form", "2e-3",
      ["a rod twisted under tension follows the straight rod's torque theta/(L/GJ + 1/k_r) to "
       "2e-3"], "tests/test_plectoneme.py::test_straight_branch_torque_slope", "rel <= 2e-3",
      "2e-3", [(2e-3, 2e-3)]),
    C(CONTACT, "plectoneme with and without self-contact", "5 %; 15 %; 1e-12",
      ["buckles above the infinite rod's helical-buckling torque 2 sqrt(B T) and winds into a "
       "plectoneme whose strands stay apart to within 5 % of 2r (2.9 % measured) on a torque "
       "plateau (within 15 % over the last half turn, 5.3 % measured); the energy balance "
       "closes through the impacts to 1e-12 of the clamp's work; without contact the strands "
       "pass through each other"],
      "tests/test_plectoneme.py::test_plectoneme_with_and_without_self_contact",
      "overlap <= 0.05 (2r); spread <= 0.15; <= 1e-12 W", ["0.05", "0.15", "1e-12"],
      [(0.05, 0.05), (0.15, 0.15), (1e-12, 1e-12)], tier="slow"),
    # ------------------------------------------------------------------ gradients
    C(GRAD, "adjoint gradient vs central finite differences", "1e-6",
      ["The discrete adjoint's gradients equal central finite differences to 1e-6"],
      f"{AJ}::test_gradient_equals_central_differences", "rel <= 1e-6", "1e-6",
      [(1e-6, 1e-6)]),
    C(GRAD, "Taylor remainders at second order", "2 (within 0.1)",
      ["Taylor remainders converge at order 2 (within 0.1)"],
      [f"{AJ}::test_taylor_dynamics_section",
       f"{AJ}::test_taylor_dynamics_inputs_initial_velocity_and_checkpoints",
       f"{AJ}::test_taylor_viscoelastic_and_adaptive_steps", f"{AJ}::test_taylor_quasistatic",
       f"{AJ}::test_taylor_actuation"], "|order - 2| < 0.1", "assert_second_order"),
    C(GRAD, "identification of E and rho of Ex. 6.2 from 30 % off", "1e-6",
      ["starting 30 % off, to 1e-6"], f"{AJ}::test_identification_short", "rel <= 1e-6",
      "1e-6", [(1e-6, 1e-6)]),
    C(GRAD, "stepped cantilever of least volume vs the closed-form optimum", "1e-7; 0.7392",
      ["a stepped cantilever of least volume for a given tip deflection matches the "
       "closed-form optimum radii to 1e-7 (its volume 0.7392 of the uniform rod's)"],
      f"{AJ}::test_stepped_cantilever_design", "< 1e-7; rel 2e-8", ["1e-7", "2e-8"],
      [(1e-7, 1e-7)]),
    C(GRAD, "optimal actuation of the heart path", "1.05e-4 m; 0.37 N",
      ["the soft-arm tip follows the published heart path to 1.05e-4 m rms after 600 L-BFGS-B "
       "iterations (the paper's own inputs give 1.29e-4 m), with the optimised forces within "
       "0.37 N of the paper's"], "tests/test_optimal_actuation.py::test_full",
      "rms <= 1.3e-4 m and <= open loop; max <= 3e-4 m; gap <= 1.0 N",
      ["1.3e-4", "3e-4", "1.0"], [(1.05e-4, 1.3e-4), (0.37, 1.0)], tier="slow"),
    C(GRAD, "soft-arm E and rho from the published circle data", "8.5e-4; 1073",
      ["E within 8.5e-4 of the paper's 6e5 Pa (6.0051e5 +- 77 Pa), rho = 1073 +- 4.6 kg/m^3 "
       "(between 1000 and 1100), while G is determined only to 11 %"],
      f"{AJ}::test_soft_arm_identification_from_data", "|E/6e5 - 1| < 2e-3; 1000 < rho < 1100",
      ["2e-3", "1000.0 < rho < 1100.0"], [(8.5e-4, 2e-3)], tier="slow"),
)

#: README fragments of the results section that hold parameters, not claims.
SETTINGS: tuple[str, ...] = (
    "wraps 84 degrees around it",
    "Deep circular arch (215 degrees, clamped-hinged, Kirchhoff)",
    "E and rho of the Ex. 6.2 cantilever are recovered from its own tip trajectory",
    "(Ex. 6.1, n_e = 10, h = 0.1, 150 steps, atol 1e-11)",
    "(Ex. 6.2, n_e = 8, h = 1e-3, Kirchhoff, full Newton)",
    "(m = 1, 1/4 elastic, 3/4 Maxwell, tau = 0.08 s)",
    "Remark 5.1",
    "(Ex. 6.3)",
    "(h = 0.1): it is the mesh error of n_e = 8",
    "(Ex. 6.4, n_e = 10, h = 0.05)",
    "45-degree bend (Bathe & Bolourchi; Simo & Vu-Quoc)",
)

#: A number: not part of a name (p_1, R5, E0), an exponent (^2), a fraction's denominator,
#: a section (§3.1) or a subscript ({n+1}).
NUMBER = re.compile(r"(?<![\w.^/§{+])-?\d+(?:\.\d+)?(?:e-?\d+)?(?![\w])")
#: An equation reference: (75), (4.1.2).
EQUATION = re.compile(r"\(\d+(?:\.\d+)*\)")


def normalise(text: str) -> str:
    return " ".join(text.split())


@cache
def readme() -> str:
    return normalise(README.read_text())


def results_section() -> str:
    text = readme()
    start = text.index(SECTION)
    end = text.index("## ", start + len(SECTION))
    return text[start:end]


def render() -> str:
    """docs/validation.md from :data:`CLAIMS`."""
    out = [
        "# Validation map: README claims and the tests that assert them",
        "",
        "Generated from `tests/test_validation_doc.py` (`python tests/test_validation_doc.py`",
        "rewrites this file; the test fails when it, the README or a test drifts). Each number",
        "of the README section \"Results against the references\" is asserted by the test named",
        "here, with a tolerance of at most 3x the stated number. Tier `default`: "
        "`./fxrod.sh test`;",
        "tier `slow`: `./fxrod.sh test -m slow`. CI (`.ci/run`) runs both.",
        "",
        "## Calibrated and validated",
        "",
        "Parameters identified from the data they are then compared with:",
        "",
        "- Soft arm (Ex. 6.4): length l = 0.1755 m (the data's initial tip height), diameter",
        "  d = 0.06 m (the text's 0.03 m cannot reproduce the motion), chamber offset",
        "  r_k = 0.065 m (the text's garbled value, selected by the plateau radius of the circle",
        "  data: `test_plateau_geometry_closed_form`), density rho = 1000 kg/m^3 (minimum of the",
        "  rms tip error over the circle run: `test_soft_arm_density_scan`). The circle tip",
        "  errors are therefore a fit. Not fitted: the heart path (held out), the power balance,",
        "  the FE static arc and the tendon hook against their closed forms.",
        "- Viscoelastic cantilever (Ex. 6.2): of the two readings of the branch viscosity,",
        "  `convention=\"material\"` fits the dissipative data and `\"branch\"` misses it by",
        "  1.1-21 % (`test_ex62_branch_convention_does_not_match_data`). The H match checks the",
        "  chosen reading. Not fitted: the power balance, the relaxation at a held stretch against",
        "  its closed form and the discrete recursion.",
        "",
        "Everything else is compared with references that were not tuned: closed forms, exact",
        "solutions, published data (Kinon, Eugster & Betsch 2026; Exudyn), another formulation,",
        "or the convergence order of the scheme.",
    ]
    for example in dict.fromkeys(c.example for c in CLAIMS):
        out += ["", f"## {example}", "",
                "| README claim | value | test (file::function) | asserted tolerance | tier |",
                "|---|---|---|---|---|"]
        for c in (c for c in CLAIMS if c.example == example):
            tests = "<br>".join(f"`{t}`" for t in c.tests)
            cells = [c.what, c.value, tests, c.asserted, c.tier]
            out.append("| " + " | ".join(x.replace("|", "\\|") for x in cells) + " |")
    return "\n".join(out) + "\n"


@cache
def functions(path: str) -> dict[str, ast.FunctionDef]:
    tree = ast.parse((ROOT / path).read_text())
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


def source(path: str, fn: ast.FunctionDef) -> str:
    """The function's source with its decorators (parametrized tolerances)."""
    lines = (ROOT / path).read_text().splitlines()
    first = min([fn.lineno] + [d.lineno for d in fn.decorator_list])
    return "\n".join(lines[first - 1:fn.end_lineno])


def is_slow(fn: ast.FunctionDef) -> bool:
    return any(ast.unparse(d) == "pytest.mark.slow" for d in fn.decorator_list)


# ---------------------------------------------------------------------------------- tests
def test_doc_is_generated_from_claims():
    assert DOC.read_text() == render(), "run: python tests/test_validation_doc.py"


def test_claims_are_in_the_readme():
    missing = [f for c in CLAIMS for f in c.fragments if normalise(f) not in readme()]
    missing += [f for f in SETTINGS if normalise(f) not in results_section()]
    assert not missing, missing


def test_every_number_of_the_results_section_is_claimed():
    text = results_section()
    text = re.sub(r"`[^`]*`", lambda m: " " * len(m[0]), text)      # inline code
    text = EQUATION.sub(lambda m: " " * len(m[0]), text)
    covered = [False] * len(text)
    for frag in [f for c in CLAIMS for f in c.fragments] + list(SETTINGS):
        f = normalise(frag)
        f = EQUATION.sub(lambda m: " " * len(m[0]), re.sub(r"`[^`]*`",
                                                          lambda m: " " * len(m[0]), f))
        for m in re.finditer(re.escape(f), text):
            covered[m.start():m.end()] = [True] * len(f)
    loose = [(m[0], text[max(0, m.start() - 40):m.end() + 10]) for m in NUMBER.finditer(text)
             if not all(covered[m.start():m.end()])]
    assert not loose, loose


def test_tests_exist_with_tier_and_tolerance():
    problems = []
    for c in CLAIMS:
        assert c.tier in ("default", "slow"), c
        for t in c.tests:
            path, name = t.split("::")
            fn = functions(path).get(name)
            if fn is None:
                problems.append(("missing", t))
                continue
            if is_slow(fn) != (c.tier == "slow"):
                problems.append(("tier", t, c.tier))
            text = source(path, fn)
            for lit in c.literals:
                if lit not in text:
                    problems.append(("literal", t, lit))
    assert not problems, problems


def test_asserted_at_most_three_times_the_stated_number():
    wide = [(c.what, s, a) for c in CLAIMS for s, a in c.bounds
            if not 0 < a <= MAX_MARGIN * s]
    assert not wide, wide


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
    else:
        DOC.write_text(render())
        print(f"wrote {DOC.relative_to(ROOT)}")
