#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# sign-module.sh KEY CERT MODULE [KDIR]
# Sign MODULE (a .ko) in place with the kernel build tree's own
# scripts/sign-file, SHA-256, with the private KEY (PEM, or a PKCS#11 URI)
# and its X.509 CERT (DER or PEM), as the kernel's `make modules_sign`
# would.  KDIR: the tree the module was built against (default: that of
# CFG, scripts/env.sh, x86_64 unless CFG is set).  The key is the user's:
# one inside this repository is refused, so no key is ever committed
# (but for the debug kernel's own test key, below).
# Documentation/building.md says how to make a key and enrol it (MOK).
set -euo pipefail
. "$(dirname "$0")/env.sh"

key=${1:?usage: sign-module.sh KEY CERT MODULE [KDIR]} cert=${2:?usage: sign-module.sh KEY CERT MODULE [KDIR]}
module=${3:?usage: sign-module.sh KEY CERT MODULE [KDIR]}
kdir=${4:-}
if [ -z "$kdir" ]; then
	fxt_cfg "${CFG:-x86_64}" || exit 1
	kdir=$CFG_KDIR
fi
die() { echo "sign-module.sh: $*" >&2; exit 1; }

[ -f "$module" ] || die "no module $module (make module first)"
case $key in
pkcs11:*) ;;
*)	[ -r "$key" ] || die "cannot read the key $key"
	# One exception: the debug kernel's test key, which lives in that
	# kernel's tree, under build/deps when the machine cache is not
	# writable (scripts/env.sh, scripts/build-debug-kernel.sh).
	case $(realpath "$key")/ in
	"$(realpath "$FXT_ROOT")"/*)
		[ "$(dirname "$(realpath "$key")")" = "$(realpath -m "$("$FXT_ROOT/scripts/build-debug-kernel.sh" --print-key-dir)")" ] ||
			die "the key $key is inside the repository: keep it elsewhere, never commit it" ;;
	esac ;;
esac
[ -r "$cert" ] || die "cannot read the certificate $cert"
signfile=$kdir/scripts/sign-file
[ -x "$signfile" ] || die "no $signfile: the kernel build tree $kdir has no sign-file"
# sign-file appends: a second signature would sit on top of the first,
# which the kernel does not read.  Sign a freshly built module.
if tail -c 28 "$module" | grep -q '~Module signature appended~'; then
	die "$module is already signed: rebuild it (make module) and sign that"
fi
"$signfile" sha256 "$key" "$cert" "$module"
echo "signed $module with $cert"
