"""A table of natural modes a user can read: number, frequency and the type of each mode.

The type of a mode follows from where its strain energy goes (theory §1.2 for the strains).
For a mode shape ``dq = (dphi, dd1, dd2, dd3)`` about the equilibrium ``q*`` the linearised
strains are ``deps = d eps(q*)[dq]`` (:func:`fxrod.core.kinematics.strain_rate`), components
``(Gamma_1, Gamma_2, Gamma_3, K_1, K_2, K_3)``: shear, shear, axial, bending, bending,
torsion. With the section stiffnesses ``C^-1 = diag(k_s1, k_s2, k_e, k_b1, k_b2, k_t)``
(``GA_1, GA_2, EA, EI_1, EI_2, GJ``; :class:`fxrod.core.rod.Section`; zero for a constrained
strain, which stores no energy) the modal strain energy of component i is::

    U_i = 1/2 int k_i deps_i^2 ds                                                [J]

(for the shape of unit modal mass, :attr:`fxrod.analysis.modes.Modes.shapes`), and the fractions
are ``bending = (U_4 + U_5) / U``, ``torsion = U_6 / U``, ``axial = U_3 / U``, ``shear =
(U_1 + U_2) / U`` with ``U = sum_i U_i``. The rule:

* ``rigid`` when ``omega <= RIGID_TOL * max(omega)`` of the computed modes (the rigid-body
  modes of :func:`fxrod.analysis.modes.modes` come out as exact zeros) or when the shape stores no
  strain energy;
* else the group with the largest fraction (``bending``, ``torsion``, ``axial`` or ``shear``).

The fractions are those of the material stiffness: the geometric (prestress) stiffness of a
loaded equilibrium, which also enters ``omega``, is not split up.

``fxrod modes`` (:func:`fxrod.cli.write_mode_outputs`) prints the table and writes it as
``DIR/<case>_mode_table.csv`` (:data:`COLUMNS`, docs/output.md), beside
``DIR/<case>_modes.png`` (one panel per mode, :func:`fxrod.viz.mode_figure`) and the GIFs
``DIR/<case>_mode<k>.gif``. The module works on a model and its modes as given (it imports
no solver layer): a read-out of :func:`fxrod.analysis.modes.modes`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import ufl
from dolfinx import fem
from mpi4py import MPI

from fxrod.core.kinematics import strain_rate
from fxrod.errors import ParameterError, check_finite
from fxrod.output.tables import CSVWriter

#: Mode types, in the order of the fraction columns after ``rigid``.
TYPES: tuple[str, ...] = ("bending", "torsion", "axial", "shear")
#: Strain components (0..5: Gamma_1, Gamma_2, Gamma_3, K_1, K_2, K_3) of each type.
GROUPS: dict[str, tuple[int, ...]] = {"bending": (3, 4), "torsion": (5,), "axial": (2,),
                                      "shear": (0, 1)}
#: A mode is rigid when its omega is at most this fraction of the largest computed omega.
RIGID_TOL = 1e-6
#: Columns of ``<case>_mode_table.csv``: number [-], f [Hz], omega [rad/s], type, and the
#: strain energy fractions [-].
COLUMNS: tuple[str, ...] = ("mode", "frequency", "omega", "type",
                            *(f"{t}_fraction" for t in TYPES))
#: Their units and meanings (``<case>_mode_table_columns.json``).
UNITS: dict[str, str] = {"mode": "-", "frequency": "Hz", "omega": "rad/s", "type": "-",
                         **{f"{t}_fraction": "-" for t in TYPES}}
MEANINGS: dict[str, str] = {
    "mode": "mode number, ascending frequency", "frequency": "f = omega / 2 pi",
    "omega": "circular frequency", "type": "rigid, bending, torsion, axial or shear",
    **{f"{t}_fraction": f"share of the modal strain energy in {t}" for t in TYPES}}


@dataclass
class ModeTable:
    """Natural modes as a table.

    Attributes
    ----------
    omega : ndarray
        Circular frequencies [rad/s], ascending.
    frequency : ndarray
        Frequencies [Hz].
    fractions : ndarray
        ``(n_modes, 4)`` fractions [-] of the modal strain energy in bending, torsion,
        axial and shear (:data:`TYPES`); zeros for a rigid mode.
    types : list of str
        ``"rigid"`` or one of :data:`TYPES` (module notes: the rule).
    """

    omega: np.ndarray
    frequency: np.ndarray
    fractions: np.ndarray
    types: list[str]

    def rows(self) -> list[dict[str, object]]:
        """One dict a mode with the keys of :data:`COLUMNS` (mode numbers from 1)."""
        out = []
        for i, kind in enumerate(self.types):
            row: dict[str, object] = {"mode": i + 1, "frequency": float(self.frequency[i]),
                                      "omega": float(self.omega[i]), "type": kind}
            row.update({f"{t}_fraction": float(self.fractions[i, j])
                        for j, t in enumerate(TYPES)})
            out.append(row)
        return out

    def format(self) -> str:
        """The table as text: ``mode  f [Hz]  omega [rad/s]  type  bending torsion axial
        shear`` (fractions in per cent)."""
        head = (f"{'mode':>4}  {'f [Hz]':>12}  {'omega [rad/s]':>13}  {'type':<8}"
                + "".join(f"  {t + ' %':>9}" for t in TYPES))
        lines = [head]
        for r in self.rows():
            lines.append(f"{r['mode']:>4}  {r['frequency']:>12.6g}  {r['omega']:>13.6g}  "
                         f"{r['type']:<8}" + "".join(f"  {100 * r[f'{t}_fraction']:>9.1f}"
                                                     for t in TYPES))
        return "\n".join(lines)

    def write_csv(self, path: str | Path, comm=None) -> Path:
        """Write the table (:data:`COLUMNS`) to ``path`` (rank 0 of ``comm``)."""
        with CSVWriter(path, COLUMNS, comm, units=UNITS, meanings=MEANINGS) as w:
            for r in self.rows():
                w.write(r)
        return Path(path)


def _energy_form(model, shape: fem.Function, weights: fem.Constant):
    """``1/2 int sum_i w_i k_i deps_i^2 ds`` [J] of the shape in ``shape`` about the state
    ``w0`` (``k_i``: the model's stiffness of the unconstrained strains)."""
    q0 = ufl.split(model.w0)[0]
    dq = ufl.split(shape)[0]
    de = strain_rate(q0, q0.dx(0), dq, dq.dx(0))
    K = model.K
    return fem.form(0.5 * sum(weights[i] * K[i] * de[i] ** 2 for i in range(6))
                    * model.ctx.dx)


def strain_energies(model, modes) -> np.ndarray:
    """Modal strain energy of each strain component (module notes), ``(n_modes, 6)`` [J]
    for the shapes of unit modal mass, MPI-reduced.

    Parameters
    ----------
    model : RodModel
        The model the modes were computed for, still in the same state ``w0``.
    modes : fxrod.analysis.modes.Modes
        Its modes (:func:`fxrod.analysis.modes.modes`).
    """
    shape = fem.Function(model.space.W)
    weights = fem.Constant(model.mesh, np.zeros(6))
    form = _energy_form(model, shape, weights)
    out = np.zeros((len(modes.shapes), 6))
    for k, s in enumerate(modes.shapes):
        shape.x.array[:] = 0.0
        shape.x.array[model.space.q_map] = np.asarray(s, dtype=float).reshape(-1)
        for i in range(6):
            weights.value[:] = np.eye(6)[i]
            out[k, i] = model.comm.allreduce(fem.assemble_scalar(form), op=MPI.SUM)
    return out


def classify(omega: np.ndarray, energies: np.ndarray, rigid_tol: float = RIGID_TOL
             ) -> tuple[np.ndarray, list[str]]:
    """Energy fractions ``(n, 4)`` [-] (:data:`TYPES`; zeros for a rigid mode, whose
    strains are round-off) and the type of each mode (module notes: the rule).

    Parameters
    ----------
    omega : ndarray
        Circular frequencies [rad/s], ``>= 0``.
    energies : ndarray
        ``(n, 6)`` modal strain energies of the strain components [J]
        (:func:`strain_energies`).
    rigid_tol : float
        ``rigid`` when ``omega <= rigid_tol * max(omega)``; in [0, 1).

    Raises
    ------
    ParameterError
        For ``rigid_tol`` outside [0, 1) or arrays of mismatched shapes.
    """
    tol = check_finite("rigid_tol", rigid_tol)
    if not 0.0 <= tol < 1.0:
        raise ParameterError("rigid_tol", rigid_tol, "a number in [0, 1)")
    omega = np.asarray(omega, dtype=float).reshape(-1)
    energies = np.asarray(energies, dtype=float)
    if energies.shape != (omega.size, 6):
        raise ParameterError("energies", energies.shape, f"shape ({omega.size}, 6): one row "
                             "of six component energies a mode")
    groups = np.column_stack([energies[:, list(GROUPS[t])].sum(axis=1) for t in TYPES])
    total = groups.sum(axis=1)
    fractions = np.divide(groups, total[:, None], out=np.zeros_like(groups),
                          where=total[:, None] > 0.0)
    rigid = (omega <= tol * float(np.max(omega, initial=0.0))) | (total <= 0.0)
    fractions[rigid] = 0.0             # round-off strains of a rigid-body motion
    types = ["rigid" if rigid[i] else TYPES[int(np.argmax(fractions[i]))]
             for i in range(omega.size)]
    return fractions, types


def mode_table(model, modes, rigid_tol: float = RIGID_TOL) -> ModeTable:
    """The :class:`ModeTable` of ``modes`` (:class:`fxrod.analysis.modes.Modes`) of ``model``
    (:class:`fxrod.core.model.RodModel`, in the state the modes were computed about)."""
    fractions, types = classify(modes.omega, strain_energies(model, modes), rigid_tol)
    return ModeTable(omega=np.asarray(modes.omega, dtype=float),
                     frequency=np.asarray(modes.frequency, dtype=float),
                     fractions=fractions, types=types)
