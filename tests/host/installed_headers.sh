#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# installed_headers.sh CC STAGE SRC OUT: TAP test that the public headers
# and the library, as `make install` lays them out under STAGE (by
# tests/host/build.mk, with the Makefile's install commands), are enough
# to build SRC: no include path into the tree, -Werror, strict C11, and
# C++ when a C++ compiler is there.
cc=$1 stage=$2 src=$3 out=$4
inc="-I$stage/include"
. "$(dirname "$0")/../scripts/tap.sh"
echo "1..3"
t c11_werror "$cc" -std=c11 -pedantic -Wall -Wextra -Werror $inc -c "$src" -o "$out.o"
t link_and_run sh -c "$cc -o '$out' '$out.o' -L'$stage/lib' -lfxtprof && '$out'"
cxx=$(command -v c++ || true)
if [ -n "$cxx" ]; then
	t cxx_werror "$cxx" -x c++ -std=c++11 -Wall -Wextra -Werror $inc -fsyntax-only "$src"
else
	n=$((n + 1)); echo "ok $n cxx_werror # SKIP no c++ compiler"
fi
exit $failed
