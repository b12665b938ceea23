// SPDX-License-Identifier: GPL-2.0-only
/*
 * unwind_table.c - a session's unwind tables and the ranges of each
 * process that run them: FXTPROF_IOC_UNWIND_LOAD and _MAP, and what the
 * sampler's walk (kmod/unwind_walk.c) reads of them.
 *
 * Tables are copied in, checked (kmod/unwind_rows.c), keyed by build id
 * and given the lowest free id from 1; they never change, and live until
 * UNWIND_UNLOAD drops one that no range runs, or until the store goes,
 * which configure creates and the next configure or the session's
 * release frees.
 *
 * Each process (tgid) with ranges has one struct fxtprof_unwind_proc in a
 * hash: a sorted array of ranges that is never changed once published.  A
 * change builds a new array, publishes it in place of the old one and
 * frees the old one after a grace period, so the walk, in hard irq with
 * interrupts off, reads the ranges under rcu_read_lock() alone.
 *
 * Locking: the ioctls run under sess->lock, which orders them and guards
 * the table array (a slot of an unloaded table is NULL).  The hash and
 * the memory count are also changed by the exec and exit probes
 * (fxtprof_unwind_forget()), which may not sleep: those take store->lock,
 * a spinlock, which the ioctls take too for the moment of the change.
 * The walk takes neither.
 */

#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#include "fxtprof_module.h"
#include "unwind.h"

struct fxtprof_unwind_proc {
	struct hlist_node node;		/* in store->procs */
	struct rcu_head rcu;
	pid_t tgid;
	u32 nr;
	size_t bytes;			/* allocated, and counted */
	struct fxtprof_unwind_range ranges[];
};

#define FXTPROF_UNWIND_HASH_BITS	8

struct fxtprof_unwind_store {
	spinlock_t lock;		/* procs and used */
	DECLARE_HASHTABLE(procs, FXTPROF_UNWIND_HASH_BITS);
	u64 used;			/* bytes of tables and ranges */
	u64 limit;			/* the session's unwind_memory */
	/* Under sess->lock: tabs[id - 1] is table id. */
	struct fxtprof_unwind_tab **tabs;
	u32 nr_tabs;
	u32 max_tabs;
};

struct fxtprof_unwind_store *fxtprof_unwind_store_new(u64 limit)
{
	struct fxtprof_unwind_store *store;

	store = kzalloc(sizeof(*store), GFP_KERNEL);
	if (!store)
		return NULL;
	spin_lock_init(&store->lock);
	hash_init(store->procs);
	store->limit = limit;
	return store;
}

/*
 * Frees every table and range at once, without a grace period, because no
 * walk or probe can be reading them: the caller is configure, which a
 * running session refuses, or the release of the session after its stop.
 * Stop is what guarantees it (kmod/session.c): it withdrew the session
 * from the probes and waited with synchronize_rcu() for any probe that saw
 * it, and it cancelled the sampling timers, hrtimer_cancel() waiting for
 * a handler, and so a walk, still running.  Arrays replaced earlier may
 * still wait for their kvfree_rcu(): they only point into the tables, and
 * are freed without being read.
 */
void fxtprof_unwind_store_free(struct fxtprof_unwind_store *store)
{
	struct fxtprof_unwind_proc *proc;
	struct hlist_node *tmp;
	unsigned int bkt;
	u32 i;

	if (!store)
		return;
	hash_for_each_safe(store->procs, bkt, tmp, proc, node)
		kvfree(proc);
	for (i = 0; i < store->nr_tabs; i++)
		kvfree(store->tabs[i]);	/* NULL once unloaded */
	kfree(store->tabs);
	kfree(store);
}

/* The store of @sess if it takes tables now (under sess->lock). */
static int fxtprof_unwind_store_get(struct fxtprof_session *sess,
				    struct fxtprof_unwind_store **store)
{
	lockdep_assert_held(&sess->lock);
	if (sess->detached)
		return -ESHUTDOWN;
	if (!sess->configured || !sess->unwind)
		return -EBUSY;
	*store = sess->unwind;
	return 0;
}

/* Count @bytes against the limit: -ENOSPC if they do not fit. */
static int fxtprof_unwind_charge(struct fxtprof_unwind_store *store,
				 u64 bytes)
{
	int ret = -ENOSPC;

	spin_lock(&store->lock);
	if (bytes <= store->limit - store->used) {
		store->used += bytes;
		ret = 0;
	}
	spin_unlock(&store->lock);
	return ret;
}

static struct fxtprof_unwind_tab *
fxtprof_unwind_tab_find(struct fxtprof_unwind_store *store,
			const struct fxtprof_unwind_table *t)
{
	struct fxtprof_unwind_tab *tab;
	u32 i;

	for (i = 0; i < store->nr_tabs; i++) {
		tab = store->tabs[i];
		if (tab && tab->build_id_size == t->build_id_size &&
		    !memcmp(tab->build_id, t->build_id, t->build_id_size))
			return tab;
	}
	return NULL;
}

/*
 * Under sess->lock: -EEXIST (with @t->id) if the build id has a table,
 * -ENOSPC if @bytes more do not fit.  Before the copy, so that a table
 * that cannot be kept is not copied, and again when adding it.
 */
static int fxtprof_unwind_tab_room(struct fxtprof_unwind_store *store,
				   struct fxtprof_unwind_table *t, u64 bytes)
{
	struct fxtprof_unwind_tab *tab = fxtprof_unwind_tab_find(store, t);

	if (tab) {
		t->id = tab->id;
		return -EEXIST;
	}
	if (bytes > store->limit - READ_ONCE(store->used))
		return -ENOSPC;
	return 0;
}

static int fxtprof_unwind_tab_add(struct fxtprof_unwind_store *store,
				  struct fxtprof_unwind_tab *tab, u64 bytes)
{
	struct fxtprof_unwind_tab **tabs;
	u32 max, i;
	int ret;

	/* The lowest id an unload freed, if any. */
	for (i = 0; i < store->nr_tabs; i++) {
		if (!store->tabs[i]) {
			ret = fxtprof_unwind_charge(store, bytes);
			if (ret)
				return ret;
			tab->id = i + 1;
			store->tabs[i] = tab;
			return 0;
		}
	}
	if (store->nr_tabs == store->max_tabs) {
		max = store->max_tabs ? 2 * store->max_tabs : 16;
		tabs = krealloc_array(store->tabs, max, sizeof(*tabs),
				      GFP_KERNEL);
		if (!tabs)
			return -ENOMEM;
		store->tabs = tabs;
		store->max_tabs = max;
	}
	ret = fxtprof_unwind_charge(store, bytes);
	if (ret)
		return ret;
	tab->id = store->nr_tabs + 1;
	store->tabs[store->nr_tabs++] = tab;
	return 0;
}

static bool fxtprof_unwind_table_ok(const struct fxtprof_unwind_table *t)
{
	return !t->flags && !t->reserved[0] && !t->reserved[1] &&
	       !t->reserved[2] && !t->reserved2 && t->build_id_size &&
	       t->build_id_size <= FXTPROF_BUILD_ID_MAX &&
	       t->nr_rows && t->nr_rows <= FXTPROF_UNWIND_MAX_ROWS;
}

/*
 * FXTPROF_IOC_UNWIND_LOAD.  The rows are copied and checked outside
 * sess->lock, which is never held across a user copy (kmod/main.c).
 */
int fxtprof_unwind_load(struct fxtprof_session *sess,
			struct fxtprof_unwind_table *t)
{
	struct fxtprof_unwind_store *store;
	struct fxtprof_unwind_tab *tab;
	size_t bytes;
	int ret;

	if (!fxtprof_unwind_table_ok(t))
		return -EINVAL;
	bytes = struct_size(tab, rows, t->nr_rows);

	mutex_lock(&sess->lock);
	ret = fxtprof_unwind_store_get(sess, &store);
	if (!ret)
		ret = fxtprof_unwind_tab_room(store, t, bytes);
	mutex_unlock(&sess->lock);
	if (ret)
		return ret;

	tab = kvmalloc(bytes, GFP_KERNEL_ACCOUNT);
	if (!tab)
		return -ENOMEM;
	if (copy_from_user(tab->rows, u64_to_user_ptr(t->rows_ptr),
			   array_size(t->nr_rows, sizeof(tab->rows[0])))) {
		ret = -EFAULT;
		goto out_free_tab;
	}
	ret = fxtprof_unwind_rows__check(tab->rows, t->nr_rows, t->pc_end);
	if (ret)
		goto out_free_tab;
	tab->nr_rows = t->nr_rows;
	tab->pc_end = t->pc_end;
	tab->build_id_size = t->build_id_size;
	memcpy(tab->build_id, t->build_id, sizeof(tab->build_id));

	/* Configure may have come in between: look again. */
	mutex_lock(&sess->lock);
	ret = fxtprof_unwind_store_get(sess, &store);
	if (!ret)
		ret = fxtprof_unwind_tab_room(store, t, bytes);
	if (!ret)
		ret = fxtprof_unwind_tab_add(store, tab, bytes);
	mutex_unlock(&sess->lock);
	if (ret)
		goto out_free_tab;
	t->id = tab->id;
	return 0;

out_free_tab:
	kvfree(tab);
	return ret;
}

/* Under store->lock (or with no reader and no writer left). */
static struct fxtprof_unwind_proc *
fxtprof_unwind_proc_locked(struct fxtprof_unwind_store *store, pid_t tgid)
{
	struct fxtprof_unwind_proc *proc;

	hash_for_each_possible(store->procs, proc, node, tgid)
		if (proc->tgid == tgid)
			return proc;
	return NULL;
}

/*
 * Into @dst: the @nr sorted ranges of @src without [start, end), and @add
 * (if not NULL, and which is [start, end)) in its place.  A range that
 * straddles an edge keeps its part outside, at the same bias, so @dst
 * holds at most nr + 2 ranges.  Returns how many.
 */
static u32 fxtprof_unwind_ranges_put(struct fxtprof_unwind_range *dst,
				     const struct fxtprof_unwind_range *src,
				     u32 nr, u64 start, u64 end,
				     const struct fxtprof_unwind_range *add)
{
	bool added = !add;
	u32 i, n = 0;

	for (i = 0; i < nr; i++) {
		if (src[i].end <= start) {
			dst[n++] = src[i];
			continue;
		}
		if (src[i].start < start) {
			dst[n] = src[i];
			dst[n++].end = start;
		}
		if (!added) {
			dst[n++] = *add;
			added = true;
		}
		if (src[i].end > end) {
			dst[n] = src[i];
			dst[n].start = max(src[i].start, end);
			n++;
		}
	}
	if (!added)
		dst[n++] = *add;
	return n;
}

/*
 * Replace @tgid's ranges by a copy with @m applied: publish, then free
 * the old array after a grace period.  Only this function adds ranges,
 * and its callers are ordered by sess->lock; the probes may meanwhile
 * remove the process, which leaves fewer ranges than allocated for.
 */
static int fxtprof_unwind_proc_map(struct fxtprof_unwind_store *store,
				   const struct fxtprof_unwind_map *m,
				   const struct fxtprof_unwind_range *add)
{
	struct fxtprof_unwind_proc *old, *new;
	size_t bytes;
	u32 nr;
	int ret = 0;

	spin_lock(&store->lock);
	old = fxtprof_unwind_proc_locked(store, m->pid);
	nr = old ? old->nr : 0;
	spin_unlock(&store->lock);
	if (!nr && !add)
		return 0;
	bytes = struct_size(new, ranges, (size_t)nr + 2);
	new = kvmalloc(bytes, GFP_KERNEL_ACCOUNT);
	if (!new)
		return -ENOMEM;
	new->tgid = m->pid;
	new->bytes = bytes;

	spin_lock(&store->lock);
	old = fxtprof_unwind_proc_locked(store, m->pid);
	new->nr = fxtprof_unwind_ranges_put(new->ranges,
					    old ? old->ranges : NULL,
					    old ? old->nr : 0,
					    m->start, m->end, add);
	if (!new->nr) {
		if (old) {
			hash_del_rcu(&old->node);
			store->used -= old->bytes;
		}
	} else if (new->bytes > store->limit - store->used +
				(old ? old->bytes : 0)) {
		ret = -ENOSPC;
		old = NULL;
	} else {
		/*
		 * The new array is complete before it is published:
		 * hlist_replace_rcu() and hash_add_rcu() order its stores
		 * before the pointer's (rcu_assign_pointer()), and pair with
		 * the rcu_dereference() of hash_for_each_possible_rcu() in
		 * fxtprof_unwind_ranges().
		 */
		store->used += new->bytes;
		if (old) {
			store->used -= old->bytes;
			hlist_replace_rcu(&old->node, &new->node);
		} else {
			hash_add_rcu(store->procs, &new->node, new->tgid);
		}
		new = NULL;
	}
	spin_unlock(&store->lock);
	/* A walk may still be in the old array: free it after the grace period. */
	if (old)
		kvfree_rcu(old, rcu);
	kvfree(new);
	return ret;
}

/* FXTPROF_IOC_UNWIND_MAP */
int fxtprof_unwind_map(struct fxtprof_session *sess,
		       const struct fxtprof_unwind_map *m)
{
	struct fxtprof_unwind_range add, *addp = NULL;
	struct fxtprof_unwind_store *store;
	int ret;

	if (m->reserved || m->start >= m->end)
		return -EINVAL;
	mutex_lock(&sess->lock);
	ret = fxtprof_unwind_store_get(sess, &store);
	if (ret)
		goto out_unlock;
	if (m->id) {
		ret = -EINVAL;
		if (m->id > store->nr_tabs || !store->tabs[m->id - 1])
			goto out_unlock;
		add.start = m->start;
		add.end = m->end;
		add.bias = m->bias;
		add.tab = store->tabs[m->id - 1];
		addp = &add;
	}
	ret = fxtprof_unwind_proc_map(store, m, addp);
out_unlock:
	mutex_unlock(&sess->lock);
	return ret;
}

/* Whether a range of some process runs @tab (under store->lock). */
static bool fxtprof_unwind_tab_used(struct fxtprof_unwind_store *store,
				    const struct fxtprof_unwind_tab *tab)
{
	struct fxtprof_unwind_proc *proc;
	unsigned int bkt;
	u32 i;

	hash_for_each(store->procs, bkt, proc, node)
		for (i = 0; i < proc->nr; i++)
			if (proc->ranges[i].tab == tab)
				return true;
	return false;
}

/*
 * FXTPROF_IOC_UNWIND_UNLOAD.  The table leaves the array and the count
 * under the locks; it is freed after a grace period, outside them.
 */
int fxtprof_unwind_unload(struct fxtprof_session *sess,
			  const struct fxtprof_unwind_unload *u)
{
	struct fxtprof_unwind_store *store;
	struct fxtprof_unwind_tab *tab = NULL;
	int ret;

	if (!u->id || u->reserved)
		return -EINVAL;
	mutex_lock(&sess->lock);
	ret = fxtprof_unwind_store_get(sess, &store);
	if (ret)
		goto out_unlock;
	ret = -ENOENT;
	if (u->id > store->nr_tabs || !store->tabs[u->id - 1])
		goto out_unlock;
	tab = store->tabs[u->id - 1];
	/*
	 * Ranges are added only under sess->lock, which we hold: once none
	 * runs the table, none will.  The probes only remove.
	 */
	spin_lock(&store->lock);
	if (fxtprof_unwind_tab_used(store, tab)) {
		ret = -ENOTEMPTY;
		tab = NULL;
	} else {
		store->used -= struct_size(tab, rows, tab->nr_rows);
		store->tabs[u->id - 1] = NULL;
		ret = 0;
	}
	spin_unlock(&store->lock);
out_unlock:
	mutex_unlock(&sess->lock);
	if (!tab)
		return ret;
	/*
	 * A walk may still read the table through a range array that the
	 * map which removed its last range replaced: that walk began its
	 * rcu_read_lock() section before the replacement, which
	 * synchronize_rcu() waits for.  No later walk can find the table.
	 */
	synchronize_rcu();
	kvfree(tab);
	return 0;
}

/*
 * From the exec and exit probes (kmod/tasks.c): a process that runs
 * another program, or none, has none of its ranges left.  Probes run
 * while the session is published; its store is then fixed (configure
 * refuses a running session), and stop's synchronize_rcu() waits for us.
 */
void fxtprof_unwind_forget(pid_t tgid)
{
	struct fxtprof_session *sess = fxtprof_running(FXTPROF_CFG_UNWIND);
	struct fxtprof_unwind_store *store;
	struct fxtprof_unwind_proc *proc;

	if (!sess)
		return;
	store = sess->unwind;
	spin_lock(&store->lock);
	proc = fxtprof_unwind_proc_locked(store, tgid);
	if (proc) {
		hash_del_rcu(&proc->node);
		store->used -= proc->bytes;
	}
	spin_unlock(&store->lock);
	/* Pairs with the walk's rcu_read_lock(): it may be in the array. */
	if (proc)
		kvfree_rcu(proc, rcu);
}

/*
 * The ranges of @tgid, for the walk: the caller holds rcu_read_lock()
 * until it is done with them.  The rcu_dereference() in the iteration
 * pairs with the publication in fxtprof_unwind_proc_map().
 */
unsigned int fxtprof_unwind_ranges(struct fxtprof_unwind_store *store,
				   pid_t tgid,
				   const struct fxtprof_unwind_range **ranges)
{
	struct fxtprof_unwind_proc *proc;

	hash_for_each_possible_rcu(store->procs, proc, node, tgid) {
		if (proc->tgid == tgid) {
			*ranges = proc->ranges;
			return proc->nr;
		}
	}
	*ranges = NULL;
	return 0;
}
