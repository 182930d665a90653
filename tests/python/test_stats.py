# SPDX-License-Identifier: MIT
"""timelinefs_analysis.stats against published reference values.

Each reference is stored here with its source; none is computed by a
second implementation of the same statistic.
"""
import itertools
import math

import pytest

from timelinefs_analysis import stats as st

# NIST/SEMATECH e-Handbook of Statistical Methods, 1.3.6.7.2 "Critical
# Values of the Student's t Distribution" (upper-tail probability 0.025,
# i.e. the 0.975 quantile), three decimals:
# https://www.itl.nist.gov/div898/handbook/eda/section3/eda3672.htm
NIST_T_0975 = {1: 12.706, 2: 4.303, 3: 3.182, 5: 2.571, 10: 2.228, 20: 2.086,
               30: 2.042, 100: 1.984, math.inf: 1.960}
# Wikipedia, "Student's t-distribution", "Table of selected values",
# column one-sided 80 % (the 0.80 quantile of the power calculation),
# three decimals: https://en.wikipedia.org/wiki/Student%27s_t-distribution
WIKI_T_080 = {1: 1.376, 2: 1.061, 3: 0.978, 5: 0.920, 10: 0.879, 20: 0.860,
              30: 0.854, 100: 0.845, math.inf: 0.842}


@pytest.mark.parametrize("df,want", sorted(NIST_T_0975.items()))
def test_t_quantile_0975_nist(df, want):
    assert st.t_quantile(0.975, df) == pytest.approx(want, abs=5e-4)


@pytest.mark.parametrize("df,want", sorted(WIKI_T_080.items()))
def test_t_quantile_080_table(df, want):
    assert st.t_quantile(0.80, df) == pytest.approx(want, abs=5e-4)


def test_t_quantile_fractional_df_between_its_neighbours():
    # Welch's df is not whole: the quantile falls between the table's
    t = st.t_quantile(0.975, 17.776)
    assert 2.101 < t < 2.110  # NIST: t(0.975, 18) 2.101, t(0.975, 17) 2.110


# R's documentation of t.test (package stats), its example
#   t.test(extra ~ group, data = sleep)
# prints: "Welch Two Sample t-test ... t = -1.8608, df = 17.776,
# p-value = 0.07939 ... 95 percent confidence interval: -3.3654832
# 0.2054832 ... mean in group 1 0.75, mean in group 2 2.33" (interval of
# mean 1 - mean 2).  The data: R's datasets::sleep (Cushny and Peebles).
SLEEP_1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
SLEEP_2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]


def test_welch_r_sleep_example():
    # A = group 2, B = group 1: the report's B - A is R's mean 1 - mean 2
    r = st.welch(SLEEP_2, SLEEP_1)
    assert r["mean_a"] == pytest.approx(2.33)
    assert r["mean_b"] == pytest.approx(0.75)
    assert r["df"] == pytest.approx(17.776, abs=5e-4)
    assert r["lo"] == pytest.approx(-3.3654832, abs=5e-8)
    assert r["hi"] == pytest.approx(0.2054832, abs=5e-8)
    # R's t = -1.8608: the difference over its standard error
    se = (r["hi"] - r["lo"]) / 2 / r["t"]
    assert r["diff"] / se == pytest.approx(-1.8608, abs=5e-5)


def test_welch_swapped_labels_mirror_the_interval():
    r = st.welch(SLEEP_1, SLEEP_2)
    assert (r["lo"], r["hi"]) == pytest.approx((-0.2054832, 3.3654832), abs=5e-8)


def test_welch_one_value_gives_no_interval():
    r = st.welch([1.0], [2.0, 3.0])
    assert r["diff"] == pytest.approx(1.5)
    assert r["lo"] is None and r["df"] is None


def test_welch_identical_values_interval_is_the_difference():
    r = st.welch([2.0, 2.0], [3.0, 3.0])
    assert (r["lo"], r["hi"], r["df"]) == (1.0, 1.0, None)


# NIST/SEMATECH e-Handbook, 1.3.5.2 "Confidence Limits for the Mean",
# its example (ZARR13.DAT): N = 195, mean 9.261460, standard deviation
# 0.022789, t-value 1.9723, 95 % limits 9.258242 and 9.264679:
# https://www.itl.nist.gov/div898/handbook/eda/section3/eda352.htm
def test_mean_interval_nist_zarr13():
    t, hw = st.half_width(195, 0.022789)
    assert t == pytest.approx(1.9723, abs=5e-5)
    assert 9.261460 - hw == pytest.approx(9.258242, abs=2e-6)
    assert 9.261460 + hw == pytest.approx(9.264679, abs=2e-6)


def test_mean_interval_of_values():
    # 1, 2, 3: mean 2, sd 1; NIST's t(0.975, 2) = 4.303
    mean, sd, t, hw = st.mean_interval([1.0, 2.0, 3.0])
    assert (mean, sd) == (2.0, 1.0)
    assert hw == pytest.approx(4.303 / math.sqrt(3), abs=5e-4)
    assert st.mean_interval([5.0])[2:] == (None, None)


# R's documentation of power.t.test (package stats), its examples:
#   power.t.test(n = 20, delta = 1)        power = 0.8689528
#   power.t.test(power = .90, delta = 1)   n = 22.02110
# (two samples, sd 1, two-sided, sig.level 0.05, the noncentral t, the
# far tail left out: strict = FALSE).  With equal variances and equal n,
# Welch-Satterthwaite's df is the pooled test's 2 (n - 1).
def test_power_r_example():
    assert st.welch_power(20, 1.0, 1.0, 1.0) == pytest.approx(0.8689528, abs=5e-7)


def test_reps_r_example():
    # n = 22.02110 for 90 %: 23 whole repetitions, 22 fall short
    assert st.reps_for_effect(1.0, 1.0, 1.0, power=0.90) == 23
    assert st.welch_power(22, 1.0, 1.0, 1.0) < 0.90 <= st.welch_power(23, 1.0, 1.0, 1.0)


def test_reps_scale_with_the_variance_and_the_effect():
    # the same standardized effect needs the same repetitions
    assert st.reps_for_effect(4.0, 4.0, 2.0, power=0.90) == 23
    assert st.reps_for_effect(0.0, 0.0, 1.0) == 2
    # 2 df (n = 2): SciPy 1.10's nct is NaN there; the definition is used
    assert 0 < st.welch_power(2, 1.0, 1.0, 1.0) < st.welch_power(3, 1.0, 1.0, 1.0)


# The modified z score of Iglewicz and Hoaglin (1993), as the NIST/SEMATECH
# e-Handbook, 1.3.5.17 "Detection of Outliers", defines it: M = 0.6745
# (x - median) / MAD, |M| > 3.5 an outlier.  1, 2, 3, 4, 100: median 3,
# absolute deviations 2, 1, 0, 1, 97, MAD 1 (by hand).
def test_robust_z_definition():
    z = st.robust_z([1.0, 2.0, 3.0, 4.0, 100.0])
    assert z == pytest.approx([-1.349, -0.6745, 0.0, 0.6745, 65.4265])
    assert st.outliers([1.0, 2.0, 3.0, 4.0, 100.0]) == [4]
    assert st.outliers([1.0, 1.0, 1.0, 9.0]) == []  # MAD 0: no score


# The percentile bootstrap against its exact distribution: with 3 values a
# side every resample can be enumerated (27 x 27 equally likely pairs of
# resample means, Efron and Tibshirani 1993, 6.2); 2000 resamples must put
# the low end between the exact 1.5 % and 3.5 % quantiles and the high end
# between 96.5 % and 98.5 %.
def exact_diffs(a, b):
    def means(v):
        return [sum(c) / len(c) for c in itertools.product(v, repeat=len(v))]
    return sorted(y - x for x in means(a) for y in means(b))


@pytest.mark.parametrize("a,b", [([10.0, 12.0, 11.0], [13.0, 15.0, 14.5]),
                                 ([1.0, 5.0, 2.0], [2.0, 1.5, 6.0])])
def test_bootstrap_against_exact_enumeration(a, b):
    lo, hi = st.bootstrap_diff(a, b)
    d = exact_diffs(a, b)
    q = lambda p: d[min(len(d) - 1, int(p * len(d)))]
    assert q(0.015) <= lo <= q(0.035)
    assert q(0.965) <= hi <= q(0.985)


def test_bootstrap_seeded_and_needs_three():
    a, b = [1.0, 2.0, 4.0], [2.0, 3.0, 7.0]
    assert st.bootstrap_diff(a, b) == st.bootstrap_diff(a, b)
    assert st.bootstrap_diff([1.0, 2.0], b) is None
    assert st.bootstrap_diff([2.0] * 3, [2.0] * 3) == (0.0, 0.0)


def test_line_crossing_by_hand():
    # x 1..4, y 10 8.5 6 4.5: mean x 2.5, mean y 7.25, Sxx 5, Sxy -9.5,
    # slope -1.9; residuals -0.1 0.3 -0.3 0.1, s2 = 0.2 / 2 = 0.1, se of
    # the slope sqrt(0.1 / 5); y = 0 at 2.5 + 7.25 / 1.9 = 6.3158.
    # Fieller with t(0.975, 2) = 4.302653 (NIST 4.303): (7.25 - 1.9 u)^2
    # <= t^2 0.1 (1/4 + u^2/5): 3.239744 u^2 - 27.55 u + 52.099680 <= 0,
    # u in [2.838706, 5.665054], x = 2.5 + u
    f = st.line_crossing([1, 2, 3, 4], [10, 8.5, 6, 4.5], 0.0)
    assert f["slope"] == pytest.approx(-1.9)
    assert f["slope_se"] == pytest.approx(math.sqrt(0.02))
    assert f["x0"] == pytest.approx(6.315789, abs=1e-6)
    assert f["lo"] == pytest.approx(5.338706, abs=1e-5)
    assert f["hi"] == pytest.approx(8.165054, abs=1e-5)


def test_line_crossing_no_trend_or_too_few():
    # slope -1.75 +/- 0.1443 at 1 degree of freedom (t 12.706): the slope
    # is not told from 0, the interval unbounded
    # (mean y 43/6, slope -1.75: x0 = 2 + (43/6) / 1.75 = 6.095238)
    f = st.line_crossing([1, 2, 3], [9, 7, 5.5], 0.0)
    assert f["x0"] == pytest.approx(6.095238, abs=1e-6)
    assert f["lo"] is None and f["hi"] is None
    assert st.line_crossing([1, 2], [2, 1], 0.0)["x0"] is None
    assert st.line_crossing([2, 2, 2], [2, 1, 3], 0.0)["x0"] is None
    # a flat line never reaches another level
    assert st.line_crossing([1, 2, 3], [1, 1, 1], 0.0)["x0"] is None
