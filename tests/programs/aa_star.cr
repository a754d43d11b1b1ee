// (aa)*: only a so far, at an odd position counted from 0 (an even length).
#import pos_even
C_not_a = # !"a"
A = (C_not_a == 0)
D = !pos_even && A
