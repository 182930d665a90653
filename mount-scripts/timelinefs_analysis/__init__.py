# SPDX-License-Identifier: MIT
"""timelinefs_analysis: the statistics behind timelinefs-report's verdicts.

One package beside the user's commands (mount-scripts/): from a checkout
the commands put its parent directory on PYTHONPATH, installed it lives
in $(PREFIX)/lib/timelinefs/python, which make install writes into them.
The numerics are SciPy's (scipy.stats); this package only says which
statistic each verdict uses.  Its tests: tests/python (pytest).
"""
