/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vm_util.h - helpers shared by the VM tests (tests/vm/test_*.c): record
 * collection from every ring, busy loops pinned to CPUs, the tests'
 * directory, ELF symbol lookup, a kernel log check, and `fxtprof record`
 * in the background.
 */
#ifndef FXTPROF_VM_UTIL_H
#define FXTPROF_VM_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <libfxtprof.h>

/* Every record drained, copied out of the rings (records are 8-aligned). */
struct vm_recs {
	unsigned char *buf;
	size_t len, cap;
	size_t nr;
	size_t nr_by_type[FXTPROF_REC_MAX];
	unsigned long long lost_records, lost_bytes;	/* Σ LOST */
	int err;			/* first drain error */
};

#define vm_recs_for_each(r, rec)					\
	for (const struct fxtprof_rec_hdr *rec = (const void *)(r)->buf; \
	     (const unsigned char *)rec < (r)->buf + (r)->len;		\
	     rec = (const void *)((const unsigned char *)rec + rec->size))

void vm_recs_free(struct vm_recs *r);
/* Drain every ring once into @r; returns records added or -errno. */
int vm_recs_drain(struct fxtprof_dev *dev, struct vm_recs *r);
/* Drain until every ring is empty (after stop). */
int vm_recs_drain_all(struct fxtprof_dev *dev, struct vm_recs *r);
/*
 * While the session still records, drain every 10 ms until @done(@r, @arg)
 * holds or @ms pass: for records the kernel writes after the event a test
 * can wait for (a thread's EXIT, its last switch, come after
 * pthread_join() returns).  0 or the drain's -errno; a timeout is 0 too,
 * the test's checks then say what is missing.
 */
int vm_recs_drain_until(struct fxtprof_dev *dev, struct vm_recs *r,
			bool (*done)(const struct vm_recs *r, const void *arg),
			const void *arg, unsigned int ms);

/* A zeroed config of the current size with @flags. */
struct fxtprof_config vm_config(__u32 flags, __u32 freq, __u64 ring_size);

unsigned long long vm_boottime_ns(void);
void vm_sleep_ms(unsigned int ms);

/* Busy threads, one pinned to each CPU in [0, n). */
struct vm_spinners;
struct vm_spinners *vm_spinners_start(int n);
void vm_spinners_stop(struct vm_spinners *s);

/* "/tests/<name>", wherever the running test lives. */
const char *vm_test_path(const char *name);

/* Address and size of function @sym in the (non-PIE) ELF file @path. */
int vm_elf_sym(const char *path, const char *sym, unsigned long long *addr,
	       unsigned long long *size);

/*
 * Lines of the kernel log that say something went wrong (WARNING, BUG,
 * Oops, KASAN...).  Count them before and after a test.
 */
int vm_kernel_complaints(int print);

/* Write @val to the file @path; 0 or -errno. */
int vm_write_file(const char *path, const char *val);

/* A TRIGGER named @name on the annotate device: 0 or -errno. */
int vm_trigger(const char *name);

/*
 * `fxtprof record ARGS OUT` (the fxtprof next to the test) in a child,
 * stderr to @errpath (inherited if NULL), OUT left out if NULL.  The child
 * dies with the test (PR_SET_PDEATHSIG): a failed assertion must not leave
 * it holding /dev/fxtprof for the tests after.  Its pid, or -errno.
 */
pid_t vm_record_spawn(const char *const *args, const char *out,
		      const char *errpath);
/*
 * vm_record_spawn(), then wait until the session runs: a trigger no longer
 * says ESRCH (it is named "probe"; give the recorder a --trigger list
 * without it).  Its pid; -ECHILD if it exited first, -ETIMEDOUT if it did
 * not start within 15 s (then it is killed); both reaped.
 */
pid_t vm_record_start(const char *const *args, const char *out,
		      const char *errpath);
/* SIGINT, then its exit status; -1 if it did not exit by itself. */
int vm_record_stop(pid_t pid);
/*
 * Wait until the recorder's stderr (@errpath) says @n flight-recorder
 * snapshots were written ("fxtprof: snapshot PATH: trigger NAME, ..."):
 * it writes one two drain turns after its trigger, which on a loaded
 * guest can be seconds.  The count seen, when it reached @n or @ms passed.
 */
int vm_record_wait_snapshots(const char *errpath, int n, unsigned int ms);

/*
 * A reader's mappings made by hand, without libfxtprof, for the tests that
 * speak the raw ABI: per CPU, the RW consumer page and the RO control page
 * with the data twice, as the uapi header lays them out.
 */
struct vm_raw_maps {
	unsigned int nr;		/* info.nr_cpus */
	long page;
	size_t ro_len;
	struct fxtprof_attach_ring *rings;	/* [nr], addresses as attach wants */
};

/* Map every CPU's ring of the configured session on @fd: 0 or -errno. */
int vm_raw_map(int fd, struct vm_raw_maps *m);
void vm_raw_unmap(struct vm_raw_maps *m);
/* An ATTACH request for @m, as GET_INFO describes the session on @fd. */
struct fxtprof_attach vm_raw_attach_req(int fd, const struct vm_raw_maps *m);
/* FXTPROF_IOC_ATTACH with vm_raw_attach_req(): 0 or -errno. */
int vm_raw_attach(int fd, const struct vm_raw_maps *m);

#endif /* FXTPROF_VM_UTIL_H */
