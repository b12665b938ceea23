// SPDX-License-Identifier: GPL-2.0-only
/*
 * out_device.c - the "fxtprof:" output: one write(2) of a struct
 * fxtprof_annotation per annotation on /dev/fxtprof-annotate.  The module
 * stamps the time and the CPU and puts the record in the calling CPU's
 * ring, between the samples of the same thread.
 *
 * The trigger ioctl lives here too: it goes to the same device whatever
 * the output of the annotations is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "hooks_out.h"
#include "hooks_state.h"

static _Atomic int device_fd = -1;

int out_device__open(void)
{
	int fd = open(FXTPROF_ANNOTATE_DEVICE, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	atomic_store(&device_fd, fd);
	return 0;
}

void out_device__close(void)
{
	int fd = atomic_exchange(&device_fd, -1);

	if (fd >= 0)
		close(fd);
}

void out_device__emit(unsigned int kind, uint64_t key, const char *name,
		      uint16_t len)
{
	struct {
		struct fxtprof_annotation a;
		char name[FXTPROF_ANNOTATION_NAME_MAX];
	} m;
	size_t size = offsetof(struct fxtprof_annotation, name) + len;

	m.a.size = (uint32_t)size;
	m.a.kind = (uint16_t)kind;
	m.a.name_len = len;
	m.a.flags = 0;
	m.a.reserved = 0;
	m.a.key = key;
	memcpy(m.name, name, len);
	if (write(atomic_load_explicit(&device_fd, memory_order_relaxed), &m,
		  size) == (ssize_t)size) {
		hooks_inc(annotations);
		return;
	}
	/* Nothing is recording: the normal case between recordings. */
	if (errno == ESRCH)
		hooks_inc(no_session);
	else
		hooks_inc(dropped);
}

int out_device__trigger(const char *name)
{
	struct fxtprof_trigger t;
	int fd = atomic_load(&device_fd);
	int opened = -1, ret = 0;

	memset(&t, 0, sizeof(t));
	t.size = sizeof(t);
	strncpy(t.name, name, FXTPROF_TRIGGER_NAME_MAX);
	if (fd < 0) {
		/* Standalone annotations: the device is needed only now. */
		opened = fd = open(FXTPROF_ANNOTATE_DEVICE,
				   O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
	}
	if (ioctl(fd, FXTPROF_IOC_TRIGGER, &t))
		ret = -errno;
	if (opened >= 0)
		close(opened);
	return ret;
}
