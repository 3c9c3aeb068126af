"""Section constants K, P of the Hamel beam, HamelSection (theory §H6)."""

import math

import numpy as np
import pytest

import fxrod  # noqa: F401  (dolfinx_solver first)
from fxrod.errors import ParameterError
from fxrod.hamel import HamelSection, saint_venant_square


def test_square_example2_values():
    s = HamelSection.square(0.1, E=1e7, nu=0.35, rho=1000.0)
    # theory §H6, Example 2
    np.testing.assert_allclose(s.K, [8.3333e-3, 1.6667e-2, 8.3333e-3, 10, 10, 10], rtol=5e-5)
    np.testing.assert_allclose(s.P, [83.333, 61.728, 83.333, 3.0864e4, 1.0e5, 3.0864e4],
                               rtol=5e-5)
    # exact: G = E/(2(1+nu)), k = 5/6, polar J = a^4/6
    G = 1e7 / 2.7
    np.testing.assert_allclose(s.P[[1, 3]], [G * 1e-4 / 6, 5 / 6 * G * 1e-2], rtol=1e-15)
    np.testing.assert_allclose(s.wave_speeds[[0, 4]], [100.0, 100.0], rtol=1e-14)


def test_square_choices():
    a = 0.1
    assert saint_venant_square(a) == pytest.approx(0.140577 * a**4, rel=2e-6)
    sv = HamelSection.square(a, 1e7, 0.35, 1000.0, torsion="saint-venant")
    polar = HamelSection.square(a, 1e7, 0.35, 1000.0)
    assert sv.P[1] / polar.P[1] == pytest.approx(0.140577 * 6, rel=2e-6)
    assert sv.K[1] == polar.K[1]  # rotary inertia stays polar
    cowper = 10 * 1.35 / (12 + 11 * 0.35)
    s = HamelSection.square(a, 1e7, 0.35, 1000.0, shear_factor=cowper, torsion=1e-5)
    assert s.P[3] == pytest.approx(cowper * 1e7 / 2.7 * a * a, rel=1e-15)
    assert s.P[1] == pytest.approx(1e7 / 2.7 * 1e-5, rel=1e-15)


def test_circle():
    r, E, nu, rho = 0.02, 2e11, 0.3, 7800.0
    s = HamelSection.circle(r, E, nu, rho)
    A, I = math.pi * r**2, math.pi * r**4 / 4
    k = 6 * 1.3 / (7 + 1.8)
    np.testing.assert_allclose(s.K, rho * np.array([I, 2 * I, I, A, A, A]), rtol=1e-15)
    np.testing.assert_allclose(
        s.P, [E * I, E / 2.6 * 2 * I, E * I, k * E / 2.6 * A, E * A, k * E / 2.6 * A],
        rtol=1e-15)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(side=0.0), "side"),
        (dict(E=-1.0), "E"),
        (dict(nu=0.5), "nu"),
        (dict(rho=float("nan")), "rho"),
        (dict(shear_factor=0.0), "shear_factor"),
        (dict(torsion="warping"), "torsion"),
        (dict(torsion=-1.0), "torsion"),
    ],
)
def test_bad_section_input(kwargs, name):
    args = dict(side=0.1, E=1e7, nu=0.35, rho=1000.0) | kwargs
    with pytest.raises(ParameterError) as e:
        HamelSection.square(**args)
    assert e.value.name == name


def test_bad_diagonals():
    with pytest.raises(ParameterError) as e:
        HamelSection([1, 1, 1, 1, 1, -1], np.ones(6))
    assert e.value.name == "K"
    with pytest.raises(ParameterError) as e:
        HamelSection(np.ones(6), np.ones(5))
    assert e.value.name == "P"
