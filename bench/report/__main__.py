# SPDX-License-Identifier: MIT
"""`python3 bench/report RESULTS_DIR`: runs the package from its folder."""
import os
import sys

# run as a folder, Python puts bench/report itself first on the path; the
# package is imported from its parent so its modules keep one name
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from report.main import run  # noqa: E402

if __name__ == "__main__":
    sys.exit(run(sys.argv))
