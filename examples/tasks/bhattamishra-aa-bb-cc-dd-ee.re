# task: aa*bb*cc*dd*ee*
# source: Bhattamishra, Ahuja and Goyal, "On the Ability and Limitations of Transformers to Recognize Formal Languages", EMNLP 2020
# definition: aa*bb*cc*dd*ee*: nonempty blocks of a, b, c, d and e in that order (section 5, star-free languages)
# written in: regular expression (docs/LANGUAGE.md, section 8)
# theory: star-free (aperiodic monoid): compiled in every mode
# class: star-free
# tokens: a b c d e
# reference: examples/tasks/reference.py, TASKS["bhattamishra-aa-bb-cc-dd-ee"]
aa*bb*cc*dd*ee*
