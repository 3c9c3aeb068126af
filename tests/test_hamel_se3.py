"""SE(3) utilities of fxrod.hamel against numerical identities (theory §H1, §H8)."""

import numpy as np
import pytest

import fxrod  # noqa: F401  (dolfinx_solver first)
from fxrod.hamel import se3

RNG = np.random.default_rng(20260)


def _expm(M: np.ndarray, terms: int = 80) -> np.ndarray:
    out, P = np.eye(M.shape[-1]), np.eye(M.shape[-1])
    for k in range(1, terms):
        P = P @ M / k
        out = out + P
    return out


def _dexp_series(x: np.ndarray, terms: int = 60) -> np.ndarray:
    A, out, P, f = se3.ad(x), np.zeros((6, 6)), np.eye(6), 1.0
    for k in range(terms):
        out += P / f
        P = P @ A
        f *= k + 2
    return out


def _xi(angle: float, lin: float = 1.0) -> np.ndarray:
    x = RNG.normal(size=6)
    x[:3] *= angle / np.linalg.norm(x[:3])
    x[3:] *= lin / np.linalg.norm(x[3:])
    return x


ANGLES = [0.0, 1e-9, 1e-4, 0.05, 0.49, 0.51, 1.0, 2.0, 3.0]


def test_hat_vee_and_bracket():
    x, y = RNG.normal(size=6), RNG.normal(size=6)
    assert np.array_equal(se3.vee(se3.hat(x)), x)
    X, Y = se3.hat(x), se3.hat(y)
    np.testing.assert_allclose(se3.hat(se3.ad(x) @ y), X @ Y - Y @ X, atol=1e-14)
    # theory §H1: ad_{xi1} xi2 = (w1 x w2, w1 x v2 + v1 x w2)
    w1, v1, w2, v2 = x[:3], x[3:], y[:3], y[3:]
    np.testing.assert_allclose(se3.ad(x) @ y, np.r_[np.cross(w1, w2),
                                                     np.cross(w1, v2) + np.cross(v1, w2)],
                               atol=1e-14)
    mu = RNG.normal(size=6)
    m, f = mu[:3], mu[3:]
    np.testing.assert_allclose(se3.ad_star(x) @ mu,
                               np.r_[-np.cross(w1, m) - np.cross(v1, f), -np.cross(w1, f)],
                               atol=1e-14)


@pytest.mark.parametrize("angle", ANGLES)
def test_exp_matches_matrix_exponential_and_log_inverts(angle):
    x = _xi(angle, lin=0.7)
    g = se3.exp(x)
    np.testing.assert_allclose(g, _expm(se3.hat(x)), atol=2e-15)
    R = g[:3, :3]
    np.testing.assert_allclose(R.T @ R, np.eye(3), atol=2e-15)
    np.testing.assert_allclose(se3.log(g), x, rtol=0, atol=4e-16 * max(1.0, angle))


def test_log_small_angle_is_relatively_accurate():
    """§H8: an arccos log loses ~sqrt(eps); atan2 + series keep relative precision."""
    for angle in (1e-12, 1e-8, 1e-5, 1e-3):
        x = _xi(angle, lin=0.1)
        y = se3.log(se3.exp(x))
        assert np.abs(y[:3] - x[:3]).max() <= 2e-16 * angle
        assert np.abs(y[3:] - x[3:]).max() <= 2e-17
        # and exp(log(g)) = g to round-off (needed for the telescoping of J_d)
        g = se3.exp(x)
        assert np.abs(se3.exp(se3.log(g)) - g).max() <= 3e-17


@pytest.mark.parametrize("delta", [0.0, 1e-9, 1e-4, 0.3])
def test_log_near_pi(delta):
    x = _xi(np.pi - delta, lin=1.0)
    g = se3.exp(x)
    y = se3.log(g)
    np.testing.assert_allclose(se3.exp(y), g, atol=5e-15)
    if delta > 0:
        np.testing.assert_allclose(y, x, atol=1e-6 if delta < 1e-6 else 1e-13)


def test_Ad_identities():
    x, y = _xi(1.3), RNG.normal(size=6)
    g = se3.exp(x) @ se3.exp(_xi(0.4))
    gi = se3.inverse(g)
    np.testing.assert_allclose(g @ gi, np.eye(4), atol=1e-15)
    np.testing.assert_allclose(se3.hat(se3.Ad(g) @ y), g @ se3.hat(y) @ gi, atol=1e-14)
    np.testing.assert_allclose(se3.Ad(se3.exp(x)), _expm(se3.ad(x)), atol=1e-13)
    np.testing.assert_allclose(se3.Ad(g) @ se3.Ad(gi), np.eye(6), atol=1e-14)
    # theory §H1: Ad*_{g^-1} (m, f) = (R m + phi x R f, R f)
    mu = RNG.normal(size=6)
    R, p = g[:3, :3], g[:3, 3]
    np.testing.assert_allclose(se3.Ad_star(gi) @ mu,
                               np.r_[R @ mu[:3] + np.cross(p, R @ mu[3:]), R @ mu[3:]],
                               atol=1e-14)
    # pairing invariance <Ad*_g mu, xi> = <mu, Ad_g xi>
    assert abs(se3.Ad_star(g) @ mu @ y - mu @ (se3.Ad(g) @ y)) < 1e-13


@pytest.mark.parametrize("angle", ANGLES + [4.0, 5.5])
def test_dexp_and_T_closed_forms(angle):
    x = _xi(angle, lin=1.5)
    D = _dexp_series(x)
    scale = max(1.0, angle) ** 2
    np.testing.assert_allclose(se3.dexp(x), D, atol=2e-15 * scale)
    T = se3.dexp_inv(x)
    np.testing.assert_allclose(T @ D, np.eye(6), atol=3e-15 * scale)
    # T(-X) = T(X) + ad_X  (z/(e^z-1) evaluated at -z)
    np.testing.assert_allclose(se3.dexp_inv(-x) - T, se3.ad(x), atol=3e-15 * scale)
    # T(-X)^T = Ad*_{exp X} T(X)^T  (theory §H1; the identity behind the telescoping)
    np.testing.assert_allclose(se3.dexp_inv(-x).T, se3.Ad_star(se3.exp(x)) @ T.T,
                               atol=5e-15 * scale)


def test_T_equals_bernoulli_series_for_small_X():
    x = _xi(0.2, lin=0.3)
    A = se3.ad(x)
    A2 = A @ A
    A4 = A2 @ A2
    series = np.eye(6) - A / 2 + A2 / 12 - A4 / 720 + A4 @ A2 / 30240 - A4 @ A4 / 1209600
    np.testing.assert_allclose(se3.dexp_inv(x), series, atol=1e-14)


def test_dexp_is_the_derivative_of_exp():
    """d/de exp(X + eY)|_0 = dexp_X(Y) exp(X); exp(eZ) exp(X) = exp(X + e T(X) Z + O(e^2))."""
    x, y = _xi(1.1, lin=0.8), RNG.normal(size=6)
    e = 1e-5
    dg = (se3.exp(x + e * y) - se3.exp(x - e * y)) / (2 * e)
    np.testing.assert_allclose(dg, se3.hat(se3.dexp(x) @ y) @ se3.exp(x), atol=1e-9)
    lhs = (se3.log(se3.exp(e * y) @ se3.exp(x)) - se3.log(se3.exp(-e * y) @ se3.exp(x))) / (2 * e)
    np.testing.assert_allclose(lhs, se3.dexp_inv(x) @ y, atol=1e-9)
    rhs = (se3.log(se3.exp(x) @ se3.exp(e * y)) - se3.log(se3.exp(x) @ se3.exp(-e * y))) / (2 * e)
    np.testing.assert_allclose(rhs, se3.dexp_inv(-x) @ y, atol=1e-9)


def test_vectorised_shapes():
    x = RNG.normal(size=(4, 5, 6)) * 0.3
    assert se3.exp(x).shape == (4, 5, 4, 4)
    assert se3.dexp_inv(x).shape == (4, 5, 6, 6)
    np.testing.assert_allclose(se3.log(se3.exp(x)), x, atol=1e-15)
    np.testing.assert_allclose(se3.dexp_inv(x)[2, 3], se3.dexp_inv(x[2, 3]), atol=0)
