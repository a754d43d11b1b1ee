# SPDX-License-Identifier: MIT
"""Checks that the Markdown pages of the repository point at what exists:
every relative link or image `[text](target)` names a file or folder of
the checkout, and a `#anchor` (in the same page or another Markdown page)
names one of that page's headings, spelled as GitHub spells heading
anchors; a Markdown path quoted in code (`docs/CLI.md`) names a page that
exists. Links with a scheme (https:, mailto:) are not followed.

The pages are the *.md files git tracks or would add, outside results/
(which the benchmark suite writes), or README.md and docs/*.md outside a
git checkout, or the files named.

usage: docs_links.py REPO_ROOT [FILE.md ...]"""
import os
import re
import subprocess
import sys
from typing import Dict, List, Set

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE_PATH = re.compile(r"^[\w./-]+\.md$")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: links reduced to their text, lower
    case, punctuation other than '-' and '_' dropped, spaces as '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def prose(path: str) -> List[str]:
    """The lines of a page outside fenced code blocks ('' inside them, so
    that line numbers stay)."""
    out, fence = [], False
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if line.lstrip().startswith("```"):
                fence = not fence
                out.append("")
                continue
            out.append("" if fence else line)
    return out


def anchors(path: str, cache: Dict[str, Set[str]]) -> Set[str]:
    """The anchors of a page's headings (a repeated one gets -1, -2, ...)."""
    if path not in cache:
        seen: Dict[str, int] = {}
        found: Set[str] = set()
        for line in prose(path):
            m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            s = slug(m.group(1))
            found.add(s if s not in seen else f"{s}-{seen[s]}")
            seen[s] = seen.get(s, 0) + 1
        cache[path] = found
    return cache[path]


def check(path: str, root: str, cache: Dict[str, Set[str]]) -> List[str]:
    """One line per broken link of a page."""
    bad = []
    rel = os.path.relpath(path, root)
    here = os.path.dirname(path)
    for no, line in enumerate(prose(path), 1):
        for span in re.findall(r"`([^`]+)`", line):
            if CODE_PATH.match(span) and not (os.path.exists(os.path.join(root, span))
                                              or os.path.exists(os.path.join(here, span))):
                bad.append(f"{rel}:{no}: `{span}`: no such page")
        for target in LINK.findall(re.sub(r"`[^`]*`", "code", line)):
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                continue
            file, _, frag = target.partition("#")
            dest = os.path.normpath(os.path.join(here, file)) if file else path
            if not os.path.exists(dest):
                bad.append(f"{rel}:{no}: ({target}): no such file")
            elif frag and dest.endswith(".md") and frag not in anchors(dest, cache):
                bad.append(f"{rel}:{no}: ({target}): no heading with that anchor in "
                           f"{os.path.relpath(dest, root)}")
    return bad


def pages(root: str) -> List[str]:
    try:
        names = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others",
                                "--exclude-standard", "*.md"], capture_output=True,
                               text=True, check=True).stdout.split()
        return [os.path.join(root, n) for n in names
                if not n.startswith("results/") and os.path.isfile(os.path.join(root, n))]
    except (OSError, subprocess.CalledProcessError):
        docs = os.path.join(root, "docs")
        return [os.path.join(root, "README.md")] + sorted(
            os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))


def main(argv: List[str]) -> int:
    root = os.path.abspath(argv[1])
    files = [os.path.abspath(f) for f in argv[2:]] or pages(root)
    cache: Dict[str, Set[str]] = {}
    bad = [b for f in files for b in check(f, root, cache)]
    for b in bad:
        print(f"FAIL {b}")
    print(f"docs links: {len(files)} pages, {len(bad)} broken links")
    return 1 if bad or not files else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
