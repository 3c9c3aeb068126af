"""Cross-sections as engineers define them (issue 38): tube, box, I-section and polygon
constants against handbook formulas and closed forms, shear-factor options, the contact
radius, bad input, and a tube cantilever against beam theory.

References (independent of fxrod and of sectionproperties):

* tube: ``A = pi (ro^2 - ri^2)``, ``I = pi (ro^4 - ri^4) / 4``, ``J = pi (ro^4 - ri^4) / 2``
  (exact); Cowper's shear factor ``6 (1 + nu)(1 + m^2)^2 / ((7 + 6 nu)(1 + m^2)^2 + (20 +
  12 nu) m^2)``, ``m = ri / ro`` (G.R. Cowper, J. Appl. Mech. 33, 1966), whose limits are
  ``6 (1 + nu) / (7 + 6 nu)`` (solid) and ``2 (1 + nu) / (4 + 3 nu)`` (thin wall);
* box and I: area and second moments of the outline (exact); the box's J by Bredt's
  thin-wall formula ``4 A_m^2 / sum(l / t)`` on the wall mid-lines (Roark, hollow
  rectangle), whose error is of the order of the wall slenderness t / b; the I's J between
  the rigorous lower bound "sum of the exact J of its three rectangles" (the Prandtl
  functional is additive over disjoint supports and J grows with the domain) and the
  handbook value ``(2 b t_f^3 + (h - t_f) t_w^3) / 3``, which neglects the free-edge
  loss ``0.21 t / b`` per edge; shear area along the web by Cowper's thin-walled formulas
  (box and I) and the web area;
* polygon: a rectangle's J by Saint-Venant's series, its shear areas ``5 A / 6`` at nu = 0
  (the flexure stresses are then the elementary parabola); a regular n-gon inscribed in a
  circle of radius r has ``pi (r cos(pi/n))^4 / 2 <= J <= pi r^4 / 2`` (J grows with the
  domain) and the finite-element J is an upper bound of the polygon's (a restricted
  warping field); its energy shear factor tends to the circle's ``6 (1 + nu)^2 / (7 + 14
  nu + 8 nu^2)``, the energy of the Saint-Venant flexure stresses of a circular bar
  (Timoshenko & Goodier, Theory of Elasticity, §123: ``tau_xz = (3 + 2 nu) V / (8 (1 + nu)
  I) (r^2 - x^2 - (1 - 2 nu) y^2 / (3 + 2 nu))``, ``tau_yz = -(1 + 2 nu) V x y / (4 (1 +
  nu) I)``, ``1 / kappa = A / V^2 int (tau_xz^2 + tau_yz^2) dA``);
* cantilever with a tip load P: Timoshenko's ``PL^3 / (3 EI) + PL / (kappa G A)``; its
  first frequency: the root of the clamped-free Timoshenko frequency determinant (shear
  and rotary inertia), solved here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from fxrod.analysis.modes import buckling, modes
from fxrod.core.forms.contact import Contact
from fxrod.core.loads import EndLoad
from fxrod.core.model import RodModel
from fxrod.core.obstacles import HalfSpace
from fxrod.core.rod import Rod, Section, VaryingSection
from fxrod.core.supports import Clamp
from fxrod.errors import ParameterError
from fxrod.runs.integrators import Integrator

E, NU, RHO = 2.0e11, 0.3, 7850.0          # steel [Pa, -, kg/m^3]
G = E / (2.0 * (1.0 + NU))
RO, RI = 0.02, 0.016                      # tube radii [m]


def cowper_tube(nu: float, m: float) -> float:
    c = (1.0 + m * m) ** 2
    return 6.0 * (1.0 + nu) * c / ((7.0 + 6.0 * nu) * c + (20.0 + 12.0 * nu) * m * m)


def saint_venant_rectangle(a: float, b: float) -> float:
    """Exact torsion constant [m^4] of an a x b rectangle (series, 200 odd terms)."""
    a, b = max(a, b), min(a, b)
    n = np.arange(1, 400, 2)
    s = np.sum(np.tanh(n * np.pi * a / (2.0 * b)) / n**5)
    return a * b**3 / 3.0 * (1.0 - 192.0 / np.pi**5 * (b / a) * s)


# ---------------------------------------------------------------- tube (closed forms)
def test_tube_constants():
    sec = Section.tube(RO, RI, E=E, rho=RHO, nu=NU)
    A = math.pi * (RO**2 - RI**2)
    Iax = math.pi * (RO**4 - RI**4) / 4.0
    expected = dict(rhoA=RHO * A, M11=RHO * Iax, M22=RHO * Iax, k_e=E * A, k_b1=E * Iax,
                    k_b2=E * Iax, k_t=G * math.pi / 2.0 * (RO**4 - RI**4),
                    k_s1=cowper_tube(NU, RI / RO) * G * A, k_s2=cowper_tube(NU, RI / RO) * G * A)
    for name, value in expected.items():
        assert getattr(sec, name) == pytest.approx(value, rel=1e-14), name
    assert sec.radius == sec.contact_radius == RO
    assert not sec.open_thin_walled


def test_tube_cowper_limits_and_explicit_factor():
    """Cowper's tube factor reaches the solid circle's 6 (1 + nu) / (7 + 6 nu) at r_in = 0
    (the tube is then Section.circular) and the thin tube's 2 (1 + nu) / (4 + 3 nu) as
    r_in -> r_out (error O(1 - m)); a number is used as given."""
    A = math.pi * RO**2
    solid = Section.tube(RO, 0.0, E=E, rho=RHO, nu=NU)
    circle = Section.circular(RO, E=E, rho=RHO, nu=NU, shear_factor="cowper")
    assert solid.k_s1 / (G * A) == pytest.approx(6 * (1 + NU) / (7 + 6 * NU), rel=1e-14)
    assert solid.stiffness == pytest.approx(circle.stiffness, rel=1e-14)
    ri = RO * (1.0 - 1e-4)
    thin = Section.tube(RO, ri, E=E, rho=RHO, nu=NU)
    kappa = thin.k_s1 / (G * math.pi * (RO**2 - ri**2))
    assert kappa == pytest.approx(2 * (1 + NU) / (4 + 3 * NU), rel=1e-7)
    given = Section.tube(RO, RI, E=E, rho=RHO, G=G, shear_factor=0.5)
    assert given.k_s2 == pytest.approx(0.5 * G * math.pi * (RO**2 - RI**2), rel=1e-14)


def test_legacy_defaults_and_named_factors():
    """Today's defaults are kept (circular 1.0, rectangular 5/6); "cowper" gives
    6 (1 + nu)/(7 + 6 nu) and 10 (1 + nu)/(12 + 11 nu); G gives nu = E / (2G) - 1; the
    varying circle takes the same names."""
    r, b, h = 0.01, 0.02, 0.01
    A = math.pi * r**2
    assert Section.circular(r, E=E, rho=RHO, nu=NU).k_s1 == pytest.approx(G * A, rel=1e-14)
    assert Section.rectangular(b, h, E=E, rho=RHO, nu=NU).k_s1 == \
        pytest.approx(5 / 6 * G * b * h, rel=1e-14)
    c = Section.circular(r, E=E, rho=RHO, G=G, shear_factor="cowper")
    assert c.k_s1 == pytest.approx(6 * (1 + NU) / (7 + 6 * NU) * G * A, rel=1e-13)
    rect = Section.rectangular(b, h, E=E, rho=RHO, nu=NU, shear_factor="cowper")
    assert rect.k_s2 == pytest.approx(10 * (1 + NU) / (12 + 11 * NU) * G * b * h, rel=1e-14)
    varying = VaryingSection.circular(radius=r, E=E, rho=RHO, nu=NU, shear_factor="cowper")
    assert varying.values(np.array([0.3]))["k_s1"][0] == pytest.approx(c.k_s1, rel=1e-13)


# ---------------------------------------------------------------- box and I (FE)
def test_box_against_handbook():
    """Rectangular hollow section 200 x 300 mm, webs 8 mm, flanges 10 mm."""
    b, h, tw, tf = 0.2, 0.3, 0.008, 0.010
    sec = Section.box(b, h, tw, E=E, rho=RHO, nu=NU, flange_thickness=tf)
    bi, hi = b - 2 * tw, h - 2 * tf
    A = b * h - bi * hi
    I1, I2 = (b * h**3 - bi * hi**3) / 12.0, (h * b**3 - hi * bi**3) / 12.0
    assert sec.k_e == pytest.approx(E * A, rel=1e-12)
    assert sec.k_b1 == pytest.approx(E * I1, rel=1e-12)
    assert sec.k_b2 == pytest.approx(E * I2, rel=1e-12)
    assert (sec.rhoA, sec.M11, sec.M22) == pytest.approx((RHO * A, RHO * I2, RHO * I1),
                                                          rel=1e-12)
    bm, hm = b - tw, h - tf                                   # wall mid-lines
    bredt = 4.0 * (bm * hm) ** 2 / (2.0 * bm / tf + 2.0 * hm / tw)
    assert abs(sec.k_t / (G * bredt) - 1.0) <= max(tw, tf) / min(bm, hm)
    # Cowper, thin-walled box on the mid-lines (whose area is A), shear along the webs:
    # m = b_m t_f / (h_m t_w), n = b_m / h_m; the idealisation's error is O(t / b_m)
    m, n = bm * tf / (hm * tw), bm / hm
    k = 10 * (1 + NU) * (1 + 3 * m) ** 2 / (
        (12 + 72 * m + 150 * m**2 + 90 * m**3) + NU * (11 + 66 * m + 135 * m**2 + 90 * m**3)
        + 10 * n**2 * ((3 + NU) * m + 3 * m**2))
    assert abs(sec.k_s2 / (k * G * A) - 1.0) <= max(tw, tf) / min(bm, hm)
    assert not sec.open_thin_walled
    assert sec.contact_radius == pytest.approx(0.5 * math.sqrt(b * h), rel=1e-14)


def test_ibeam_against_handbook():
    """IPE 300 without root fillets: h 300, b 150, t_w 7.1, t_f 10.7 mm."""
    h, b, tw, tf = 0.3, 0.15, 0.0071, 0.0107
    sec = Section.ibeam(h, b, tw, tf, E=E, rho=RHO, nu=NU)
    hw = h - 2 * tf
    A = 2 * b * tf + hw * tw
    I1 = (b * h**3 - (b - tw) * hw**3) / 12.0
    I2 = (2 * tf * b**3 + hw * tw**3) / 12.0
    assert (sec.k_e, sec.k_b1, sec.k_b2) == pytest.approx((E * A, E * I1, E * I2), rel=1e-12)
    J = sec.k_t / G
    lower = 2 * saint_venant_rectangle(b, tf) + saint_venant_rectangle(hw, tw)
    handbook = (2 * b * tf**3 + (h - tf) * tw**3) / 3.0
    assert lower <= J
    assert abs(J / handbook - 1.0) <= 0.63 * max(tf / b, tw / hw)   # two free edges, 0.21 t/b
    # Cowper, thin-walled I on the mid-lines (area 2 b t_f + h_m t_w), shear along the web:
    # m = 2 b t_f / (h_m t_w), n = b / h_m; the idealisation's error is O(t / h_m)
    hm = h - tf
    m, n = 2 * b * tf / (hm * tw), b / hm
    k = 10 * (1 + NU) * (1 + 3 * m) ** 2 / (
        (12 + 72 * m + 150 * m**2 + 90 * m**3) + NU * (11 + 66 * m + 135 * m**2 + 90 * m**3)
        + 30 * n**2 * (m + m**2) + 5 * NU * n**2 * (8 * m + 9 * m**2))
    shear_area = k * (2 * b * tf + hm * tw)
    assert abs(sec.k_s2 / (G * shear_area) - 1.0) <= max(tf, tw) / hm
    assert sec.open_thin_walled


def test_open_section_buckling_refused():
    """Without warping torsion in the rod model, buckling of an I-section is refused (one
    line, before any matrix is assembled)."""
    sec = Section.ibeam(0.3, 0.15, 0.0071, 0.0107, E=E, rho=RHO, nu=NU)
    rod = Rod(sec, (0, 0, 0), (3.0, 0, 0), (0, 1, 0), 2)
    model = RodModel(rod, [EndLoad("L", force=(-1e3, 0.0, 0.0))], [Clamp("0")],
                     quasistatic=True)
    with pytest.raises(ParameterError, match="open thin-walled") as err:
        buckling(model)
    assert "\n" not in str(err.value) and "Vlasov" in str(err.value)


# ---------------------------------------------------------------- polygons (FE)
def test_polygon_rectangle_against_saint_venant():
    """2:1 rectangle at nu = 0: J by Saint-Venant's series (the FE J is an upper bound;
    1e-6 above it at the default mesh), shear areas 5 A / 6 both ways (to 3e-7), second
    moments exact."""
    a, b = 0.04, 0.02
    sec = Section.polygon([(0, 0), (a, 0), (a, b), (0, b)], E=E, rho=RHO, nu=0.0)
    G0, A = E / 2.0, a * b
    J = sec.k_t / G0
    assert 0.0 <= J / saint_venant_rectangle(a, b) - 1.0 <= 1e-5
    assert (sec.k_s1 / (G0 * A), sec.k_s2 / (G0 * A)) == pytest.approx((5 / 6, 5 / 6),
                                                                        rel=1e-5)
    assert (sec.k_b1, sec.k_b2) == pytest.approx((E * a * b**3 / 12, E * b * a**3 / 12),
                                                 rel=1e-12)
    assert sec.principal_angle == 0.0 and not sec.open_thin_walled


def test_polygon_circle_against_closed_forms():
    """Regular 256-gon of radius r, nu = 0.3: J within the polygon's bounds, the energy
    shear factor against the circle's 6 (1 + nu)^2 / (7 + 14 nu + 8 nu^2) (polygon and FE
    error together 7e-8)."""
    r, n = 0.01, 256
    phi = 2 * np.pi * np.arange(n) / n
    sec = Section.polygon(np.c_[r * np.cos(phi), r * np.sin(phi)], E=E, rho=RHO, nu=NU)
    A = 0.5 * n * r**2 * math.sin(2 * math.pi / n)
    assert sec.k_e == pytest.approx(E * A, rel=1e-12)
    J = sec.k_t / G
    assert math.pi * (r * math.cos(math.pi / n)) ** 4 / 2 <= J <= math.pi * r**4 / 2 * (1 + 1e-4)
    kappa = 6 * (1 + NU) ** 2 / (7 + 14 * NU + 8 * NU**2)
    assert sec.k_s1 / (G * A) == pytest.approx(kappa, rel=1e-5)
    assert sec.k_s2 / (G * A) == pytest.approx(kappa, rel=1e-5)
    assert sec.contact_radius == pytest.approx(r, rel=1e-3)


def test_polygon_principal_axes_of_a_rotated_drawing():
    """The same 5:1 rectangle drawn at 0.3 rad: principal_angle 0.3 and the constants of
    the upright one (d1 along the long side)."""
    a, b, angle = 0.05, 0.01, 0.3
    c, s = math.cos(angle), math.sin(angle)
    pts = [(c * x - s * y, s * x + c * y) for x, y in [(0, 0), (a, 0), (a, b), (0, b)]]
    sec = Section.polygon(pts, E=E, rho=RHO, nu=NU)
    upright = Section.polygon([(0, 0), (a, 0), (a, b), (0, b)], E=E, rho=RHO, nu=NU)
    assert sec.principal_angle == pytest.approx(angle, abs=1e-9)    # round-off
    assert (sec.k_b1, sec.k_b2) == pytest.approx((E * a * b**3 / 12, E * b * a**3 / 12),
                                                 rel=1e-10)
    assert sec.stiffness == pytest.approx(upright.stiffness, rel=1e-3)


def test_polygon_with_hole_and_off_centre_shear_centre():
    """A square tube drawn as a polygon with a hole is the box; a channel (shear centre off
    the centroid) is refused with one line; an I drawn as a polygon is open thin-walled."""
    b, t = 0.1, 0.005
    sq = [(0, 0), (b, 0), (b, b), (0, b)]
    hole = [(t, t), (b - t, t), (b - t, b - t), (t, b - t)]
    poly = Section.polygon(sq, E=E, rho=RHO, nu=NU, holes=[hole])
    box = Section.box(b, b, t, E=E, rho=RHO, nu=NU)
    assert poly.stiffness == pytest.approx(box.stiffness, rel=1e-3)
    channel = [(0, 0), (0.05, 0), (0.05, 0.008), (0.006, 0.008), (0.006, 0.092),
               (0.05, 0.092), (0.05, 0.1), (0, 0.1)]
    with pytest.raises(ParameterError, match="shear centre") as err:
        Section.polygon(channel, E=E, rho=RHO, nu=NU)
    assert "\n" not in str(err.value)
    ibeam = [(-0.05, -0.1), (0.05, -0.1), (0.05, -0.092), (0.003, -0.092), (0.003, 0.092),
             (0.05, 0.092), (0.05, 0.1), (-0.05, 0.1), (-0.05, 0.092), (-0.003, 0.092),
             (-0.003, -0.092), (-0.05, -0.092)]
    assert Section.polygon(ibeam, E=E, rho=RHO, nu=NU).open_thin_walled


# ---------------------------------------------------------------- contact radius
def test_contact_radius_defaults_and_use():
    """contact_radius: the radius of a circle or of a raw Section (backward compatible),
    r_out of a tube, sqrt(b h)/2 of a box; Contact measures gaps from it."""
    assert Section.circular(0.01, E=E, rho=RHO, nu=NU).contact_radius == 0.01
    raw = Section(rhoA=1, M11=1, M22=1, k_s1=1, k_s2=1, k_e=1, k_b1=1, k_b2=1, k_t=1,
                  radius=0.02)
    assert raw.contact_radius == 0.02
    assert Section.tube(RO, RI, E=E, rho=RHO, nu=NU, contact_radius=0.03).contact_radius == 0.03
    sec = Section.tube(RO, RI, E=E, rho=RHO, nu=NU)
    above = Rod(sec, (0, 0, 0.019), (1, 0, 0.019), (0, 1, 0), 2)   # 1 mm into the ground
    with pytest.raises(ParameterError, match="gap"):
        Contact(HalfSpace(), stiffness=1e5).bind(above)
    clear = Rod(sec, (0, 0, 0.021), (1, 0, 0.021), (0, 1, 0), 2)
    contact = Contact(HalfSpace(), stiffness=1e5)
    contact.bind(clear)
    assert contact._r(np.array([0.5])) == pytest.approx([RO], rel=1e-15)
    wide = Section.tube(RO, RI, E=E, rho=RHO, nu=NU, contact_radius=0.03)
    with pytest.raises(ParameterError, match="gap"):                 # 0.021 < 0.03
        Contact(HalfSpace(), stiffness=1e5).bind(Rod(wide, (0, 0, 0.021), (1, 0, 0.021),
                                                     (0, 1, 0), 2))


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("build, name", [
    (lambda: Section.tube(0.01, 0.01, E=E, rho=RHO, nu=NU), "r_in"),
    (lambda: Section.tube(0.01, -0.001, E=E, rho=RHO, nu=NU), "r_in"),
    (lambda: Section.tube(0.01, 0.005, E=E, rho=RHO, nu=NU, shear_factor="fe"),
     "shear_factor"),
    (lambda: Section.tube(0.01, 0.005, E=E, rho=RHO, G=E / 4), "G"),      # nu = 1 > 0.5
    (lambda: Section.circular(0.01, E=E, rho=RHO, nu=NU, shear_factor=0.0), "shear_factor"),
    (lambda: Section.box(0.1, 0.2, 0.05, E=E, rho=RHO, nu=NU), "thickness"),
    (lambda: Section.box(0.1, 0.2, 0.01, E=E, rho=RHO, nu=NU, flange_thickness=0.1),
     "flange_thickness"),
    (lambda: Section.ibeam(0.3, 0.15, 0.15, 0.01, E=E, rho=RHO, nu=NU), "web_thickness"),
    (lambda: Section.ibeam(0.3, 0.15, 0.007, 0.15, E=E, rho=RHO, nu=NU), "flange_thickness"),
    (lambda: Section.polygon([(0, 0), (1, 0)], E=E, rho=RHO, nu=NU), "outer"),
    (lambda: Section.polygon([(0, 0), (1, 1), (1, 0), (0, 1)], E=E, rho=RHO, nu=NU),
     "outer/holes"),
    (lambda: Section.polygon([(0, 0), (1, 0), (1, 1), (0, 1)], E=E, rho=RHO, nu=NU,
                             holes=[[(2, 2), (3, 2), (3, 3)]]), "outer/holes"),
    (lambda: Section.polygon([(0, 0), (1, 0), (1, 1)], E=E, rho=RHO, nu=NU,
                             element_area=-1.0), "element_area"),
    (lambda: Section.polygon([(0, 0), (1, 0), (1, 1)], E=E, rho=RHO, nu=NU,
                             contact_radius=-1.0), "contact_radius"),
])
def test_bad_input_names_parameter(build, name):
    with pytest.raises(ParameterError) as err:
        build()
    assert err.value.name == name and "\n" not in str(err.value)


# ---------------------------------------------------------------- tube cantilever
def _tip_deflection(sec: Section, length: float, force: float) -> float:
    rod = Rod(sec, (0, 0, 0), (length, 0, 0), (0, 1, 0), 8)
    model = RodModel(rod, [EndLoad("L", force=lambda t: (0.0, 0.0, -force * t))],
                     [Clamp("0")], quasistatic=True)
    Integrator(model, 1.0).advance_to(1.0)
    return -float(model.nodes.tip()[2])


def _timoshenko_first_frequency(EI, kGA, rhoA, rhoI, L) -> float:
    """Lowest root omega [rad/s] of the clamped-free Timoshenko beam (w, psi):
    ``kGA (w'' - psi') + rhoA w^2 w = 0``, ``EI psi'' + kGA (w' - psi) + rhoI w^2 psi = 0``,
    ``w = psi = 0`` at 0, ``psi' = w' - psi = 0`` at L (below the cut-off
    ``sqrt(kGA / rhoI)``: exponents ``+-a``, ``+-i b``)."""
    def det(om):
        s = rhoA * om**2 / kGA
        # lambda^2 solves (kGA l^2 + rhoA om^2)(EI l^2 - kGA + rhoI om^2) + (kGA l)^2 = 0
        c2, c1, c0 = kGA * EI, kGA * (rhoI * om**2) + rhoA * om**2 * EI, \
            rhoA * om**2 * (rhoI * om**2 - kGA)
        disc = math.sqrt(c1 * c1 - 4 * c2 * c0)
        a, b = math.sqrt((-c1 + disc) / (2 * c2)), math.sqrt((c1 + disc) / (2 * c2))
        ra, rb = (a * a + s) / a, (s - b * b) / b
        # columns w = cosh(ax), sinh(ax), cos(bx), sin(bx); psi' = w'' + s w gives
        # psi = ra sinh, ra cosh, rb sin, -rb cos
        w0 = [1.0, 0.0, 1.0, 0.0]
        p0 = [0.0, ra, 0.0, -rb]
        ch, sh, co, si = math.cosh(a * L), math.sinh(a * L), math.cos(b * L), math.sin(b * L)
        psi = [ra * sh, ra * ch, rb * si, -rb * co]
        dpsi = [ra * a * ch, ra * a * sh, rb * b * co, rb * b * si]
        dw = [a * sh, a * ch, -b * si, b * co]
        return np.linalg.det(np.array([w0, p0, dpsi, np.subtract(dw, psi)]))

    w_eb = 1.8751040687**2 * math.sqrt(EI / (rhoA * L**4))
    grid = np.linspace(0.5 * w_eb, 1.05 * w_eb, 56)
    vals = [det(w) for w in grid]
    i = next(k for k in range(len(grid) - 1) if vals[k] * vals[k + 1] < 0)
    return brentq(det, grid[i], grid[i + 1], xtol=1e-12 * w_eb)


def test_tube_cantilever_deflection_and_first_frequency():
    """Steel tube 40 x 4 mm, L = 1 m, P = 10 N: tip deflection PL^3/(3EI) + PL/(kGA) (the
    shear term is 0.24 % of it) to the geometric nonlinearity (PL^2/EI)^2 = 4.6e-7 (the
    mixed elements are exact for the linear cantilever); first frequency against the
    Timoshenko determinant to 1e-6 (n_e 16; Euler-Bernoulli is 0.22 % above)."""
    L, P = 1.0, 10.0
    sec = Section.tube(RO, RI, E=E, rho=RHO, nu=NU)
    A, Iax = math.pi * (RO**2 - RI**2), math.pi * (RO**4 - RI**4) / 4.0
    kGA = cowper_tube(NU, RI / RO) * G * A
    exact = P * L**3 / (3 * E * Iax) + P * L / kGA
    assert abs(_tip_deflection(sec, L, P) / exact - 1.0) <= (P * L**2 / (E * Iax)) ** 2
    rod = Rod(sec, (0, 0, 0), (L, 0, 0), (0, 1, 0), 16)
    omega = modes(RodModel(rod, [], [Clamp("0")], quasistatic=True), 1).omega[0]
    reference = _timoshenko_first_frequency(E * Iax, kGA, RHO * A, RHO * Iax, L)
    assert omega / reference == pytest.approx(1.0, abs=1e-6)


def test_shear_factor_changes_the_shear_deflection():
    """Deep tube, L = 2.5 depth: the shear term PL/(kappa G A) is 19 % of the tip
    deflection; choosing Cowper's kappa instead of 1.0 adds exactly
    PL/(GA) (1/kappa - 1) (the bending part cancels)."""
    L, P = 0.1, 100.0
    A = math.pi * (RO**2 - RI**2)
    kappa = cowper_tube(NU, RI / RO)
    stiff = _tip_deflection(Section.tube(RO, RI, E=E, rho=RHO, nu=NU, shear_factor=1.0), L, P)
    soft = _tip_deflection(Section.tube(RO, RI, E=E, rho=RHO, nu=NU), L, P)
    expected = P * L / (G * A) * (1.0 / kappa - 1.0)
    assert (soft - stiff) / expected == pytest.approx(1.0, abs=1e-6)
