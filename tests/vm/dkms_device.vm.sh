# SPDX-License-Identifier: GPL-2.0-only
# dkms_device.vm.sh: run in the VM's command mode by scripts/check-dkms-vm.sh,
# with the module DKMS built from fxtprof-dkms as /fxtprof.ko (KO=): whether
# init loaded it, the kernel's word on it, and the device test against it.
echo "loaded=$FXTPROF_LOADED"
grep '^fxtprof ' /proc/modules
dmesg | grep 'fxtprof' | head -5
/tests/test_device
