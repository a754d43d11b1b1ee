# an odd number of a: not quasi-aperiodic, refused with its witness
b*a(b*ab*a)*b*
