# task: Dyck-(2, 3)
# source: Butoi, Khalighinejad, Svete, Valvoda, Cotterell and DuSell, "Training Neural Networks as Recognizers of Formal Languages", ICLR 2025 (the FLaRe benchmark)
# definition: balanced strings of two kinds of brackets, ( ) and [ ], nested at most 3 deep
# written in: regular expression (docs/LANGUAGE.md, section 8)
# theory: star-free (aperiodic monoid): compiled in every mode
# class: star-free
# tokens: ( ) [ ]
# reference: examples/tasks/reference.py, TASKS["flare-dyck-2-3"]
(\((\((\(\)|\[\])*\)|\[(\(\)|\[\])*\])*\)|\[(\((\(\)|\[\])*\)|\[(\(\)|\[\])*\])*\])*
