// SPDX-License-Identifier: GPL-2.0-only
/*
 * annotate.c - /dev/fxtprof-annotate, where processes other than the
 * reader fire triggers (FXTPROF_IOC_TRIGGER) and write annotations
 * (write(2) of a struct fxtprof_annotation, ABI 4) into the running
 * session.
 *
 * The device is separate from /dev/fxtprof so that annotating needs no
 * access to the rings: nothing here reads trace data or configures, and
 * who may open it is set by its node's owner and mode alone.  By default the node is root:root 0600; the group module
 * parameter makes it root:GROUP 0660, so that members of that group may
 * trigger (Documentation/security.md).  A plain char device is used rather
 * than a misc device because only a device_type's devnode() can give the
 * devtmpfs node a group.
 *
 * Both find the running session with fxtprof_running(), under
 * rcu_read_lock(): a trigger either sees a running session whose rings
 * stay allocated until it is done, or none.
 */

#include <linux/cdev.h>
#include <linux/ctype.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/uidgid.h>

#include "compat.h"
#include "fxtprof_module.h"

static int group = -1;
module_param(group, int, 0444);
MODULE_PARM_DESC(group,
		 "Group allowed to annotate and fire triggers through " FXTPROF_ANNOTATE_DEVICE
		 " (node mode 0660); -1, the default: root only (0600)");

/* 1 .. FXTPROF_TRIGGER_NAME_MAX of [A-Za-z0-9._-], then only NULs. */
static int fxtprof_trigger_name_len(const char *name)
{
	int len = strnlen(name, FXTPROF_TRIGGER_NAME_MAX + 1), i;

	if (!len || len > FXTPROF_TRIGGER_NAME_MAX)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		char c = name[i];

		if (!isalnum(c) && c != '.' && c != '_' && c != '-')
			return -EINVAL;
	}
	for (i = len; i <= FXTPROF_TRIGGER_NAME_MAX; i++)
		if (name[i])
			return -EINVAL;
	return len;
}

/*
 * The record goes into the calling CPU's ring with interrupts off, the
 * producer rule every record follows (kmod/kring.h).  The ring is marked
 * for draining and the reader woken whatever the watermark: a trigger is
 * worth the wakeup.
 */
static int fxtprof_fire(const char *name, int len)
{
	const u32 size = fxtprof_rec_size(sizeof(struct fxtprof_trigger_rec) + len);
	struct fxtprof_trigger_rec *rec;
	struct fxtprof_session *sess;
	struct fxtprof_kring *ring;
	unsigned long irqflags;

	rcu_read_lock();
	sess = fxtprof_running(0);	/* triggers take no source bit */
	if (!sess) {
		rcu_read_unlock();
		return -ESRCH;
	}
	local_irq_save(irqflags);
	ring = fxtprof_ring(sess, smp_processor_id());
	rec = fxtprof_kring_reserve(ring, size, FXTPROF_REC_TRIGGER,
				    ktime_get_boot_fast_ns());
	if (rec) {
		rec->pid = current->tgid;
		rec->tid = current->pid;
		rec->name_len = len;
		rec->reserved = 0;
		rec->reserved2 = 0;
		memset(rec->name, 0, size - sizeof(*rec));
		memcpy(rec->name, name, len);
		fxtprof_kring_commit(ring, size);
	}
	fxtprof_kring_mark_drain(ring);
	local_irq_restore(irqflags);
	wake_up_interruptible_poll(&sess->wq, EPOLLIN | EPOLLRDNORM);
	rcu_read_unlock();
	/* A full ring counted it as lost, as any record: not our error. */
	return 0;
}

/*
 * Annotations of up to this many bytes are copied to the stack, longer
 * ones (names up to FXTPROF_ANNOTATION_NAME_MAX) to a kmalloc() buffer:
 * most names are short, and a 536-byte frame is more than a syscall
 * should take.
 */
#define FXTPROF_ANNOT_STACK_BYTES	128
#define FXTPROF_ANNOT_MAX_BYTES		(sizeof(struct fxtprof_annotation) + \
					 FXTPROF_ANNOTATION_NAME_MAX)

static bool fxtprof_annot_keyed(u16 kind)
{
	return kind == FXTPROF_ANNOT_SECTION_BEGIN ||
	       kind == FXTPROF_ANNOT_SECTION_END ||
	       kind == FXTPROF_ANNOT_KERNEL_BEGIN ||
	       kind == FXTPROF_ANNOT_KERNEL_END;
}

/* The rules of the uapi comment on struct fxtprof_annotation. */
static int fxtprof_annot_check(const struct fxtprof_annotation *a,
			       size_t count)
{
	if (a->size != count ||
	    a->size != offsetof(struct fxtprof_annotation, name) + a->name_len)
		return -EINVAL;
	if (!a->kind || a->kind >= FXTPROF_ANNOT_KIND_MAX)
		return -EINVAL;
	if (a->flags || a->reserved)
		return -EINVAL;
	if (!a->name_len || a->name_len > FXTPROF_ANNOTATION_NAME_MAX)
		return -EINVAL;
	if (memchr(a->name, '\0', a->name_len))
		return -EINVAL;
	if (fxtprof_annot_keyed(a->kind) != (a->key != 0))
		return -EINVAL;
	return 0;
}

/*
 * As fxtprof_fire(), but no drain mark and no wakeup: annotations come
 * at application rates, and the watermark's wakeup suffices.
 */
static int fxtprof_annot_emit(const struct fxtprof_annotation *a)
{
	const u32 size = fxtprof_rec_size(sizeof(struct fxtprof_annotation_rec) +
					  a->name_len);
	struct fxtprof_annotation_rec *rec;
	struct fxtprof_session *sess;
	struct fxtprof_rec_writer w;

	rcu_read_lock();
	sess = fxtprof_running(FXTPROF_CFG_ANNOTATE);
	if (!sess) {
		rcu_read_unlock();
		return -ESRCH;
	}
	rec = fxtprof_rec_begin(sess, &w, size, FXTPROF_REC_ANNOTATION);
	if (rec) {
		rec->pid = current->tgid;
		rec->tid = current->pid;
		rec->kind = a->kind;
		rec->name_len = a->name_len;
		rec->reserved = 0;
		rec->key = a->key;
		memset(rec->name, 0, size - sizeof(*rec));
		memcpy(rec->name, a->name, a->name_len);
	}
	fxtprof_rec_end(&w, rec);
	rcu_read_unlock();
	/* A full ring counted it as lost, as any record: not our error. */
	return 0;
}

/*
 * One annotation per write, copied whole before interrupts go off:
 * copy_from_user() may fault and sleep.  Invalid fields are -EINVAL
 * whether or not a session runs; then -ESRCH without one, or when the
 * running one did not enable app.annotations (FXTPROF_CFG_ANNOTATE).
 */
static ssize_t fxtprof_annotate_write(struct file *file,
				      const char __user *ubuf, size_t count,
				      loff_t *ppos)
{
	union {
		struct fxtprof_annotation a;
		u8 bytes[FXTPROF_ANNOT_STACK_BYTES];
	} stack;
	struct fxtprof_annotation *a = &stack.a;
	int ret;

	if (count < sizeof(*a) || count > FXTPROF_ANNOT_MAX_BYTES)
		return -EINVAL;
	if (count > sizeof(stack)) {
		a = kmalloc(count, GFP_KERNEL);
		if (!a)
			return -ENOMEM;
	}
	ret = -EFAULT;
	if (copy_from_user(a, ubuf, count))
		goto out_free;
	ret = fxtprof_annot_check(a, count);
	if (!ret)
		ret = fxtprof_annot_emit(a);
out_free:
	if (a != &stack.a)
		kfree(a);
	return ret ? ret : count;
}

static long fxtprof_annotate_ioctl(struct file *file, unsigned int cmd,
				   unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	struct fxtprof_trigger trig;
	u32 usize;
	int ret, len;

	if ((cmd & ~IOCSIZE_MASK) != (FXTPROF_IOC_TRIGGER & ~IOCSIZE_MASK))
		return -ENOTTY;
	/* The size rules of every fxtprof ioctl structure (kmod/main.c). */
	if (get_user(usize, (u32 __user *)uarg))
		return -EFAULT;
	if (usize < FXTPROF_TRIGGER_SIZE_VER0 || usize > PAGE_SIZE)
		return -EINVAL;
	ret = copy_struct_from_user(&trig, sizeof(trig), uarg, usize);
	if (ret)
		return ret == -E2BIG ? -EINVAL : ret;
	if (trig.flags)
		return -EINVAL;
	len = fxtprof_trigger_name_len(trig.name);
	if (len < 0)
		return len;
	return fxtprof_fire(trig.name, len);
}

static const struct file_operations fxtprof_annotate_fops = {
	.owner = THIS_MODULE,
	.open = nonseekable_open,
	.write = fxtprof_annotate_write,
	.unlocked_ioctl = fxtprof_annotate_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static char *fxtprof_annotate_devnode(FXTPROF_DEVNODE_CONST struct device *dev,
				      umode_t *mode, kuid_t *uid, kgid_t *gid)
{
	if (mode)
		*mode = group >= 0 ? 0660 : 0600;
	if (gid && group >= 0)
		*gid = make_kgid(&init_user_ns, group);
	return NULL;
}

static const struct device_type fxtprof_annotate_type = {
	.name = "fxtprof-annotate",
	.devnode = fxtprof_annotate_devnode,
};

static struct class fxtprof_annotate_class = {
	.name = "fxtprof",
};

static struct cdev fxtprof_annotate_cdev;
static struct device *fxtprof_annotate_dev;
static dev_t fxtprof_annotate_devt;

static void fxtprof_annotate_release(struct device *dev)
{
	kfree(dev);
}

int fxtprof_annotate_init(void)
{
	struct device *dev;
	int ret;

	if (group < -1 || (group >= 0 &&
			    !gid_valid(make_kgid(&init_user_ns, group))))
		return -EINVAL;
	ret = alloc_chrdev_region(&fxtprof_annotate_devt, 0, 1,
				  "fxtprof-annotate");
	if (ret)
		return ret;
	ret = class_register(&fxtprof_annotate_class);
	if (ret)
		goto out_unregister_region;
	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev) {
		ret = -ENOMEM;
		goto out_unregister_class;
	}
	device_initialize(dev);
	dev->devt = fxtprof_annotate_devt;
	dev->class = &fxtprof_annotate_class;
	dev->type = &fxtprof_annotate_type;
	dev->release = fxtprof_annotate_release;
	ret = dev_set_name(dev, "fxtprof-annotate");
	if (ret)
		goto out_put_device;
	cdev_init(&fxtprof_annotate_cdev, &fxtprof_annotate_fops);
	fxtprof_annotate_cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&fxtprof_annotate_cdev, dev);
	if (ret)
		goto out_put_device;
	fxtprof_annotate_dev = dev;
	return 0;

out_put_device:
	put_device(dev);
out_unregister_class:
	class_unregister(&fxtprof_annotate_class);
out_unregister_region:
	unregister_chrdev_region(fxtprof_annotate_devt, 1);
	return ret;
}

void fxtprof_annotate_exit(void)
{
	cdev_device_del(&fxtprof_annotate_cdev, fxtprof_annotate_dev);
	put_device(fxtprof_annotate_dev);
	class_unregister(&fxtprof_annotate_class);
	unregister_chrdev_region(fxtprof_annotate_devt, 1);
}
