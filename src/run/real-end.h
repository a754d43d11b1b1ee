/* SPDX-License-Identifier: MIT */
/* Closes the template opened by real-begin.h. */
#undef REAL
#undef SFX
#undef FMA_R
#undef CAT_
#undef CAT
#undef FN
#undef KOP
#undef ONLINE
#undef HARD
#undef REAL_F32
