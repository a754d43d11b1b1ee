# task: Tomita 5
# source: Tomita, "Dynamic construction of finite-state automata from examples using hill-climbing", CogSci 1982 (the Tomita grammars, as in Bhattamishra, Ahuja and Goyal, "On the Ability and Limitations of Transformers to Recognize Formal Languages", EMNLP 2020)
# definition: strings over {0, 1} with an even number of 0s and an even number of 1s
# written in: regular expression (docs/LANGUAGE.md, section 8)
# theory: not quasi-aperiodic: outside FO[<, MOD], refused with a witness (no masked hard-attention transformer recognizes it; Yang, Chiang and Angluin 2024)
# class: not quasi-aperiodic
# tokens: 0 1
# reference: examples/tasks/reference.py, TASKS["tomita-5"]
((1*01*0)*1*) & ((0*10*1)*0*)
