# task: (ab)*
# source: Bhattamishra, Ahuja and Goyal, "On the Ability and Limitations of Transformers to Recognize Formal Languages", EMNLP 2020
# definition: (ab)*: a and b alternating, starting with a, of even length (section 5, star-free languages; the same language as D1)
# written in: regular expression (docs/LANGUAGE.md, section 8)
# theory: star-free (aperiodic monoid): compiled in every mode
# class: star-free
# tokens: a b
# reference: examples/tasks/reference.py, TASKS["bhattamishra-ab-star"]
(ab)*
