# task: Even Pairs
# source: Butoi, Khalighinejad, Svete, Valvoda, Cotterell and DuSell, "Training Neural Networks as Recognizers of Formal Languages", ICLR 2025 (the FLaRe benchmark)
# definition: strings over {0, 1} in which the number of 01 and 10 substrings together is even, which holds iff the first and the last symbol are equal
# written in: regular expression (docs/LANGUAGE.md, section 8)
# theory: star-free (aperiodic monoid): compiled in every mode
# class: star-free
# tokens: 0 1
# reference: examples/tasks/reference.py, TASKS["flare-even-pairs"]
0(0|1)*0 | 1(0|1)*1 | 0 | 1
