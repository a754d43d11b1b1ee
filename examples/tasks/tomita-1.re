# task: Tomita 1
# source: Tomita, "Dynamic construction of finite-state automata from examples using hill-climbing", CogSci 1982 (the Tomita grammars, as in Bhattamishra, Ahuja and Goyal, "On the Ability and Limitations of Transformers to Recognize Formal Languages", EMNLP 2020)
# definition: 1*: only 1s
# written in: regular expression (docs/LANGUAGE.md, section 8)
# theory: star-free (aperiodic monoid): compiled in every mode
# class: star-free
# tokens: 0 1
# reference: examples/tasks/reference.py, TASKS["tomita-1"]
1*
