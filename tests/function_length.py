# SPDX-License-Identifier: MIT
"""Every C function under src/ and simd/ is at most 80 lines, its
signature and closing brace included; the forward pass's templates
(src/run/, a name written FN(name) there, one definition per precision)
are named by name, always_inline kernels by theirs.

Usage: function_length.py [--max N] [FILE...] (default: the files under
src/ and simd/). Prints each longer function as FILE:LINE: NAME is N lines; exits 1
when there is one. Functions are found the way the code is written: a
definition starts at column 0 and its body's braces balance back to depth
0; comments, strings and character constants are blanked first so their
braces do not count.
"""
import pathlib
import re
import sys

LIMIT = 80
ATTRIBUTE = re.compile(r'__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)')
BLANK = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def blank(text):
    """Comments and literals replaced by spaces, newlines kept."""
    return BLANK.sub(lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text)


def definition(head):
    """The function name a top-level declaration head defines, or None (a
    struct, an initializer, a prototype)."""
    sig = ' '.join(head)
    sig = sig[:sig.find('{')]
    # __attribute__((always_inline)) and the like are not the name
    sig = ATTRIBUTE.sub(' ', sig)
    # src/run's templates: FN(name) is the name
    sig = re.sub(r'\bFN\s*\(\s*(\w+)\s*\)', r'\1', sig)
    m = re.search(r'(\w+)\s*\((.*)\)\s*$', sig)
    if not m or '=' in sig[:m.start()] or re.match(r'\s*(typedef|struct|enum|union)\b[^(]*$', sig):
        return None
    return m.group(1)


def functions(text):
    """(name, first line, line count) of every function definition."""
    depth, head, start, name = 0, [], 0, None
    for no, line in enumerate(blank(text).split('\n'), 1):
        if depth == 0:
            if line[:1] in ('', ' ', '\t', '#', '}') and not head:
                continue
            if not head:
                start = no
            head.append(line)
        for ch in line:
            if ch == '{':
                if depth == 0:
                    name = definition(head)
                depth += 1
            elif ch == '}':
                depth -= 1
                if depth == 0:
                    if name:
                        yield name, start, no - start + 1
                    name, head = None, []
        if depth == 0 and (line.rstrip().endswith(';') or not line.strip()):
            name, head = None, []


def main(argv):
    limit = LIMIT
    if argv[:1] == ['--max']:
        limit, argv = int(argv[1]), argv[2:]
    files = [pathlib.Path(a) for a in argv] or sorted(
        pathlib.Path('src').rglob('*.[ch]')) + sorted(pathlib.Path('simd').rglob('*.[ch]'))
    long = []
    for path in files:
        for name, first, n in functions(path.read_text(errors='replace')):
            if n > limit:
                long.append(f'{path}:{first}: {name} is {n} lines (the limit is {limit})')
    print('\n'.join(long) if long else f'function-length: {len(files)} files, every function at most {limit} lines')
    return 1 if long else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
