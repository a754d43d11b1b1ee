// Tokens longer than one character: every "if" so far was closed by an
// "end", never more ends than ifs.
opens = # "if"
closes = # "end"
never_under = # (closes > opens) == 0
R = never_under && opens == closes
