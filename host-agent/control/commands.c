// SPDX-License-Identifier: GPL-2.0
/*
 * commands.c - the commands of the control socket (ctl_proto.h): check
 * each argument again, call the VM functions of agent.h and write the
 * answer's body as text or JSON. flush, snapshot and stop answer when
 * their VM calls back; like every command they never wait for the guest
 * here (spec H17).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "agent.h"
#include "ctl_proto.h"
#include "hist_out.h"
#include "names_out.h"
#include "opts.h"
#include "out.h"
#include "server.h"

#define CTL_HIST_USAGE \
	"hist VM EVENT 'keys=...' [--filter EXPR] | VM --latency " \
	"runq|syscall|block|irq [--filter EXPR] | VM [NAME] [--clear|--remove]"

static int req_err(struct ctl_req *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int req_err(struct ctl_req *r, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	return err;
}

/* the VM named @name, or NULL with the error in @r->msg and *@err */
static struct gr_vm *req_vm(struct ctl_req *r, const char *name, int *err)
{
	char why[128];
	struct gr_vm *vm;

	if (ctl_check_vm_name(name, why, sizeof(why))) {
		*err = req_err(r, -EINVAL, "'%.*s%s': %s", GR_VM_NAME_MAX,
			       name, strlen(name) > GR_VM_NAME_MAX ? "..." :
			       "", why);
		return NULL;
	}
	vm = vm_find(r->a, name);
	if (!vm)
		*err = req_err(r, -ENOENT, "no VM named '%s' (guestrelay "
			       "status lists them)", name);
	return vm;
}

/* a VM function's error: its own text if it gave one */
static int vm_err(struct ctl_req *r, int ret, const char *err, const char *what,
		  const char *vm)
{
	if (ret >= 0)
		ret = -EIO;
	if (err[0])
		return req_err(r, ret, "%s", err);
	return req_err(r, ret, "cannot %s %s: %s", what, vm, strerror(-ret));
}

static int cmd_ping(struct ctl_req *r, struct gr_vm *vm, int argc,
		    char **argv)
{
	uint64_t up = (ctl_mono_ns() - r->started) / NSEC_PER_SEC;
	const struct gr_loop_stats *ls = &r->a->loop.st;
	unsigned int n = 0;

	(void)argc;
	(void)argv;
	for (vm = vm_next(r->a, NULL); vm; vm = vm_next(r->a, vm))
		n++;
	if (!r->json) {
		fprintf(r->out, "guestrelay agent %s, pid %d, up %" PRIu64
			" s, %u VM%s\n", GR_VERSION, (int)getpid(), up,
			n, n == 1 ? "" : "s");
		fprintf(r->out, "loop: %" PRIu64 " iterations, %" PRIu64
			" io_uring_enter, %" PRIu64 " completions\n",
			ls->iterations, ls->enters, ls->completions);
		return 0;
	}
	ctl_json_begin_object(&r->j, NULL);
	ctl_json_string(&r->j, "version", GR_VERSION);
	ctl_json_i64(&r->j, "pid", getpid());
	ctl_json_u64(&r->j, "uptime_s", up);
	ctl_json_u64(&r->j, "vms", n);
	ctl_json_string(&r->j, "run_dir", r->a->run_dir);
	ctl_json_string(&r->j, "store_dir", r->a->store_dir);
	ctl_json_u64(&r->j, "dropped_clients", r->dropped);
	ctl_json_begin_object(&r->j, "loop");
	ctl_json_u64(&r->j, "iterations", ls->iterations);
	ctl_json_u64(&r->j, "enters", ls->enters);
	ctl_json_u64(&r->j, "completions", ls->completions);
	ctl_json_end_object(&r->j);
	ctl_json_end_object(&r->j);
	return 0;
}

static int cmd_status(struct ctl_req *r, struct gr_vm *vm, int argc,
		      char **argv)
{
	struct gr_vm_info *info;

	(void)argv;
	info = malloc(sizeof(*info));
	if (!info)
		return req_err(r, -ENOMEM, CTL_MSG_NOMEM);
	if (r->json) {
		ctl_json_begin_object(&r->j, NULL);
		ctl_json_begin_array(&r->j, "vms");
	}
	if (!vm)
		vm = vm_next(r->a, NULL);
	else
		argc = -1;	/* just this one */
	if (!vm && !r->json)
		fputs("no VMs (add one with: guestrelay vm-add VM)\n", r->out);
	for (; vm; vm = argc < 0 ? NULL : vm_next(r->a, vm)) {
		memset(info, 0, sizeof(*info));
		vm_get_info(vm, info);
		vm_hist_latency(vm, info);
		info->name[sizeof(info->name) - 1] = '\0';
		if (r->json) {
			ctl_status_json(&r->j, info);
		} else {
			if (ftell(r->out) > 0)
				fputc('\n', r->out);
			ctl_status_text(r->out, info);
		}
	}
	free(info);
	if (r->json) {
		ctl_json_end_array(&r->j);
		ctl_json_end_object(&r->j);
	}
	return 0;
}

/*
 * The follow options of @argv[@i] ("--pid LIST", "--comm GLOB",
 * "--no-fork", spec 15) into @fo: the number of arguments taken (0: not
 * a follow option), or an error.
 */
static int follow_opt(struct ctl_req *r, struct gr_fx_follow *fo, int argc,
		      char **argv, int i)
{
	char err[256];
	int ret;

	if (!strcmp(argv[i], "--no-fork")) {
		fo->flags = GR_FOLLOW_F_ON;
		return 1;
	}
	if (strcmp(argv[i], "--pid") && strcmp(argv[i], "--comm"))
		return 0;
	if (i + 1 == argc)
		return req_err(r, -EINVAL, "%s needs a value", argv[i]);
	ret = !strcmp(argv[i], "--pid") ?
		gr_fx_follow_pids(fo, argv[i + 1], err, sizeof(err)) :
		gr_fx_follow_comm(fo, argv[i + 1], err, sizeof(err));
	return ret ? req_err(r, ret, "%s", err) : 2;
}

/*
 * `enable VM EVENT... --filter EXPR --pid LIST --comm GLOB --no-fork`:
 * the filter on every named event first, all or nothing (spec 14.6: a
 * bad expression is refused before anything reaches the guest), then the
 * follow filter (spec 15), then the events. Takes the options out of
 * @argv; returns the new argc, or an error.
 */
static int events_filter(struct ctl_req *r, struct gr_vm *vm, int argc,
			 char **argv, bool on)
{
	struct gr_fx_follow fo = { 0 };
	const char *expr = NULL;
	char err[2048] = "";
	int i, n = 1, ret;

	for (i = 1; i < argc; i++) {
		ret = follow_opt(r, &fo, argc, argv, i);
		if (ret < 0)
			return ret;
		if (ret && !on)
			return req_err(r, -EINVAL, "disable takes no %s "
				       "(guestrelay filter VM --clear removes "
				       "the follow filter)", argv[i]);
		if (ret) {
			i += ret - 1;
			continue;
		}
		if (strcmp(argv[i], "--filter")) {
			argv[n++] = argv[i];
			continue;
		}
		if (!on)
			return req_err(r, -EINVAL, "disable takes no --filter "
				       "(guestrelay filter VM EVENT --clear "
				       "removes one)");
		if (expr || i + 1 == argc)
			return req_err(r, -EINVAL, "--filter needs one "
				       "expression");
		expr = argv[++i];
	}
	if (fo.flags && !fo.nr_pids && !fo.comm[0])
		return req_err(r, -EINVAL, "--no-fork goes with --pid or "
			       "--comm");
	if (n < 2 && (expr || fo.flags))
		return req_err(r, -EINVAL, "enable needs an event");
	if (expr) {
		ret = vm_set_filter(vm, argv + 1, n - 1, expr, err,
				    sizeof(err));
		if (ret)
			return vm_err(r, ret, err, "filter events in",
				      argv[0]);
	}
	if (fo.flags) {
		ret = vm_set_follow(vm, &fo, err, sizeof(err));
		if (ret)
			return vm_err(r, ret, err, "follow tasks in", argv[0]);
	}
	return n;
}

/*
 * A deferred answer: @err and @msg, or the body @fill writes (as text, or
 * into the JSON writer it gets); sent, the connection closes
 */
static void reply_later(struct ctl_reply *rp, int err, const char *msg,
			void (*fill)(struct ctl_reply *rp, FILE *f,
				     struct ctl_json *j, const void *ctx),
			const void *ctx)
{
	struct ctl_json j;
	char *body = NULL, emsg[768];
	size_t len = 0;
	FILE *f;

	if (err) {
		if (msg && *msg)
			snprintf(emsg, sizeof(emsg), "%s", msg);
		else
			snprintf(emsg, sizeof(emsg), "%s of %s failed: %s",
				 rp->cmd, rp->vm,
				 strerror(err < 0 ? -err : err));
		ctl_reply_send(rp, err < 0 ? err : -err, emsg, NULL, 0);
		return;
	}
	f = open_memstream(&body, &len);
	if (!f) {
		ctl_reply_send(rp, -ENOMEM, CTL_MSG_NOMEM, NULL, 0);
		return;
	}
	if (rp->json)
		ctl_json_init(&j, f);
	fill(rp, f, rp->json ? &j : NULL, ctx);
	if (rp->json)
		ctl_json_finish(&j);
	if (fclose(f))
		ctl_reply_send(rp, -ENOMEM, CTL_MSG_NOMEM, NULL, 0);
	else
		ctl_reply_send(rp, 0, NULL, body, len);
	free(body);
}

/* `enable`'s report, once the guest answered its request by name */
static void enable_fill(struct ctl_reply *rp, FILE *f, struct ctl_json *j,
			const void *ctx)
{
	if (j)
		ctl_enable_report_json(j, rp->vm, ctx);
	else
		ctl_enable_report_text(f, ctx);
}

static void enable_done(void *arg, int err, const char *msg)
{
	reply_later(arg, err, msg, enable_fill, msg);
}

static int cmd_events(struct ctl_req *r, struct gr_vm *vm, int argc,
		      char **argv)
{
	bool on = !strcmp(r->cmd, "enable");
	char err[512] = "", *list;
	size_t len = 0;
	int i, ret = 0;

	argc = events_filter(r, vm, argc, argv, on);
	if (argc < 0)
		return argc;
	for (i = 1; i < argc; i++)
		len += strlen(argv[i]) + 1;
	list = malloc(len + 1);
	if (!list)
		return req_err(r, -ENOMEM, CTL_MSG_NOMEM);
	list[0] = '\0';
	for (i = 1; i < argc; i++) {
		if (i > 1)
			strcat(list, ",");
		strcat(list, argv[i]);
	}
	if (on) {
		/* spec 18: what the guest has not published is asked first */
		strcpy(r->reply->vm, argv[0]);
		ctl_reply_defer(r->reply);
		ret = vm_enable_events(vm, list, enable_done, r->reply, err,
				       sizeof(err));
		if (ret == GR_ASYNC) {
			free(list);
			return CTL_ASYNC;	/* answered by enable_done() */
		}
		ctl_reply_undefer(r->reply);
	} else {
		ret = vm_set_events(vm, list, false, err, sizeof(err));
	}
	if (ret) {
		ret = vm_err(r, ret, err, on ? "enable events in" :
			     "disable events in", argv[0]);
	} else if (r->json) {
		ctl_json_begin_object(&r->j, NULL);
		ctl_json_string(&r->j, "vm", argv[0]);
		ctl_json_list(&r->j, on ? "enable" : "disable", list);
		ctl_json_end_object(&r->j);
	} else {
		ctl_put_text(r->out, argv[0]);
		fprintf(r->out, ": %s ", on ? "enable" : "disable");
		ctl_put_text(r->out, list);
		fputs(" requested\n", r->out);
	}
	free(list);
	return ret;
}

/* `events VM [GLOB]`: the guest's catalogue (spec 18) */
static void names_fill(struct ctl_reply *rp, FILE *f, struct ctl_json *j,
		       const void *ctx)
{
	(void)rp;
	if (j)
		ctl_events_json(j, ctx);
	else
		ctl_events_text(f, ctx);
}

static void names_done(void *arg, int err, const char *msg,
		       const struct gr_name_list *l)
{
	reply_later(arg, err, msg, names_fill, l);
}

static int cmd_names(struct ctl_req *r, struct gr_vm *vm, int argc,
		     char **argv)
{
	char err[512] = "";
	int ret;

	strcpy(r->reply->vm, argv[0]);
	ctl_reply_defer(r->reply);
	ret = vm_list_events(vm, argc > 1 ? argv[1] : "", names_done,
			     r->reply, err, sizeof(err));
	if (!ret || !ctl_reply_deferred(r->reply))
		return CTL_ASYNC;	/* answered by names_done() */
	ctl_reply_undefer(r->reply);
	return vm_err(r, ret, err, "list the events of", argv[0]);
}

/* `probe VM DEF|-:NAME|--delete-all`: the guest's answer (spec 18.4) */
static void probe_fill(struct ctl_reply *rp, FILE *f, struct ctl_json *j,
		       const void *ctx)
{
	if (j)
		ctl_probe_report_json(j, rp->vm, ctx);
	else
		ctl_enable_report_text(f, ctx);
}

static void probe_done(void *arg, int err, const char *msg)
{
	reply_later(arg, err, msg, probe_fill, msg);
}

/* `probe VM`: the probes the agent defined in VM */
static int probe_list(struct ctl_req *r, struct gr_vm *vm, const char *vmn)
{
	struct gr_probe_info *p;
	unsigned int nr;

	p = calloc(GR_PROBE_MAX, sizeof(*p));
	if (!p)
		return req_err(r, -ENOMEM, CTL_MSG_NOMEM);
	nr = vm_probe_list(vm, p, GR_PROBE_MAX);
	if (nr > GR_PROBE_MAX)
		nr = GR_PROBE_MAX;
	if (r->json)
		ctl_probes_json(&r->j, vmn, p, nr);
	else
		ctl_probes_text(r->out, vmn, p, nr);
	free(p);
	return 0;
}

/*
 * `probe VM DEF` defines a kprobe event in the guest, `probe VM -:NAME`
 * and `probe VM --delete-all` delete, `probe VM` lists (spec 18.4)
 */
static int cmd_probe(struct ctl_req *r, struct gr_vm *vm, int argc,
		     char **argv)
{
	const char *def = argc > 1 ? argv[1] : NULL;
	char err[512] = "";
	int ret;

	if (!def)
		return probe_list(r, vm, argv[0]);
	if (!strcmp(def, "--delete-all"))
		def = "-:*";
	else if (!strncmp(def, "--", 2))
		return req_err(r, -EINVAL, "probe takes a definition, -:NAME "
			       "or --delete-all, not '%s'", def);
	strcpy(r->reply->vm, argv[0]);
	ctl_reply_defer(r->reply);
	ret = vm_probe(vm, def, probe_done, r->reply, err, sizeof(err));
	if (!ret || !ctl_reply_deferred(r->reply))
		return CTL_ASYNC;	/* answered by probe_done() */
	ctl_reply_undefer(r->reply);
	return vm_err(r, ret, err, "define a probe in", argv[0]);
}

/*
 * `filter VM --pid LIST [--comm GLOB] [--no-fork]` and `filter VM --clear`:
 * the follow filter (spec 15)
 */
static int cmd_follow(struct ctl_req *r, struct gr_vm *vm, int argc,
		      char **argv)
{
	struct gr_fx_follow fo = { 0 };
	char err[512] = "", what[sizeof(fo.pids) * 3 + 64];
	bool clear = false;
	int i, ret;

	for (i = 1; i < argc; i += ret) {
		ret = follow_opt(r, &fo, argc, argv, i);
		if (ret < 0)
			return ret;
		if (!ret && !strcmp(argv[i], "--clear") && !clear) {
			clear = true;
			ret = 1;
		}
		if (!ret)
			return req_err(r, -EINVAL, "filter VM takes --pid, "
				       "--comm, --no-fork or --clear, not '%s'",
				       argv[i]);
	}
	if (clear == !!fo.flags || (fo.flags && !fo.nr_pids && !fo.comm[0]))
		return req_err(r, -EINVAL, "filter VM needs --pid LIST or "
			       "--comm GLOB, or --clear alone");
	ret = vm_set_follow(vm, clear ? NULL : &fo, err, sizeof(err));
	if (ret)
		return vm_err(r, ret, err, "follow tasks in", argv[0]);
	gr_fx_follow_str(&fo, what, sizeof(what));
	if (r->json) {
		ctl_json_begin_object(&r->j, NULL);
		ctl_json_string(&r->j, "vm", argv[0]);
		ctl_json_string(&r->j, "follow", clear ? NULL : what);
		ctl_json_end_object(&r->j);
	} else {
		ctl_put_text(r->out, argv[0]);
		fputs(clear ? ": follow filter cleared\n" : ": follow ",
		      r->out);
		if (!clear) {
			ctl_put_text(r->out, what);
			fputs(" requested\n", r->out);
		}
	}
	return 0;
}

/* `filter VM EVENT EXPR` and `filter VM EVENT --clear` (spec 14.6) */
static int cmd_filter(struct ctl_req *r, struct gr_vm *vm, int argc,
		      char **argv)
{
	const char *expr = argc > 2 ? argv[2] : NULL;
	char err[2048] = "";
	bool clear;
	int ret;

	if (!strncmp(argv[1], "--", 2))
		return cmd_follow(r, vm, argc, argv);
	if (argc > 3)
		return req_err(r, -EINVAL, "filter VM EVENT takes one "
			       "expression or --clear");
	clear = expr && !strcmp(expr, "--clear");
	if (!expr)
		return req_err(r, -EINVAL, "filter needs an expression or "
			       "--clear");
	ret = vm_set_filter(vm, argv + 1, 1, clear ? NULL : expr, err,
			    sizeof(err));
	if (ret)
		return vm_err(r, ret, err, "set a filter in", argv[0]);
	if (r->json) {
		ctl_json_begin_object(&r->j, NULL);
		ctl_json_string(&r->j, "vm", argv[0]);
		ctl_json_string(&r->j, "event", argv[1]);
		if (clear)
			ctl_json_null(&r->j, "filter");
		else
			ctl_json_string(&r->j, "filter", expr);
		ctl_json_end_object(&r->j);
	} else {
		ctl_put_text(r->out, argv[0]);
		fputs(": ", r->out);
		ctl_put_text(r->out, argv[1]);
		if (clear) {
			fputs(": filter cleared\n", r->out);
		} else {
			fputs(": filter ", r->out);
			ctl_put_text(r->out, expr);
			fputs(" requested\n", r->out);
		}
	}
	return 0;
}

/* `hist VM [NAME] --clear|--remove` (spec 17) */
static int hist_clear(struct ctl_req *r, struct gr_vm *vm, const char *vmn,
		      const char *name, bool remove)
{
	char err[512] = "";
	int ret;

	ret = vm_clear_hist(vm, name, remove, err, sizeof(err));
	if (ret)
		return vm_err(r, ret, err, "clear a hist request of", vmn);
	if (r->json) {
		ctl_json_begin_object(&r->j, NULL);
		ctl_json_string(&r->j, "vm", vmn);
		ctl_json_string(&r->j, "hist", name);
		ctl_json_bool(&r->j, remove ? "removed" : "cleared", true);
		ctl_json_end_object(&r->j);
		return 0;
	}
	ctl_put_text(r->out, vmn);
	fputs(name ? ": hist " : ": every hist request", r->out);
	ctl_put_text(r->out, name);
	fputs(remove ? " removed\n" : " cleared (counting from 0)\n", r->out);
	return 0;
}

/* `hist VM EVENT SPEC [--filter EXPR]`, `hist VM --latency PRESET` */
static int hist_set(struct ctl_req *r, struct gr_vm *vm, const char *vmn,
		    const char *event, const char *text, const char *filter,
		    const char *latency)
{
	struct gr_vm_hist h;
	char err[2048] = "";
	int ret;

	memset(&h, 0, sizeof(h));
	if ((event && strlen(event) >= sizeof(h.event)) ||
	    (text && strlen(text) >= sizeof(h.text)) ||
	    (filter && strlen(filter) >= sizeof(h.filter)) ||
	    (latency && strlen(latency) >= sizeof(h.latency)))
		return req_err(r, -EINVAL, "hist: event, request, filter or "
			       "preset too long");
	if (filter)
		strcpy(h.filter, filter);
	if (latency) {
		strcpy(h.latency, latency);
	} else {
		strcpy(h.event, event);
		strcpy(h.text, text);
	}
	ret = vm_set_hist(vm, &h, err, sizeof(err));
	if (ret)
		return vm_err(r, ret, err, "set a hist request in", vmn);
	if (r->json) {
		ctl_json_begin_object(&r->j, NULL);
		ctl_json_string(&r->j, "vm", vmn);
		ctl_json_string(&r->j, "hist", h.name);
		ctl_json_string(&r->j, "event", latency ? NULL : event);
		ctl_json_string(&r->j, "latency", latency);
		ctl_json_string(&r->j, "request", latency ? NULL : text);
		ctl_json_string(&r->j, "filter", filter);
		ctl_json_end_object(&r->j);
		return 0;
	}
	ctl_put_text(r->out, vmn);
	fputs(": hist ", r->out);
	ctl_put_text(r->out, h.name);
	fputs(" requested (guestrelay hist ", r->out);
	ctl_put_text(r->out, vmn);
	fputc(' ', r->out);
	ctl_put_text(r->out, h.name);
	fputs(" reads it)\n", r->out);
	return 0;
}

/* `hist VM [NAME]`: the tables, as ftrace's hist file (hist_out.c) */
static int hist_show(struct ctl_req *r, struct gr_vm *vm, const char *vmn,
		     const char *name)
{
	struct gr_vm_hist_out *o;
	int i, n;

	o = calloc(GR_HIST_REQS, sizeof(*o));
	if (!o)
		return req_err(r, -ENOMEM, CTL_MSG_NOMEM);
	n = vm_hist_read(vm, name, o, GR_HIST_REQS);
	if (n < 0) {
		free(o);
		return req_err(r, n, "%s has no hist request '%s' (guestrelay "
			       "hist %s lists them)", vmn, name, vmn);
	}
	for (i = 0; i < n; i++)
		ctl_hist_sort(&o[i]);
	if (r->json)
		ctl_hist_json(&r->j, vmn, o, (unsigned int)n);
	else if (!n)
		fprintf(r->out, "%s: no hist requests (guestrelay hist %s "
			"EVENT 'keys=FIELD' sets one)\n", vmn, vmn);
	else
		ctl_hist_text(r->out, o, (unsigned int)n);
	vm_hist_out_free(o, (unsigned int)n);
	free(o);
	return 0;
}

/*
 * `hist VM EVENT SPEC [--filter EXPR]`, `hist VM --latency PRESET`,
 * `hist VM [NAME] --clear|--remove` and `hist VM [NAME]` (spec 17)
 */
static int cmd_hist(struct ctl_req *r, struct gr_vm *vm, int argc,
		    char **argv)
{
	const char *filter = NULL, *latency = NULL, *pos[2] = { NULL, NULL };
	bool clear = false, remove = false;
	int i, npos = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--filter") ||
		    !strcmp(argv[i], "--latency")) {
			if (i + 1 == argc)
				return req_err(r, -EINVAL, "%s needs a value",
					       argv[i]);
			if (argv[i][2] == 'f')
				filter = argv[i + 1];
			else
				latency = argv[i + 1];
			i++;
		} else if (!strcmp(argv[i], "--clear")) {
			clear = true;
		} else if (!strcmp(argv[i], "--remove")) {
			remove = true;
		} else if (!strncmp(argv[i], "--", 2)) {
			return req_err(r, -EINVAL, "hist takes --filter, "
				       "--latency, --clear or --remove, not "
				       "'%s'", argv[i]);
		} else if (npos == 2) {
			return req_err(r, -EINVAL, "usage: guestrelay %s",
				       CTL_HIST_USAGE);
		} else {
			pos[npos++] = argv[i];
		}
	}
	if (clear || remove) {
		if ((clear && remove) || filter || latency || npos > 1)
			return req_err(r, -EINVAL, "hist VM [NAME] --clear or "
				       "--remove takes nothing else");
		return hist_clear(r, vm, argv[0], pos[0], remove);
	}
	if (latency && npos)
		return req_err(r, -EINVAL, "hist VM --latency PRESET takes "
			       "no EVENT or request");
	if (latency || npos == 2)
		return hist_set(r, vm, argv[0], pos[0], pos[1], filter,
				latency);
	if (filter)
		return req_err(r, -EINVAL, "--filter goes with EVENT "
			       "'keys=...'");
	return hist_show(r, vm, argv[0], pos[0]);
}

static int cmd_mode(struct ctl_req *r, struct gr_vm *vm, int argc,
		    char **argv)
{
	char err[512] = "";
	uint32_t mode;
	int ret = 0;

	(void)argc;
	if (ctl_parse_mode(argv[1], &mode))
		return req_err(r, -EINVAL, "mode is stream or flight, not "
			       "'%s'", argv[1]);
	ret = vm_set_mode(vm, mode, err, sizeof(err));
	if (ret)
		return vm_err(r, ret, err, "change the mode of", argv[0]);
	if (r->json) {
		ctl_json_begin_object(&r->j, NULL);
		ctl_json_string(&r->j, "vm", argv[0]);
		ctl_json_string(&r->j, "mode", argv[1]);
		ctl_json_end_object(&r->j);
	} else {
		ctl_put_text(r->out, argv[0]);
		fprintf(r->out, ": mode %s requested\n", argv[1]);
	}
	return 0;
}

static void async_done(void *arg, int err, const char *msg);

static int cmd_async(struct ctl_req *r, struct gr_vm *vm, int argc,
		     char **argv)
{
	struct ctl_reply *rp = r->reply;
	int ret = 0;

	(void)argc;
	strcpy(rp->vm, argv[0]);
	ctl_reply_defer(rp);
	if (!strcmp(r->cmd, "flush"))
		ret = vm_flush(vm, async_done, rp);
	else if (!strcmp(r->cmd, "snapshot"))
		ret = vm_snapshot(vm, async_done, rp);
	else if (!strcmp(r->cmd, "rotate"))
		ret = vm_rotate(vm, async_done, rp);
	else
		ret = vm_stop(vm, async_done, rp);
	if (!ret || !ctl_reply_deferred(rp))
		return CTL_ASYNC;	/* answered by async_done() */
	ctl_reply_undefer(rp);
	if (ret == -ENOTCONN && vm_state(vm) == GR_VM_STOPPED)
		return req_err(r, ret, "%s is stopped (guestrelay start %s "
			       "opens a new session)", argv[0], argv[0]);
	if (ret == -ENOTCONN)
		return req_err(r, ret, "%s has no guest attached (guestrelay "
			       "status %s shows its state)", argv[0], argv[0]);
	if (ret == -EOPNOTSUPP)
		return req_err(r, ret, "%s's session is not kept in chunks "
			       "(vm-add --rotate-size, --rotate-interval, "
			       "--keep-chunks or --keep-bytes, from its next "
			       "session)", argv[0]);
	if (ret == -EBUSY && !strcmp(r->cmd, "rotate"))
		return req_err(r, ret, "a rotation of %s is under way",
			       argv[0]);
	if (ret == -EBUSY)
		return req_err(r, ret, "%s is busy with another flush, "
			       "snapshot or stop; try again when it is done",
			       argv[0]);
	return req_err(r, ret, "cannot %s %s: %s", r->cmd, argv[0],
		       strerror(-ret));
}

/* the answer of flush, snapshot or stop, when the VM calls back */
static void async_fill(struct ctl_reply *rp, FILE *f, struct ctl_json *j,
		       const void *ctx)
{
	const char *msg = ctx;

	if (j) {
		ctl_json_begin_object(j, NULL);
		ctl_json_string(j, "vm", rp->vm);
		if (!strcmp(rp->cmd, "flush")) {
			ctl_json_bool(j, "flushed", true);
			ctl_json_string(j, "trace", msg);
		} else {
			ctl_json_string(j, !strcmp(rp->cmd, "rotate") ? "chunk" :
					strcmp(rp->cmd, "stop") ? "snapshot" :
					"trace", msg);
		}
		ctl_json_end_object(j);
	} else if (!strcmp(rp->cmd, "flush") || !msg) {
		ctl_put_text(f, rp->vm);
		fprintf(f, ": %s done\n", rp->cmd);
	} else {
		ctl_put_text(f, msg);
		fputc('\n', f);
	}
}

static void async_done(void *arg, int err, const char *msg)
{
	reply_later(arg, err, msg, async_fill, msg);
}

static int cmd_start(struct ctl_req *r, struct gr_vm *vm, int argc,
		     char **argv)
{
	struct gr_vm_info *info;
	char err[512] = "";
	int ret = 0;

	(void)argc;
	ret = vm_start(vm, err, sizeof(err));
	if (ret)
		return vm_err(r, ret, err, "start a session of", argv[0]);
	info = calloc(1, sizeof(*info));
	if (!info)
		return req_err(r, -ENOMEM, CTL_MSG_NOMEM);
	vm_get_info(vm, info);
	info->session[sizeof(info->session) - 1] = '\0';
	if (r->json) {
		ctl_json_begin_object(&r->j, NULL);
		ctl_json_string(&r->j, "vm", argv[0]);
		ctl_json_string(&r->j, "session",
				info->session[0] ? info->session : NULL);
		ctl_json_end_object(&r->j);
	} else if (info->session[0]) {
		ctl_put_text(r->out, info->session);
		fputc('\n', r->out);
	} else {
		ctl_put_text(r->out, argv[0]);
		fputs(": started; the session opens when the guest publishes "
		      "its buffers\n", r->out);
	}
	free(info);
	return 0;
}

static int cmd_vm_add(struct ctl_req *r, struct gr_vm *vm, int argc,
		      char **argv)
{
	char err[512] = "", size[32], rundir[PATH_MAX + 16] = "";
	char hint[PATH_MAX + 128];
	struct gr_vm_opts o;
	int ret;

	ret = ctl_parse_vm_add(&o, argc, argv, 0, err, sizeof(err));
	if (ret)
		return req_err(r, ret, "%s", err);
	if (vm_find(r->a, o.name))
		return req_err(r, -EEXIST, "a VM named '%s' exists already "
			       "(guestrelay vm-remove %s first)", o.name,
			       o.name);
	ret = vm_add(r->a, &o, &vm, err, sizeof(err));
	if (ret)
		return vm_err(r, ret, err, "add", o.name);
	if (!o.shm_size)
		o.shm_size = GR_DEFAULT_SHM_SIZE;
	if (strcmp(r->a->run_dir, GR_DEFAULT_RUN_DIR))
		snprintf(rundir, sizeof(rundir), " --run-dir %s",
			 r->a->run_dir);
	if (r->json) {
		ctl_json_begin_object(&r->j, NULL);
		ctl_json_string(&r->j, "vm", o.name);
		ctl_json_string(&r->j, "device",
				o.plain ? "plain" : "doorbell");
		ctl_json_u64(&r->j, "size", o.shm_size);
		ctl_json_string(&r->j, "mode", ctl_mode_name(o.mode));
		ctl_json_end_object(&r->j);
		return 0;
	}
	ctl_human_bytes(size, sizeof(size), (double)o.shm_size, "");
	if (o.plain)
		snprintf(hint, sizeof(hint), "%s --plain --size %" PRIu64 "%s",
			 o.name, o.shm_size, rundir);
	else
		snprintf(hint, sizeof(hint), "%s%s", o.name, rundir);
	fprintf(r->out, "%s added: %s device, %s of shared memory, %s mode\n"
		"attach it to QEMU with:  guestrelay qemu-args %s\n"
		"or to libvirt with:      guestrelay libvirt-xml %s\n",
		o.name, o.plain ? "plain" : "doorbell", size,
		ctl_mode_name(o.mode), hint, hint);
	return 0;
}

static int cmd_vm_remove(struct ctl_req *r, struct gr_vm *vm, int argc,
			 char **argv)
{
	(void)argc;
	vm_remove(vm);
	if (r->json) {
		ctl_json_begin_object(&r->j, NULL);
		ctl_json_string(&r->j, "vm", argv[0]);
		ctl_json_bool(&r->j, "removed", true);
		ctl_json_end_object(&r->j);
	} else {
		fprintf(r->out, "%s removed\n", argv[0]);
	}
	return 0;
}

/**
 * struct ctl_cmd - one command
 * @name: the command word
 * @min_args: fewest arguments
 * @max_args: most arguments
 * @vm: the first argument, when given, names a VM that must exist; @run
 *	gets it (else NULL)
 * @run: does it; 0, CTL_ASYNC or -errno with the request's message set
 * @usage: for the usage error
 */
static const struct ctl_cmd {
	const char *name;
	int min_args, max_args;
	bool vm;
	int (*run)(struct ctl_req *r, struct gr_vm *vm, int argc,
		   char **argv);
	const char *usage;
} ctl_cmds[] = {
	{ "ping", 0, 0, false, cmd_ping, "ping" },
	{ "status", 0, 1, true, cmd_status, "status [VM]" },
	{ "enable", 2, CTL_MAX_ARGS, true, cmd_events,
	  "enable VM EVENT... [--filter EXPR] [--pid LIST] [--comm GLOB] "
	  "[--no-fork]" },
	{ "disable", 2, CTL_MAX_ARGS, true, cmd_events,
	  "disable VM EVENT..." },
	{ "events", 1, 2, true, cmd_names, "events VM [GLOB]" },
	{ "probe", 1, 2, true, cmd_probe,
	  "probe VM ['p:NAME SYMBOL [FETCHARG...]' | -:NAME | --delete-all]" },
	{ "mode", 2, 2, true, cmd_mode, "mode VM stream|flight" },
	{ "filter", 2, 7, true, cmd_filter, "filter VM EVENT EXPR|--clear, "
	  "filter VM --pid LIST [--comm GLOB] [--no-fork] | --clear" },
	{ "hist", 1, CTL_MAX_ARGS, true, cmd_hist, CTL_HIST_USAGE },
	{ "flush", 1, 1, true, cmd_async, "flush VM" },
	{ "snapshot", 1, 1, true, cmd_async, "snapshot VM" },
	{ "stop", 1, 1, true, cmd_async, "stop VM" },
	{ "rotate", 1, 1, true, cmd_async, "rotate VM" },
	{ "start", 1, 1, true, cmd_start, "start VM" },
	{ "vm-add", 1, CTL_MAX_ARGS, false, cmd_vm_add,
	  "vm-add VM [OPTION...]" },
	{ "vm-remove", 1, 1, true, cmd_vm_remove, "vm-remove VM" },
};

int ctl_run_request(struct ctl_req *r, char *line, size_t len)
{
	char *argv[CTL_MAX_ARGS + 2];
	const struct ctl_cmd *cmd = NULL;
	struct gr_vm *vm = NULL;
	int argc = 0, ret = 0;
	size_t i;

	ret = ctl_split_request(line, len, argv, &argc, r->msg,
				sizeof(r->msg));
	if (ret)
		return ret;
	if (!strcmp(argv[0], "json"))
		r->json = true;
	else if (strcmp(argv[0], "text"))
		return req_err(r, -EINVAL, "unknown format '%s' (text or "
			       "json); a request is: FORMAT COMMAND ARGS...",
			       argv[0]);
	r->reply->json = r->json;
	if (argc < 2)
		return req_err(r, -EINVAL, "no command after '%s'", argv[0]);
	for (i = 0; i < ARRAY_SIZE(ctl_cmds) && !cmd; i++)
		if (!strcmp(argv[1], ctl_cmds[i].name))
			cmd = &ctl_cmds[i];
	if (!cmd)
		return req_err(r, -EINVAL, "unknown command '%s' (guestrelay "
			       "help lists them)", argv[1]);
	if (argc - 2 < cmd->min_args || argc - 2 > cmd->max_args)
		return req_err(r, -EINVAL, "usage: guestrelay %s", cmd->usage);
	r->cmd = cmd->name;
	r->reply->cmd = cmd->name;
	if (cmd->vm && argc > 2) {
		vm = req_vm(r, argv[2], &ret);
		if (!vm)
			return ret;
	}
	if (r->json)
		ctl_json_init(&r->j, r->out);
	ret = cmd->run(r, vm, argc - 2, argv + 2);
	if (!ret && r->json && ctl_json_finish(&r->j))
		return req_err(r, -EIO, "internal error writing JSON");
	return ret;
}

