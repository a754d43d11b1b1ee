// min, max and a conditional count: the smaller of #a and #b is at least
// 2, or the larger exceeds the other by 3 or more.
lo = min(#"a", #"b")
hi = max(#"a", #"b")
gap = hi - lo
bonus = (2 if "c" else 0)
R = lo + bonus >= 2 || gap >= 3
