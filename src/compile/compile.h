/* SPDX-License-Identifier: MIT */
/* Internal aggregate of the compiler's headers; the compiler's and the
 * runtime's public types and functions are declared in hardsoft.h. */
#ifndef HS_COMPILE_H
#define HS_COMPILE_H

#include "hardsoft.h"
#include "lang/ltl/formula.h"
#include "model/model.h"

#endif
