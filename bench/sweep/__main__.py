# SPDX-License-Identifier: MIT
"""`python3 bench/sweep COMMAND`: runs the package from its folder."""
import os
import sys

# run as a folder, Python puts bench/sweep itself first on the path; the
# package is imported from its parent (beside bench/report)
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from sweep.main import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
