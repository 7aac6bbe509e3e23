// SPDX-License-Identifier: GPL-2.0
/*
 * opts.c - the one parser of a VM's options (opts.h): VM names, sizes,
 * modes and every option of `vm-add`, for the CLI, the agent's --vm, the
 * server and the libvirt hook and metadata; and the canonical request
 * form of parsed options.
 */
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "agent.h"
#include "ctl_proto.h"
#include "opts.h"
#include "shm.h"

void ctl_set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

int ctl_check_vm_name(const char *name, char *err, size_t errlen)
{
	if (!name || !*name) {
		ctl_set_err(err, errlen, "a VM name is needed");
		return -EINVAL;
	}
	if (strlen(name) >= GR_VM_NAME_MAX) {
		ctl_set_err(err, errlen, "VM name too long (at most %d bytes)",
			GR_VM_NAME_MAX - 1);
		return -EINVAL;
	}
	if (ivsh_shm_check_name(name)) {
		ctl_set_err(err, errlen, "bad VM name (use letters, digits, '_', "
			"'.' and '-', not starting with a dot)");
		return -EINVAL;
	}
	return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

int ctl_parse_size(const char *s, uint64_t *out)
{
	static const char units[] = "KMGT";
	char digits[24];
	const char *p = s, *u;
	unsigned int shift = 0;
	uint64_t v;
	size_t n;
	int ret;

	while (*p >= '0' && *p <= '9')
		p++;
	n = (size_t)(p - s);
	if (!n || n >= sizeof(digits))
		return n ? -ERANGE : -EINVAL;
	memcpy(digits, s, n);
	digits[n] = '\0';
	ret = parse_u64(digits, &v);
	if (ret)
		return ret;
	if (*p) {
		u = strchr(units, toupper((unsigned char)*p));
		if (!u)
			return -EINVAL;
		shift = 10 * (unsigned int)(u - units + 1);
		p++;
		if (!strcmp(p, "iB") || !strcmp(p, "B"))
			p += strlen(p);
		if (*p)
			return -EINVAL;
	}
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = v << shift;
	return 0;
}

int ctl_parse_mode(const char *s, uint32_t *mode)
{
	if (!strcmp(s, "stream"))
		*mode = GR_MODE_STREAM;
	else if (!strcmp(s, "flight"))
		*mode = GR_MODE_FLIGHT;
	else
		return -EINVAL;
	return 0;
}

const char *ctl_mode_name(uint32_t mode)
{
	switch (mode) {
	case GR_MODE_STREAM:
		return "stream";
	case GR_MODE_FLIGHT:
		return "flight";
	}
	return "unknown";
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* USER[:GROUP]; names only with CTL_OPTS_NAMES */
static int parse_owner(struct gr_vm_opts *o, const char *s,
		       unsigned int flags, char *err, size_t errlen)
{
	char user[256], *group;
	struct passwd *pw = NULL;
	struct group *gr;
	uint64_t v;

	if (strlen(s) >= sizeof(user) || !*s || *s == ':')
		goto bad;
	strcpy(user, s);
	group = strchr(user, ':');
	if (group)
		*group++ = '\0';
	if (!parse_u64(user, &v)) {
		if (v >= UINT32_MAX)
			goto bad;
		o->uid = (uint32_t)v;
		if (!group && (flags & CTL_OPTS_NAMES))
			pw = getpwuid(o->uid);
	} else if (flags & CTL_OPTS_NAMES) {
		pw = getpwnam(user);
		if (!pw) {
			ctl_set_err(err, errlen, "--owner: no user named '%s'",
				user);
			return -EINVAL;
		}
		o->uid = pw->pw_uid;
	} else {
		goto bad;
	}
	o->gid = pw ? pw->pw_gid : (uint32_t)-1;
	if (group) {
		if (!parse_u64(group, &v) && v < UINT32_MAX) {
			o->gid = (uint32_t)v;
		} else if ((flags & CTL_OPTS_NAMES) && *group &&
			   parse_u64(group, &v)) {
			gr = getgrnam(group);
			if (!gr) {
				ctl_set_err(err, errlen,
					"--owner: no group named '%s'", group);
				return -EINVAL;
			}
			o->gid = gr->gr_gid;
		} else {
			goto bad;
		}
	}
	o->own = true;
	return 0;
bad:
	ctl_set_err(err, errlen, "--owner wants %s, not '%s'",
		(flags & CTL_OPTS_NAMES) ? "USER[:GROUP]" : "UID[:GID]", s);
	return -EINVAL;
}

enum {
	OPT_SIZE, OPT_PLAIN, OPT_MODE, OPT_EVENTS, OPT_SUBBUF_SIZE,
	OPT_SUBBUFS, OPT_SWITCH_TIMER, OPT_QUOTA, OPT_OWNER, OPT_VERIFY,
	OPT_IO,
	OPT_FILTER, OPT_PID, OPT_COMM, OPT_NO_FORK,
	OPT_ROTATE_SIZE, OPT_ROTATE_INTERVAL, OPT_KEEP_CHUNKS, OPT_KEEP_BYTES,
	OPT_HIST, OPT_HIST_LATENCY, OPT_PROBE, OPT_HOST_STREAM,
};

static const struct {
	const char *name;
	bool has_arg;
} vm_add_opts[] = {
	[OPT_SIZE] = { "--size", true },
	[OPT_PLAIN] = { "--plain", false },
	[OPT_MODE] = { "--mode", true },
	[OPT_EVENTS] = { "--events", true },
	[OPT_SUBBUF_SIZE] = { "--subbuf-size", true },
	[OPT_SUBBUFS] = { "--subbufs", true },
	[OPT_SWITCH_TIMER] = { "--switch-timer-ms", true },
	[OPT_QUOTA] = { "--quota", true },
	[OPT_OWNER] = { "--owner", true },
	[OPT_VERIFY] = { "--verify", true },
	[OPT_IO] = { "--io", true },
	[OPT_FILTER] = { "--filter", true },
	[OPT_PID] = { "--pid", true },
	[OPT_COMM] = { "--comm", true },
	[OPT_NO_FORK] = { "--no-fork", false },
	[OPT_ROTATE_SIZE] = { "--rotate-size", true },
	[OPT_ROTATE_INTERVAL] = { "--rotate-interval", true },
	[OPT_KEEP_CHUNKS] = { "--keep-chunks", true },
	[OPT_KEEP_BYTES] = { "--keep-bytes", true },
	[OPT_HIST] = { "--hist", true },
	[OPT_HIST_LATENCY] = { "--hist-latency", true },
	[OPT_PROBE] = { "--probe", true },
	[OPT_HOST_STREAM] = { "--host-stream", true },
};

/*
 * --probe 'p:NAME SYMBOL [FETCHARG...]' (spec 18.4), at most 16: the
 * agent checks the head and defines it when the guest attaches
 */
static int parse_probe(struct gr_vm_opts *o, const char *val, char *err,
		       size_t errlen)
{
	unsigned int i;
	const char *p;

	for (p = val; *p; p++)
		if (*p < ' ' || *p >= 0x7f)
			break;
	if (*p || (val[0] != 'p' && val[0] != 'r') || !strchr(val, ':') ||
	    strlen(val) >= sizeof(o->probes[0])) {
		ctl_set_err(err, errlen, "--probe wants a kprobe_events "
			"definition 'p:NAME SYMBOL [FETCHARG...]' or 'r:NAME "
			"...' of printable ASCII, at most %zu bytes",
			sizeof(o->probes[0]) - 1);
		return -EINVAL;
	}
	for (i = 0; i < GR_PROBE_MAX && o->probes[i][0]; i++)
		;
	if (i == GR_PROBE_MAX) {
		ctl_set_err(err, errlen, "--probe: at most %d probes",
			GR_PROBE_MAX);
		return -EINVAL;
	}
	strcpy(o->probes[i], val);
	return 0;
}

/*
 * --filter EVENT:EXPR (spec 14.6), once per event: the expression is
 * compiled against the event when the guest publishes it.
 */
static int parse_filter(struct gr_vm_opts *o, const char *val, char *err,
			size_t errlen)
{
	const char *colon = strchr(val, ':');
	size_t n = colon ? (size_t)(colon - val) : 0;
	unsigned int i, spare = GR_FILTER_SLOTS;

	if (!n || n >= sizeof(o->filters[0].event) || !colon[1]) {
		ctl_set_err(err, errlen, "--filter wants EVENT:EXPRESSION, "
			"e.g. 'sched_switch:prev_tid == 42', not '%s'", val);
		return -EINVAL;
	}
	if (strlen(colon + 1) >= sizeof(o->filters[0].expr)) {
		ctl_set_err(err, errlen, "--filter: expression longer than "
			"%zu bytes", sizeof(o->filters[0].expr) - 1);
		return -EINVAL;
	}
	for (i = 0; i < GR_FILTER_SLOTS; i++) {
		if (!strncmp(o->filters[i].event, val, n) &&
		    !o->filters[i].event[n]) {
			ctl_set_err(err, errlen, "--filter: two filters for "
				"%.*s; join them with && or ||", (int)n, val);
			return -EINVAL;
		}
		if (!o->filters[i].event[0] && spare == GR_FILTER_SLOTS)
			spare = i;
	}
	if (spare == GR_FILTER_SLOTS) {
		ctl_set_err(err, errlen, "--filter: at most %d events carry "
			"a filter", GR_FILTER_SLOTS);
		return -EINVAL;
	}
	memcpy(o->filters[spare].event, val, n);
	o->filters[spare].event[n] = '\0';
	strcpy(o->filters[spare].expr, colon + 1);
	return 0;
}

/* The first @n bytes of @val name a latency preset of spec 17.5 */
static bool hist_preset_known(const char *val, size_t n)
{
	static const char *const presets[] = { "runq", "syscall", "block",
					       "irq" };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(presets); i++)
		if (strlen(presets[i]) == n && !strncmp(val, presets[i], n))
			return true;
	return false;
}

/*
 * --hist 'EVENT:keys=...[ if FILTER]' and --hist-latency 'PRESET[ if
 * FILTER]' (spec 17),
 * once per table: compiled against the event when the guest publishes
 * it. A second request of the same table name is refused.
 */
static int parse_hist(struct gr_vm_opts *o, const char *val, bool latency,
		      char *err, size_t errlen)
{
	const char *colon = strchr(val, ':'), *cond;
	struct gr_vm_hist h;
	unsigned int i, spare = GR_HIST_REQS;
	size_t n = colon ? (size_t)(colon - val) : 0, tlen;

	memset(&h, 0, sizeof(h));
	if (latency) {
		/* PRESET[ if FILTER]: the filter runs on the end event */
		cond = strstr(val, " if ");
		n = cond ? (size_t)(cond - val) : strlen(val);
		if (n >= sizeof(h.latency) || !hist_preset_known(val, n) ||
		    (cond && !cond[4])) {
			ctl_set_err(err, errlen, "--hist-latency is runq, "
				"syscall, block or irq[ if FILTER], not '%s'",
				val);
			return -EINVAL;
		}
		if (cond && strlen(cond + 4) >= sizeof(h.filter)) {
			ctl_set_err(err, errlen, "--hist-latency: filter too "
				"long");
			return -EINVAL;
		}
		memcpy(h.latency, val, n);
		if (cond)
			strcpy(h.filter, cond + 4);
	} else {
		if (!n || n >= sizeof(h.event) || !colon[1]) {
			ctl_set_err(err, errlen, "--hist wants EVENT:keys=..."
				"[ if FILTER], e.g. 'sched_switch:keys="
				"prev_pid', not '%s'", val);
			return -EINVAL;
		}
		cond = strstr(colon + 1, " if ");
		tlen = cond ? (size_t)(cond - colon - 1) : strlen(colon + 1);
		if (tlen >= sizeof(h.text) ||
		    (cond && strlen(cond + 4) >= sizeof(h.filter))) {
			ctl_set_err(err, errlen, "--hist: request or filter "
				"too long");
			return -EINVAL;
		}
		memcpy(h.event, val, n);
		memcpy(h.text, colon + 1, tlen);
		if (cond)
			strcpy(h.filter, cond + 4);
	}
	gr_vm_hist_name(&h, h.name, sizeof(h.name));
	if (!h.name[0]) {
		ctl_set_err(err, errlen, "--hist: a table needs a name");
		return -EINVAL;
	}
	for (i = 0; i < GR_HIST_REQS; i++) {
		if (!strcmp(o->hists[i].name, h.name)) {
			ctl_set_err(err, errlen, "--hist: two tables named "
				"'%s' (name= tells them apart)", h.name);
			return -EINVAL;
		}
		if (!o->hists[i].name[0] && spare == GR_HIST_REQS)
			spare = i;
	}
	if (spare == GR_HIST_REQS) {
		ctl_set_err(err, errlen, "--hist: at most %d tables per VM",
			GR_HIST_REQS);
		return -EINVAL;
	}
	o->hists[spare] = h;
	return 0;
}

static int vm_add_opt(struct gr_vm_opts *o, int opt, const char *val,
		      unsigned int flags, char *err, size_t errlen)
{
	const char *name = vm_add_opts[opt].name;
	uint64_t v;

	switch (opt) {
	case OPT_SIZE:
		/* spec H1: the region is a power of two (QEMU asserts it) */
		if (ctl_parse_size(val, &v) || ivsh_shm_check_size(v))
			goto bad_size;
		o->shm_size = v;
		return 0;
	case OPT_PLAIN:
		o->plain = true;
		return 0;
	case OPT_MODE:
		if (ctl_parse_mode(val, &o->mode)) {
			ctl_set_err(err, errlen, "--mode is stream or flight, "
				"not '%s'", val);
			return -EINVAL;
		}
		return 0;
	case OPT_PROBE:
		return parse_probe(o, val, err, errlen);
	case OPT_EVENTS:
		if (strlen(val) >= sizeof(o->events)) {
			ctl_set_err(err, errlen, "--events: list too long (at "
				"most %zu bytes)", sizeof(o->events) - 1);
			return -EINVAL;
		}
		strcpy(o->events, val);
		return 0;
	case OPT_SUBBUF_SIZE:
		/* a wish the guest's header must then meet (spec H3) */
		if (ctl_parse_size(val, &v) || !is_pow2(v) ||
		    v < GR_MIN_SUBBUF_SIZE || v > GR_MAX_SUBBUF_SIZE) {
			ctl_set_err(err, errlen, "--subbuf-size must be a power "
				"of two from 4K to 16M, not '%s'", val);
			return -EINVAL;
		}
		o->subbuf_size = (uint32_t)v;
		return 0;
	case OPT_SUBBUFS:
		if (parse_u64(val, &v) || v < GR_MIN_SUBBUFS ||
		    v > GR_MAX_SUBBUFS) {
			ctl_set_err(err, errlen, "--subbufs must be a number from "
				"%d to %d, not '%s'", GR_MIN_SUBBUFS,
				GR_MAX_SUBBUFS, val);
			return -EINVAL;
		}
		o->n_subbufs = (uint32_t)v;
		return 0;
	case OPT_SWITCH_TIMER:
		if (parse_u64(val, &v) || v > CTL_SWITCH_TIMER_MS_MAX) {
			ctl_set_err(err, errlen, "--switch-timer-ms must be a "
				"number from 0 (off) to %d, not '%s'",
				CTL_SWITCH_TIMER_MS_MAX, val);
			return -EINVAL;
		}
		o->switch_timer_us = (uint32_t)v * 1000;
		return 0;
	case OPT_QUOTA:
		if (ctl_parse_size(val, &v)) {
			ctl_set_err(err, errlen, "--quota wants bytes, e.g. 500M "
				"or 2G (0 = none), not '%s'", val);
			return -EINVAL;
		}
		o->quota = v;
		return 0;
	case OPT_ROTATE_SIZE:
	case OPT_KEEP_BYTES:
		if (ctl_parse_size(val, &v)) {
			ctl_set_err(err, errlen, "%s wants bytes, e.g. 100M "
				"(0 = none), not '%s'", name, val);
			return -EINVAL;
		}
		*(opt == OPT_KEEP_BYTES ? &o->keep_bytes : &o->rotate_size) = v;
		return 0;
	case OPT_ROTATE_INTERVAL:
	case OPT_KEEP_CHUNKS:
		if (parse_u64(val, &v) || v > CTL_ROTATE_MAX) {
			ctl_set_err(err, errlen, "%s must be a number from 0 "
				"(none) to %d, not '%s'", name, CTL_ROTATE_MAX,
				val);
			return -EINVAL;
		}
		*(opt == OPT_KEEP_CHUNKS ? &o->keep_chunks :
		  &o->rotate_interval_s) = (uint32_t)v;
		return 0;
	case OPT_OWNER:
		return parse_owner(o, val, flags, err, errlen);
	case OPT_VERIFY:
		/* spec H24: verify mode is per VM, on by default */
		if (!strcmp(val, "on")) {
			o->verify = GR_VERIFY_ON;
		} else if (!strcmp(val, "off")) {
			o->verify = GR_VERIFY_OFF;
		} else if (!strcmp(val, "stored")) {
			o->verify = GR_VERIFY_STORED;
		} else {
			ctl_set_err(err, errlen, "--verify is on, off or stored, not '%s'",
				val);
			return -EINVAL;
		}
		return 0;
	case OPT_HOST_STREAM:
		/* on by default: the host stream beside the guest's trace */
		if (strcmp(val, "on") && strcmp(val, "off")) {
			ctl_set_err(err, errlen, "--host-stream is on or off, not '%s'",
				val);
			return -EINVAL;
		}
		o->no_host_stream = !strcmp(val, "off");
		return 0;
	case OPT_IO:
		/* how packets are written: registered buffers or writev */
		if (strcmp(val, "fixed") && strcmp(val, "writev")) {
			ctl_set_err(err, errlen, "--io is fixed or writev, not '%s'",
				val);
			return -EINVAL;
		}
		o->io_writev = !strcmp(val, "writev");
		return 0;
	case OPT_FILTER:
		return parse_filter(o, val, err, errlen);
	case OPT_HIST:
	case OPT_HIST_LATENCY:
		return parse_hist(o, val, opt == OPT_HIST_LATENCY, err,
				  errlen);
	case OPT_PID:
		/* spec 15: the follow filter */
		return gr_fx_follow_pids(&o->follow, val, err, errlen);
	case OPT_COMM:
		return gr_fx_follow_comm(&o->follow, val, err, errlen);
	case OPT_NO_FORK:
		o->follow.flags = GR_FOLLOW_F_ON;
		return 0;
	}
	ctl_set_err(err, errlen, "%s: internal error", name);
	return -EINVAL;
bad_size:
	ctl_set_err(err, errlen, "--size must be a power of two from 64K to 1T "
		"(e.g. 16M), not '%s'", val);
	return -EINVAL;
}

/* the index of @arg ("--name" or "--name=value") in vm_add_opts, or -1 */
static int vm_opt_find(const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t n, len = eq ? (size_t)(eq - arg) : strlen(arg);

	for (n = 0; n < ARRAY_SIZE(vm_add_opts); n++)
		if (strlen(vm_add_opts[n].name) == len &&
		    !strncmp(arg, vm_add_opts[n].name, len))
			return (int)n;
	return -1;
}

int ctl_vm_opt_arity(const char *arg)
{
	int n = vm_opt_find(arg);

	if (n < 0)
		return -1;
	return vm_add_opts[n].has_arg && !strchr(arg, '=');
}

int ctl_parse_vm_add(struct gr_vm_opts *o, int argc, char **argv,
		     unsigned int flags, char *err, size_t errlen)
{
	const char *name = NULL, *val, *eq;
	int i, n, ret;

	memset(o, 0, sizeof(*o));
	o->mode = GR_MODE_STREAM;
	o->verify = GR_VERIFY_ON;
	o->io_writev = true;	/* measured cheaper than fixed (bench_host) */
	o->uid = (uint32_t)-1;
	o->gid = (uint32_t)-1;
	for (i = 0; i < argc; i++) {
		const char *arg = argv[i];

		if (arg[0] != '-' || !arg[1]) {
			if (name) {
				ctl_set_err(err, errlen, "one VM at a time: "
					"'%s' and '%s'", name, arg);
				return -EINVAL;
			}
			name = arg;
			continue;
		}
		eq = strchr(arg, '=');
		n = vm_opt_find(arg);
		if (n < 0) {
			ctl_set_err(err, errlen, "vm-add has no option '%.*s'",
				(int)(eq ? (size_t)(eq - arg) : strlen(arg)),
				arg);
			return -EINVAL;
		}
		if (!vm_add_opts[n].has_arg) {
			if (eq) {
				ctl_set_err(err, errlen, "%s takes no value",
					vm_add_opts[n].name);
				return -EINVAL;
			}
			val = NULL;
		} else if (eq) {
			val = eq + 1;
		} else if (i + 1 < argc) {
			val = argv[++i];
		} else {
			ctl_set_err(err, errlen, "%s needs a value",
				vm_add_opts[n].name);
			return -EINVAL;
		}
		ret = vm_add_opt(o, n, val, flags, err, errlen);
		if (ret)
			return ret;
	}
	if (!name) {
		ctl_set_err(err, errlen, "vm-add needs a VM name");
		return -EINVAL;
	}
	if (o->follow.flags && !o->follow.nr_pids && !o->follow.comm[0]) {
		ctl_set_err(err, errlen, "--no-fork goes with --pid or --comm");
		return -EINVAL;
	}
	ret = ctl_check_vm_name(name, err, errlen);
	if (ret)
		return ret;
	strcpy(o->name, name);
	return 0;
}

static void put_arg(FILE *f, const char *arg)
{
	fputc(' ', f);
	ctl_encode_arg(f, arg);
}

void ctl_vm_add_args(FILE *f, const struct gr_vm_opts *o)
{
	unsigned int i;

	put_arg(f, o->name);
	if (o->shm_size)
		fprintf(f, " --size %" PRIu64, o->shm_size);
	if (o->plain)
		fputs(" --plain", f);
	fprintf(f, " --mode %s", ctl_mode_name(o->mode));
	if (o->events[0]) {
		fputs(" --events", f);
		put_arg(f, o->events);
	}
	if (o->subbuf_size)
		fprintf(f, " --subbuf-size %" PRIu32, o->subbuf_size);
	if (o->n_subbufs)
		fprintf(f, " --subbufs %" PRIu32, o->n_subbufs);
	if (o->switch_timer_us)
		fprintf(f, " --switch-timer-ms %" PRIu32,
			o->switch_timer_us / 1000);
	if (o->quota)
		fprintf(f, " --quota %" PRIu64, o->quota);
	if (o->rotate_size)
		fprintf(f, " --rotate-size %" PRIu64, o->rotate_size);
	if (o->rotate_interval_s)
		fprintf(f, " --rotate-interval %" PRIu32, o->rotate_interval_s);
	if (o->keep_chunks)
		fprintf(f, " --keep-chunks %" PRIu32, o->keep_chunks);
	if (o->keep_bytes)
		fprintf(f, " --keep-bytes %" PRIu64, o->keep_bytes);
	if (o->verify != GR_VERIFY_ON)
		fprintf(f, " --verify %s", gr_verify_name(o->verify));
	if (!o->io_writev)
		fputs(" --io fixed", f);
	if (o->no_host_stream)
		fputs(" --host-stream off", f);
	for (i = 0; i < GR_FILTER_SLOTS; i++) {
		char arg[sizeof(o->filters[0].event) +
			 sizeof(o->filters[0].expr) + 1];

		if (!o->filters[i].event[0])
			continue;
		snprintf(arg, sizeof(arg), "%s:%s", o->filters[i].event,
			 o->filters[i].expr);
		fputs(" --filter", f);
		put_arg(f, arg);
	}
	for (i = 0; i < GR_PROBE_MAX && o->probes[i][0]; i++) {
		fputs(" --probe", f);
		put_arg(f, o->probes[i]);
	}
	for (i = 0; i < GR_HIST_REQS; i++) {
		const struct gr_vm_hist *h = &o->hists[i];
		char arg[sizeof(h->event) + sizeof(h->text) +
			 sizeof(h->filter) + 8];

		if (!h->name[0])
			continue;
		if (h->latency[0]) {
			snprintf(arg, sizeof(arg), "%s%s%s", h->latency,
				 h->filter[0] ? " if " : "", h->filter);
			fputs(" --hist-latency", f);
			put_arg(f, arg);
			continue;
		}
		snprintf(arg, sizeof(arg), "%s:%s%s%s", h->event, h->text,
			 h->filter[0] ? " if " : "", h->filter);
		fputs(" --hist", f);
		put_arg(f, arg);
	}
	if (o->follow.nr_pids) {
		char pids[sizeof(o->follow.pids) * 3];

		gr_fx_follow_pid_list(&o->follow, pids, sizeof(pids));
		fprintf(f, " --pid %s", pids);
	}
	if (o->follow.comm[0]) {
		fputs(" --comm", f);
		put_arg(f, o->follow.comm);
	}
	if (o->follow.flags && !(o->follow.flags & GR_FOLLOW_F_FORK))
		fputs(" --no-fork", f);
	if (o->own) {
		fprintf(f, " --owner %" PRIu32, o->uid);
		if (o->gid != (uint32_t)-1)
			fprintf(f, ":%" PRIu32, o->gid);
	}
}
