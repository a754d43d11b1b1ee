# task: (aa)*
# source: Bhattamishra, Ahuja and Goyal, "On the Ability and Limitations of Transformers to Recognize Formal Languages", EMNLP 2020
# definition: (aa)*: an even number of a's and nothing else (section 5, its example of a language that is not star-free)
# written in: regular expression (docs/LANGUAGE.md, section 8)
# theory: quasi-aperiodic, not star-free: first-order with modular position predicates (Barrington et al. 1992); compiled through @mod position features
# class: quasi-aperiodic
# tokens: a
# reference: examples/tasks/reference.py, TASKS["aa-star"]
(aa)*
