/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vm_fixture.h - the "dev" fixture shared by the VM tests that record:
 * an open device, its info, a record collection, and a check that nothing
 * in the kernel log went wrong while the test ran.  Include it once, after
 * kselftest_harness.h, in a test program.
 */
#ifndef FXTPROF_VM_FIXTURE_H
#define FXTPROF_VM_FIXTURE_H

#include <string.h>

#include "kselftest_harness.h"
#include <libfxtprof.h>
#include "vm_util.h"

FIXTURE(dev) {
	struct fxtprof_dev *dev;
	const struct fxtprof_info *info;
	struct vm_recs r;
	int complaints;
};

FIXTURE_SETUP(dev)
{
	memset(&self->r, 0, sizeof(self->r));
	self->complaints = vm_kernel_complaints(0);
	ASSERT_EQ(0, fxtprof_dev__open(NULL, &self->dev));
	self->info = fxtprof_dev__info(self->dev);
}

FIXTURE_TEARDOWN(dev)
{
	fxtprof_dev__close(self->dev);
	vm_recs_free(&self->r);
	/* Nothing in the kernel log may have gone wrong meanwhile. */
	EXPECT_EQ(self->complaints, vm_kernel_complaints(1));
}

#endif /* FXTPROF_VM_FIXTURE_H */
