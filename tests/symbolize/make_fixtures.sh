#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make_fixtures.sh CC SRCDIR OUTDIR - the files the symbolizer test names:
#   chain            PIE, -g, frame pointers (chain.c + inl.c)
#   chain_nopie      the same, ET_EXEC
#   chain_rebuilt    chain.c with -DREBUILT: another build id
#   stripped/chain   chain, strip --strip-all; its debug file is
#                    debug/.build-id/xx/rest.debug
#   linked/chain     the same, with a .gnu_debuglink to .debug/chain.debug
#   symfs/usr/bin/fxt-chain   a copy of chain under a fake board root
#   libshlib.so, pie_main     a PIE linked with a shared library
#   fake_vmlinux     an ELF at 0xffffffff81000000 with _stext
#   cxx              C++ (cxx.cc, with CXX, default g++): mangled names
#   bad/             a directory, a text file, an empty file, a
#                    truncated ELF
#   *.buildid        each file's build id in hex, from readelf
set -eu
cc=$1 src=$2 out=$3
rm -rf "$out"
mkdir -p "$out/stripped" "$out/symfs/usr/bin" "$out/bad/dir"

cflags="-O1 -g -fno-omit-frame-pointer"
$cc $cflags -c -o "$out/chain.o" "$src/chain.c"
$cc -O1 -g -fomit-frame-pointer -c -o "$out/inl.o" "$src/inl.c"
$cc -pie -fPIE -o "$out/chain" "$out/chain.o" "$out/inl.o"
$cc $cflags -no-pie -fno-pie -o "$out/chain_nopie" "$src/chain.c" "$src/inl.c"
$cc $cflags -DREBUILT -o "$out/chain_rebuilt" "$src/chain.c" "$src/inl.c"
$cc $cflags -fPIC -shared -o "$out/libshlib.so" "$src/shlib.c"
$cc $cflags -o "$out/pie_main" "$src/pie_main.c" -L"$out" -lshlib \
	-Wl,-rpath,"$out"
${CXX:-g++} $cflags -o "$out/cxx" "$src/cxx.cc"
$cc -nostdlib -static -no-pie -Wl,--build-id \
	-Wl,-Ttext-segment=0xffffffff81000000 -o "$out/fake_vmlinux" \
	"$src/fake_vmlinux.S"

buildid() {
	readelf -n "$1" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p'
}
for f in chain chain_nopie chain_rebuilt libshlib.so fake_vmlinux; do
	buildid "$out/$f" > "$out/$f.buildid"
done

id=$(cat "$out/chain.buildid")
strip --strip-all -o "$out/stripped/chain" "$out/chain"
mkdir -p "$out/debug/.build-id/$(echo "$id" | cut -c1-2)"
objcopy --only-keep-debug "$out/chain" \
	"$out/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
cp "$out/chain" "$out/symfs/usr/bin/fxt-chain"
# Found by .gnu_debuglink only: the debug file in the stripped file's .debug/.
mkdir -p "$out/linked/.debug"
objcopy --only-keep-debug "$out/chain" "$out/linked/.debug/chain.debug"
objcopy --strip-all --add-gnu-debuglink="$out/linked/.debug/chain.debug" \
	"$out/chain" "$out/linked/chain"

echo "not an ELF file" > "$out/bad/text"
: > "$out/bad/empty"
head -c 200 "$out/chain" > "$out/bad/truncated"
# Headers intact, sections cut off: libelf must refuse, not read past.
size=$(wc -c < "$out/chain")
head -c $((size / 2)) "$out/chain" > "$out/bad/half"
touch "$out/stamp"
