/* SPDX-License-Identifier: MIT */
/* The forward pass, written once for REAL = float and REAL = double
 * (included twice by forward.c between real-begin.h and real-end.h): its
 * parts in the order they use one another, each file one concern. */

#include "weights-impl.h"
#include "heads-impl.h"
#include "skip-impl.h"
#include "skip-search-impl.h"
#include "skip-hard-impl.h"
#include "job-impl.h"
#include "softmax-impl.h"
#include "prefix-impl.h"
#include "select-impl.h"
#include "attend-impl.h"
#include "auto-impl.h"
#include "layer-impl.h"
#include "pass-impl.h"
