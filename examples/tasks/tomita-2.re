# task: Tomita 2
# source: Tomita, "Dynamic construction of finite-state automata from examples using hill-climbing", CogSci 1982 (the Tomita grammars, as in Bhattamishra, Ahuja and Goyal, "On the Ability and Limitations of Transformers to Recognize Formal Languages", EMNLP 2020)
# definition: (10)*: 1 and 0 alternating, starting with 1, of even length
# written in: regular expression (docs/LANGUAGE.md, section 8)
# theory: star-free (aperiodic monoid): compiled in every mode
# class: star-free
# tokens: 0 1
# reference: examples/tasks/reference.py, TASKS["tomita-2"]
(10)*
