# SPDX-License-Identifier: GPL-2.0-only
# sig_enforce.vm.sh: run in the VM's command mode by
# scripts/vm-sig-enforce.sh, on the debug kernel booted with
# module.sig_enforce=1.  That kernel trusts one key, the machine's test key
# (scripts/build-debug-kernel.sh); /init has already loaded /fxtprof.ko,
# signed with it (its own "insmod fxtprof.ko" result), and unloads it at
# the end (fini).  In between, as the "sig_enforce" test: the kernel
# enforces, holds the key that modinfo names as the module's signer, and
# refuses the same module unsigned and signed with a key it does not hold.
# The host put in /sig: unsigned.ko, untrusted.ko, and kmod's modinfo of
# /fxtprof.ko and of untrusted.ko (busybox's modinfo cannot read a
# signature).  Messages: kernel/module/signing.c (module_sig_check).
# A refusal is a notice, not a warning: the suite's dmesg scan passes.

. /cmd/tap.sh

# EKEYREJECTED on x86_64 (include/uapi/asm-generic/errno.h).  busybox's
# insmod exits with the errno of init_module/finit_module and prints
# strerror's words for it.
EKEYREJECTED=129
signer() { sed -n 's/^signer: *//p' "$1"; }
loaded() { grep -q '^fxtprof ' /proc/modules; }
# The key's line of /proc/keys: "... asymmetri CN: SKID: X509.rsa ...".
has_key() { grep -q " asymmetri $1: " /proc/keys; }
notices() { dmesg | grep -c "$1"; }

# refused FILE MESSAGE: insmod FILE fails with EKEYREJECTED, nothing is
# loaded, and the kernel said MESSAGE once more than before.
refused() {
	before=$(notices "$2")
	insmod "$1"
	rc=$?
	echo "insmod exit status $rc (want $EKEYREJECTED, EKEYREJECTED)"
	after=$(notices "$2")
	echo "\"$2\" in dmesg: $before before, $after after"
	[ "$rc" -eq $EKEYREJECTED ] && ! loaded && [ "$after" -gt "$before" ]
}

enforcing() { [ "$(cat /sys/module/module/parameters/sig_enforce)" = Y ]; }
trusted_signer() {
	s=$(signer /sig/fxtprof.modinfo)
	echo "modinfo: signer '$s', $(grep '^sig_hashalgo' /sig/fxtprof.modinfo)"
	grep asymmetri /proc/keys
	[ -n "$s" ] && has_key "$s" && grep -q '^sig_hashalgo: *sha256$' /sig/fxtprof.modinfo
}
signed_loaded() {
	# 'E' would be an unsigned (or unverified) module's taint.
	echo "init loaded it: $FXTPROF_LOADED; taint '$(cat /sys/module/fxtprof/taint)'"
	[ "$FXTPROF_LOADED" = 1 ] && loaded && [ -c /dev/fxtprof ] &&
		! grep -q E /sys/module/fxtprof/taint
}
unloads() { rmmod fxtprof && ! loaded && [ ! -e /dev/fxtprof ]; }
untrusted_signer() {
	s=$(signer /sig/untrusted.modinfo)
	echo "modinfo: signer '$s'"
	[ -n "$s" ] && [ "$s" != "$(signer /sig/fxtprof.modinfo)" ] && ! has_key "$s"
}
reloads() { insmod /fxtprof.ko && loaded && [ -c /dev/fxtprof ]; }

echo "FXT-TEST-BEGIN sig_enforce"
echo "TAP version 13"
echo "1..8"
t sig_enforce_is_Y enforcing
t kernel_holds_the_signer_of_fxtprof_ko trusted_signer
t signed_module_loaded_untainted_with_its_device signed_loaded
t signed_module_unloads unloads
t unsigned_module_refused_EKEYREJECTED \
	refused /sig/unsigned.ko "Loading of unsigned module is rejected"
t untrusted_signer_not_held_by_kernel untrusted_signer
t untrusted_key_refused_EKEYREJECTED \
	refused /sig/untrusted.ko "Loading of module with unavailable key is rejected"
# Loaded again for /init's fini, which unloads it.
t signed_module_loads_again reloads
echo "FXT-TEST-END sig_enforce rc=$failed"
exit $failed
