// a^n b^n c^n (COUNT(3), Yang & Chiang 2024): the prefix is a block of a,
// then of b, then of c, all as long.
b_before_c = #("b" && (#"c" == 0)) == #"b"
a_before_bc = #("a" && (#("b" || "c") == 0)) == #"a"
same_counts = (#"a" == #"b") && (#"b" == #"c") && (#"c" == #"a")
count3 = b_before_c && a_before_bc && same_counts
