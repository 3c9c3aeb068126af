"""SE(3) utilities with the conventions of the Hamel method note (theory §H1).

Lie-algebra elements are 6-vectors ``xi = (omega, v)``, **angular first, linear second**;
group elements are 4x4 homogeneous matrices ``g = [[Lambda, phi], [0, 1]]``. Every function
is vectorised over leading axes (``xi`` of shape ``(..., 6)``, ``g`` of shape ``(..., 4, 4)``).

* ``ad(xi) = [[W, 0], [V, W]]`` with ``W = skew(omega)``, ``V = skew(v)``;
  ``Ad(g) = [[Lambda, 0], [skew(phi) Lambda, Lambda]]``.
* Coadjoint actions are plain transposes: ``ad_star(xi) = ad(xi).T``,
  ``Ad_star(g) = Ad(g).T``; ``Ad_star(inverse(g)) @ mu`` maps a body momentum to the spatial
  momentum about the origin.
* ``exp``/``log`` use Rodrigues' formula; the SO(3) angle is taken with ``atan2`` and the
  cancelling coefficients are evaluated by Taylor series for small angles (theory §H8: an ``arccos``
  log loses about sqrt(eps) and breaks the exact telescoping of the discrete momentum).
* ``dexp_X = sum_k ad_X^k/(k+1)!`` (``d/de exp(X + eY)|_0 = dexp_X(Y) exp(X)``) and
  ``T(X) = dexp_inv(X) = sum_k B_k/k! ad_X^k`` in closed block form, valid for rotation angles
  below 2 pi (the Bernoulli series itself diverges there).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

__all__ = [
    "Ad",
    "Ad_star",
    "ad",
    "ad_star",
    "compose",
    "dexp",
    "dexp_inv",
    "exp",
    "exp_Rp",
    "exp_so3",
    "from_Rp",
    "hat",
    "inverse",
    "log",
    "log_Rp",
    "log_so3",
    "skew",
    "to_Rp",
    "vee",
    "vee3",
]

# Below this angle [rad] the coefficient functions are evaluated by their Taylor series
# (12 terms in theta^2: truncation error < 1e-30 there). Above it the closed forms lose at
# most ~1e-13 relative (the worst is the theta^5 cancellation of ``_q4``).
_SERIES_BELOW = 0.5
_NTERMS = 12

# Bernoulli numbers B_2, B_4, ..., B_24 (for the series of d(theta)).
_BERNOULLI_EVEN = (
    1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
    43867 / 798, -174611 / 330, 854513 / 138, -236364091 / 2730,
)


def _series(gen: Callable[[int], float]) -> list[float]:
    return [gen(k) for k in range(_NTERMS)]


# Taylor coefficients in powers of theta^2 of the six coefficient functions, one column each:
#   a = sin t / t,  b = (1 - cos t)/t^2,  c = (t - sin t)/t^3,  q3 = (t^2/2 + cos t - 1)/t^4,
#   q4 = (2t - 3 sin t + t cos t)/(2 t^5),  d = (1 - (t/2) cot(t/2))/t^2.
_TABLE = np.array(
    [
        _series(lambda k: (-1) ** k / math.factorial(2 * k + 1)),
        _series(lambda k: (-1) ** k / math.factorial(2 * k + 2)),
        _series(lambda k: (-1) ** k / math.factorial(2 * k + 3)),
        _series(lambda k: (-1) ** k / math.factorial(2 * k + 4)),
        _series(lambda k: (-1) ** k * (k + 1) / math.factorial(2 * k + 5)),
        _series(lambda k: (-1) ** k * _BERNOULLI_EVEN[k] / math.factorial(2 * k + 2)),
    ]
).T  # (_NTERMS, 6)
_POWERS = np.arange(_NTERMS)


def _closed(x: np.ndarray) -> np.ndarray:
    """Closed forms of the six coefficient functions (for ``x >= _SERIES_BELOW``)."""
    s, c = np.sin(x), np.cos(x)
    return np.stack(
        [
            s / x,
            2.0 * np.sin(0.5 * x) ** 2 / x**2,
            (x - s) / x**3,
            (0.5 * x**2 + c - 1.0) / x**4,
            (2 * x - 3 * s + x * c) / (2 * x**5),
            (1.0 - 0.5 * x / np.tan(0.5 * x)) / x**2,
        ],
        axis=-1,
    )


def _coefs(theta: np.ndarray) -> np.ndarray:
    """``(..., 6)`` values of (a, b, c, q3, q4, d) at the angles ``theta (...)``.

    Taylor series below ``_SERIES_BELOW``, closed forms above.
    """
    theta = np.asarray(theta, dtype=float)
    out = (theta[..., None] ** 2) ** _POWERS @ _TABLE
    big = theta >= _SERIES_BELOW
    if np.any(big):
        out[big] = _closed(theta[big])
    return out


# ---------------------------------------------------------------------------------------------
# hat / vee
# ---------------------------------------------------------------------------------------------
def skew(w: np.ndarray) -> np.ndarray:
    """Cross-product matrix ``skew(w) @ x = w x x`` for ``w`` of shape ``(..., 3)``."""
    w = np.asarray(w, dtype=float)
    out = np.zeros(w.shape[:-1] + (3, 3))
    out[..., 0, 1] = -w[..., 2]
    out[..., 0, 2] = w[..., 1]
    out[..., 1, 0] = w[..., 2]
    out[..., 1, 2] = -w[..., 0]
    out[..., 2, 0] = -w[..., 1]
    out[..., 2, 1] = w[..., 0]
    return out


def vee3(W: np.ndarray) -> np.ndarray:
    """Inverse of :func:`skew` applied to the skew part of ``W`` (shape ``(..., 3, 3)``)."""
    W = np.asarray(W, dtype=float)
    return 0.5 * np.stack(
        [W[..., 2, 1] - W[..., 1, 2], W[..., 0, 2] - W[..., 2, 0], W[..., 1, 0] - W[..., 0, 1]],
        axis=-1,
    )


def hat(xi: np.ndarray) -> np.ndarray:
    """4x4 matrix ``[[skew(omega), v], [0, 0]]`` of ``xi = (omega, v)``."""
    xi = np.asarray(xi, dtype=float)
    out = np.zeros(xi.shape[:-1] + (4, 4))
    out[..., :3, :3] = skew(xi[..., :3])
    out[..., :3, 3] = xi[..., 3:]
    return out


def vee(X: np.ndarray) -> np.ndarray:
    """Inverse of :func:`hat`: ``(omega, v)`` from a 4x4 se(3) matrix."""
    X = np.asarray(X, dtype=float)
    return np.concatenate([vee3(X[..., :3, :3]), X[..., :3, 3]], axis=-1)


# ---------------------------------------------------------------------------------------------
# group helpers
# ---------------------------------------------------------------------------------------------
def from_Rp(R: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Homogeneous 4x4 matrices from rotations ``R (..., 3, 3)`` and translations ``p``."""
    R = np.asarray(R, dtype=float)
    g = np.zeros(R.shape[:-2] + (4, 4))
    g[..., :3, :3] = R
    g[..., :3, 3] = p
    g[..., 3, 3] = 1.0
    return g


def to_Rp(g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split 4x4 matrices into ``(R, p)`` (copies)."""
    g = np.asarray(g, dtype=float)
    return g[..., :3, :3].copy(), g[..., :3, 3].copy()


def inverse(g: np.ndarray) -> np.ndarray:
    """Inverse ``(R^T, -R^T p)`` of SE(3) matrices."""
    R, p = to_Rp(g)
    Rt = np.swapaxes(R, -1, -2)
    return from_Rp(Rt, -np.einsum("...ij,...j->...i", Rt, p))


def compose(g1: np.ndarray, g2: np.ndarray) -> np.ndarray:
    """Product ``g1 g2`` of SE(3) matrices."""
    return np.asarray(g1, dtype=float) @ np.asarray(g2, dtype=float)


# ---------------------------------------------------------------------------------------------
# exp / log
# ---------------------------------------------------------------------------------------------
def exp_so3(w: np.ndarray) -> np.ndarray:
    """Rotation ``R = I + a W + b W^2`` (Rodrigues) of rotation vectors ``w (..., 3)``."""
    w = np.asarray(w, dtype=float)
    th = np.linalg.norm(w, axis=-1)
    W = skew(w)
    co = _coefs(th)[..., None, None, :]
    return np.eye(3) + co[..., 0] * W + co[..., 1] * (W @ W)


def exp_Rp(xi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(R, p)`` of ``exp(xi)``: ``p = (I + b W + c W^2) v``."""
    xi = np.asarray(xi, dtype=float)
    w, v = xi[..., :3], xi[..., 3:]
    th = np.linalg.norm(w, axis=-1)
    W = skew(w)
    W2 = W @ W
    co = _coefs(th)[..., None, None, :]
    a, b, c = co[..., 0], co[..., 1], co[..., 2]
    R = np.eye(3) + a * W + b * W2
    A = np.eye(3) + b * W + c * W2
    return R, np.einsum("...ij,...j->...i", A, v)


def exp(xi: np.ndarray) -> np.ndarray:
    """Group exponential of ``xi = (omega, v)`` as 4x4 matrices."""
    return from_Rp(*exp_Rp(xi))


def log_so3(R: np.ndarray) -> np.ndarray:
    """Rotation vector of ``R`` with angle in ``[0, pi]`` (atan2 form, theory §H1, §H8).

    Near ``pi`` (``cos theta < -0.5``) the axis is taken from the symmetric part of ``R``,
    where the skew part ``sin(theta) n`` has lost its relative accuracy.
    """
    R = np.asarray(R, dtype=float)
    s_vec = vee3(R)  # = sin(theta) n for an exact rotation
    s = np.linalg.norm(s_vec, axis=-1)
    c = 0.5 * (np.trace(R, axis1=-2, axis2=-1) - 1.0)
    th = np.arctan2(s, c)
    ratio = np.ones_like(th)
    pos = s > 0.0
    ratio[pos] = th[pos] / s[pos]
    w = ratio[..., None] * s_vec
    far = c < -0.5
    if np.any(far):
        Rf, thf, cf, svf = R[far], th[far], c[far], s_vec[far]
        S = 0.5 * (Rf + np.swapaxes(Rf, -1, -2)) - cf[:, None, None] * np.eye(3)  # (1-c) n n^T
        diag = np.diagonal(S, axis1=-2, axis2=-1)
        k = np.argmax(diag, axis=-1)
        col = np.take_along_axis(S, k[:, None, None], axis=-1)[..., 0]
        n = col / np.sqrt(np.take_along_axis(diag, k[:, None], axis=-1))
        n /= np.linalg.norm(n, axis=-1, keepdims=True)
        sign = np.where(np.einsum("...i,...i->...", n, svf) < 0.0, -1.0, 1.0)
        w[far] = (sign * thf)[:, None] * n
    return w


def log_Rp(R: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``log`` of ``(R, p)``: ``v = (I - W/2 + d W^2) p`` with the series-safe ``d``."""
    w = log_so3(R)
    th = np.linalg.norm(w, axis=-1)
    W = skew(w)
    Ainv = np.eye(3) - 0.5 * W + _coefs(th)[..., None, None, 5] * (W @ W)
    return np.concatenate([w, np.einsum("...ij,...j->...i", Ainv, p)], axis=-1)


def log(g: np.ndarray) -> np.ndarray:
    """Group logarithm (rotation angle in ``[0, pi]``) of 4x4 SE(3) matrices."""
    return log_Rp(*to_Rp(g))


# ---------------------------------------------------------------------------------------------
# adjoint actions
# ---------------------------------------------------------------------------------------------
def ad(xi: np.ndarray) -> np.ndarray:
    """6x6 matrix of the bracket: ``ad(xi1) @ xi2 = vee([hat xi1, hat xi2])``."""
    xi = np.asarray(xi, dtype=float)
    W = skew(xi[..., :3])
    out = np.zeros(xi.shape[:-1] + (6, 6))
    out[..., :3, :3] = W
    out[..., 3:, 3:] = W
    out[..., 3:, :3] = skew(xi[..., 3:])
    return out


def ad_star(xi: np.ndarray) -> np.ndarray:
    """``ad*_xi = ad(xi)^T``: ``ad*_xi (m, f) = (-w x m - v x f, -w x f)``."""
    return np.swapaxes(ad(xi), -1, -2)


def Ad(g: np.ndarray) -> np.ndarray:
    """6x6 adjoint ``[[R, 0], [skew(p) R, R]]`` of 4x4 SE(3) matrices."""
    R, p = to_Rp(g)
    out = np.zeros(R.shape[:-2] + (6, 6))
    out[..., :3, :3] = R
    out[..., 3:, 3:] = R
    out[..., 3:, :3] = skew(p) @ R
    return out


def Ad_star(g: np.ndarray) -> np.ndarray:
    """``Ad*_g = Ad(g)^T``; ``Ad_star(inverse(g)) @ (m, f) = (R m + p x R f, R f)``."""
    return np.swapaxes(Ad(g), -1, -2)


# ---------------------------------------------------------------------------------------------
# dexp and T = dexp^{-1}
# ---------------------------------------------------------------------------------------------
def _blocks(xi: np.ndarray):
    """Angle, ``W``, ``W^2``, the coefficients (a, b, c, q3, q4, d) and the block ``Q``."""
    xi = np.asarray(xi, dtype=float)
    th = np.linalg.norm(xi[..., :3], axis=-1)
    W = skew(xi[..., :3])
    V = skew(xi[..., 3:])
    W2 = W @ W
    co = _coefs(th)[..., None, None, :]
    c = co[..., 2]
    WV, VW = W @ V, V @ W
    WVW = WV @ W
    # Q = sum_k (sum_i W^i V W^(k-1-i))/(k+1)!  in closed form (Barfoot's Q with omega/v
    # swapped to the angular-first ordering).
    Q = (
        0.5 * V
        + c * (WV + VW + WVW)
        + co[..., 3] * (W @ WV + VW @ W - 3.0 * WVW)
        + co[..., 4] * (WVW @ W + W @ WVW)
    )
    return th, W, W2, co, Q


def dexp(xi: np.ndarray) -> np.ndarray:
    """6x6 ``dexp_xi = sum_k ad_xi^k/(k+1)!`` in closed form."""
    th, W, W2, co, Q = _blocks(xi)
    A = np.eye(3) + co[..., 1] * W + co[..., 2] * W2
    out = np.zeros(th.shape + (6, 6))
    out[..., :3, :3] = A
    out[..., 3:, 3:] = A
    out[..., 3:, :3] = Q
    return out


def dexp_inv(xi: np.ndarray) -> np.ndarray:
    """6x6 ``T(xi) = dexp_xi^{-1} = I - ad/2 + ad^2/12 - ad^4/720 + ...`` in closed form.

    ``T = [[A^-1, 0], [-A^-1 Q A^-1, A^-1]]`` with ``A^-1 = I - W/2 + d W^2``; valid for
    rotation angles ``|omega| < 2 pi``.
    """
    th, W, W2, co, Q = _blocks(xi)
    Ainv = np.eye(3) - 0.5 * W + co[..., 5] * W2
    out = np.zeros(th.shape + (6, 6))
    out[..., :3, :3] = Ainv
    out[..., 3:, 3:] = Ainv
    out[..., 3:, :3] = -Ainv @ Q @ Ainv
    return out
