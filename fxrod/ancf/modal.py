"""Small-amplitude eigenfrequencies of the ANCF beam with SLEPc (theory §A4, §A5).

The generalized eigenproblem ``K_t phi = omega^2 M phi`` is posed on the free dofs only
(fixed rows and columns removed with ``createSubMatrix``), so boundary conditions add no
spurious eigenvalues. ``K_t = dF/dq`` is the tangent stiffness at a given state (by default
the straight reference state, where axial and bending decouple and the bending spectrum is
that of the linear Euler-Bernoulli beam), ``M`` the consistent mass (§A2).

* :func:`eigenfrequencies`: the lowest ``n`` circular frequencies, shift-and-invert about 0.
* :func:`max_eigenfrequency` / :func:`critical_time_step`: the largest circular frequency and
  the central-difference limit ``h_cr = 2 / omega_max`` (§A4).

Units: circular frequencies [rad/s], time steps [s].
"""

from __future__ import annotations

import numpy as np
from petsc4py import PETSc
from slepc4py import SLEPc

from fxrod.ancf.element import ANCFBeam
from fxrod.errors import ParameterError, check_int_min


def _reduced(beam: ANCFBeam, q: np.ndarray | None):
    """Tangent stiffness and mass on the free dofs, as sequential PETSc matrices."""
    q_saved = beam.state()
    K = beam.jacobian(beam.q_ref if q is None else q)
    beam.set_state(q_saved)
    M = beam.mass_matrix()
    iset = PETSc.IS().createGeneral(beam.free_dofs.astype(PETSc.IntType), comm=PETSc.COMM_SELF)
    Kf = K.createSubMatrix(iset, iset)
    Mf = M.createSubMatrix(iset, iset)
    K.destroy()
    M.destroy()
    iset.destroy()
    return Kf, Mf


def _solve_eps(K, M, n: int, largest: bool) -> np.ndarray:
    eps = SLEPc.EPS().create(comm=PETSc.COMM_SELF)
    eps.setOperators(K, M)
    eps.setProblemType(SLEPc.EPS.ProblemType.GHEP)
    eps.setType(SLEPc.EPS.Type.KRYLOVSCHUR)
    eps.setDimensions(nev=n)
    eps.setTolerances(tol=1e-12, max_it=1000)
    st = eps.getST()
    ksp = st.getKSP()
    ksp.setType(PETSc.KSP.Type.PREONLY)
    pc = ksp.getPC()
    if largest:  # B^-1 A with B = M (SPD): Cholesky of the mass
        st.setType(SLEPc.ST.Type.SHIFT)
        pc.setType(PETSc.PC.Type.CHOLESKY)
        eps.setWhichEigenpairs(SLEPc.EPS.Which.LARGEST_REAL)
    else:  # shift-and-invert about 0: (K)^-1 M, LU in case K_t is indefinite
        st.setType(SLEPc.ST.Type.SINVERT)
        pc.setType(PETSc.PC.Type.LU)
        eps.setTarget(0.0)
        eps.setWhichEigenpairs(SLEPc.EPS.Which.TARGET_MAGNITUDE)
    eps.solve()
    nconv = eps.getConverged()
    if nconv < n:
        raise RuntimeError(f"SLEPc converged {nconv} of {n} eigenpairs")
    vals = np.array([eps.getEigenvalue(i).real for i in range(nconv)])
    eps.destroy()
    vals = np.sort(vals)
    return vals[-n:] if largest else vals[:n]


def eigenfrequencies(beam: ANCFBeam, n_modes: int = 1, q: np.ndarray | None = None) -> np.ndarray:
    """Lowest ``n_modes`` circular eigenfrequencies [rad/s] of the beam linearized at ``q``.

    Parameters
    ----------
    beam : ANCFBeam
        The beam (its end conditions and current load factor are used).
    n_modes : int
        Number of frequencies (>= 1).
    q : numpy.ndarray, optional
        State to linearize about; the straight reference state by default.

    Raises
    ------
    fxrod.errors.ParameterError
        If ``n_modes`` is not an integer in ``[1, number of free dofs]``.
    """
    n_modes = check_int_min("n_modes", n_modes, 1)
    if n_modes > beam.free_dofs.size:
        raise ParameterError("n_modes", n_modes, f"<= {beam.free_dofs.size} (free dofs)")
    K, M = _reduced(beam, q)
    lam = _solve_eps(K, M, n_modes, largest=False)
    K.destroy()
    M.destroy()
    if np.any(lam < 0.0):
        raise RuntimeError(f"negative eigenvalue {lam.min():.6g}: the state is unstable")
    return np.sqrt(lam)


def max_eigenfrequency(beam: ANCFBeam, q: np.ndarray | None = None) -> float:
    """Largest circular eigenfrequency ``omega_max`` [rad/s] of ``(K_t, M)`` at ``q``."""
    K, M = _reduced(beam, q)
    lam = _solve_eps(K, M, 1, largest=True)
    K.destroy()
    M.destroy()
    return float(np.sqrt(lam[-1]))


def critical_time_step(beam: ANCFBeam, q: np.ndarray | None = None) -> float:
    """Critical step ``h_cr = 2 / omega_max`` [s] of the central difference (theory §A4, R8).

    ``omega_max`` [rad/s] (:func:`max_eigenfrequency`) comes from SLEPc at ``q`` (straight
    reference state by default). For large deformations with high axial tension the limit
    can drop; pass the deformed state then.
    """
    return 2.0 / max_eigenfrequency(beam, q)
