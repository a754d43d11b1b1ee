// Dyck-1: balanced strings of ( and ) (Yang & Chiang 2024, as in the
// C-RASP reference interpreter's examples). D holds at position i when the
// prefix up to i is balanced.
C_open = # "("
C_close = # ")"
V = C_open < C_close
CV = # V
M = (CV == 0)
B = (C_open == C_close)
D = M && B
