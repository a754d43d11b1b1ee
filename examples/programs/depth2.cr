// Brackets nested at most two deep: no prefix closes more than it opened,
// and no prefix has more than two brackets open.
opened = # "["
closed = # "]"
under = # (opened < closed)
over = # (opened > closed + 2)
ok = (under == 0) && (over == 0)
