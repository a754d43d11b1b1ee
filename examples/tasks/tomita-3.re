# task: Tomita 3
# source: Tomita, "Dynamic construction of finite-state automata from examples using hill-climbing", CogSci 1982 (the Tomita grammars, as in Bhattamishra, Ahuja and Goyal, "On the Ability and Limitations of Transformers to Recognize Formal Languages", EMNLP 2020)
# definition: strings over {0, 1} with no maximal run of an odd number of 1s followed directly by a complete run of an odd number of 0s (the run ends at a 1 or at the end)
# written in: regular expression (docs/LANGUAGE.md, section 8)
# theory: quasi-aperiodic, not star-free: first-order with modular position predicates (Barrington et al. 1992); compiled through @mod position features
# class: quasi-aperiodic
# tokens: 0 1
# reference: examples/tasks/reference.py, TASKS["tomita-3"]
~(([01]*0|()) 1(11)* 0(00)* (1[01]*|()))
