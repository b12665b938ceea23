// SPDX-License-Identifier: MIT
/* fxt-dump: standalone build of `fxtprof dump` for tests and debugging. */
#include "fxt_reader.h"

int main(int argc, char **argv)
{
	return fxt_dump_main(argc, argv);
}
