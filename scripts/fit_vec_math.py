#!/usr/bin/python3
"""Fits the polynomial coefficients of templates/cpu/vec_math.h (not run by the build).

Each polynomial is fitted on its reduced range by Lawson's iteratively reweighted least squares
(converges towards the minimax fit) at Chebyshev nodes, in double, against Python's math module.
Prints the coefficients, lowest degree first, and the largest (relative) fit error. The header
holds them rounded to float, highest degree first (Horner order).

    /usr/bin/python3 scripts/fit_vec_math.py
"""
import math

import numpy as np


def fit(f, a, b, deg, rel=None, var=lambda x: x, iters=30, n=4000):
    """Coefficients c of sum c[k] var(x)^k ~ f(x) on [a, b]; error relative to rel(x) if given."""
    t = np.cos(np.pi * (np.arange(n) + 0.5) / n)
    x = 0.5 * (a + b) + 0.5 * (b - a) * t
    y = np.array([f(v) for v in x])
    w = np.ones(n) if rel is None else 1 / np.abs(np.array([rel(v) for v in x]))
    basis = np.stack([var(x) ** k for k in range(deg + 1)], 1)
    lw = np.ones(n)
    for _ in range(iters):
        sw = np.sqrt(lw) * w
        c = np.linalg.lstsq(basis * sw[:, None], y * sw, rcond=None)[0]
        err = np.abs(basis @ c - y) * w
        lw = lw * err
        lw /= lw.sum()
    return c, err.max()


def exp_p(r):
    """(e^r - 1 - r) / r^2: exp(r) = 1 + r + r^2 p(r)."""
    return (math.expm1(r) - r) / (r * r) if abs(r) > 1e-4 else 0.5 + r / 6 + r * r / 24


def tanh_q(z):
    """(tanh(x) - x) / x^3 with z = x^2: tanh(x) = x + x^3 q(x^2)."""
    x = math.sqrt(z)
    return (math.tanh(x) - x) / x**3 if x > 1e-3 else -1 / 3 + 2 / 15 * z


def erf_p(z):
    """erf(x) / x with z = x^2."""
    x = math.sqrt(z)
    return math.erf(x) / x if x > 1e-4 else 2 / math.sqrt(math.pi) * (1 - z / 3)


def erfc_r(x):
    """erfc(x) e^(x^2): erf(x) = 1 - e^(-x^2) R(1/x)."""
    return math.erfc(x) * math.exp(x * x)


def main():
    ln2 = math.log(2)
    fits = {
        "exp p(r), |r| <= ln2/2": fit(exp_p, -ln2 / 2, ln2 / 2, 4),
        "tanh q(z), z <= 0.625^2": fit(tanh_q, 1e-8, 0.625**2, 5,
                                      rel=lambda z: math.tanh(math.sqrt(z)) / z**1.5),
        "erf P(z), z <= 1": fit(erf_p, 0, 1, 7, rel=erf_p),
        "erf R(u), u = 1/x, x in [1, 4]": fit(erfc_r, 1, 4, 9, rel=erfc_r, var=lambda x: 1 / x),
    }
    for name, (c, err) in fits.items():
        print(f"{name}: max error {err:.3g}")
        print("  " + ", ".join(f"{v:.9g}" for v in c))


if __name__ == "__main__":
    main()
