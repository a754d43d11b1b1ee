# SPDX-License-Identifier: MIT
"""bench/report's programs section: the table of sweep-programs.csv (time
and agreement per program, mode and n), from a fixture."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
REPORT = os.path.join(HERE, "..", "..", "bench", "report")

HEADER = ("formula,mode,scale,isa,precision,threads,n,seconds_median,seconds_min,"
          "seconds_max,positions_per_s,peak_bytes,agree_fraction,max_attn_error,"
          "repeat,sign,skip,skipped_fraction,cpu,build,commit,date\n")


def row(mode, mu, n, sec, agree):
    return (f'"tests/programs/dyck1.cr",{mode},{mu},avx2,f32,1,{n},{sec},{sec},{sec},'
            f'1e6,1000,{agree},0,3,layernorm,auto,nan,"cpu","cc","abc","2026-01-01"\n')


def test_programs_table(tmp_path):
    rows = [row("hard", 0, 256, 0.002, 1), row("hard", 0, 1024, 0.004, 1),
            row("pe", 16, 256, 0.001, 1), row("pe", 16, 1024, 0.003, 0.5)]
    (tmp_path / "sweep-programs.csv").write_text(HEADER + "".join(rows), encoding="utf-8")
    r = subprocess.run([sys.executable, REPORT, str(tmp_path)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "REPORT.md").read_text(encoding="utf-8")
    assert "## Programs: C-RASP compiled and checked against its interpreter" in text
    assert "| program | mode | mu | n=256 | n=1024 |" in text
    hard = next(line for line in text.splitlines()
                if line.startswith("| `tests/programs/dyck1.cr` | hard |"))
    pe = next(line for line in text.splitlines()
              if line.startswith("| `tests/programs/dyck1.cr` | pe |"))
    assert hard.endswith("| hard | — | 2.00 / 1 | 4.00 / 1 |")
    assert pe.endswith("| pe | 16 | 1.00 / 1 | 3.00 / 0.5000 |")
