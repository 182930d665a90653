# SPDX-License-Identifier: MIT
"""The statistics of timelinefs-report, on scipy.stats.

Every function takes plain sequences of floats and returns plain floats
(None where a statistic does not exist: one value, a zero variance), so
that the report's text, CSV and JSON print the same numbers.
"""
import math

import numpy as np
from scipy import integrate, stats

# the percentile bootstrap's resamples and seed: a report prints the same
# interval every time, on every machine (NumPy's PCG64, not an awk's rand)
BOOT_RESAMPLES = 2000
BOOT_SEED = 1


def t_quantile(p, df):
    """The t with P(T <= t) = p, df degrees of freedom (need not be whole;
    math.inf gives the normal quantile)."""
    if math.isinf(df):
        return float(stats.norm.ppf(p))
    return float(stats.t.ppf(p, df))


def mean_sd(x):
    """(n, mean, sample standard deviation or None below 2 values)."""
    n = len(x)
    if n == 0:
        return 0, None, None
    mean = math.fsum(x) / n
    sd = float(np.std(x, ddof=1)) if n > 1 else None
    return n, mean, sd


def mean_interval(x, level=0.95):
    """Student's t interval of the mean of x: (mean, sd, t, half-width);
    t and the half-width None below 2 values."""
    n, mean, sd = mean_sd(x)
    if n < 2:
        return mean, sd, None, None
    t, hw = half_width(n, sd, level)
    return mean, sd, t, hw


def half_width(n, sd, level=0.95):
    """(t, half-width) of Student's interval of a mean of n values with
    sample standard deviation sd."""
    t = t_quantile(0.5 + level / 2, n - 1)
    return t, t * sd / math.sqrt(n)


def welch_df(va, na, vb, nb):
    """Welch-Satterthwaite degrees of freedom of mean B - mean A from the
    sample variances and sizes; None where both variances are 0."""
    sa, sb = va / na, vb / nb
    if sa + sb == 0:
        return None
    return (sa + sb) ** 2 / (sa * sa / (na - 1) + sb * sb / (nb - 1))


def welch(a, b, level=0.95):
    """Welch's t interval of mean B - mean A (unequal variances): a dict
    with n_a, mean_a, sd_a, n_b, mean_b, sd_b, diff, df, t, lo, hi; df, t,
    lo and hi None with fewer than 2 values a side; with both variances 0
    the interval is the difference itself (df and t None).  (SciPy 1.10,
    Debian 12's, has Welch's statistic but not its interval: the interval
    is the t quantile times the standard error.)"""
    na, ma, sa = mean_sd(a)
    nb, mb, sb = mean_sd(b)
    r = {"n_a": na, "mean_a": ma, "sd_a": sa, "n_b": nb, "mean_b": mb,
         "sd_b": sb, "diff": None if ma is None or mb is None else mb - ma,
         "df": None, "t": None, "lo": None, "hi": None}
    if na < 2 or nb < 2:
        return r
    if sa == 0 and sb == 0:
        r["lo"] = r["hi"] = r["diff"]
        return r
    se = math.sqrt(sa * sa / na + sb * sb / nb)
    r["df"] = welch_df(sa * sa, na, sb * sb, nb)
    r["t"] = t_quantile(0.5 + level / 2, r["df"])
    r["lo"], r["hi"] = r["diff"] - r["t"] * se, r["diff"] + r["t"] * se
    return r


def welch_power(n, va, vb, d, alpha=0.05):
    """The power of Welch's two-sided test at level alpha to find a
    difference d between the means with n values a side at variances va
    and vb: the noncentral t (scipy.stats.nct) with Welch-Satterthwaite
    df and noncentrality d / sqrt((va + vb) / n), the far tail left out as
    R's power.t.test does (strict = FALSE)."""
    df = welch_df(va, n, vb, n)
    ncp = abs(d) / math.sqrt((va + vb) / n)
    c = t_quantile(1 - alpha / 2, df)
    with np.errstate(all="ignore"):
        p = float(stats.nct.sf(c, df, ncp))
    if math.isfinite(p):
        return p
    # SciPy 1.10's nct (Boost) gives NaN at 1 or 2 df: its definition,
    # T = (Z + ncp) / sqrt(V / df), V chi-squared with df, integrated
    # (over V's central 1 - 2e-12: quad misses a narrow peak far out)
    f = lambda v: stats.norm.sf(c * math.sqrt(v / df) - ncp) * stats.chi2.pdf(v, df)
    lo, hi = stats.chi2.ppf([1e-12, 1 - 1e-12], df)
    return float(integrate.quad(f, lo, hi, limit=200)[0])


def reps_for_effect(va, vb, d, power=0.80, alpha=0.05):
    """The smallest n (at least 2) of each label at which Welch's test has
    the power asked for against a difference d, at variances va and vb;
    2 where both variances are 0.  Power grows with n: doubling, then
    bisection over whole n."""
    if va + vb == 0 or welch_power(2, va, vb, d, alpha) >= power:
        return 2
    lo, hi = 2, 4
    while welch_power(hi, va, vb, d, alpha) < power:
        lo, hi = hi, hi * 2
        if hi > 1 << 40:
            return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if welch_power(mid, va, vb, d, alpha) < power:
            lo = mid
        else:
            hi = mid
    return hi


def bootstrap_diff(a, b, level=0.95, resamples=BOOT_RESAMPLES, seed=BOOT_SEED):
    """The percentile bootstrap interval of mean B - mean A, A and B
    resampled apart (scipy.stats.bootstrap, seeded): (lo, hi), or None
    with fewer than 3 values a side.  The values are one per repetition:
    the repetition is the unit resampled, never a read."""
    if len(a) < 3 or len(b) < 3:
        return None
    if np.ptp(a) == 0 and np.ptp(b) == 0:
        d = float(np.mean(b) - np.mean(a))
        return d, d
    res = stats.bootstrap((np.asarray(b, float), np.asarray(a, float)),
                          lambda y, x, axis: np.mean(y, axis=axis) - np.mean(x, axis=axis),
                          n_resamples=resamples, confidence_level=level,
                          method="percentile", vectorized=True,
                          random_state=np.random.default_rng(seed))
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def robust_z(x):
    """Iglewicz and Hoaglin's modified z scores 0.6745 (x - median) / MAD,
    MAD the median absolute deviation (unscaled); None for every value
    where the MAD is 0."""
    med = float(np.median(x))
    mad = float(stats.median_abs_deviation(x))
    if mad == 0:
        return [None] * len(x)
    return [0.6745 * (v - med) / mad for v in x]


def outliers(x, limit=3.5):
    """The indexes of x whose |robust z| exceeds limit (3.5, Iglewicz and
    Hoaglin's recommendation): reported, never dropped."""
    return [i for i, z in enumerate(robust_z(x)) if z is not None and abs(z) > limit]


def line_crossing(x, y, y0, level=0.95):
    """Where the least-squares line of y on x reaches y0, and Fieller's
    interval of it (the x whose fitted mean response is within t standard
    errors of y0, t Student's at len(x) - 2 degrees of freedom): a dict
    with slope, its standard error, x0, lo, hi; x0 None where the slope is
    0 or there are fewer than 3 points or 2 distinct x; lo and hi None
    where the slope is not told from 0 at that level (the interval is
    unbounded: no trend)."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    n = len(x)
    out = {"slope": None, "slope_se": None, "x0": None, "lo": None, "hi": None}
    if n < 3 or len(set(x.tolist())) < 2:
        return out
    xm, ym = x.mean(), y.mean()
    sxx = float(((x - xm) ** 2).sum())
    b = float(((x - xm) * (y - ym)).sum()) / sxx
    s2 = float(((y - ym - b * (x - xm)) ** 2).sum()) / (n - 2)
    out["slope"], out["slope_se"] = b, math.sqrt(s2 / sxx)
    if b == 0:
        return out
    d = ym - y0
    out["x0"] = xm - d / b
    t = t_quantile(0.5 + level / 2, n - 2)
    # (d + b u)^2 <= t^2 s2 (1/n + u^2/sxx), u = x - xm: a quadratic in u
    qa = b * b - t * t * s2 / sxx
    qb = 2 * b * d
    qc = d * d - t * t * s2 / n
    if qa <= 0:
        return out
    disc = qb * qb - 4 * qa * qc
    r = math.sqrt(max(disc, 0.0))
    out["lo"], out["hi"] = xm + (-qb - r) / (2 * qa), xm + (-qb + r) / (2 * qa)
    return out
