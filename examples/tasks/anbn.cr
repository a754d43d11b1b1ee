// task: a^n b^n
// source: Bhattamishra, Ahuja and Goyal, "On the Ability and Limitations of Transformers to Recognize Formal Languages", EMNLP 2020 (section 4, counter languages)
// definition: a^n b^n with n >= 1: a block of a's, then as many b's
// written in: C-RASP (docs/LANGUAGE.md, section 6)
// theory: not regular: a counting language; C-RASP (Yang and Chiang 2024) expresses it, compiled in every mode but fixed with exact counting signs
// class: counting
// tokens: a b
// reference: examples/tasks/reference.py, TASKS["anbn"]
A = # "a"
B = # "b"
X = # !("a" || "b")
LATE = # ("a" && B > 0)
D = A == B && A > 0 && LATE == 0 && X == 0
