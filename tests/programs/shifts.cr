// A guarded count with pred2 and a period: the token two back was a, and
// the position (from 0) is 1 mod 3 or even.
#import pred2
#import pos_mod3_1
#import pos_even
two_back_a = (#[pred2] "a") == 1
R = two_back_a && (pos_mod3_1 || pos_even)
