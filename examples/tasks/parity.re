# task: Parity
# source: Bhattamishra, Ahuja and Goyal, "On the Ability and Limitations of Transformers to Recognize Formal Languages", EMNLP 2020
# definition: strings over {a, b} with an odd number of a's
# written in: regular expression (docs/LANGUAGE.md, section 8)
# theory: not quasi-aperiodic: outside FO[<, MOD], refused with a witness (no masked hard-attention transformer recognizes it; Yang, Chiang and Angluin 2024)
# class: not quasi-aperiodic
# tokens: a b
# reference: examples/tasks/reference.py, TASKS["parity"]
b*a(b*ab*a)*b*
