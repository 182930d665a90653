# SPDX-License-Identifier: MIT
# the package as the commands find it in a checkout: mount-scripts/
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "mount-scripts"))
