// Strict majority: more "yes" than "no" tokens so far, every other token
// (an abstention) ignored; and a tie, where a vote was cast at all.
yes = # "yes"
no = # "no"
tie = (yes == no) && (yes + no > 0)
majority = yes > no
