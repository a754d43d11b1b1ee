/* SPDX-License-Identifier: MIT */
/* The version of the library as built (a program may have been compiled
 * against another header). */
#include "hardsoft.h"

const char *hs_version(void) { return HS_VERSION_STRING; }
int hs_version_number(void) { return HS_VERSION_NUMBER; }
