# (aa)*: quasi-aperiodic, compiled through @mod(2, r)
(aa)*
