// task: Dyck-1
// source: Bhattamishra, Ahuja and Goyal, "On the Ability and Limitations of Transformers to Recognize Formal Languages", EMNLP 2020 (section 4, counter languages)
// definition: balanced strings of ( and ): as many ( as ) and, in every prefix, no more ) than (
// written in: C-RASP (docs/LANGUAGE.md, section 6)
// theory: not regular: a counting language; C-RASP (Yang and Chiang 2024) expresses it, compiled in every mode but fixed with exact counting signs
// class: counting
// tokens: ( )
// reference: examples/tasks/reference.py, TASKS["dyck-1"]
O = # "("
C = # ")"
X = # !("(" || ")")
DIPPED = # (C > O)
D = O == C && DIPPED == 0 && X == 0
