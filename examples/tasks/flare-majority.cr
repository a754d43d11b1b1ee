// task: Majority
// source: Butoi, Khalighinejad, Svete, Valvoda, Cotterell and DuSell, "Training Neural Networks as Recognizers of Formal Languages", ICLR 2025 (the FLaRe benchmark)
// definition: strings over {0, 1} with more 1s than 0s
// written in: C-RASP (docs/LANGUAGE.md, section 6)
// theory: not regular: a counting language; C-RASP (Yang and Chiang 2024) expresses it, compiled in every mode but fixed with exact counting signs
// class: counting
// tokens: 0 1
// reference: examples/tasks/reference.py, TASKS["flare-majority"]
ONES = # "1"
ZEROS = # "0"
X = # !("0" || "1")
D = ONES > ZEROS && X == 0
