// COPY4: a string of length exactly 4 over a, b, c followed by a copy of
// it (abcbabcb yes, abcabc no). copies_complete holds at the last position
// of such a string: every token of the second half equals the one four
// positions back, and the second half is half of the tokens.
#import pred4
is_a_copy = "a" && ((#[pred4] "a") == 1)
is_b_copy = "b" && ((#[pred4] "b") == 1)
is_c_copy = "c" && ((#[pred4] "c") == 1)
token_count = #true
num_copies = #is_a_copy + #is_b_copy + #is_c_copy
copies_complete = (2*num_copies == token_count)
