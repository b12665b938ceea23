// SPDX-License-Identifier: MIT
/* fxt-check: standalone build of `fxtprof check` for tests and debugging. */
#include "fxt_reader.h"

int main(int argc, char **argv)
{
	return fxt_check_main(argc, argv);
}
