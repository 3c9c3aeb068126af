"""The data of one rod: geometry, cross-section, material, constraints (SI units).

A :class:`Section` holds the per-unit-length constants of the Cosserat rod (theory §1.3):
line density ``rhoA`` [kg/m], Euler-tensor entries ``M11 = M_rho^11``, ``M22 = M_rho^22``
[kg m], shear/extension stiffnesses ``k_s1, k_s2, k_e`` [N] and bending/torsion
stiffnesses ``k_b1, k_b2, k_t`` [N m^2]; its constructors compute them from a shape and a
material (circle, rectangle, tube by closed forms; box, I-section, any polygon with holes
by finite elements of the cross-section, ``sectionproperties``, imported only by those).
A :class:`Rod` adds the reference geometry (a straight segment or any :mod:`fxrod.core.geometry`
curve), the mesh size and the set of constrained strains.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from fxrod.core.geometry import Curve, Straight
from fxrod.errors import (
    ParameterError,
    check_finite,
    check_int_min,
    check_nonnegative,
    check_positive,
    check_range,
    check_vector,
)

#: Names of the six strain components, in the order (Gamma_1, Gamma_2, Gamma_3, K_1, K_2, K_3).
STRAIN_NAMES: tuple[str, ...] = ("shear1", "shear2", "extension", "bend1", "bend2", "torsion")

#: Shorthands for common constraint sets (theory §1.3).
CONSTRAINT_ALIASES: dict[str, tuple[str, ...]] = {
    "inextensible": ("extension",),
    "shear_rigid": ("shear1", "shear2"),
    "kirchhoff": ("shear1", "shear2", "extension"),
}


#: Ratio ``J / I_p`` below which :meth:`Section.polygon` calls a section open thin-walled:
#: 1 for circles and tubes, 0.84 for a square, above 0.5 for closed boxes, about
#: ``4 (t/b)^2`` for an open wall of thickness t and length b (walls more slender than
#: about 6:1 fall below it).
OPEN_WALL_RATIO = 0.1
#: Largest distance of the shear centre from the centroid accepted by the finite-element
#: constructors, relative to the polar radius of gyration ``sqrt(I_p / A)``.
SHEAR_CENTRE_TOL = 0.01
#: Default largest triangle of the cross-section mesh, relative to the area A.
ELEMENT_AREA = 1.0 / 2000.0


def _cowper_tube(nu: float, m: float) -> float:
    """Cowper's shear factor of a hollow circle of radius ratio ``m = r_in / r_out``,
    ``6 (1 + nu)(1 + m^2)^2 / ((7 + 6 nu)(1 + m^2)^2 + (20 + 12 nu) m^2)`` (G.R. Cowper,
    J. Appl. Mech. 33, 1966); ``m = 0``: the solid circle's ``6 (1 + nu) / (7 + 6 nu)``."""
    c = (1.0 + m * m) ** 2
    return 6.0 * (1.0 + nu) * c / ((7.0 + 6.0 * nu) * c + (20.0 + 12.0 * nu) * m * m)


def _shear_choice(shear_factor: float | str, names: tuple[str, ...]) -> float | str:
    """``shear_factor`` checked: a number > 0 or one of ``names``."""
    if isinstance(shear_factor, str):
        if shear_factor not in names:
            raise ParameterError("shear_factor", shear_factor,
                                 "a number > 0 or " + " or ".join(map(repr, names)))
        return shear_factor
    return check_positive("shear_factor", shear_factor)


def _isotropic_nu(nu: float | None, E: float, G: float, why: str) -> float:
    """The Poisson ratio, or a one-line error when G gives none in (-1, 0.5)."""
    if nu is None:
        raise ParameterError("G", G, f"in ({E / 3.0:.6g}, inf) Pa, i.e. nu = E/(2G) - 1 "
                             f"in (-1, 0.5), for {why}")
    return nu


def _points(name: str, value) -> np.ndarray:
    """A closed outline ``[(x, y), ...]`` [m] as a finite ``(n, 2)`` array, n >= 3."""
    try:
        p = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        p = np.zeros((0, 0))
    if p.ndim != 2 or p.shape[0] < 3 or p.shape[1] != 2 or not np.all(np.isfinite(p)):
        raise ParameterError(name, value, "a sequence of >= 3 finite points (x, y) [m]")
    return p


def _cross_section(outer: np.ndarray, holes: list[np.ndarray], nu: float,
                   element_area: float | None) -> dict[str, float]:
    """Area, principal second moments and angle, torsion constant, shear areas and
    shear-centre offset of a polygon with holes (SI units), by the finite elements of
    ``sectionproperties`` (imported here: it is heavy).

    The principal axis nearest to x is d1 (``angle`` in [-pi/4, pi/4]); ``I1 = int
    theta_2^2 dA`` and ``I2 = int theta_1^2 dA`` about the centroid; ``As1``, ``As2`` the
    shear areas along d1, d2 (the shear-flexibility tensor of the flexure solution turned
    into the principal axes; its coupling term, zero for a section with an axis of
    symmetry, is dropped); ``width``, ``depth`` the extents along d1, d2.
    """
    import shapely
    from sectionproperties.analysis import Section as MeshSection
    from sectionproperties.pre import Material
    from sectionproperties.pre.geometry import Geometry

    poly = shapely.Polygon(outer, holes)
    if not poly.is_valid or poly.area <= 0.0:
        raise ParameterError("outer/holes", shapely.is_valid_reason(poly),
                             "a simple outline with holes strictly inside it, of area > 0")
    A = float(poly.area)
    h = A * ELEMENT_AREA if element_area is None else check_positive("element_area",
                                                                      element_area)
    unit = Material("fxrod", elastic_modulus=1.0, poissons_ratio=nu, yield_strength=1.0,
                    density=1.0, color="w")   # E = 1: the weighted results are geometric
    fe = MeshSection(Geometry(poly, material=unit).create_mesh(mesh_sizes=h))
    fe.calculate_geometric_properties()
    fe.calculate_warping_properties()
    ixx, iyy, ixy = fe.get_eic()                 # int y^2, int x^2, int x y about the centroid
    S = np.array([[iyy, ixy], [ixy, ixx]])
    angle = 0.0 if abs(ixy) <= 1e-12 * (ixx + iyy) else 0.5 * math.atan2(2 * ixy, iyy - ixx)
    angle -= 0.5 * math.pi * round(angle / (0.5 * math.pi))
    c, s = math.cos(angle), math.sin(angle)
    R = np.array([[c, s], [-s, c]])              # rows: d1, d2 in the drawing
    Sp = R @ S @ R.T
    asx, asy = fe.get_eas()
    alpha = R @ (A / np.array([[asx, fe.section_props.a_sxy],
                               [fe.section_props.a_sxy, asy]])) @ R.T
    centroid = np.array(fe.get_c())
    offset = float(np.hypot(*(np.array(fe.get_sc()) - centroid)))
    extent = np.ptp((outer - centroid) @ R.T, axis=0)
    return {"A": A, "I1": float(Sp[1, 1]), "I2": float(Sp[0, 0]), "angle": angle,
            "J": float(fe.get_ej()), "As1": A / float(alpha[0, 0]),
            "As2": A / float(alpha[1, 1]), "offset": offset,
            "width": float(extent[0]), "depth": float(extent[1])}


@dataclass(frozen=True)
class Section:
    """Per-unit-length constants of a Cosserat rod (SI units).

    Give the constants, or build them from a shape and a material: :meth:`circular`,
    :meth:`rectangular` and :meth:`tube` by closed forms; :meth:`box`, :meth:`ibeam` and
    any :meth:`polygon` with holes by finite elements of the cross-section (the
    ``sectionproperties`` package). The constants refer to the centroid and to the
    principal axes d1, d2 of the section; the density enters as ``rhoA = rho A``,
    ``M11 = rho I_2`` and ``M22 = rho I_1``.

    Parameters
    ----------
    rhoA : float
        Mass per unit length [kg/m], >= 0 (0 for quasi-static runs).
    M11, M22 : float
        Euler-tensor entries ``int_A rho theta_a^2 dA`` [kg m], >= 0.
    k_s1, k_s2, k_e : float
        Shear stiffnesses (``G A`` times shear factor) and axial stiffness ``E A`` [N], > 0.
    k_b1, k_b2, k_t : float
        Bending stiffnesses ``E I_1, E I_2`` and torsional stiffness ``G J`` [N m^2], > 0.
    radius : float, optional
        A representative radius [m] of the outline, > 0: the tube drawn in pictures and the
        bound of actuator offsets (:class:`fxrod.core.forms.actuation.Actuation`).
    contact_radius : float, optional
        Distance [m] from the centreline at which obstacles touch the rod
        (:class:`fxrod.core.forms.contact.Contact` and its probe), >= 0; default ``radius``.
    open_thin_walled : bool
        An open thin-walled section (I, Z, cruciform, thin strip). Its warping stiffness
        (the Vlasov constant) is not in the rod model, nor the axial-stress (Wagner) term
        that lets thin open sections buckle in torsion, so :func:`fxrod.analysis.modes.buckling`
        refuses it. Default False.
    principal_angle : float
        Angle [rad] from the x axis of the drawing a :meth:`polygon` was given in to its
        first principal axis, which is d1; 0 for the other constructors.
    """

    rhoA: float
    M11: float
    M22: float
    k_s1: float
    k_s2: float
    k_e: float
    k_b1: float
    k_b2: float
    k_t: float
    radius: float | None = None
    contact_radius: float | None = None
    open_thin_walled: bool = False
    principal_angle: float = 0.0

    def __post_init__(self) -> None:
        for name in ("rhoA", "M11", "M22"):
            check_nonnegative(name, getattr(self, name))
        for name in ("k_s1", "k_s2", "k_e", "k_b1", "k_b2", "k_t"):
            check_positive(name, getattr(self, name))
        if self.radius is not None:
            check_positive("radius", self.radius)
        if self.contact_radius is None:
            object.__setattr__(self, "contact_radius", self.radius)
        else:
            check_nonnegative("contact_radius", self.contact_radius)
        if not isinstance(self.open_thin_walled, bool | np.bool_):
            raise ParameterError("open_thin_walled", self.open_thin_walled, "True or False")
        check_finite("principal_angle", self.principal_angle)

    @property
    def stiffness(self) -> np.ndarray:
        """The six stiffnesses ``(k_s1, k_s2, k_e, k_b1, k_b2, k_t)``."""
        return np.array([self.k_s1, self.k_s2, self.k_e, self.k_b1, self.k_b2, self.k_t])

    @staticmethod
    def _moduli(E: float, G: float | None, nu: float | None) -> tuple[float, float | None]:
        """Shear modulus [Pa] and Poisson ratio; the ratio is None when G is given with
        ``E / (2 G) - 1`` outside (-1, 0.5) (not an isotropic material)."""
        if (G is None) == (nu is None):
            raise ParameterError("G/nu", (G, nu), "exactly one of G [Pa] or nu given")
        if G is not None:
            G = check_positive("G", G)
            nu = E / (2.0 * G) - 1.0
            return G, (nu if nu < 0.5 else None)
        nu = check_range("nu", nu, -1.0, 0.5, lo_open=True, hi_open=True)
        return E / (2.0 * (1.0 + nu)), nu

    @classmethod
    def circular(
        cls,
        radius: float,
        E: float,
        rho: float,
        G: float | None = None,
        nu: float | None = None,
        shear_factor: float | str = 1.0,
        contact_radius: float | None = None,
    ) -> Section:
        """Solid circle (closed forms): ``A = pi r^2``, ``I_1 = I_2 = pi r^4 / 4``,
        ``J = pi r^4 / 2``: the :meth:`tube` with ``r_in = 0`` and another default shear
        factor.

        Parameters
        ----------
        radius : float
            Radius r [m], > 0.
        E : float
            Young's modulus [Pa], > 0.
        rho : float
            Density [kg/m^3], >= 0.
        G, nu : float, optional
            Shear modulus [Pa], > 0, or Poisson ratio [-] in (-1, 0.5): exactly one.
        shear_factor : float or "cowper"
            ``k_s = kappa G A`` with kappa a number > 0, or ``"cowper"``: Cowper's
            ``6 (1 + nu) / (7 + 6 nu)`` (0.886 at nu = 0.3; G.R. Cowper, J. Appl. Mech. 33,
            1966). Default 1.0, today's value, kept because the soft arm
            (:mod:`fxrod.problems.soft_arm`) and the paper's examples were matched to published data
            with it.
        contact_radius : float, optional
            Contact distance [m], >= 0; default ``radius``.
        """
        r = check_positive("radius", radius)
        return cls.tube(r, 0.0, E, rho, G=G, nu=nu, shear_factor=shear_factor,
                        contact_radius=contact_radius)

    @classmethod
    def rectangular(
        cls,
        width: float,
        height: float,
        E: float,
        rho: float,
        G: float | None = None,
        nu: float | None = None,
        shear_factor: float | str = 5.0 / 6.0,
        contact_radius: float | None = None,
    ) -> Section:
        """Solid rectangle, ``width`` [m] along d1 and ``height`` [m] along d2.

        Bending about d1 uses ``I_1 = width height^3 / 12``; the torsion constant is the
        Saint-Venant series approximation ``J = a b^3 (1/3 - 0.21 (b/a)(1 - b^4/(12 a^4)))``
        with ``a >= b`` the longer and shorter sides. ``radius = sqrt(width height) / 2``.

        Parameters
        ----------
        width, height : float
            Sides [m], > 0.
        E : float
            Young's modulus [Pa], > 0.
        rho : float
            Density [kg/m^3], >= 0.
        G, nu : float, optional
            Shear modulus [Pa], > 0, or Poisson ratio [-] in (-1, 0.5): exactly one.
        shear_factor : float or "cowper"
            ``k_s = kappa G A`` with kappa a number > 0, or ``"cowper"``: Cowper's
            ``10 (1 + nu) / (12 + 11 nu)`` (0.850 at nu = 0.3). Default 5/6, today's value,
            kept because the published examples were matched with it.
        contact_radius : float, optional
            Contact distance [m], >= 0; default ``radius`` (the geometric mean of the half
            sides: the inscribed radius of a square).
        """
        b = check_positive("width", width)
        hgt = check_positive("height", height)
        E = check_positive("E", E)
        rho = check_nonnegative("rho", rho)
        kappa = _shear_choice(shear_factor, ("cowper",))
        G, nu = cls._moduli(E, G, nu)
        if kappa == "cowper":
            nu = _isotropic_nu(nu, E, G, "shear_factor='cowper'")
            kappa = 10.0 * (1.0 + nu) / (12.0 + 11.0 * nu)
        A = b * hgt
        I1 = b * hgt**3 / 12.0  # about d1: fibres at theta_2 = +-height/2
        I2 = hgt * b**3 / 12.0
        a, c = max(b, hgt), min(b, hgt)
        J = a * c**3 * (1.0 / 3.0 - 0.21 * (c / a) * (1.0 - c**4 / (12.0 * a**4)))
        # M_rho^11 = int rho theta_1^2 dA = rho I2 ; M_rho^22 = rho I1
        return cls(rhoA=rho * A, M11=rho * I2, M22=rho * I1, k_s1=kappa * G * A,
                   k_s2=kappa * G * A, k_e=E * A, k_b1=E * I1, k_b2=E * I2, k_t=G * J,
                   radius=0.5 * math.sqrt(A), contact_radius=contact_radius)

    @classmethod
    def tube(
        cls,
        r_out: float,
        r_in: float,
        E: float,
        rho: float,
        G: float | None = None,
        nu: float | None = None,
        shear_factor: float | str = "cowper",
        contact_radius: float | None = None,
    ) -> Section:
        """Circular tube (closed forms): ``A = pi (r_out^2 - r_in^2)``,
        ``I_1 = I_2 = pi (r_out^4 - r_in^4) / 4``, ``J = pi (r_out^4 - r_in^4) / 2``.

        Parameters
        ----------
        r_out : float
            Outer radius [m], > 0.
        r_in : float
            Inner radius [m], in [0, r_out) (0: the solid circle).
        E : float
            Young's modulus [Pa], > 0.
        rho : float
            Density [kg/m^3], >= 0 (the wall's; a filling is not included).
        G, nu : float, optional
            Shear modulus [Pa], > 0, or Poisson ratio [-] in (-1, 0.5): exactly one.
        shear_factor : float or "cowper"
            ``k_s = kappa G A`` with kappa a number > 0, or ``"cowper"`` (default):
            Cowper's ``6 (1 + nu)(1 + m^2)^2 / ((7 + 6 nu)(1 + m^2)^2 + (20 + 12 nu) m^2)``,
            ``m = r_in / r_out``: ``6 (1 + nu) / (7 + 6 nu)`` for ``m = 0``, the thin tube's
            ``2 (1 + nu) / (4 + 3 nu)`` (0.531 at nu = 0.3) for ``m -> 1``.
        contact_radius : float, optional
            Contact distance [m], >= 0; default ``r_out`` (also ``radius``).
        """
        ro = check_positive("r_out", r_out)
        ri = check_finite("r_in", r_in)
        if not 0.0 <= ri < ro:
            raise ParameterError("r_in", r_in, f"in [0, r_out = {ro:.6g}) m")
        E = check_positive("E", E)
        rho = check_nonnegative("rho", rho)
        kappa = _shear_choice(shear_factor, ("cowper",))
        G, nu = cls._moduli(E, G, nu)
        if kappa == "cowper":
            kappa = _cowper_tube(_isotropic_nu(nu, E, G, "shear_factor='cowper'"), ri / ro)
        A = math.pi * (ro**2 - ri**2)
        Iax = math.pi * (ro**4 - ri**4) / 4.0
        return cls(rhoA=rho * A, M11=rho * Iax, M22=rho * Iax, k_s1=kappa * G * A,
                   k_s2=kappa * G * A, k_e=E * A, k_b1=E * Iax, k_b2=E * Iax,
                   k_t=G * 2.0 * Iax, radius=ro, contact_radius=contact_radius)

    @classmethod
    def box(
        cls,
        width: float,
        height: float,
        thickness: float,
        E: float,
        rho: float,
        G: float | None = None,
        nu: float | None = None,
        flange_thickness: float | None = None,
        shear_factor: float | str = "fe",
        contact_radius: float | None = None,
        element_area: float | None = None,
    ) -> Section:
        """Rectangular hollow section with sharp corners, ``width`` [m] along d1 and
        ``height`` [m] along d2 (outer sides); constants by :meth:`polygon`.

        Parameters
        ----------
        width, height : float
            Outer sides [m], > 0.
        thickness : float
            Wall thickness [m] of the sides along d2 (webs) and, unless
            ``flange_thickness`` is given, of all walls: in (0, width / 2).
        E : float
            Young's modulus [Pa], > 0.
        rho : float
            Density [kg/m^3], >= 0.
        G, nu : float, optional
            Shear modulus [Pa], > 0, or Poisson ratio [-] in (-1, 0.5): exactly one.
        flange_thickness : float, optional
            Thickness [m] of the walls along d1 (flanges), in (0, height / 2).
        shear_factor : float or "fe"
            ``"fe"`` (default): the shear areas of the finite-element flexure solution, as
            :meth:`polygon`; or a number kappa > 0: ``k_s = kappa G A``.
        contact_radius : float, optional
            Contact distance [m], >= 0; default ``radius = sqrt(width height) / 2``, the
            geometric mean of the half sides (the inscribed radius of a square outline;
            the corners reach ``sqrt(2)`` times it), as :meth:`rectangular`.
        element_area : float, optional
            Largest triangle [m^2] of the mesh, > 0; default ``A / 2000``.
        """
        b = check_positive("width", width)
        h = check_positive("height", height)
        tw = check_positive("thickness", thickness)
        tf = tw if flange_thickness is None else check_positive("flange_thickness",
                                                                flange_thickness)
        if 2.0 * tw >= b:
            raise ParameterError("thickness", thickness, f"in (0, width / 2 = {b / 2:.6g}) m")
        if 2.0 * tf >= h:
            raise ParameterError("flange_thickness" if flange_thickness is not None
                                 else "thickness", tf, f"in (0, height / 2 = {h / 2:.6g}) m")
        outer = [(-b / 2, -h / 2), (b / 2, -h / 2), (b / 2, h / 2), (-b / 2, h / 2)]
        hole = [(-b / 2 + tw, -h / 2 + tf), (b / 2 - tw, -h / 2 + tf),
                (b / 2 - tw, h / 2 - tf), (-b / 2 + tw, h / 2 - tf)]
        return cls.polygon(outer, E, rho, G=G, nu=nu, holes=[hole], shear_factor=shear_factor,
                           contact_radius=contact_radius, open_thin_walled=False,
                           element_area=element_area)

    @classmethod
    def ibeam(
        cls,
        height: float,
        width: float,
        web_thickness: float,
        flange_thickness: float,
        E: float,
        rho: float,
        G: float | None = None,
        nu: float | None = None,
        shear_factor: float | str = "fe",
        contact_radius: float | None = None,
        element_area: float | None = None,
    ) -> Section:
        """Doubly symmetric I-section with sharp corners (no root fillets): web along d2,
        flanges along d1, so ``k_b1`` is the strong-axis stiffness; constants by
        :meth:`polygon`. The section is open thin-walled: :func:`fxrod.analysis.modes.buckling`
        refuses it (see :class:`Section`).

        Parameters
        ----------
        height : float
            Overall depth [m] along d2, > 0.
        width : float
            Flange width [m] along d1, > 0.
        web_thickness : float
            Web thickness [m], in (0, width).
        flange_thickness : float
            Flange thickness [m], in (0, height / 2).
        E : float
            Young's modulus [Pa], > 0.
        rho : float
            Density [kg/m^3], >= 0.
        G, nu : float, optional
            Shear modulus [Pa], > 0, or Poisson ratio [-] in (-1, 0.5): exactly one.
        shear_factor : float or "fe"
            ``"fe"`` (default): the shear areas of the finite-element flexure solution, as
            :meth:`polygon` (along the web close to the web area ``(height - 2
            flange_thickness) web_thickness``); or a number kappa > 0: ``k_s = kappa G A``.
        contact_radius : float, optional
            Contact distance [m], >= 0; default ``radius = sqrt(width height) / 2``, the
            geometric mean of the half width and half depth of the outline.
        element_area : float, optional
            Largest triangle [m^2] of the mesh, > 0; default ``A / 2000``.
        """
        h = check_positive("height", height)
        b = check_positive("width", width)
        tw = check_positive("web_thickness", web_thickness)
        tf = check_positive("flange_thickness", flange_thickness)
        if tw >= b:
            raise ParameterError("web_thickness", web_thickness, f"in (0, width = {b:.6g}) m")
        if 2.0 * tf >= h:
            raise ParameterError("flange_thickness", flange_thickness,
                                 f"in (0, height / 2 = {h / 2:.6g}) m")
        y, x = h / 2 - tf, tw / 2
        half = [(b / 2, -h / 2), (b / 2, -y), (x, -y), (x, y), (b / 2, y), (b / 2, h / 2)]
        outer = [(-b / 2, -h / 2), *half, *[(-px, -py) for px, py in half[:-1]]]
        return cls.polygon(outer, E, rho, G=G, nu=nu, shear_factor=shear_factor,
                           contact_radius=contact_radius, open_thin_walled=True,
                           element_area=element_area)

    @classmethod
    def polygon(
        cls,
        outer: Sequence[tuple[float, float]],
        E: float,
        rho: float,
        G: float | None = None,
        nu: float | None = None,
        holes: Sequence[Sequence[tuple[float, float]]] = (),
        shear_factor: float | str = "fe",
        contact_radius: float | None = None,
        open_thin_walled: bool | None = None,
        element_area: float | None = None,
    ) -> Section:
        """Any polygon with holes, by finite elements of the cross-section (the
        ``sectionproperties`` package, quadratic triangles). Area and second moments are
        exact; at the default mesh J and the shear areas are converged to about 1e-6 on
        convex shapes and to about 6e-4 next to sharp re-entrant corners (I-section).

        Computed: area A, centroid, principal second moments ``I_1``, ``I_2`` and their
        angle, the Saint-Venant torsion constant J, the shear areas and the shear centre.
        The rod's centreline is the centroid; d1 is the principal axis nearest to the
        drawing's x axis, at ``principal_angle`` [rad] from it (give the rod that d1).

        Parameters
        ----------
        outer : sequence of (x, y)
            Outline [m], >= 3 points, not self-intersecting, either orientation.
        E : float
            Young's modulus [Pa], > 0.
        rho : float
            Density [kg/m^3], >= 0.
        G, nu : float, optional
            Shear modulus [Pa], > 0, or Poisson ratio [-] in (-1, 0.5): exactly one.
        holes : sequence of outlines, optional
            Holes [m], each strictly inside ``outer``.
        shear_factor : float or "fe"
            ``"fe"`` (default): ``k_s = G A_s`` with the shear areas ``A_s`` of the
            finite-element flexure solution of Saint-Venant's problem with Poisson ratio
            nu, energy-consistent (W.D. Pilkey, Analysis and Design of Elastic Beams, 2002):
            ``5 A / 6`` for a rectangle and ``6 A / 7`` for a circle at nu = 0, lower for
            wide flat shapes at nu > 0 (anticlastic warping); needs nu (or G with an
            isotropic nu). Or a number kappa > 0: ``k_s = kappa G A``.
        contact_radius : float, optional
            Contact distance [m], >= 0; default ``radius = sqrt(w d) / 2`` with ``w``, ``d``
            the extents of ``outer`` along d1 and d2 (exact for a circle, a documented
            compromise for other shapes: give the contact radius you mean).
        open_thin_walled : bool, optional
            Whether the section is open thin-walled (see :class:`Section`); default: when
            ``J < OPEN_WALL_RATIO I_p`` (``I_p = I_1 + I_2``).
        element_area : float, optional
            Largest triangle [m^2] of the mesh, > 0; default ``A / 2000``.

        Raises
        ------
        ParameterError
            For bad input, or when the shear centre lies farther than
            ``SHEAR_CENTRE_TOL sqrt(I_p / A)`` from the centroid (channel, angle, T): the
            rod model has no flexural-torsional coupling.
        """
        E = check_positive("E", E)
        rho = check_nonnegative("rho", rho)
        kappa = _shear_choice(shear_factor, ("fe",))
        G, nu = cls._moduli(E, G, nu)
        if kappa == "fe":
            nu = _isotropic_nu(nu, E, G, "shear_factor='fe'")
        if isinstance(holes, str) or not isinstance(holes, Iterable):
            raise ParameterError("holes", holes, "a sequence of outlines [(x, y), ...] [m]")
        holes = [_points(f"holes[{i}]", hole) for i, hole in enumerate(holes)]
        if open_thin_walled is not None and not isinstance(open_thin_walled, bool):
            raise ParameterError("open_thin_walled", open_thin_walled, "True, False or None")
        if contact_radius is not None:
            check_nonnegative("contact_radius", contact_radius)
        p = _cross_section(_points("outer", outer), holes, 0.0 if nu is None else nu,
                           element_area)
        A, I1, I2 = p["A"], p["I1"], p["I2"]
        r_gyr = math.sqrt((I1 + I2) / A)
        if p["offset"] > SHEAR_CENTRE_TOL * r_gyr:
            raise ParameterError("shear centre offset from the centroid", p["offset"],
                                 f"<= {SHEAR_CENTRE_TOL:g} sqrt(I_p/A) = "
                                 f"{SHEAR_CENTRE_TOL * r_gyr:.3g} m (the rod model has no "
                                 "flexural-torsional coupling: channel, angle and T "
                                 "sections are not supported)")
        if open_thin_walled is None:
            open_thin_walled = p["J"] < OPEN_WALL_RATIO * (I1 + I2)
        As1, As2 = (kappa * A, kappa * A) if kappa != "fe" else (p["As1"], p["As2"])
        return cls(rhoA=rho * A, M11=rho * I2, M22=rho * I1, k_s1=G * As1, k_s2=G * As2,
                   k_e=E * A, k_b1=E * I1, k_b2=E * I2, k_t=G * p["J"],
                   radius=0.5 * math.sqrt(p["width"] * p["depth"]),
                   contact_radius=contact_radius, open_thin_walled=bool(open_thin_walled),
                   principal_angle=p["angle"])


#: The section constants that may vary along s, in the order of :class:`Section`.
SECTION_FIELDS = ("rhoA", "M11", "M22", "k_s1", "k_s2", "k_e", "k_b1", "k_b2", "k_t")


@dataclass(frozen=True)
class VaryingSection:
    """Section constants that vary along the arc length s (SI units, as :class:`Section`).

    Every constant is a number or a callable ``s -> values`` (numpy arrays of arc lengths
    [m] in, arrays out); the model evaluates them at the quadrature points, so they enter
    mass, stiffness, gravity and every energy and momentum. They are checked (non-negative
    masses, positive stiffnesses) on 201 points of ``[0, L]`` when the rod is built.
    ``radius`` (pictures) and ``contact_radius`` (obstacle contact; default ``radius``) [m]
    are numbers or callables of s too, as in :class:`Section`.
    """

    rhoA: float | Callable
    M11: float | Callable
    M22: float | Callable
    k_s1: float | Callable
    k_s2: float | Callable
    k_e: float | Callable
    k_b1: float | Callable
    k_b2: float | Callable
    k_t: float | Callable
    radius: float | Callable | None = None
    contact_radius: float | Callable | None = None

    def __post_init__(self) -> None:
        if self.contact_radius is None:
            object.__setattr__(self, "contact_radius", self.radius)

    def values(self, s) -> dict[str, np.ndarray]:
        """All constants at the arc lengths ``s`` [m]."""
        s = np.asarray(s, dtype=float)
        out = {}
        for name in SECTION_FIELDS:
            v = getattr(self, name)
            out[name] = np.broadcast_to(np.asarray(v(s) if callable(v) else v, dtype=float),
                                        s.shape).copy()
        return out

    def check(self, length: float) -> None:
        """Raise ParameterError unless masses are >= 0 and stiffnesses > 0 on [0, L]."""
        s = np.linspace(0.0, length, 201)
        try:
            vals = self.values(s)
        except Exception as e:  # noqa: BLE001 - report any failure of the user callables
            raise ParameterError("section", self, f"callables s -> values ({e})") from None
        for name, v in vals.items():
            positive = name.startswith("k_")
            bad = ~np.isfinite(v) | ((v <= 0.0) if positive else (v < 0.0))
            if np.any(bad):
                i = int(np.flatnonzero(bad)[0])
                raise ParameterError(f"{name} at s = {s[i]:.6g}", float(v[i]),
                                     ("> 0" if positive else ">= 0") + f" on [0, {length:g}] m")

    @classmethod
    def circular(cls, radius: float | Callable, E: float | Callable, rho: float | Callable,
                 G: float | None = None, nu: float | None = None,
                 shear_factor: float | str = 1.0) -> VaryingSection:
        """Solid circular section with radius [m], Young's modulus [Pa] and density
        [kg/m^3] each a number or a function of s (tapered or graded rods); shear modulus
        ``G`` [Pa] or Poisson ratio ``nu``, and ``shear_factor`` (a number > 0, default 1.0,
        or ``"cowper"``, which needs ``nu``), as for :meth:`Section.circular`."""
        if (G is None) == (nu is None):
            raise ParameterError("G/nu", (G, nu), "exactly one of G [Pa] or nu given")
        if nu is not None:
            check_range("nu", nu, -1.0, 0.5, lo_open=True, hi_open=True)
        kappa = _shear_choice(shear_factor, ("cowper",))
        if kappa == "cowper":
            if nu is None:
                raise ParameterError("shear_factor", shear_factor,
                                     "a number when G is given ('cowper' needs nu)")
            kappa = _cowper_tube(nu, 0.0)

        def ev(f, s):
            return np.asarray(f(s) if callable(f) else f, dtype=float)

        def Gm(s):
            return ev(G, s) if G is not None else ev(E, s) / (2.0 * (1.0 + nu))

        def A(s):
            return np.pi * ev(radius, s) ** 2

        def Iax(s):
            return np.pi * ev(radius, s) ** 4 / 4.0

        return cls(rhoA=lambda s: ev(rho, s) * A(s), M11=lambda s: ev(rho, s) * Iax(s),
                   M22=lambda s: ev(rho, s) * Iax(s), k_s1=lambda s: kappa * Gm(s) * A(s),
                   k_s2=lambda s: kappa * Gm(s) * A(s), k_e=lambda s: ev(E, s) * A(s),
                   k_b1=lambda s: ev(E, s) * Iax(s), k_b2=lambda s: ev(E, s) * Iax(s),
                   k_t=lambda s: Gm(s) * 2.0 * Iax(s), radius=radius)


def normalize_constraints(constraints) -> tuple[str, ...]:
    """Expand aliases and validate a set of constrained strain names."""
    if constraints is None:
        return ()
    if isinstance(constraints, str):
        constraints = (constraints,)
    allowed = ", ".join(STRAIN_NAMES + tuple(CONSTRAINT_ALIASES))
    if not isinstance(constraints, Iterable):
        raise ParameterError("constraints", constraints, f"strain names, each one of {allowed}")
    constraints = tuple(constraints)
    out: list[str] = []
    for c in constraints:
        if not isinstance(c, str):
            raise ParameterError("constraints", c, f"one of {allowed}")
        names = CONSTRAINT_ALIASES.get(c, (c,))
        for n in names:
            if n not in STRAIN_NAMES:
                raise ParameterError("constraints", c, f"one of {allowed}")
            if n not in out:
                out.append(n)
    if set(STRAIN_NAMES).issubset(out):
        raise ParameterError("constraints", tuple(constraints),
                             "a proper subset of the six strains (all six constrained leaves "
                             "a rigid rod whose stresses are not determined: singular system)")
    return tuple(out)


@dataclass(frozen=True)
class Rod:
    """A rod: reference geometry, section, mesh size and constrained strains (SI units).

    The stress-free reference is either the straight segment from ``start`` to ``end`` with
    first director ``d1``, or any :class:`fxrod.core.geometry.Curve` given as ``curve`` (arc,
    helix, spline, user function). The P2 nodes are placed on the exact curve; the stresses
    start at zero, so the unloaded reference is an equilibrium to round-off.

    Parameters
    ----------
    section : Section or VaryingSection
        Per-unit-length constants, uniform or varying along s.
    start, end : sequence of 3 floats, optional
        Centreline end points ``phi(0)`` and ``phi(L)`` [m] of a straight rod.
    d1 : sequence of 3 floats, optional
        First director of a straight rod; orthogonal to ``end - start`` (it is normalised).
        ``d3 = (end - start)/L`` and ``d2 = d3 x d1``.
    n_elements : int
        Number of finite elements (>= 1).
    constraints : iterable of str
        Constrained strains (zero compliance): any of ``shear1, shear2, extension, bend1,
        bend2, torsion`` or the aliases ``inextensible``, ``shear_rigid``, ``kirchhoff``.
    curve : fxrod.core.geometry.Curve, optional
        Reference centreline and frame (instead of ``start``, ``end``, ``d1``).
    natural_curvature : sequence of 3 floats, optional
        Stress-free curvature and twist ``K0 = (K0_1, K0_2, K0_3)`` [1/m] to use instead of
        those of the reference geometry (e.g. a straight rod that curls into a ring); only on
        unconstrained components. The rod then starts stressed and springs into its natural
        shape.
    """

    section: Section | VaryingSection
    start: tuple[float, float, float] | None = None
    end: tuple[float, float, float] | None = None
    d1: tuple[float, float, float] | None = None
    n_elements: int = 0
    constraints: tuple[str, ...] = field(default=())
    curve: Curve | None = None
    natural_curvature: tuple[float, float, float] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.section, Section | VaryingSection):
            raise ParameterError("section", self.section, "a fxrod Section or VaryingSection")
        if self.curve is None:
            if self.start is None or self.end is None or self.d1 is None:
                raise ParameterError("curve", None, "a fxrod.core.geometry Curve, or start, end "
                                     "and d1 of a straight rod")
            curve = Straight(self.start, self.end, self.d1)
            object.__setattr__(self, "start", tuple(curve.start))
            object.__setattr__(self, "end", tuple(curve.end))
            object.__setattr__(self, "d1", tuple(curve.d1))
            object.__setattr__(self, "curve", curve)
        elif not isinstance(self.curve, Curve):
            raise ParameterError("curve", self.curve, "a fxrod.core.geometry Curve")
        elif not (self.start is None and self.end is None and self.d1 is None):
            raise ParameterError("start/end/d1", (self.start, self.end, self.d1),
                                 "not given together with curve")
        check_int_min("n_elements", self.n_elements, 1)
        if isinstance(self.section, VaryingSection):
            self.section.check(self.length)
        object.__setattr__(self, "constraints", normalize_constraints(self.constraints))
        if self.natural_curvature is not None:
            k0 = check_vector("natural_curvature", self.natural_curvature, 3)
            on_constrained = [STRAIN_NAMES[3 + i] for i in range(3)
                              if STRAIN_NAMES[3 + i] in self.constraints and k0[i] != 0.0]
            if on_constrained:
                raise ParameterError("natural_curvature", tuple(k0),
                                     f"zero on the constrained strains {on_constrained}")
            object.__setattr__(self, "natural_curvature", tuple(float(x) for x in k0))

    @property
    def length(self) -> float:
        """Rod length L [m] (arc length of the reference)."""
        return float(self.curve.length)

    @property
    def frame(self) -> np.ndarray:
        """Reference directors at s = 0 as columns ``R0 = [d1 d2 d3]``."""
        return self.curve.evaluate(np.zeros(1))[1][0]

    @property
    def free(self) -> np.ndarray:
        """Which of the six strains are unconstrained (boolean mask)."""
        return np.array([name not in self.constraints for name in STRAIN_NAMES])

    @property
    def uniform(self) -> bool:
        """Whether the section is the same along the whole rod."""
        return isinstance(self.section, Section)

    @property
    def compliance(self) -> np.ndarray:
        """Diagonal compliance ``(C_N, C_M)`` [1/N, 1/(N m^2)], zero for constrained strains
        (uniform sections only)."""
        if not self.uniform:
            raise ParameterError("section", "VaryingSection",
                                 "a uniform Section for this feature")
        return np.where(self.free, 1.0 / self.section.stiffness, 0.0)

    def initial_configuration(self, s: np.ndarray) -> np.ndarray:
        """Nodal values ``q = (phi, d1, d2, d3)`` (shape ``(len(s), 12)``) at arc lengths s."""
        return self.curve.configuration(s)
