# task: D4, Dyck-1 of depth at most 4
# source: Bhattamishra, Ahuja and Goyal, "On the Ability and Limitations of Transformers to Recognize Formal Languages", EMNLP 2020
# definition: D_0 = {ε} and D_n = (a D_(n-1) b)*: balanced strings of a (open) and b (close) whose depth never passes 4 (section 5, star-free languages)
# written in: regular expression (docs/LANGUAGE.md, section 8)
# theory: star-free (aperiodic monoid): compiled in every mode
# class: star-free
# tokens: a b
# reference: examples/tasks/reference.py, TASKS["bhattamishra-d4"]
(a(a(a(ab)*b)*b)*b)*
