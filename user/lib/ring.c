// SPDX-License-Identifier: (LGPL-2.1-only OR BSD-2-Clause)
/*
 * ring.c - consuming one fxtprof ring.
 *
 * The ring is single-producer (the module on one CPU: kmod/kring.c, which
 * the host tests also run), single-consumer (us).  Positions are
 * free-running byte counts; pending bytes are [consumer_pos, producer_pos).
 * The ordering contract, with the kernel side on the left.  Each barrier
 * has the label of its pair, and kmod/kring.c uses the same labels:
 *
 *   producer (kmod/kring.c)                 consumer (this file)
 *   -----------------------                 --------------------
 *   cons = load_acquire(consumer_pos)  (A)  prod = load_acquire(producer_pos) (B)
 *   if (head + size - cons <= size)         read records in [cons, prod)
 *       write the record                    store_release(consumer_pos, new)  (A)
 *       store_release(producer_pos)    (B)
 *
 *   (A) consumer_pos: the producer overwrites bytes only after it has seen
 *       the consumer move past them, and that is after our reads of them.
 *   (B) producer_pos: whoever sees the new producer_pos sees the record.
 *
 * The data is mapped twice back to back, so [c, p) is one contiguous span
 * starting at data + (c & mask) whenever p - c <= data_size.
 *
 * Nothing read from shared memory is trusted beyond what was checked: the
 * geometry is validated once at attach and cached; producer_pos is
 * checked against our own consumer position on every peek; every record
 * is validated against the bytes actually pending before it is read.
 */
#include <stdbool.h>
#include <string.h>
#include "libfxtprof_internal.h"

int fxtprof_ring__attach(struct fxtprof_ring *ring, void *consumer_page,
			 const void *ctrl_and_data, size_t len)
{
	const struct fxtprof_ring_ctrl *ctrl = ctrl_and_data;
	__u64 page, size, off, data_start, cons, prod;

	memset(ring, 0, sizeof(*ring));
	if (!consumer_page || !ctrl_and_data)
		return -EINVAL;
	/* The control structure itself must be inside the mapping. */
	if (len < sizeof(*ctrl))
		return -EINVAL;

	/*
	 * Read each field once: the page is shared and could change under
	 * us; only the values checked here are ever used.
	 */
	if (READ_ONCE(ctrl->magic) != FXTPROF_RING_MAGIC)
		return -EPROTO;
	if (READ_ONCE(ctrl->version) != FXTPROF_ABI_VERSION)
		return -EPROTONOSUPPORT;
	page = READ_ONCE(ctrl->page_size);
	size = READ_ONCE(ctrl->data_size);
	off = READ_ONCE(ctrl->data_offset);

	/* A page holds the control structure and is a power of two. */
	if (!fxt_is_pow2(page) || page < sizeof(*ctrl))
		return -EINVAL;
	/* Offsets are masked, so the size must be a power of two; and the
	 * double mapping is made of whole pages. */
	if (!fxt_is_pow2(size) || size < page)
		return -EINVAL;
	/* data_offset counts from the consumer page; the control page sits
	 * at +page, so data starts data_offset - page bytes into this
	 * mapping, on a page boundary, after the control structure. */
	if (off < page + sizeof(*ctrl) || off % page)
		return -EINVAL;
	data_start = off - page;
	/* 64-bit arithmetic that cannot overflow: compare step by step. */
	if (data_start > len || size > (len - data_start) / 2)
		return -EINVAL;

	cons = READ_ONCE(((struct fxtprof_ring_consumer *)consumer_page)->consumer_pos);
	/* (B) As in fxtprof_ring__peek(). */
	prod = smp_load_acquire(&ctrl->producer_pos);
	if (prod - cons > size || (cons | prod) % FXTPROF_REC_ALIGN)
		return -EPROTO;

	ring->consumer = consumer_page;
	ring->ctrl = ctrl;
	ring->data = (const unsigned char *)ctrl_and_data + data_start;
	ring->size = size;
	ring->mask = size - 1;
	ring->cons = cons;
	ring->cpu = READ_ONCE(ctrl->cpu);
	return 0;
}

int fxtprof_ring__peek(struct fxtprof_ring *ring, const void **data,
		       size_t *len)
{
	/*
	 * (B) Pairs with the producer's smp_store_release(producer_pos) in
	 * fxtprof_kring_commit(), after it wrote the record: everything
	 * below prod is written.
	 */
	__u64 prod = smp_load_acquire(&ring->ctrl->producer_pos);
	__u64 avail = prod - ring->cons;

	*data = ring->data + (ring->cons & ring->mask);
	*len = 0;
	/* More than a ring's worth (or unaligned) means a corrupt
	 * position: reading it could run past the double mapping. */
	if (fxt_unlikely(avail > ring->size || avail % FXTPROF_REC_ALIGN))
		return -EPROTO;
	*len = avail;
	return 0;
}

void fxtprof_ring__consume(struct fxtprof_ring *ring, size_t len)
{
	ring->cons += len;
	/*
	 * (A) Pairs with the producer's smp_load_acquire(consumer_pos) in
	 * fxtprof_kring_reserve(), before it reuses space: our reads of the
	 * records above happen before it can see the space as free and
	 * overwrite it.
	 */
	smp_store_release(&ring->consumer->consumer_pos, ring->cons);
}

size_t fxtprof_ring__pending(const struct fxtprof_ring *ring)
{
	/* (B) As in fxtprof_ring__peek(), though only a hint is returned. */
	__u64 avail = smp_load_acquire(&ring->ctrl->producer_pos) - ring->cons;

	return avail > ring->size ? ring->size : avail;
}

/*
 * The module's rules for an annotation (uapi: struct fxtprof_annotation),
 * checked again: a record is input, and the encoder puts the name in a
 * string table and the kind in an FXT event type.
 */
static bool annotation_ok(const struct fxtprof_annotation_rec *a,
			  __u32 size)
{
	bool keyed = a->kind == FXTPROF_ANNOT_SECTION_BEGIN ||
		     a->kind == FXTPROF_ANNOT_SECTION_END ||
		     a->kind == FXTPROF_ANNOT_KERNEL_BEGIN ||
		     a->kind == FXTPROF_ANNOT_KERNEL_END;

	if (!a->kind || a->kind >= FXTPROF_ANNOT_KIND_MAX || a->reserved)
		return false;
	if (!a->name_len || a->name_len > FXTPROF_ANNOTATION_NAME_MAX ||
	    a->name_len > size - sizeof(*a))
		return false;
	if (keyed != (a->key != 0))
		return false;
	return !memchr(a->name, '\0', a->name_len);
}

/* A sample's stack copy, in the @left bytes after its ips[]. */
static bool stack_copy_ok(const struct fxtprof_stack_copy *c, __u32 left)
{
	if (left < sizeof(*c) || c->size > FXTPROF_MAX_STACK_COPY)
		return false;
	left -= sizeof(*c);
	return c->nr_regs <= left / sizeof(c->regs[0]) &&
	       c->size <= left - c->nr_regs * sizeof(c->regs[0]);
}

/* Validate @rec and return its size, read exactly once, or 0. */
static __u32 rec_check(const struct fxtprof_rec_hdr *rec, size_t avail)
{
	__u32 size, min;

	if (avail < sizeof(*rec))
		return 0;
	size = READ_ONCE(rec->size);
	if (size < sizeof(*rec) || size % FXTPROF_REC_ALIGN || size > avail)
		return 0;
	/*
	 * Types beyond what this library knows are newer records of the same
	 * ABI version: the size alone lets the reader skip them.  Type 0 is
	 * what zeroed memory looks like, so it stays corrupt.
	 */
	if (rec->type >= FXTPROF_REC_MAX)
		return size;
	min = fxt_rec_min_size(rec->type);
	if (!min || size < min)
		return 0;

	switch (rec->type) {
	case FXTPROF_REC_SAMPLE: {
		const struct fxtprof_sample *s = (const void *)rec;
		__u32 nr = (__u32)s->nr_kernel + s->nr_user;

		if (s->nr_kernel > FXTPROF_MAX_STACK_DEPTH ||
		    s->nr_user > FXTPROF_MAX_STACK_DEPTH ||
		    nr > (size - sizeof(*s)) / sizeof(s->ips[0]))
			return 0;
		if ((s->flags & FXTPROF_SAMPLE_STACK_COPY) &&
		    !stack_copy_ok(fxtprof_sample__stack_copy(s),
				   size - sizeof(*s) - nr * sizeof(s->ips[0])))
			return 0;
		break;
	}
	case FXTPROF_REC_OFFCPU: {
		const struct fxtprof_sample *s = (const void *)rec;
		__u32 nr = (__u32)s->nr_kernel + s->nr_user;
		const struct fxtprof_offcpu *w;

		/* Exactly the stacks and the wait; no stack copy. */
		if (s->nr_kernel > FXTPROF_MAX_STACK_DEPTH ||
		    s->nr_user > FXTPROF_MAX_STACK_DEPTH ||
		    s->flags & FXTPROF_SAMPLE_STACK_COPY ||
		    size != sizeof(*s) + nr * sizeof(s->ips[0]) + sizeof(*w))
			return 0;
		w = fxtprof_sample__offcpu(s);
		if (!w->state || w->state >= FXTPROF_WAIT_MAX ||
		    w->start_ns > rec->time_ns)
			return 0;
		break;
	}
	case FXTPROF_REC_EXEC: {
		const struct fxtprof_exec *e = (const void *)rec;

		if (e->filename_len > FXTPROF_MAX_FILENAME ||
		    e->filename_len > size - sizeof(*e))
			return 0;
		break;
	}
	case FXTPROF_REC_SWITCH: {
		const struct fxtprof_switch *sw = (const void *)rec;

		/* The state goes into a 4-bit FXT field as it is. */
		if (sw->prev_state < FXTPROF_THREAD_RUNNING ||
		    sw->prev_state > FXTPROF_THREAD_DEAD)
			return 0;
		break;
	}
	case FXTPROF_REC_WAKEUP: {
		const struct fxtprof_wakeup *wk = (const void *)rec;

		/* FXT carries the CPU in 16 bits. */
		if (wk->target_cpu > 0xffff || wk->flags & ~FXTPROF_WAKEUP_NEW)
			return 0;
		break;
	}
	case FXTPROF_REC_TRIGGER: {
		const struct fxtprof_trigger_rec *t = (const void *)rec;

		if (!t->name_len || t->name_len > FXTPROF_TRIGGER_NAME_MAX ||
		    t->name_len > size - sizeof(*t))
			return 0;
		break;
	}
	case FXTPROF_REC_ANNOTATION:
		if (!annotation_ok((const void *)rec, size))
			return 0;
		break;
	}
	return size;
}

int fxtprof_rec__validate(const struct fxtprof_rec_hdr *rec, size_t avail)
{
	return rec_check(rec, avail) ? 0 : -EPROTO;
}

int fxtprof_ring__drain(struct fxtprof_ring *ring, fxtprof_rec_cb cb,
			void *ctx)
{
	const unsigned char *p;
	const void *data;
	size_t len, off = 0;
	int n = 0, err, ret = 0;

	err = fxtprof_ring__peek(ring, &data, &len);
	if (err)
		return err;
	p = data;
	while (off < len) {
		const struct fxtprof_rec_hdr *rec = (const void *)(p + off);
		__u32 size = rec_check(rec, len - off);

		if (!size || rec->cpu != ring->cpu) {
			ret = -EPROTO;
			break;
		}
		off += size;
		n++;
		/* Ours before the callback sees it: it may ask flush_done(). */
		if (rec->type == FXTPROF_REC_FLUSH)
			ring->flush_seq =
				((const struct fxtprof_flush_rec *)rec)->seq;
		err = cb(ctx, rec);
		if (err) {
			ret = err < 0 ? err : 0;
			break;
		}
	}
	/* One release per pass, not per record: the producer only needs
	 * to see the space before the ring fills, and the store is the
	 * cache line both sides fight over. */
	if (off)
		fxtprof_ring__consume(ring, off);
	return ret < 0 ? ret : n;
}
