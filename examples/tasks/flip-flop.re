# task: flip-flop
# source: Liu, Ash, Goel, Krishnamurthy and Zhang, "Exposing Attention Glitches with Flip-Flop Language Modeling", NeurIPS 2023
# definition: pairs of an instruction (w write, r read, i ignore) and a bit, the first instruction a write, every read's bit the bit of the last write before it (the language FFL of the paper, read as a whole prefix: a prefix is in it when it ends a pair)
# written in: regular expression (docs/LANGUAGE.md, section 8)
# theory: star-free (aperiodic monoid): compiled in every mode
# class: star-free
# tokens: w r i 0 1
# reference: examples/tasks/reference.py, TASKS["flip-flop"]
(w0(i(0|1)|r0)*|w1(i(0|1)|r1)*)*
