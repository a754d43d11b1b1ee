// task: a^n b^n c^n
// source: Bhattamishra, Ahuja and Goyal, "On the Ability and Limitations of Transformers to Recognize Formal Languages", EMNLP 2020 (section 4, counter languages)
// definition: a^n b^n c^n with n >= 1: blocks of a's, b's and c's in that order, all as long
// written in: C-RASP (docs/LANGUAGE.md, section 6)
// theory: not regular (not even context-free): a counting language; C-RASP (Yang and Chiang 2024) expresses it, compiled in every mode but fixed with exact counting signs
// class: counting
// tokens: a b c
// reference: examples/tasks/reference.py, TASKS["anbncn"]
A = # "a"
B = # "b"
C = # "c"
X = # !("a" || "b" || "c")
LATE_A = # ("a" && B + C > 0)
LATE_B = # ("b" && C > 0)
D = A == B && B == C && A > 0 && LATE_A == 0 && LATE_B == 0 && X == 0
