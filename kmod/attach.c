// SPDX-License-Identifier: GPL-2.0-only
/*
 * attach.c - FXTPROF_IOC_ATTACH: check that the caller is a reader of this
 * session's rings, as it claims, before the session starts for it.
 *
 * The reader offers, per CPU, the addresses where it mapped the consumer
 * page and the control page with the data.  Each one must be a VMA of
 * the caller's mm that belongs to this very file, at the CPU's offset,
 * as long as the ring.  The check looks and keeps nothing: no mm, no VMA,
 * no page.  A mapping that goes away later only hurts its own reader.
 *
 * Locks: mmap_read_lock(mm), then sess->lock, the order fxtprof_mmap()
 * takes them in (mmap_lock held by the mmap() syscall, then sess->lock).
 * The user's array of rings is copied in before either is taken: a
 * faulting copy takes mmap_lock itself (see fxtprof_ioctl()).
 */

#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "fxtprof_module.h"

/*
 * Is [addr, addr + len) one VMA of @file mapping the device's offset
 * @off onwards, with the access the reader needs?  The range must lie in
 * a single VMA: the module creates one per mmap() call, and a reader that
 * split its own mapping (mprotect of a part) offers something else.
 */
static bool fxtprof_vma_is(struct mm_struct *mm, struct file *file,
			   u64 addr, u64 len, u64 off, vm_flags_t need)
{
	struct vm_area_struct *vma;

	if (!len || addr & ~PAGE_MASK || addr + len < addr)
		return false;
	vma = vma_lookup(mm, addr);
	if (!vma || vma->vm_file != file || addr + len > vma->vm_end)
		return false;
	if ((vma->vm_flags & need) != need)
		return false;
	return ((u64)vma->vm_pgoff << PAGE_SHIFT) + (addr - vma->vm_start) == off;
}

static int fxtprof_attach_check_ring(struct fxtprof_session *sess,
				     struct file *file, struct mm_struct *mm,
				     unsigned int cpu,
				     const struct fxtprof_attach_ring *r)
{
	const u64 base = fxtprof_mmap_offset(cpu, sess->mmap_stride);

	if (!fxtprof_vma_is(mm, file, r->consumer_addr, PAGE_SIZE, base,
			    VM_READ | VM_WRITE | VM_SHARED))
		return -ENXIO;
	if (r->ctrl_len < PAGE_SIZE + 2 * sess->ring_size ||
	    !fxtprof_vma_is(mm, file, r->ctrl_addr, r->ctrl_len,
			    base + PAGE_SIZE, VM_READ | VM_SHARED))
		return -ENXIO;
	return 0;
}

/*
 * New rings: no reader has moved consumer_pos, so the one attaching
 * starts at 0 and sees everything the module published so far.  A
 * consumer_pos put back to 0 after a drain shows when the producer is
 * more than a ring ahead of it.
 */
static bool fxtprof_ring_is_new(const struct fxtprof_kring *ring)
{
	u64 cons = READ_ONCE(ring->cons->consumer_pos);

	return !cons && READ_ONCE(ring->ctrl->producer_pos) <= ring->size;
}

/* Called with mmap_read_lock(current->mm) and sess->lock held. */
static int fxtprof_attach_locked(struct fxtprof_session *sess,
				 struct file *file, struct mm_struct *mm,
				 const struct fxtprof_attach *a,
				 const struct fxtprof_attach_ring *rings)
{
	unsigned int cpu;
	int ret;

	if (!sess->configured || a->ring_size != sess->ring_size ||
	    a->mmap_stride != sess->mmap_stride || a->page_size != PAGE_SIZE)
		return -EINVAL;
	/* Entries of impossible CPUs are zero, as the header says. */
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		const struct fxtprof_attach_ring *r = &rings[cpu];

		if (!cpu_possible(cpu) &&
		    (r->consumer_addr || r->ctrl_addr || r->ctrl_len))
			return -EINVAL;
	}
	/*
	 * One reader per set of rings: attached stays set until detach, or
	 * until a configure replaces the rings (which needs them unmapped).
	 */
	if (sess->attached)
		return -EBUSY;
	for_each_possible_cpu(cpu) {
		ret = fxtprof_attach_check_ring(sess, file, mm, cpu,
						&rings[cpu]);
		if (ret)
			return ret;
	}
	for_each_possible_cpu(cpu)
		if (!fxtprof_ring_is_new(fxtprof_ring(sess, cpu)))
			return -ESTALE;
	sess->attached = true;
	return 0;
}

/**
 * fxtprof_attach - FXTPROF_IOC_ATTACH
 * @sess: the session of @file
 * @file: the open device; the caller's mappings must be of this file
 * @a: the request, copied in; not yet checked
 *
 * Returns 0 and marks the session attached, or an errno of the header's
 * list with the session unchanged.  Takes no lock on entry.
 */
int fxtprof_attach(struct fxtprof_session *sess, struct file *file,
		   const struct fxtprof_attach *a)
{
	struct fxtprof_attach_ring *rings;
	struct mm_struct *mm = current->mm;
	int ret;

	/* Checked again under the lock; first, so it is what one hears. */
	if (READ_ONCE(sess->detached))
		return -ESHUTDOWN;
	if (a->version != FXTPROF_ABI_VERSION)
		return -EPROTO;
	if (a->flags || a->reserved || a->nr_rings != nr_cpu_ids)
		return -EINVAL;
	if (!mm)
		return -ENXIO;

	rings = vmemdup_user(u64_to_user_ptr(a->rings_ptr),
			     array_size(nr_cpu_ids, sizeof(*rings)));
	if (IS_ERR(rings))
		return PTR_ERR(rings);

	ret = mmap_read_lock_killable(mm);
	if (ret)
		goto out_free_rings;
	mutex_lock(&sess->lock);
	if (sess->detached)
		ret = -ESHUTDOWN;
	else
		ret = fxtprof_attach_locked(sess, file, mm, a, rings);
	mutex_unlock(&sess->lock);
	mmap_read_unlock(mm);

out_free_rings:
	kvfree(rings);
	return ret;
}
