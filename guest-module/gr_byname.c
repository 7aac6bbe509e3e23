// SPDX-License-Identifier: GPL-2.0
/*
 * gr_byname.c - the host's requests for events by name (spec 18,
 * GR_F_ANYEVENT)
 *
 * The control pass (gr_pass.c, a work item under gr_dev.pass_lock)
 * calls gr_byname_pass() after the settings while the host has the
 * feature in use: a new req.seq (acquire) has its strip copied once,
 * checked, done, and answered, ans.seq stored last with release (N2).
 *
 * The guest's events: the kernel exports no list of its trace events
 * (spec/drafts/anyevent.md), but tracefs shows it, in its own order, as
 * available_events, and each event's fields as events/SYS/NAME/format
 * (system calls and kprobes included, whose fields are defined by code
 * and absent from trace_event_class.fields_array). Both are read from
 * files opened with file_open_root() relative to the tracefs root (see
 * gr_byname_read() for how): the one mounted at /sys/kernel/tracing if it is tracefs'
 * root (kern_path(), no side effect), else a kernel mount of tracefs
 * (get_fs_type() + kern_mount(): tracefs is a single superblock, so this
 * is the same tree; as for debugfs' automount of tracing, the kernel
 * applies the default mount options to it again, which on kernels
 * without the fix of 6.7 resets the tree root's mode to 0700). Each
 * event a pattern names is then found with trace_get_event_file() and
 * laid out by gr_anyevent.c (gr_anyevent_add_named()).
 *
 * ADD (N3, N4): per event of available_events that a pattern names,
 * once: "K sys:name id" if the table or an earlier addition publishes it,
 * "A sys:name id" once its descriptor is written in slot desc_live and
 * status.desc_live covers it (release), "R sys:name errno" if it cannot
 * be; then "N pattern 2" per pattern that named none. LIST: the whole
 * listing is built on a request for offset 0 (each event's state from
 * gr_anyevent_published() or a dry run, its fields from its format file)
 * and kept for the following pages until the next offset 0 or unload.
 *
 * PROBE and UNPROBE (spec 18.4, GR_F_PROBE): the head of a definition
 * is checked (gr_probe_parse()), the kprobe event created in group
 * guestrelay through the kernel's dynamic-event API (kprobe_event_cmd_init()
 * and dynevent_create(), the parser of tracefs kprobe_events), its
 * refusal answered with the last error_log entry for the command, the
 * event added from its tracefs format as ADD adds; UNPROBE stops
 * recording it (gr_anyevent_probe_stop()) before kprobe_event_delete().
 * The module's probes are deleted before a publication and at unload
 * (gr_probe_delete_all()), never another kprobe event.
 *
 * byname=0 refuses every request (EPERM): the guest administrator's
 * switch; hostprobe=0 refuses PROBE and UNPROBE (EPERM).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/trace_events.h>
#include <linux/uio.h>

#include "gr_anyevent.h"
#include "gr_dev.h"
#include "gr_name_text.h"

static bool byname = true;
module_param(byname, bool, 0644);
MODULE_PARM_DESC(byname, "Answer the host's requests for events by name (spec 18); 0: refuse them (EPERM)");

static bool hostprobe = true;
module_param(hostprobe, bool, 0644);
MODULE_PARM_DESC(hostprobe, "Create the kprobe events the host defines (spec 18.4); 0: refuse PROBE and UNPROBE (EPERM)");

/* N5: the largest available_events read, the largest listing kept */
#define GR_BYNAME_EVENTS_MAX	BIT(20)
#define GR_BYNAME_LIST_MAX	(16U << 20)
#define GR_BYNAME_FORMAT_MAX	(64U << 10)
#define GR_BYNAME_LINE_MAX	160

/* The listing of the last LIST at offset 0, for its pages; pass_lock */
static char *gr_byname_list;
static u32 gr_byname_list_len;
static u32 gr_byname_list_room;
static u32 gr_byname_list_matched;

/**
 * struct gr_byname_req - one request being answered, private memory
 * @req: the strip as read once
 * @offset: @req's offset
 * @ans: the answer, copied into the region at the end
 * @pats: the request's patterns
 * @npats: their number
 * @root: the tracefs tree
 * @own: our kernel mount of tracefs, NULL if @root is a mounted one
 * @events: available_events
 * @events_len: its bytes
 * @desc: the descriptor of an event being added
 * @gd: the device
 */
struct gr_byname_req {
	struct gr_name_req req;
	u32 offset;
	struct gr_name_ans ans;
	struct gr_name_pat pats[GR_NAME_PATS_MAX];
	unsigned int npats;
	struct path root;
	struct vfsmount *own;
	char *events;
	u32 events_len;
	struct gr_event_desc_long desc;
	struct gr_dev *gd;
};

/* ---- tracefs ---------------------------------------------------------- */

static int gr_byname_tracefs(struct gr_byname_req *r)
{
	struct file_system_type *fs;
	struct vfsmount *mnt;

	r->own = NULL;
	if (!kern_path("/sys/kernel/tracing", LOOKUP_FOLLOW, &r->root)) {
		if (r->root.mnt->mnt_sb->s_magic == TRACEFS_MAGIC &&
		    r->root.dentry == r->root.mnt->mnt_root)
			return 0;
		path_put(&r->root);
	}
	/* built in (CONFIG_TRACING), no owner: get_fs_type() pins nothing */
	fs = get_fs_type("tracefs");
	if (!fs)
		return -ENOENT;
	mnt = kern_mount(fs);
	if (IS_ERR(mnt))
		return PTR_ERR(mnt);
	r->own = mnt;
	r->root.mnt = mnt;
	r->root.dentry = mnt->mnt_root;
	return 0;
}

static void gr_byname_tracefs_put(struct gr_byname_req *r)
{
	if (r->own)
		kern_unmount(r->own);
	else
		path_put(&r->root);
}

/*
 * Read @f from @pos into kernel memory. Both files are seq_files whose
 * f_op has .read = seq_read and no .read_iter, which kernel_read()
 * refuses in 6.1 (-EINVAL, "kernel read not supported"); seq_read() is
 * seq_read_iter() over the caller's buffer, so a kernel iterator over
 * @buf reads the same bytes. Any other file: kernel_read().
 */
static ssize_t gr_byname_read_at(struct file *f, char *buf, size_t len,
				 loff_t *pos)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter iter;
	struct kiocb kiocb;
	ssize_t n;

	if (f->f_op->read_iter || f->f_op->read != seq_read)
		return kernel_read(f, buf, len, pos);
	init_sync_kiocb(&kiocb, f);
	kiocb.ki_pos = *pos;
	iov_iter_kvec(&iter, READ, &kv, 1, len);
	n = seq_read_iter(&kiocb, &iter);
	if (n > 0)
		*pos = kiocb.ki_pos;
	return n;
}

/* Up to @cap bytes of tracefs file @name into @buf: bytes, or -errno */
static ssize_t gr_byname_read(struct gr_byname_req *r, const char *name,
			      char *buf, size_t cap)
{
	struct file *f;
	ssize_t n, len = 0;
	loff_t pos = 0;

	f = file_open_root(&r->root, name, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	while (len < cap) {
		n = gr_byname_read_at(f, buf + len, cap - len, &pos);
		if (n <= 0) {
			if (n < 0)
				len = n;
			break;
		}
		len += n;
	}
	filp_close(f, NULL);
	return len;
}

/* available_events into @r->events: 0, or -errno */
static int gr_byname_events(struct gr_byname_req *r)
{
	ssize_t n;
	int ret;

	ret = gr_byname_tracefs(r);
	if (ret)
		return ret;
	r->events = kvmalloc(GR_BYNAME_EVENTS_MAX, GFP_KERNEL);
	if (!r->events)
		return -ENOMEM;
	n = gr_byname_read(r, "available_events", r->events,
			   GR_BYNAME_EVENTS_MAX);
	if (n < 0)
		return n;
	/* N5: a list that fills the buffer may be cut */
	if (n == GR_BYNAME_EVENTS_MAX)
		return -EFBIG;
	r->events_len = n;
	return 0;
}

/* The -errno an ADD refusal or a LIST state shows (spec 18.1) */
static int gr_byname_errno(int ret)
{
	switch (ret) {
	case -ENOSPC:
	case -EPERM:
	case -EEXIST:
	case -ENOENT:
	case -ENOMEM:
	case -EFBIG:	/* v1.11: strings and arrays over the maxima */
		return ret;
	default:
		/* a field or name the descriptor cannot carry */
		return -EOPNOTSUPP;
	}
}

/*
 * The fields of kprobe event @sys:@name (gr_anyevent_by_format()) from
 * its tracefs format, read into @fmt, into @ff (@nff): 0, or -errno.
 */
static int gr_byname_format(struct gr_byname_req *r, const char *sys,
			    const char *name, char *fmt,
			    struct gr_name_field *ff, unsigned int *nff)
{
	char path[2 * GR_NAME_WORD_MAX + 16];
	ssize_t n;

	snprintf(path, sizeof(path), "events/%s/%s/format", sys, name);
	n = gr_byname_read(r, path, fmt, GR_BYNAME_FORMAT_MAX);
	if (n < 0)
		return n;
	return gr_name_format_fields(fmt, n, ff, GR_LONG_MAX_FIELDS, nff);
}

/* ---- ADD -------------------------------------------------------------- */

/*
 * The new descriptor into its slot, the whole stride (N3); v1.15 its
 * extension too when the slot holds one (spec 20.2)
 */
static void gr_byname_write(unsigned int id,
			    const struct gr_event_desc_long *desc, void *arg)
{
	struct gr_dev *gd = arg;
	u32 stride = gd->layout.desc_stride;
	u8 *slot = (u8 *)gd->region + gd->layout.desc_offset +
		   (u64)id * stride;

	memset(slot, 0, stride);
	memcpy(slot, desc, stride >= sizeof(*desc) ? sizeof(*desc) :
	       sizeof(desc->desc));
}

/* One answer line, if it fits (the counts are complete anyway) */
static void gr_byname_line(struct gr_name_ans *ans, const char *fmt, ...)
{
	char line[GR_BYNAME_LINE_MAX];
	u32 len = le32_to_cpu(ans->len);
	va_list args;
	int n;

	va_start(args, fmt);
	n = vscnprintf(line, sizeof(line), fmt, args);
	va_end(args);
	if (gr_name_append(ans->text, &len, GR_NAME_ANS_TEXT, line, n))
		ans->len = cpu_to_le32(len);
}

/*
 * Descriptor slots events by name may take: wide_capacity with
 * GR_F_WIDE_EVENTS in use (spec 19.2 W1), else desc_capacity (18.2 N1)
 */
static unsigned int gr_byname_capacity(const struct gr_dev *gd)
{
	if (gd->layout.wide_offset &&
	    (gd->cur.host_features & GR_F_WIDE_EVENTS))
		return gd->layout.wide_capacity;
	return gd->layout.desc_capacity;
}

/*
 * Add or report one event a pattern named (a kprobe event: its format's
 * fields @ff, @nff): its id, or the -errno of its R line
 */
static int gr_byname_add_one(struct gr_byname_req *r, const char *sys,
			     const char *name, const struct gr_name_field *ff,
			     unsigned int nff, u32 *added, u32 *refused)
{
	struct gr_dev *gd = r->gd;
	struct gr_name_ans *ans = &r->ans;
	bool native;
	int id;

	id = gr_anyevent_published(sys, name, &native);
	if (id >= 0) {
		gr_byname_line(ans, "K %s:%s %d\n", sys, name, id);
		return id;
	}
	id = gr_anyevent_add_named(sys, name, ff, nff,
				   gr_byname_capacity(gd), &r->desc,
				   gr_byname_write, gd);
	if (id < 0) {
		(*refused)++;
		id = gr_byname_errno(id);
		gr_byname_line(ans, "R %s:%s %d\n", sys, name, -id);
		return id;
	}
	(*added)++;
	/* what filter programs (spec 14.4) and hist requests may name */
	gr_pass_bound_event(id);
	gd->hist.nr_events = gr_desc_live();
	/* N3: the descriptor is in the region; now the host may read it */
	gr_status_set_live(gd->region, &gd->layout, gr_desc_live());
	gr_byname_line(ans, "A %s:%s %d\n", sys, name, id);
	return id;
}

/*
 * A kprobe event the guest's administrator defined (kprobe_events): laid
 * out from its format as a probe of the host is (18.4 P4); its id, or
 * the -errno of its R line
 */
static int gr_byname_add_kprobe(struct gr_byname_req *r, const char *sys,
				const char *name, u32 *added, u32 *refused)
{
	struct gr_name_field *ff;
	unsigned int nff = 0;
	char *fmt;
	int ret;

	fmt = kvmalloc(GR_BYNAME_FORMAT_MAX, GFP_KERNEL);
	ff = kcalloc(GR_LONG_MAX_FIELDS, sizeof(*ff), GFP_KERNEL);
	ret = fmt && ff ? gr_byname_format(r, sys, name, fmt, ff, &nff) :
			  -ENOMEM;
	if (ret) {
		(*refused)++;
		ret = gr_byname_errno(ret);
		gr_byname_line(&r->ans, "R %s:%s %d\n", sys, name, -ret);
	} else {
		ret = gr_byname_add_one(r, sys, name, ff, nff, added, refused);
	}
	kfree(ff);
	kvfree(fmt);
	return ret;
}

static int gr_byname_add(struct gr_byname_req *r)
{
	char sys[GR_NAME_WORD_MAX], name[GR_NAME_WORD_MAX];
	const char *cur, *end;
	u32 matched = 0, added = 0, refused = 0;
	u64 hit = 0, these;
	unsigned int i;
	int ret;

	if (!r->npats || r->offset)
		return -EINVAL;
	ret = gr_byname_events(r);
	if (ret)
		return ret;
	cur = r->events;
	end = r->events + r->events_len;
	while (gr_name_next_event(&cur, end, sys, name)) {
		these = 0;
		for (i = 0; i < r->npats; i++)
			if (gr_name_match(&r->pats[i], sys, name))
				these |= BIT_ULL(i);
		if (!these)
			continue;
		hit |= these;
		matched++;
		/* `*` names every event of the kernel: a long pass (N5) */
		cond_resched();
		if (gr_anyevent_by_format(sys, name))
			gr_byname_add_kprobe(r, sys, name, &added, &refused);
		else
			gr_byname_add_one(r, sys, name, NULL, 0, &added,
					  &refused);
	}
	for (i = 0; i < r->npats; i++) {
		if (hit & BIT_ULL(i))
			continue;
		if (r->pats[i].bare)
			gr_byname_line(&r->ans, "N %s %d\n", r->pats[i].name,
				       ENOENT);
		else
			gr_byname_line(&r->ans, "N %s:%s %d\n",
				       r->pats[i].sys, r->pats[i].name,
				       ENOENT);
	}
	r->ans.matched = cpu_to_le32(matched);
	r->ans.added = cpu_to_le32(added);
	r->ans.refused = cpu_to_le32(refused);
	return 0;
}

/* ---- LIST ------------------------------------------------------------- */

static void gr_byname_list_free(void)
{
	kvfree(gr_byname_list);
	gr_byname_list = NULL;
	gr_byname_list_len = 0;
	gr_byname_list_room = 0;
	gr_byname_list_matched = 0;
}

/* Room for one more line of the listing: 0, or -ENOMEM */
static int gr_byname_list_grow(void)
{
	u32 room = gr_byname_list_room ? gr_byname_list_room * 2 : 64U << 10;
	char *p;

	if (gr_byname_list_room - gr_byname_list_len >= GR_NAME_ANS_TEXT)
		return 0;
	if (room > GR_BYNAME_LIST_MAX)
		return -ENOMEM;
	p = kvrealloc(gr_byname_list, gr_byname_list_room, room, GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	gr_byname_list = p;
	gr_byname_list_room = room;
	return 0;
}

/* The line of one event, its state as 18.1 says */
static int gr_byname_list_one(struct gr_byname_req *r, const char *sys,
			      const char *name, char *fmt)
{
	char path[2 * GR_NAME_WORD_MAX + 16], state[8];
	struct gr_name_field *ff = NULL;
	unsigned int nff = 0;
	ssize_t n;
	bool native;
	int ret;

	ret = gr_byname_list_grow();
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "events/%s/%s/format", sys, name);
	/* an event gone meanwhile: its line without fields */
	n = gr_byname_read(r, path, fmt, GR_BYNAME_FORMAT_MAX);
	if (gr_anyevent_published(sys, name, &native) >= 0) {
		strscpy(state, native ? "n" : "p", sizeof(state));
	} else {
		/* a kprobe event: as ADD would lay it out, from its format */
		if (n > 0 && gr_anyevent_by_format(sys, name)) {
			ff = kcalloc(GR_LONG_MAX_FIELDS, sizeof(*ff), GFP_KERNEL);
			if (!ff)
				return -ENOMEM;
			ret = gr_name_format_fields(fmt, n, ff, GR_LONG_MAX_FIELDS,
						    &nff);
		}
		if (!ret)
			ret = gr_anyevent_check_named(sys, name, ff, nff,
						      gr_byname_capacity(r->gd));
		kfree(ff);
		if (ret == -ENOMEM)
			return ret;
		if (ret)
			snprintf(state, sizeof(state), "%d",
				 gr_byname_errno(ret));
		else
			strscpy(state, "y", sizeof(state));
	}
	gr_byname_list_len += gr_name_list_line(gr_byname_list +
						gr_byname_list_len,
						GR_NAME_ANS_TEXT, sys, name,
						state, n > 0 ? fmt : NULL,
						n > 0 ? n : 0);
	gr_byname_list_matched++;
	return 0;
}

/* The whole listing of the request's pattern, kept: 0, or -errno */
static int gr_byname_list_build(struct gr_byname_req *r)
{
	char sys[GR_NAME_WORD_MAX], name[GR_NAME_WORD_MAX];
	const char *cur, *end;
	char *fmt;
	int ret;

	gr_byname_list_free();
	ret = gr_byname_events(r);
	if (ret)
		return ret;
	fmt = kvmalloc(GR_BYNAME_FORMAT_MAX, GFP_KERNEL);
	if (!fmt)
		return -ENOMEM;
	cur = r->events;
	end = r->events + r->events_len;
	while (gr_name_next_event(&cur, end, sys, name)) {
		if (r->npats && !gr_name_match(&r->pats[0], sys, name))
			continue;
		ret = gr_byname_list_one(r, sys, name, fmt);
		if (ret)
			break;
		cond_resched();
	}
	kvfree(fmt);
	if (ret)
		gr_byname_list_free();
	return ret;
}

static int gr_byname_list_page(struct gr_byname_req *r)
{
	u32 offset = r->offset, len, next;
	int ret;

	if (r->npats > 1)
		return -EINVAL;
	if (!offset) {
		ret = gr_byname_list_build(r);
		if (ret)
			return ret;
	}
	ret = gr_name_page(gr_byname_list, gr_byname_list_len, offset,
			   GR_NAME_ANS_TEXT, &len, &next);
	if (ret)
		return ret;
	if (len)
		memcpy(r->ans.text, gr_byname_list + offset, len);
	r->ans.len = cpu_to_le32(len);
	r->ans.matched = cpu_to_le32(gr_byname_list_matched);
	r->ans.total = cpu_to_le32(gr_byname_list_len);
	r->ans.next = cpu_to_le32(next);
	return 0;
}

/* ---- PROBE and UNPROBE (spec 18.4) ------------------------------------ */

/**
 * struct gr_probe - a kprobe event this module created for the host
 * @name: its NAME, in group GR_PROBE_GROUP
 * @id: its descriptor
 */
struct gr_probe {
	char name[GR_PROBE_NAME_MAX + 1];
	int id;
};

/* P7: the probes to delete; gr_probe_lock (under pass_lock in a pass) */
static struct gr_probe gr_probes[GR_PROBE_MAX];
static unsigned int gr_nr_probes;
static DEFINE_MUTEX(gr_probe_lock);

static struct gr_probe *gr_probe_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < gr_nr_probes; i++)
		if (!strcmp(gr_probes[i].name, name))
			return &gr_probes[i];
	return NULL;
}

/* Delete the kernel's event guestrelay/@name: 0, or -errno */
static int gr_probe_delete(const char *name)
{
	char event[sizeof(GR_PROBE_GROUP) + GR_PROBE_NAME_MAX + 1];

	snprintf(event, sizeof(event), GR_PROBE_GROUP "/%s", name);
	return kprobe_event_delete(event);
}

/*
 * P6: stop recording @p (its counters released synchronously, never
 * attached again), then delete its kprobe event (the kernel refuses with
 * -EBUSY while perf or a reference holds it). On success @p leaves the
 * list. Under gr_probe_lock.
 */
static int gr_probe_remove(struct gr_probe *p)
{
	int ret;

	lockdep_assert_held(&gr_probe_lock);
	/* -ENOENT: stopped already (an earlier try, or unpublished) */
	gr_anyevent_probe_stop(p->id);
	ret = gr_probe_delete(p->name);
	if (ret && ret != -ENOENT)
		return ret;
	*p = gr_probes[--gr_nr_probes];
	return 0;
}

/* An E line: @why at column @col of the definition */
static int gr_probe_err(struct gr_byname_req *r, int err, const char *why,
			u32 col)
{
	gr_byname_line(&r->ans, "E error: %s at column %u\n", why, col);
	return err;
}

/* Does tracefs show an event guestrelay/@name (someone else's)? */
static bool gr_probe_exists(struct gr_byname_req *r, const char *name)
{
	char path[sizeof(GR_PROBE_GROUP) + GR_PROBE_NAME_MAX + 16];
	struct file *f;

	snprintf(path, sizeof(path), "events/" GR_PROBE_GROUP "/%s/format",
		 name);
	f = file_open_root(&r->root, path, O_RDONLY, 0);
	if (IS_ERR(f))
		return false;
	filp_close(f, NULL);
	return true;
}

/*
 * P3: the kernel refused @cmd with @err (negative): the E line, its
 * message from the last entry of error_log if that is @cmd's, else the
 * errno's name. Return: @err.
 */
static int gr_probe_refused(struct gr_byname_req *r, const char *def,
			    u32 len, const char *cmd, int err)
{
	char msg[GR_PROBE_MSG_MAX];
	const char *name;
	u32 pos, head;
	char *log;
	ssize_t n;

	log = kvmalloc(GR_BYNAME_FORMAT_MAX, GFP_KERNEL);
	if (log) {
		n = gr_byname_read(r, "error_log", log, GR_BYNAME_FORMAT_MAX);
		head = strcspn(cmd, " ");
		if (n > 0 && gr_probe_errlog(log, n, cmd, msg, sizeof(msg),
					     &pos)) {
			kvfree(log);
			return gr_probe_err(r, err, msg,
					    gr_probe_column(def, len, head,
							    pos));
		}
		kvfree(log);
	}
	name = gr_probe_errname(-err);
	if (name)
		gr_byname_line(&r->ans, "E %s\n", name);
	else
		gr_byname_line(&r->ans, "E errno %d\n", -err);
	return err;
}

/* Create the kprobe event of @cmd through the dynamic-event API */
static int gr_probe_create(const char *cmd)
{
	struct dynevent_cmd dc;
	char *buf;
	int ret;

	buf = kzalloc(MAX_DYNEVENT_CMD_LEN, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	kprobe_event_cmd_init(&dc, buf, MAX_DYNEVENT_CMD_LEN);
	ret = seq_buf_printf(&dc.seq, "%s", cmd);
	if (!ret)
		ret = dynevent_create(&dc);
	kfree(buf);
	return ret;
}

/*
 * P4, P5: the created probe @name as a descriptor: its id, or -errno
 * (its R line written; the caller deletes the probe).
 */
static int gr_probe_publish(struct gr_byname_req *r, const char *name)
{
	char path[sizeof(GR_PROBE_GROUP) + GR_PROBE_NAME_MAX + 16];
	struct gr_name_field *ff;
	u32 added = 0, refused = 0;
	unsigned int nff = 0;
	char *fmt;
	ssize_t n;
	bool native;
	int id, ret;

	fmt = kvmalloc(GR_BYNAME_FORMAT_MAX, GFP_KERNEL);
	ff = kcalloc(GR_LONG_MAX_FIELDS, sizeof(*ff), GFP_KERNEL);
	ret = -ENOMEM;
	if (!fmt || !ff)
		goto out;
	snprintf(path, sizeof(path), "events/" GR_PROBE_GROUP "/%s/format",
		 name);
	n = gr_byname_read(r, path, fmt, GR_BYNAME_FORMAT_MAX);
	ret = n < 0 ? n : gr_name_format_fields(fmt, n, ff, GR_LONG_MAX_FIELDS,
						 &nff);
	if (ret) {
		ret = gr_byname_errno(ret);
		gr_byname_line(&r->ans, "R " GR_PROBE_GROUP ":%s %d\n", name,
			       -ret);
		refused = 1;
		goto out;
	}
	id = gr_anyevent_published(GR_PROBE_GROUP, name, &native);
	if (id >= 0) {
		/* P5: the id of the probe deleted earlier, if equal */
		ret = gr_anyevent_probe_retake(id, GR_PROBE_GROUP, name, ff,
					       nff);
		/* enabled before it was deleted: recorded again now */
		if (!ret && (r->gd->cur.enable[id / 64] >> (id % 64) & 1))
			ret = gr_desc_attach(id);
		if (!ret) {
			gr_byname_line(&r->ans, "K " GR_PROBE_GROUP ":%s %d\n",
				       name, id);
			ret = id;
		} else if (ret != -EEXIST && ret != -ENOMEM) {
			/* not attached: stopped again, refused */
			gr_anyevent_probe_stop(id);
			gr_byname_line(&r->ans, "R " GR_PROBE_GROUP ":%s %d\n",
				       name, -gr_byname_errno(ret));
			refused = 1;
		} else {
			ret = ret == -ENOMEM ? ret : -EEXIST;
			gr_byname_line(&r->ans, "R " GR_PROBE_GROUP ":%s %d\n",
				       name, -ret);
			refused = 1;
		}
		goto out;
	}
	ret = gr_byname_add_one(r, GR_PROBE_GROUP, name, ff, nff, &added,
				&refused);
out:
	r->ans.matched = cpu_to_le32(1);
	r->ans.added = cpu_to_le32(added);
	r->ans.refused = cpu_to_le32(refused);
	kfree(ff);
	kvfree(fmt);
	return ret;
}

/* PROBE (P2-P5): 0 (also for an event refused by R), or -errno */
static int gr_probe_op(struct gr_byname_req *r)
{
	const char *def = r->req.text;
	u32 len = le32_to_cpu(r->req.len);
	struct gr_probe_head h;
	bool native;
	char *cmd;
	int id, ret;

	if (r->offset)
		return -EINVAL;
	ret = gr_probe_parse(def, len, &h);
	if (ret)
		return gr_probe_err(r, ret, h.why, h.col);
	/* N4 */
	id = gr_anyevent_published(GR_PROBE_GROUP, h.name, &native);
	if (id < 0 && gr_anyevent_taken(h.name))
		return gr_probe_err(r, -EINVAL, "NAME is another event's",
				    h.start);
	if (gr_probe_find(h.name))
		return gr_probe_err(r, -EEXIST, "a probe of this NAME is alive",
				    h.start);
	if (gr_nr_probes >= GR_PROBE_MAX)
		return gr_probe_err(r, -ENOSPC, "too many probes of the host",
				    h.start);
	ret = gr_byname_tracefs(r);
	if (ret)
		return ret;
	/* the kernel would add this probe to that event (multi-probe) */
	if (gr_probe_exists(r, h.name))
		return gr_probe_err(r, -EEXIST,
				    "an event of this NAME exists", h.start);
	cmd = kmalloc(GR_PROBE_CMD_MAX, GFP_KERNEL);
	if (!cmd)
		return -ENOMEM;
	ret = -EINVAL;
	if (!gr_probe_cmd(def, len, &h, cmd, GR_PROBE_CMD_MAX))
		goto out;
	ret = gr_probe_create(cmd);
	if (ret) {
		ret = gr_probe_refused(r, def, len, cmd, ret);
		goto out;
	}
	id = gr_probe_publish(r, h.name);
	if (id < 0) {
		/* P4: the kernel keeps no probe the host does not know */
		ret = gr_probe_delete(h.name);
		if (ret)
			pr_warn("probe %s not deleted (%d)\n", h.name, ret);
		ret = id == -ENOMEM ? id : 0;
		goto out;
	}
	strscpy(gr_probes[gr_nr_probes].name, h.name, sizeof(h.name));
	gr_probes[gr_nr_probes].id = id;
	gr_nr_probes++;
	ret = 0;
out:
	kfree(cmd);
	return ret;
}

/* UNPROBE (P6): one probe of the host, or every one */
static int gr_unprobe_op(struct gr_byname_req *r)
{
	char name[GR_PROBE_NAME_MAX + 1];
	u32 len = le32_to_cpu(r->req.len), n = sizeof(GR_PROBE_GROUP);
	const char *text = r->req.text;
	struct gr_probe *p;
	u32 matched = 0;
	unsigned int i;
	int id, ret = 0;

	if (r->offset)
		return -EINVAL;
	if (len >= n && !memcmp(text, GR_PROBE_GROUP ":", n)) {
		text += n;
		len -= n;
	}
	if (len >= sizeof(name))
		return -ENOENT;
	memcpy(name, text, len);
	name[len] = '\0';
	if (len && (strlen(name) != len || !gr_probe_find(name)))
		return -ENOENT;
	i = 0;
	while (i < gr_nr_probes) {
		p = &gr_probes[i];
		if (len && strcmp(p->name, name)) {
			i++;
			continue;
		}
		strscpy(name, p->name, sizeof(name));
		id = p->id;
		ret = gr_probe_remove(p);
		if (ret) {
			gr_byname_line(&r->ans, "R " GR_PROBE_GROUP ":%s %d\n",
				       name, -ret);
			i++;
			continue;
		}
		matched++;
		gr_byname_line(&r->ans, "D " GR_PROBE_GROUP ":%s %d\n", name,
			       id);
	}
	r->ans.matched = cpu_to_le32(matched);
	return matched || !ret ? 0 : ret;
}

/**
 * gr_probe_delete_all() - delete every probe this module created (P7)
 *
 * Their events were unpublished first (gr_anyevent_unpublish() or
 * _exit(): no counter, no reference), so the kernel can delete them.
 * Never touches a kprobe event this module did not create.
 *
 * Context: process context, no control pass running: before a
 * publication, or at unload.
 */
void gr_probe_delete_all(void)
{
	int ret;

	mutex_lock(&gr_probe_lock);
	while (gr_nr_probes) {
		ret = gr_probe_remove(&gr_probes[0]);
		if (ret) {
			pr_warn("probe %s not deleted (%d)\n",
				gr_probes[0].name, ret);
			gr_probes[0] = gr_probes[--gr_nr_probes];
		}
	}
	mutex_unlock(&gr_probe_lock);
}

/* ---- the request ------------------------------------------------------ */

/* Check and do the request in @r->req; -errno refuses it whole */
static int gr_byname_do(struct gr_byname_req *r)
{
	u32 op = le32_to_cpu(r->req.op), len = le32_to_cpu(r->req.len);
	int ret;

	if (!READ_ONCE(byname))
		return -EPERM;
	if (len > GR_NAME_REQ_TEXT)
		return -EINVAL;
	r->offset = le32_to_cpu(r->req.offset);
	/* v1.11, v1.14: sequences, strings, arrays for a host that knows;
	 * v1.15: long names and more fields in slots that hold them (20)
	 */
	gr_anyevent_host(r->gd->cur.host_features,
			 r->gd->layout.desc_stride >= GR_LONG_DESC_STRIDE);
	if (op == GR_NAME_OP_PROBE || op == GR_NAME_OP_UNPROBE) {
		/* P1 */
		if (!(r->gd->cur.host_features & GR_F_PROBE))
			return -EOPNOTSUPP;
		if (!READ_ONCE(hostprobe))
			return -EPERM;
		mutex_lock(&gr_probe_lock);
		if (op == GR_NAME_OP_PROBE)
			ret = gr_probe_op(r);
		else
			ret = gr_unprobe_op(r);
		mutex_unlock(&gr_probe_lock);
		return ret;
	}
	if (op != GR_NAME_OP_ADD && op != GR_NAME_OP_LIST)
		return -EOPNOTSUPP;
	ret = gr_name_parse(r->req.text, len, r->pats, GR_NAME_PATS_MAX,
			    &r->npats);
	if (ret)
		return ret;
	if (op == GR_NAME_OP_ADD)
		return gr_byname_add(r);
	return gr_byname_list_page(r);
}

/*
 * The answer to request @seq into the region, seq last (N2): @ans, or
 * for a request refused whole (@err, a positive errno) only the result,
 * desc_live and @ans' text (a refused PROBE's E line, spec 18.4 P3).
 */
static void gr_byname_answer(struct gr_dev *gd, const struct gr_name_ans *ans,
			     int err, u64 seq)
{
	struct gr_name_ans *out = (void *)((u8 *)gd->region +
					   GR_NAME_ANS_OFFSET);
	size_t skip = sizeof(out->seq);

	if (err) {
		memset((u8 *)out + skip, 0, sizeof(*out) - skip);
		/* spec 18.4: a refused PROBE's E line */
		if (ans && le32_to_cpu(ans->len) <= GR_NAME_ANS_TEXT) {
			out->len = ans->len;
			memcpy(out->text, ans->text, le32_to_cpu(ans->len));
		}
	} else {
		memcpy((u8 *)out + skip, (const u8 *)ans + skip,
		       sizeof(*out) - skip);
	}
	out->result = cpu_to_le32(err);
	out->desc_live = cpu_to_le32(gr_desc_live());
	/* N2: the answer before its seq; the host loads seq with acquire */
	smp_store_release(&out->seq, cpu_to_le64(seq));
}

static const struct gr_name_req *gr_byname_strip(struct gr_dev *gd)
{
	return (const void *)((const u8 *)gd->region + GR_NAME_REQ_OFFSET);
}

/**
 * gr_byname_pass() - answer a new request for events by name (N2)
 * @gd: the device
 *
 * Only while the host has GR_F_ANYEVENT in use. A request refused whole
 * changes nothing; a refusal for want of memory is answered as ENOMEM.
 *
 * Context: the control pass: process context, under @gd->pass_lock; may
 * sleep.
 * Return: true if an answer was stored (ring GR_VEC_STATUS).
 */
bool gr_byname_pass(struct gr_dev *gd)
{
	const struct gr_name_req *strip = gr_byname_strip(gd);
	struct gr_byname_req *r;
	u64 seq;
	int ret;

	lockdep_assert_held(&gd->pass_lock);
	if (!(gd->cur.host_features & GR_F_ANYEVENT))
		return false;
	/* N2: pairs with the host's release of seq after the strip */
	seq = le64_to_cpu(smp_load_acquire(&strip->seq));
	if (seq == gd->name_seq)
		return false;
	WRITE_ONCE(gd->name_seq, seq);
	r = kvzalloc(sizeof(*r), GFP_KERNEL);
	if (!r) {
		gr_byname_answer(gd, NULL, ENOMEM, seq);
		return true;
	}
	memcpy(&r->req, strip, sizeof(r->req));
	r->gd = gd;
	ret = gr_byname_do(r);
	gr_byname_answer(gd, &r->ans, -ret, seq);
	if (r->root.mnt)
		gr_byname_tracefs_put(r);
	kvfree(r->events);
	kvfree(r);
	return true;
}

/**
 * gr_byname_due() - is a request waiting? (the tick's check, no sleep)
 * @gd: the device
 *
 * Context: any.
 */
bool gr_byname_due(struct gr_dev *gd)
{
	return (READ_ONCE(gd->host_features) & GR_F_ANYEVENT) &&
	       le64_to_cpu(READ_ONCE(gr_byname_strip(gd)->seq)) !=
	       READ_ONCE(gd->name_seq);
}

/**
 * gr_byname_prepare() - the name strips of a new publication (N1, N6)
 * @gd: the device, its region withdrawn
 *
 * status.desc_live = desc_count (the caller zeroed the status block
 * first); a request already in the strip is void, as every request made
 * before a publication (spec 5.2); the answer strip is zeroed.
 *
 * Context: under @gd->pass_lock, before the region is published.
 */
void gr_byname_prepare(struct gr_dev *gd)
{
	lockdep_assert_held(&gd->pass_lock);
	WRITE_ONCE(gd->name_seq,
		   le64_to_cpu(READ_ONCE(gr_byname_strip(gd)->seq)));
	memset((u8 *)gd->region + GR_NAME_ANS_OFFSET, 0,
	       sizeof(struct gr_name_ans));
	gr_status(gd->region)->desc_live = cpu_to_le32(gr_desc_count());
}

/**
 * gr_byname_exit() - free the listing kept for LIST pages
 *
 * Context: module unload, no device bound.
 */
void gr_byname_exit(void)
{
	gr_byname_list_free();
}
