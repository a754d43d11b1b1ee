# task: L9
# source: Yang, Cadilhac and Chiang, "Knee-Deep in C-RASP: A Transformer Depth Hierarchy", 2025 (arXiv 2506.16055), the languages L_k of its experiments
# definition: strings over {a, b} of exactly 9 alternating nonempty blocks, the first of a: a+ b+ a+ b+ a+ b+ a+ b+ a+ (C-RASP needs depth growing with k)
# written in: regular expression (docs/LANGUAGE.md, section 8)
# theory: star-free (aperiodic monoid): compiled in every mode
# class: star-free
# tokens: a b
# reference: examples/tasks/reference.py, TASKS["kneedeep-l9"]
a+ b+ a+ b+ a+ b+ a+ b+ a+
