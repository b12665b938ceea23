// SPDX-License-Identifier: GPL-2.0-only
/*
 * main.c - fxtprof.ko: the /dev/fxtprof misc device, its ioctls and mmap
 * (/dev/fxtprof-annotate, for triggers, is kmod/annotate.c).
 *
 * One session at a time: a second open() gets -EBUSY and leaves the first
 * untouched, until the first one closes or detaches (FXTPROF_IOC_DETACH):
 * a detached session gives up the device but lives on, answering
 * GET_INFO and GET_STATS, until its file and last mapping are gone.  The
 * device is root-only (mode 0600).  While it is open, or any of its rings
 * is mapped, the module cannot be unloaded: the file holds a module
 * reference and every mapping holds the file.
 */

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "fxtprof_module.h"

/* The one-opener slot: held by the session that has not detached. */
static atomic_t fxtprof_busy = ATOMIC_INIT(0);

static int fxtprof_open(struct inode *inode, struct file *file)
{
	struct fxtprof_session *sess;

	if (atomic_cmpxchg(&fxtprof_busy, 0, 1))
		return -EBUSY;
	sess = fxtprof_session_new();
	if (!sess) {
		atomic_set(&fxtprof_busy, 0);
		return -ENOMEM;
	}
	file->private_data = sess;
	return nonseekable_open(inode, file);
}

static int fxtprof_release(struct inode *inode, struct file *file)
{
	struct fxtprof_session *sess = file->private_data;
	/* A detached session gave the slot up; another may hold it now. */
	bool holds_slot = !sess->detached;

	fxtprof_session_destroy(sess);
	if (holds_slot)
		atomic_set(&fxtprof_busy, 0);
	return 0;
}

/*
 * Structures carry their size first.  Older (smaller) and newer (larger,
 * zero-padded) callers are both accepted, as copy_struct_from_user() does;
 * anything smaller than the first version or absurdly large is -EINVAL.
 */
static int fxtprof_copy_in(void *dst, size_t ksize, size_t ver0,
			   void __user *uarg)
{
	u32 usize;
	int ret;

	if (get_user(usize, (u32 __user *)uarg))
		return -EFAULT;
	if (usize < ver0 || usize > PAGE_SIZE)
		return -EINVAL;
	ret = copy_struct_from_user(dst, ksize, uarg, usize);
	return ret == -E2BIG ? -EINVAL : ret;
}

static int fxtprof_copy_out(void __user *uarg, void *src, size_t ksize,
			    size_t ver0)
{
	u32 usize;

	if (get_user(usize, (u32 __user *)uarg))
		return -EFAULT;
	if (usize < ver0 || usize > PAGE_SIZE)
		return -EINVAL;
	/* An older caller gets its prefix; report the size we filled. */
	ksize = min_t(size_t, ksize, usize);
	*(u32 *)src = ksize;
	return copy_to_user(uarg, src, ksize) ? -EFAULT : 0;
}

/*
 * sess->lock is never held across a user copy: mmap() takes it under
 * mmap_lock, and a faulting copy takes mmap_lock, so copying under it
 * would order the two locks both ways.  Copy in, lock, act, unlock, copy
 * out.
 */
static long fxtprof_do_ioctl(struct file *file, unsigned int cmd,
			     unsigned long arg)
{
	struct fxtprof_session *sess = file->private_data;
	void __user *uarg = (void __user *)arg;
	union {
		struct fxtprof_info info;
		struct fxtprof_config config;
		struct fxtprof_flush flush;
		struct fxtprof_stats stats;
		struct fxtprof_attach attach;
		struct fxtprof_sync sync;
		struct fxtprof_source source;
		struct fxtprof_unwind_table unwind_table;
		struct fxtprof_unwind_map unwind_map;
		struct fxtprof_unwind_unload unwind_unload;
	} u;
	struct fxtprof_ksym_query *ksym;
	cpumask_var_t mask;
	long ret;

	if (_IOC_TYPE(cmd) != FXTPROF_IOC_MAGIC)
		return -ENOTTY;
	memset(&u, 0, sizeof(u));
	/* The size encoded in cmd is version 0's; the struct's own size rules. */
	switch (cmd & ~IOCSIZE_MASK) {
	case FXTPROF_IOC_GET_INFO & ~IOCSIZE_MASK:
		mutex_lock(&sess->lock);
		fxtprof_session_info(sess, &u.info);
		mutex_unlock(&sess->lock);
		return fxtprof_copy_out(uarg, &u.info, sizeof(u.info),
					FXTPROF_INFO_SIZE_VER0);

	case FXTPROF_IOC_CONFIGURE & ~IOCSIZE_MASK:
		ret = fxtprof_copy_in(&u.config, sizeof(u.config),
				      FXTPROF_CONFIG_SIZE_VER0, uarg);
		if (ret)
			return ret;
		if (!alloc_cpumask_var(&mask, GFP_KERNEL))
			return -ENOMEM;
		/* Validation reads the user's CPU list: outside the lock. */
		ret = fxtprof_config_check(&u.config, mask);
		if (!ret) {
			mutex_lock(&sess->lock);
			ret = sess->detached ? -ESHUTDOWN :
			      fxtprof_session_configure(sess, &u.config, mask);
			mutex_unlock(&sess->lock);
		}
		free_cpumask_var(mask);
		return ret;

	case FXTPROF_IOC_START & ~IOCSIZE_MASK:
		mutex_lock(&sess->lock);
		ret = sess->detached ? -ESHUTDOWN : fxtprof_session_start(sess);
		mutex_unlock(&sess->lock);
		return ret;

	case FXTPROF_IOC_STOP & ~IOCSIZE_MASK:
		mutex_lock(&sess->lock);
		ret = sess->detached ? -ESHUTDOWN : 0;
		fxtprof_session_stop(sess);
		mutex_unlock(&sess->lock);
		return ret;

	case FXTPROF_IOC_ATTACH & ~IOCSIZE_MASK:
		ret = fxtprof_copy_in(&u.attach, sizeof(u.attach),
				      FXTPROF_ATTACH_SIZE_VER0, uarg);
		if (ret)
			return ret;
		return fxtprof_attach(sess, file, &u.attach);

	case FXTPROF_IOC_DETACH & ~IOCSIZE_MASK:
		mutex_lock(&sess->lock);
		ret = sess->detached ? -ESHUTDOWN : 0;
		if (!ret)
			fxtprof_session_detach(sess);
		mutex_unlock(&sess->lock);
		/* The old session stays with this file; a new open may come. */
		if (!ret)
			atomic_set(&fxtprof_busy, 0);
		return ret;

	case FXTPROF_IOC_SYNC & ~IOCSIZE_MASK:
		ret = fxtprof_copy_in(&u.sync, sizeof(u.sync),
				      FXTPROF_SYNC_SIZE_VER0, uarg);
		if (ret)
			return ret;
		if (u.sync.flags)
			return -EINVAL;
		mutex_lock(&sess->lock);
		if (sess->detached)
			ret = -ESHUTDOWN;
		else
			u.sync.requests = fxtprof_session_sync(sess);
		mutex_unlock(&sess->lock);
		if (ret)
			return ret;
		return fxtprof_copy_out(uarg, &u.sync, sizeof(u.sync),
					FXTPROF_SYNC_SIZE_VER0);

	case FXTPROF_IOC_FLUSH & ~IOCSIZE_MASK:
		ret = fxtprof_copy_in(&u.flush, sizeof(u.flush),
				      FXTPROF_FLUSH_SIZE_VER0, uarg);
		if (ret)
			return ret;
		if (u.flush.flags)
			return -EINVAL;
		mutex_lock(&sess->lock);
		if (sess->detached)
			ret = -ESHUTDOWN;
		else if (sess->configured)
			u.flush.seq = fxtprof_session_flush(sess);
		else
			ret = -EINVAL;
		mutex_unlock(&sess->lock);
		if (ret)
			return ret;
		return fxtprof_copy_out(uarg, &u.flush, sizeof(u.flush),
					FXTPROF_FLUSH_SIZE_VER0);

	case FXTPROF_IOC_GET_STATS & ~IOCSIZE_MASK:
		ret = fxtprof_copy_in(&u.stats, sizeof(u.stats),
				      FXTPROF_STATS_SIZE_VER0, uarg);
		if (ret)
			return ret;
		mutex_lock(&sess->lock);
		if (sess->configured && u.stats.cpu < nr_cpu_ids &&
		    fxtprof_ring(sess, u.stats.cpu))
			fxtprof_kring_stats(fxtprof_ring(sess, u.stats.cpu),
					    &u.stats);
		else
			ret = -EINVAL;
		mutex_unlock(&sess->lock);
		if (ret)
			return ret;
		return fxtprof_copy_out(uarg, &u.stats, sizeof(u.stats),
					FXTPROF_STATS_SIZE_VER0);

	case FXTPROF_IOC_GET_SOURCE & ~IOCSIZE_MASK:
		ret = fxtprof_copy_in(&u.source, sizeof(u.source),
				      FXTPROF_SOURCE_SIZE_VER0, uarg);
		if (ret)
			return ret;
		/* Only size and index are read; the rest is overwritten. */
		mutex_lock(&sess->lock);
		ret = fxtprof_source_get(&u.source, sess->configured,
					 sess->flags);
		mutex_unlock(&sess->lock);
		if (ret)
			return ret;
		return fxtprof_copy_out(uarg, &u.source, sizeof(u.source),
					FXTPROF_SOURCE_SIZE_VER0);

	case FXTPROF_IOC_UNWIND_LOAD & ~IOCSIZE_MASK:
		ret = fxtprof_copy_in(&u.unwind_table, sizeof(u.unwind_table),
				      FXTPROF_UNWIND_TABLE_SIZE_VER0, uarg);
		if (ret)
			return ret;
		/* Locks itself: the rows are copied in outside sess->lock. */
		ret = fxtprof_unwind_load(sess, &u.unwind_table);
		/* -EEXIST gives the table that is there. */
		if (ret && ret != -EEXIST)
			return ret;
		return fxtprof_copy_out(uarg, &u.unwind_table,
					sizeof(u.unwind_table),
					FXTPROF_UNWIND_TABLE_SIZE_VER0) ?: ret;

	case FXTPROF_IOC_UNWIND_MAP & ~IOCSIZE_MASK:
		ret = fxtprof_copy_in(&u.unwind_map, sizeof(u.unwind_map),
				      FXTPROF_UNWIND_MAP_SIZE_VER0, uarg);
		if (ret)
			return ret;
		return fxtprof_unwind_map(sess, &u.unwind_map);

	case FXTPROF_IOC_UNWIND_UNLOAD & ~IOCSIZE_MASK:
		ret = fxtprof_copy_in(&u.unwind_unload,
				      sizeof(u.unwind_unload),
				      FXTPROF_UNWIND_UNLOAD_SIZE_VER0, uarg);
		if (ret)
			return ret;
		return fxtprof_unwind_unload(sess, &u.unwind_unload);

	case FXTPROF_IOC_KSYM & ~IOCSIZE_MASK:
		/* Its 544 bytes stay off the stack; it needs no session. */
		ksym = kzalloc(sizeof(*ksym), GFP_KERNEL);
		if (!ksym)
			return -ENOMEM;
		ret = fxtprof_copy_in(ksym, sizeof(*ksym),
				      FXTPROF_KSYM_QUERY_SIZE_VER0, uarg);
		if (!ret)
			ret = fxtprof_ksym_lookup(ksym);
		if (!ret)
			ret = fxtprof_copy_out(uarg, ksym, sizeof(*ksym),
					       FXTPROF_KSYM_QUERY_SIZE_VER0);
		kfree(ksym);
		return ret;
	}
	return -ENOTTY;
}

/* Counts every request it knows, whatever its result, for SYNC. */
static long fxtprof_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct fxtprof_session *sess = file->private_data;
	long ret = fxtprof_do_ioctl(file, cmd, arg);

	if (ret != -ENOTTY)
		atomic64_inc(&sess->requests);
	return ret;
}

static __poll_t fxtprof_poll(struct file *file, poll_table *pt)
{
	struct fxtprof_session *sess = file->private_data;

	poll_wait(file, &sess->wq, pt);
	return fxtprof_session_poll(sess);
}

static void fxtprof_vm_open(struct vm_area_struct *vma)
{
	struct fxtprof_session *sess = vma->vm_private_data;

	atomic_inc(&sess->mapped);
}

static void fxtprof_vm_close(struct vm_area_struct *vma)
{
	struct fxtprof_session *sess = vma->vm_private_data;

	atomic_dec(&sess->mapped);
}

/*
 * A ring's pages are mapped as the reader touches them, as perf's ring
 * buffer and uio map theirs, not all of them at mmap(): the reader's
 * resident set then holds the pages it read, once, where a populated
 * mapping held every data page twice (the second copy is touched only
 * by the records that cross the wrap).  The rings cannot change under a
 * fault: a live VMA keeps configure away (sess->mapped).
 */
static vm_fault_t fxtprof_vm_fault(struct vm_fault *vmf)
{
	struct fxtprof_session *sess = vmf->vma->vm_private_data;
	const unsigned long stride = sess->mmap_stride >> PAGE_SHIFT;
	struct fxtprof_kring **rings;
	struct page *page;

	rings = rcu_dereference_protected(sess->rings,
					  atomic_read(&sess->mapped));
	page = fxtprof_kring_page(rings[vmf->pgoff / stride],
				  vmf->pgoff % stride);
	if (!page)
		return VM_FAULT_SIGBUS;
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct fxtprof_vm_ops = {
	.open = fxtprof_vm_open,
	.close = fxtprof_vm_close,
	.fault = fxtprof_vm_fault,
};

/*
 * A mapping lies inside one CPU's region (see the layout in the uapi
 * header).  Only the consumer page, mapped alone, may be writable; any
 * other mapping loses VM_MAYWRITE so mprotect() cannot upgrade it.
 */
static int fxtprof_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct fxtprof_session *sess = file->private_data;
	unsigned long stride, cpu, first, npages = vma_pages(vma);
	int ret = -EINVAL;

	/* A private mapping would let writes go to a copy nobody reads. */
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	mutex_lock(&sess->lock);
	if (sess->detached) {
		ret = -ESHUTDOWN;
		goto out_unlock;
	}
	if (!sess->configured)
		goto out_unlock;
	stride = sess->mmap_stride >> PAGE_SHIFT;
	cpu = vma->vm_pgoff / stride;
	first = vma->vm_pgoff % stride;
	if (cpu >= nr_cpu_ids || !fxtprof_ring(sess, cpu) ||
	    first + npages > stride)
		goto out_unlock;

	if (first == 0 && npages == 1) {
		/* The consumer page: the reader's to write. */
	} else if (vma->vm_flags & VM_WRITE) {
		ret = -EPERM;
		goto out_unlock;
	} else {
		fxtprof_vm_flags_clear(vma, VM_MAYWRITE);
	}

	if (!fxtprof_kring_page(fxtprof_ring(sess, cpu), first + npages - 1))
		goto out_unlock;
	fxtprof_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	ret = 0;
	vma->vm_ops = &fxtprof_vm_ops;
	vma->vm_private_data = sess;
	fxtprof_vm_open(vma);

out_unlock:
	mutex_unlock(&sess->lock);
	return ret;
}

static const struct file_operations fxtprof_fops = {
	.owner = THIS_MODULE,
	.open = fxtprof_open,
	.release = fxtprof_release,
	.unlocked_ioctl = fxtprof_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.poll = fxtprof_poll,
	.mmap = fxtprof_mmap,
};

static struct miscdevice fxtprof_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "fxtprof",
	.fops = &fxtprof_fops,
	.mode = 0600,
};

static int __init fxtprof_init(void)
{
	int ret;

	ret = fxtprof_tasks_init();
	if (ret)
		return ret;
	fxtprof_sched_init();
	ret = fxtprof_sampler_init();
	if (ret)
		return ret;
	ret = fxtprof_annotate_init();
	if (ret)
		goto out_sampler_exit;
	ret = misc_register(&fxtprof_misc);
	if (ret)
		goto out_annotate_exit;
	return 0;

out_annotate_exit:
	fxtprof_annotate_exit();
out_sampler_exit:
	fxtprof_sampler_exit();
	return ret;
}

/*
 * No session can exist here (an open file pins the module), so timers are
 * cancelled and the session withdrawn from the probes by the last stop.
 * The probes themselves outlive sessions (probes.c) and go now.
 */
static void __exit fxtprof_exit(void)
{
	misc_deregister(&fxtprof_misc);
	fxtprof_annotate_exit();
	fxtprof_sampler_exit();
	fxtprof_sched_exit();
	fxtprof_tasks_exit();
}

module_init(fxtprof_init);
module_exit(fxtprof_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("fxtprof developers");
MODULE_DESCRIPTION("System-wide CPU sampling and task lifecycle into per-CPU rings");
