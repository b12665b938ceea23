// SPDX-License-Identifier: GPL-2.0-only
/*
 * hooks_state.c - the library's state, output mode and counters
 * (hooks_state.h): in a file of their own so that the outputs, which
 * count, need nothing of hooks.c, which calls them.
 */
#include "hooks_state.h"

struct hooks_counters hooks_count;
_Atomic int hooks_state = HOOKS_UNINIT;
enum hooks_mode hooks_mode;
