# SPDX-License-Identifier: MIT
"""Reference functions of the tasks in examples/tasks/, written from each
paper's definition (not from the regular expression or program beside
it): each takes a string as a list of tokens and returns, per position
i, 1 when the prefix of the first i tokens is in the language, else 0
(the per-position convention the compiled models follow). Each runs in
one pass, so it also checks inputs of a million tokens.

    import reference
    reference.TASKS["kneedeep-l3"](["a", "b", "a"])   # [0, 0, 1]
"""
from typing import Callable, Dict, List

Tokens = List[str]


def dyck_depth(n: int) -> Callable[[Tokens], List[int]]:
    """D_n of Bhattamishra et al.: balanced a/b strings of depth <= n."""
    def f(w: Tokens) -> List[int]:
        out, depth, dead = [], 0, False
        for t in w:
            if t == "a":
                depth += 1
            elif t == "b":
                depth -= 1
            else:
                dead = True
            dead = dead or depth < 0 or depth > n
            out.append(int(not dead and depth == 0))
        return out
    return f


def alternate(x: str, y: str) -> Callable[[Tokens], List[int]]:
    """(xy)*: x at the odd positions, y at the even ones, even length
    ((ab)*, Tomita 2 = (10)*, Repeat 01 = (01)*, (aa)*)."""
    def f(w: Tokens) -> List[int]:
        out, ok = [], True
        for i, t in enumerate(w):
            ok = ok and t == (x if i % 2 == 0 else y)
            out.append(int(ok and i % 2 == 1))
        return out
    return f


def blocks(letters: str, counts_equal: bool = False) -> Callable[[Tokens], List[int]]:
    """Nonempty blocks of the letters in order (aa*bb*cc*dd*ee*); with
    counts_equal, all blocks as long (a^n b^n c^n)."""
    def f(w: Tokens) -> List[int]:
        out, k, ok, count = [], -1, True, [0] * len(letters)
        for t in w:
            if t not in letters:
                ok = False
            else:
                j = letters.index(t)
                if j == k + 1:
                    k = j
                elif j != k:
                    ok = False
                count[j] += 1
            done = k == len(letters) - 1
            out.append(int(ok and done and (not counts_equal or len(set(count)) == 1)))
        return out
    return f


def runs(w: Tokens):
    """(symbol, length) of the maximal runs of w."""
    rs: list = []
    for t in w:
        if rs and rs[-1][0] == t:
            rs[-1][1] += 1
        else:
            rs.append([t, 1])
    return rs


def tomita_1(w: Tokens) -> List[int]:
    out, ok = [], True
    for t in w:
        ok = ok and t == "1"
        out.append(int(ok))
    return out


def tomita_3(w: Tokens) -> List[int]:
    """No maximal odd run of 1s directly followed by a complete odd run of
    0s; a run is complete when a 1 or the end of the prefix ends it."""
    out, bad, prev_odd_ones = [], False, False   # bad: a finished violation
    ones = zeros = 0
    last = None
    for t in w:
        if t not in ("0", "1"):
            bad = True
        elif t == "1":
            if last == "0" and prev_odd_ones and zeros % 2 == 1:
                bad = True                      # the 0-run just ended, odd
            if last != "1":
                ones = 0
            ones += 1
        else:
            if last == "1":
                prev_odd_ones, zeros = ones % 2 == 1, 0
            elif last != "0":
                prev_odd_ones, zeros = False, 0
            zeros += 1
        last = t
        open_violation = last == "0" and prev_odd_ones and zeros % 2 == 1
        out.append(int(not bad and not open_violation))
    return out


def tomita_4(w: Tokens) -> List[int]:
    out, zeros, ok = [], 0, True
    for t in w:
        ok = ok and t in ("0", "1")
        zeros = zeros + 1 if t == "0" else 0
        ok = ok and zeros < 3
        out.append(int(ok))
    return out


def counts_mod(test: Callable[[int, int], bool]) -> Callable[[Tokens], List[int]]:
    """Strings over {0, 1} whose counts of 0s and 1s pass test."""
    def f(w: Tokens) -> List[int]:
        out, z, o, ok = [], 0, 0, True
        for t in w:
            ok = ok and t in ("0", "1")
            z, o = z + (t == "0"), o + (t == "1")
            out.append(int(ok and test(z, o)))
        return out
    return f


def tomita_7(w: Tokens) -> List[int]:
    """0*1*0*1*: at most three changes of symbol, the first (if any) from 0."""
    out, changes, ok, last = [], 0, True, "0"
    for t in w:
        ok = ok and t in ("0", "1")
        if t != last:
            changes += 1
            last = t
        out.append(int(ok and changes <= 3))
    return out


def flare_first(w: Tokens) -> List[int]:
    out, ok = [], bool(w) and w[0] == "1"
    for t in w:
        ok = ok and t in ("0", "1")
        out.append(int(ok))
    return out


def flare_even_pairs(w: Tokens) -> List[int]:
    """The number of 01 and 10 substrings is even, counted as such."""
    out, pairs, ok = [], 0, True
    for i, t in enumerate(w):
        ok = ok and t in ("0", "1")
        if i and t != w[i - 1]:
            pairs += 1
        out.append(int(ok and pairs % 2 == 0))
    return out


def flare_dyck_2_3(w: Tokens) -> List[int]:
    out, stack, ok = [], [], True
    close = {")": "(", "]": "["}
    for t in w:
        if t in ("(", "["):
            stack.append(t)
            ok = ok and len(stack) <= 3
        elif t in close:
            ok = ok and bool(stack) and stack[-1] == close[t]
            if stack:
                stack.pop()
        else:
            ok = False
        out.append(int(ok and not stack))
    return out


def alternating_blocks(k: int) -> Callable[[Tokens], List[int]]:
    """L_k of Knee-Deep: exactly k alternating nonempty blocks, a first."""
    def f(w: Tokens) -> List[int]:
        out, nblocks, ok, last = [], 0, True, None
        for t in w:
            ok = ok and t in ("a", "b") and (last is not None or t == "a")
            if t != last:
                nblocks += 1
                last = t
            out.append(int(ok and nblocks == k))
        return out
    return f


def flip_flop(w: Tokens) -> List[int]:
    """Instruction-bit pairs, a write first, each read returning the last
    write's bit; a prefix is in the language when it ends a pair."""
    out, ok, written = [], True, None
    for i, t in enumerate(w):
        if i % 2 == 0:
            ok = ok and t in ("w", "r", "i") and (i > 0 or t == "w")
        else:
            op = w[i - 1]
            ok = ok and t in ("0", "1") and (op != "r" or t == written)
            if op == "w":
                written = t
        out.append(int(ok and i % 2 == 1))
    return out


def parity(w: Tokens) -> List[int]:
    """An odd number of a's, over {a, b}."""
    out, n, ok = [], 0, True
    for t in w:
        ok = ok and t in ("a", "b")
        n += t == "a"
        out.append(int(ok and n % 2 == 1))
    return out


def balanced(kinds: Dict[str, str]) -> Callable[[Tokens], List[int]]:
    """Each kind of bracket balanced on its own (Dyck-1, Shuffle-2)."""
    def f(w: Tokens) -> List[int]:
        depth = {o: 0 for o in kinds.values()}
        out, ok = [], True
        for t in w:
            if t in depth:
                depth[t] += 1
            elif t in kinds:
                depth[kinds[t]] -= 1
                ok = ok and depth[kinds[t]] >= 0
            else:
                ok = False
            out.append(int(ok and all(d == 0 for d in depth.values())))
        return out
    return f


def anbn(w: Tokens) -> List[int]:
    return blocks("ab", counts_equal=True)(w)


def anbncn(w: Tokens) -> List[int]:
    return blocks("abc", counts_equal=True)(w)


def flare_majority(w: Tokens) -> List[int]:
    return counts_mod(lambda z, o: o > z)(w)


TASKS: Dict[str, Callable[[Tokens], List[int]]] = {
    **{"bhattamishra-d%d" % n: dyck_depth(n) for n in range(1, 5)},
    "bhattamishra-ab-star": alternate("a", "b"),
    "bhattamishra-aa-bb-cc-dd-ee": blocks("abcde"),
    "tomita-1": tomita_1,
    "tomita-2": alternate("1", "0"),
    "tomita-3": tomita_3,
    "tomita-4": tomita_4,
    "tomita-5": counts_mod(lambda z, o: z % 2 == 0 and o % 2 == 0),
    "tomita-6": counts_mod(lambda z, o: (z - o) % 3 == 0),
    "tomita-7": tomita_7,
    "flare-first": flare_first,
    "flare-even-pairs": flare_even_pairs,
    "flare-repeat-01": alternate("0", "1"),
    "flare-dyck-2-3": flare_dyck_2_3,
    "flare-majority": flare_majority,
    **{"kneedeep-l%d" % k: alternating_blocks(k) for k in range(3, 13)},
    "flip-flop": flip_flop,
    "aa-star": alternate("a", "a"),
    "parity": parity,
    "dyck-1": balanced({")": "("}),
    "shuffle-2": balanced({")": "(", "]": "["}),
    "anbn": anbn,
    "anbncn": anbncn,
}
