// SPDX-License-Identifier: GPL-2.0-only
/*
 * tasks.c - task lifecycle records: fork, exec, exit, rename, and a
 * snapshot of every thread at start.
 *
 * The probes are registered by the first start with FXTPROF_CFG_TASKS or
 * FXTPROF_CFG_UNWIND set and stay until the module is unloaded
 * (probes.c); each records only while fxtprof_running() gives it a
 * session that asks for tasks.  Exec and exit also drop the process's
 * unwind ranges from a session that walks tables (unwind_table.c).
 */

#include <linux/binfmts.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>
#include <trace/events/task.h>

#include "compat.h"
#include "fxtprof_module.h"

/* Copy a comm that may change under us into a NUL-padded field. */
static void fxtprof_copy_comm(char *dst, const char *comm)
{
	strscpy_pad(dst, comm, FXTPROF_COMM_LEN);
}

/* Clone flags the child's shared resources reveal. */
static u64 fxtprof_clone_flags(struct task_struct *parent,
			       struct task_struct *child)
{
	u64 flags = 0;

	if (child->mm && child->mm == parent->mm)
		flags |= CLONE_VM;
	if (child->fs == parent->fs)
		flags |= CLONE_FS;
	if (child->files && child->files == parent->files)
		flags |= CLONE_FILES;
	if (child->sighand == parent->sighand)
		flags |= CLONE_SIGHAND;
	if (child->signal == parent->signal)
		flags |= CLONE_THREAD;
	return flags;
}

static void fxtprof_probe_fork(void *data, struct task_struct *parent,
			       struct task_struct *child)
{
	const u32 size = sizeof(struct fxtprof_fork);
	struct fxtprof_session *sess = fxtprof_running(FXTPROF_CFG_TASKS);
	struct fxtprof_rec_writer w;
	struct fxtprof_fork *rec;

	if (!sess)
		return;
	rec = fxtprof_rec_begin(sess, &w, size, FXTPROF_REC_FORK);
	if (rec) {
		rec->parent_pid = parent->tgid;
		rec->parent_tid = parent->pid;
		rec->child_pid = child->tgid;
		rec->child_tid = child->pid;
		rec->clone_flags = fxtprof_clone_flags(parent, child);
		fxtprof_copy_comm(rec->comm, child->comm);
	}
	fxtprof_rec_end(&w, rec);
}

FXTPROF_PROBE_CHECK(sched_process_fork, fxtprof_probe_fork);

static void fxtprof_probe_exec(void *data, struct task_struct *p,
			       pid_t old_pid, struct linux_binprm *bprm)
{
	size_t len = strnlen(bprm->filename, FXTPROF_MAX_FILENAME + 1);
	struct fxtprof_session *sess = fxtprof_running(FXTPROF_CFG_TASKS);
	struct fxtprof_rec_writer w;
	struct fxtprof_exec *rec;
	u16 flags = 0;
	u32 size;

	/* The new program's mappings are not the old one's. */
	fxtprof_unwind_forget(p->tgid);
	if (!sess)
		return;
	if (len > FXTPROF_MAX_FILENAME) {
		len = FXTPROF_MAX_FILENAME;
		flags |= FXTPROF_EXEC_FILENAME_TRUNCATED;
	}
	size = fxtprof_rec_size(sizeof(*rec) + len);

	rec = fxtprof_rec_begin(sess, &w, size, FXTPROF_REC_EXEC);
	if (rec) {
		rec->pid = p->tgid;
		rec->tid = p->pid;
		rec->old_tid = old_pid;
		rec->filename_len = len;
		rec->flags = flags;
		fxtprof_copy_comm(rec->comm, p->comm);
		memcpy(rec->filename, bprm->filename, len);
		memset(rec->filename + len, 0, size - sizeof(*rec) - len);
	}
	fxtprof_rec_end(&w, rec);
}

FXTPROF_PROBE_CHECK(sched_process_exec, fxtprof_probe_exec);

static void fxtprof_probe_exit(FXTPROF_EXIT_PROTO)
{
	const u32 size = sizeof(struct fxtprof_exit);
	struct fxtprof_session *sess = fxtprof_running(FXTPROF_CFG_TASKS);
	struct fxtprof_rec_writer w;
	struct fxtprof_exit *rec;

	if (fxtprof_exit_group_dead(p))
		fxtprof_unwind_forget(p->tgid);
	if (!sess)
		return;
	rec = fxtprof_rec_begin(sess, &w, size, FXTPROF_REC_EXIT);
	if (rec) {
		rec->pid = p->tgid;
		rec->tid = p->pid;
		rec->exit_code = p->exit_code;
		rec->flags = fxtprof_exit_group_dead(p) ?
			     FXTPROF_EXIT_GROUP_DEAD : 0;
		fxtprof_copy_comm(rec->comm, p->comm);
	}
	fxtprof_rec_end(&w, rec);
}

FXTPROF_PROBE_CHECK(sched_process_exit, fxtprof_probe_exit);

/* Called under task_lock(task): must not take it again. */
static void fxtprof_probe_rename(void *data, struct task_struct *task,
				 const char *comm)
{
	const u32 size = sizeof(struct fxtprof_rename);
	struct fxtprof_session *sess = fxtprof_running(FXTPROF_CFG_TASKS);
	struct fxtprof_rec_writer w;
	struct fxtprof_rename *rec;

	if (!sess)
		return;
	rec = fxtprof_rec_begin(sess, &w, size, FXTPROF_REC_RENAME);
	if (rec) {
		rec->pid = task->tgid;
		rec->tid = task->pid;
		fxtprof_copy_comm(rec->old_comm, task->comm);
		fxtprof_copy_comm(rec->comm, comm);
	}
	fxtprof_rec_end(&w, rec);
}

FXTPROF_PROBE_CHECK(task_rename, fxtprof_probe_rename);

static struct fxtprof_probe fxtprof_task_probes[] = {
	{ "sched_process_fork", fxtprof_probe_fork },
	{ "sched_process_exec", fxtprof_probe_exec },
	{ "sched_process_exit", fxtprof_probe_exit },
	{ "task_rename", fxtprof_probe_rename },
};

static struct fxtprof_probe_set fxtprof_task_set = {
	.source = "task.lifecycle",
	.probes = fxtprof_task_probes,
	.nr = ARRAY_SIZE(fxtprof_task_probes),
};

/* Unlike sched.switch, the module is of no use without these. */
int fxtprof_tasks_init(void)
{
	return fxtprof_probes_find(&fxtprof_task_set);
}

/* The probes record once start publishes the session. */
int fxtprof_tasks_start(void)
{
	return fxtprof_probes_register(&fxtprof_task_set);
}

void fxtprof_tasks_exit(void)
{
	fxtprof_probes_unregister(&fxtprof_task_set);
}

/*
 * One record per existing thread.  Called after the session is published
 * to the probes, so a thread created meanwhile has a fork record, a
 * snapshot record or both; none is missed.
 */
void fxtprof_tasks_snapshot(struct fxtprof_session *sess)
{
	const u32 size = sizeof(struct fxtprof_snapshot);
	struct task_struct *g, *t;
	struct fxtprof_snapshot *rec;
	struct fxtprof_rec_writer w;

	rcu_read_lock();
	for_each_process_thread(g, t) {
		rec = fxtprof_rec_begin(sess, &w, size, FXTPROF_REC_SNAPSHOT);
		if (rec) {
			rec->pid = t->tgid;
			rec->tid = t->pid;
			rec->ppid = task_tgid_nr(rcu_dereference(t->real_parent));
			rec->flags = (t->flags & PF_KTHREAD) ?
				     FXTPROF_SNAPSHOT_KTHREAD : 0;
			fxtprof_copy_comm(rec->comm, t->comm);
			fxtprof_copy_comm(rec->process_comm,
					  t->group_leader->comm);
		}
		fxtprof_rec_end(&w, rec);
	}
	rcu_read_unlock();
}
