# a paragraph of words, tokens of several bytes, and a complement
"<p>" ("w" | "x")* "</p>" & ~(.* "x" "x" .*)
