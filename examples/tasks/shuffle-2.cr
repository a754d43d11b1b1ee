// task: Shuffle-2
// source: Bhattamishra, Ahuja and Goyal, "On the Ability and Limitations of Transformers to Recognize Formal Languages", EMNLP 2020 (section 4, counter languages)
// definition: the shuffle of two Dyck-1 languages, over ( ) and [ ]: for each kind of bracket alone, balanced (as many opening as closing, and no prefix with more closing than opening), the two kinds interleaved freely
// written in: C-RASP (docs/LANGUAGE.md, section 6)
// theory: not regular: a counting language; C-RASP (Yang and Chiang 2024) expresses it, compiled in every mode but fixed with exact counting signs
// class: counting
// tokens: ( ) [ ]
// reference: examples/tasks/reference.py, TASKS["shuffle-2"]
O1 = # "("
C1 = # ")"
O2 = # "["
C2 = # "]"
X = # !("(" || ")" || "[" || "]")
DIPPED = # (C1 > O1 || C2 > O2)
D = O1 == C1 && O2 == C2 && DIPPED == 0 && X == 0
