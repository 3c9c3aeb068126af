"""The mixed function space of the PH Cosserat rod (theory §2.1).

``W = [P2 (12 comps) q, DG1 (6) sigma = (N, M), P2 (6) lambda] (+ extra DG1 stress fields)``

The velocity is not an unknown: the kinematic equation (42a) is nodal and linear, so
``v_{n+1} = 2 (q_{n+1} - q_n)/h - v_n`` is eliminated exactly (theory §1.6 caveat; the authors'
2D code does the same). The multiplier field is tested with a 3-point Gauss-Lobatto rule
whose points are the P2 nodes: that is exactly the nodal collocation of theory §2.1.
"""

from __future__ import annotations

from dataclasses import dataclass

import basix.ufl
import numpy as np
import ufl
from dolfinx import fem, mesh

#: Quadrature degree of the main measure: 3-point Gauss, exact for all P2/DG1 integrands
#: of (42) (theory §2.1).
GAUSS_DEGREE = 4


def create_rod_mesh(comm, length: float, n_elements: int) -> mesh.Mesh:
    """Interval mesh of ``[0, length]`` (arc-length coordinate s [m])."""
    return mesh.create_interval(comm, n_elements, [0.0, float(length)])


def q_element():
    """Continuous P2 element for the configuration (and velocity), 12 components."""
    return basix.ufl.element("Lagrange", "interval", 2, shape=(12,))


def stress_element(ncomp: int = 6):
    """Discontinuous P1 element for stresses."""
    return basix.ufl.element("DG", "interval", 1, shape=(ncomp,))


def multiplier_element():
    """P2 multiplier field for the six orthonormality constraints (nodal collocation)."""
    return basix.ufl.element("Lagrange", "interval", 2, shape=(6,))


def flatten_map(m) -> np.ndarray:
    """Collapse maps are returned as a list of arrays by DOLFINx 0.11: flatten them."""
    return np.asarray(m, dtype=np.int64).reshape(-1)


@dataclass
class MixedSpace:
    """The mixed space and its collapsed sub-spaces with maps into the mixed vector."""

    W: fem.FunctionSpace
    Q: fem.FunctionSpace
    q_map: np.ndarray
    S: fem.FunctionSpace
    s_map: np.ndarray
    extra: list[tuple[fem.FunctionSpace, np.ndarray]]

    @property
    def dx(self) -> ufl.Measure:
        return ufl.Measure("dx", domain=self.W.mesh, metadata={"quadrature_degree": GAUSS_DEGREE})

    @property
    def dx_nodal(self) -> ufl.Measure:
        """Gauss-Lobatto measure: evaluates at the P2 nodes (nodal collocation)."""
        return ufl.Measure("dx", domain=self.W.mesh,
                           metadata={"quadrature_rule": "GLL", "quadrature_degree": 3})


def mixed_space(msh: mesh.Mesh, extra_elements=()) -> MixedSpace:
    """Create ``W = [q, sigma, lambda, *extra]`` and its collapsed sub-spaces."""
    elems = [q_element(), stress_element(), multiplier_element(), *extra_elements]
    W = fem.functionspace(msh, basix.ufl.mixed_element(elems))
    Q, qm = W.sub(0).collapse()
    S, sm = W.sub(1).collapse()
    extra = []
    for i in range(len(extra_elements)):
        V, vm = W.sub(3 + i).collapse()
        extra.append((V, flatten_map(vm)))
    return MixedSpace(W=W, Q=Q, q_map=flatten_map(qm), S=S, s_map=flatten_map(sm), extra=extra)


def quadrature_function(msh: mesh.Mesh, fn, shape: tuple[int, ...] = ()) -> fem.Function:
    """A function with values ``fn(s)`` at the quadrature points of the main measure ``dx``
    (``fn`` maps arc lengths (n,) to values (n,) or ``(*shape, n)``): coefficients that vary
    along the rod, exact where the forms evaluate them."""
    el = basix.ufl.quadrature_element(msh.basix_cell(), value_shape=shape, degree=GAUSS_DEGREE)
    f = fem.Function(fem.functionspace(msh, el))
    f.interpolate(lambda x: np.asarray(fn(x[0]), dtype=float))
    return f
