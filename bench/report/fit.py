# SPDX-License-Identifier: MIT
"""Growth exponents: a least-squares slope of ln y on ln x with its standard
error and 95% interval, and the rule that judges it against a target range."""
import math
from typing import NamedTuple

from .fmt import isnum, mark

# A slope is judged only over at least FIT_MIN_POINTS lengths spanning
# FIT_MIN_DECADES decades of n.
FIT_MIN_POINTS, FIT_MIN_DECADES = 5, 2.0


class Fit(NamedTuple):
    """A growth exponent: the slope of ln y on ln x, its standard error,
    the 95% interval slope ± t(0.975, k-2) se, the number of points k and
    the decades of x they span."""
    slope: float
    se: float
    lo: float
    hi: float
    k: int
    decades: float


# Student's t, two-sided 95% (the 0.975 quantile), df = 1..30
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t975(df):
    """The 0.975 quantile of Student's t with df degrees of freedom; past
    the table, the Cornish-Fisher expansion around z (error < 1e-3)."""
    if df < 1:
        return math.inf
    if df <= len(T975):
        return T975[df - 1]
    z = 1.959964
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)


def fit_loglog(points, min_x=0):
    """Least squares of ln y on ln x over the points with x >= min_x and
    y > 0. With k points, residual variance s^2 = SSR/(k-2), the slope's
    standard error is s/sqrt(Sxx) and its 95% interval slope ± t(k-2) se
    (infinite with two points). None with fewer than two distinct x."""
    pts = [(math.log(x), math.log(y)) for x, y in points
           if x >= min_x and isnum(y) and y > 0]
    if len(pts) < 2 or len({p[0] for p in pts}) < 2:
        return None
    k = len(pts)
    mx = sum(p[0] for p in pts) / k
    my = sum(p[1] for p in pts) / k
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    slope = sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx
    icpt = my - slope * mx
    if k > 2:
        ssr = sum((p[1] - icpt - slope * p[0]) ** 2 for p in pts)
        se = math.sqrt(ssr / (k - 2) / sxx)
        half = t975(k - 2) * se
    else:
        se, half = math.nan, math.inf
    xs = [p[0] for p in pts]
    return Fit(slope, se, slope - half, slope + half, k,
               (max(xs) - min(xs)) / math.log(10))


def judge_slope(fit, lo, hi):
    """'met' when the fitted slope lies in the target range [lo, hi];
    'missed' only when the whole 95% interval lies outside it; between the
    two 'inconclusive'; 'not judged' with fewer than FIT_MIN_POINTS
    lengths or less than FIT_MIN_DECADES decades; None without a fit."""
    if fit is None:
        return None
    if fit.k < FIT_MIN_POINTS or fit.decades < FIT_MIN_DECADES - 1e-9:
        return "not judged"
    if lo <= fit.slope <= hi:
        return "met"
    if fit.hi < lo or fit.lo > hi:
        return "missed"
    return "inconclusive"


def fmt_fit(fit, status=None):
    """'1.97 ± 0.03 (95%: 1.89…2.05; 6 n, 2.1 decades) **met**'."""
    if fit is None:
        return "—"
    if isnum(fit.se):
        s = (f"{fit.slope:.2f} ± {fit.se:.2g} (95%: {fit.lo:.2f}…{fit.hi:.2f}; "
             f"{fit.k} n, {fit.decades:.1f} decades)")
    else:
        s = f"{fit.slope:.2f} (2 n: no interval)"
    if status in ("met", "missed"):
        s += " " + mark(status == "met")
    elif status:
        s += f" *{status}*"
    return s
