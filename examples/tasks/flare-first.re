# task: First
# source: Butoi, Khalighinejad, Svete, Valvoda, Cotterell and DuSell, "Training Neural Networks as Recognizers of Formal Languages", ICLR 2025 (the FLaRe benchmark)
# definition: strings over {0, 1} whose first symbol is 1
# written in: regular expression (docs/LANGUAGE.md, section 8)
# theory: star-free (aperiodic monoid): compiled in every mode
# class: star-free
# tokens: 0 1
# reference: examples/tasks/reference.py, TASKS["flare-first"]
1(0|1)*
