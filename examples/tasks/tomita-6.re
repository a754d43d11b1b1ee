# task: Tomita 6
# source: Tomita, "Dynamic construction of finite-state automata from examples using hill-climbing", CogSci 1982 (the Tomita grammars, as in Bhattamishra, Ahuja and Goyal, "On the Ability and Limitations of Transformers to Recognize Formal Languages", EMNLP 2020)
# definition: strings over {0, 1} with the number of 0s minus the number of 1s is a multiple of 3
# written in: regular expression (docs/LANGUAGE.md, section 8)
# theory: not quasi-aperiodic: outside FO[<, MOD], refused with a witness (no masked hard-attention transformer recognizes it; Yang, Chiang and Angluin 2024)
# class: not quasi-aperiodic
# tokens: 0 1
# reference: examples/tasks/reference.py, TASKS["tomita-6"]
(0(01)*(1|00)|1(10)*(0|11))*
