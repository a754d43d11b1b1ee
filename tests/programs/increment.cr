// { br(x) br(x+1) : 0 <= x <= 14 }, br(x) the reversed binary form of x in
// four digits (br(3) = 1100); after the reference interpreter's example.
// The program's value holds at the last position of such a string.
#import pred4
num_ones_up_to_here = #"1"
num_ones_here = (1 if "1" else 0)
num_ones_before_here = num_ones_up_to_here - num_ones_here
token_count = #true
first_position = (token_count == 1)
// carry: the first position, or only ones before this one
carry = (num_ones_before_here == token_count - 1) || first_position
incremented_is_one = (carry || "1") && !(carry && "1")
incremented_is_zero = !incremented_is_one
num_ones_match = #("1" && ((#[pred4] incremented_is_one) > 0))
num_zeroes_match = #("0" && ((#[pred4] incremented_is_zero) > 0))
copies_complete = (2*(num_ones_match + num_zeroes_match) == token_count)
