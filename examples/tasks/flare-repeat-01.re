# task: Repeat 01
# source: Butoi, Khalighinejad, Svete, Valvoda, Cotterell and DuSell, "Training Neural Networks as Recognizers of Formal Languages", ICLR 2025 (the FLaRe benchmark)
# definition: (01)*
# written in: regular expression (docs/LANGUAGE.md, section 8)
# theory: star-free (aperiodic monoid): compiled in every mode
# class: star-free
# tokens: 0 1
# reference: examples/tasks/reference.py, TASKS["flare-repeat-01"]
(01)*
