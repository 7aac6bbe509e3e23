// SPDX-License-Identifier: GPL-2.0
/*
 * ctl.c - the control socket of the guestrelay agent
 *
 * RUN_DIR/agent.sock serves the commands of cli.c (the protocol is in
 * ctl_proto.h). Everything runs on the agent's io_uring loop:
 *
 *   listening socket --poll--> accept4() every pending connection
 *                              SO_PEERCRED / SO_PEERGROUPS check
 *   connection       --poll--> recv() until LF (8 KiB, 5 s at most)
 *                              decode, run the command, answer, close
 *   async command    (flush, snapshot, stop) keeps the connection until
 *                    the VM calls back; a poll for POLLHUP meanwhile
 *                    notices a client that hung up (its fd is closed
 *                    then, but the object lives until the callback ran)
 *   deadline timer   one timeout op, armed for the oldest connection
 *                    still reading; it answers ETIMEDOUT and re-arms
 *
 * Responses are written synchronously, with SO_SNDTIMEO of 1 s on the
 * client socket and a 2 s bound per response: they are small (status of
 * a VM is about 1 KiB), the client is waiting for them, and only root,
 * the agent's user and the socket's group can connect at all. A client
 * that stops reading costs the loop at most 2 s and loses its answer.
 *
 * A connection object is freed only when its fd is closed, its poll op
 * has completed and no VM callback is pending (ctl_conn_put()).
 *
 * The first part of this file is shared with cli.c: argument encoding,
 * VM name, size and option parsing, and the JSON and text writers.
 */
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "ivshmem_server.h"
#include "ctl_proto.h"
#include "shm.h"

/* ======================================================================
 * Shared with cli.c
 * ====================================================================== */

static const char hexdig[] = "0123456789ABCDEF";

void ctl_encode_arg(FILE *f, const char *arg)
{
	const unsigned char *p;

	for (p = (const unsigned char *)arg; *p; p++) {
		if (*p > 0x20 && *p < 0x7f && *p != '%') {
			fputc(*p, f);
		} else {
			fputc('%', f);
			fputc(hexdig[*p >> 4], f);
			fputc(hexdig[*p & 15], f);
		}
	}
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int ctl_decode_arg(char *s)
{
	unsigned char *r = (unsigned char *)s, *w = r;
	int hi, lo;

	if (!*r)
		return -EINVAL;
	while (*r) {
		if (*r == '%') {
			hi = hexval(r[1]);
			lo = hi < 0 ? -1 : hexval(r[2]);
			if (lo < 0)
				return -EINVAL;
			*w = (unsigned char)(hi << 4 | lo);
			r += 3;
		} else if (*r > 0x20 && *r < 0x7f) {
			*w = *r++;
		} else {
			return -EINVAL;	/* should have been encoded */
		}
		if (*w < 0x20 || *w == 0x7f)
			return -EINVAL;
		w++;
	}
	*w = '\0';
	return 0;
}

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
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
		set_err(err, errlen, "a VM name is needed");
		return -EINVAL;
	}
	if (strlen(name) >= GR_VM_NAME_MAX) {
		set_err(err, errlen, "VM name too long (at most %d bytes)",
			GR_VM_NAME_MAX - 1);
		return -EINVAL;
	}
	if (ivsh_shm_check_name(name)) {
		set_err(err, errlen, "bad VM name (use letters, digits, '_', "
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
			set_err(err, errlen, "--owner: no user named '%s'",
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
				set_err(err, errlen,
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
	set_err(err, errlen, "--owner wants %s, not '%s'",
		(flags & CTL_OPTS_NAMES) ? "USER[:GROUP]" : "UID[:GID]", s);
	return -EINVAL;
}

enum {
	OPT_SIZE, OPT_PLAIN, OPT_MODE, OPT_EVENTS, OPT_SUBBUF_SIZE,
	OPT_SUBBUFS, OPT_SWITCH_TIMER, OPT_QUOTA, OPT_OWNER, OPT_VERIFY,
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
};

static int vm_add_opt(struct gr_vm_opts *o, int opt, const char *val,
		      unsigned int flags, char *err, size_t errlen)
{
	const char *name = vm_add_opts[opt].name;
	uint64_t v;

	switch (opt) {
	case OPT_SIZE:
		if (ctl_parse_size(val, &v) || ivsh_shm_check_size(v))
			goto bad_size;
		o->shm_size = v;
		return 0;
	case OPT_PLAIN:
		o->plain = true;
		return 0;
	case OPT_MODE:
		if (ctl_parse_mode(val, &o->mode)) {
			set_err(err, errlen, "--mode is stream or flight, "
				"not '%s'", val);
			return -EINVAL;
		}
		return 0;
	case OPT_EVENTS:
		if (strlen(val) >= sizeof(o->events)) {
			set_err(err, errlen, "--events: list too long (at "
				"most %zu bytes)", sizeof(o->events) - 1);
			return -EINVAL;
		}
		strcpy(o->events, val);
		return 0;
	case OPT_SUBBUF_SIZE:
		if (ctl_parse_size(val, &v) || !is_pow2(v) ||
		    v < GR_MIN_SUBBUF_SIZE || v > GR_MAX_SUBBUF_SIZE) {
			set_err(err, errlen, "--subbuf-size must be a power "
				"of two from 4K to 16M, not '%s'", val);
			return -EINVAL;
		}
		o->subbuf_size = (uint32_t)v;
		return 0;
	case OPT_SUBBUFS:
		if (parse_u64(val, &v) || v < GR_MIN_SUBBUFS ||
		    v > GR_MAX_SUBBUFS) {
			set_err(err, errlen, "--subbufs must be a number from "
				"%d to %d, not '%s'", GR_MIN_SUBBUFS,
				GR_MAX_SUBBUFS, val);
			return -EINVAL;
		}
		o->n_subbufs = (uint32_t)v;
		return 0;
	case OPT_SWITCH_TIMER:
		if (parse_u64(val, &v) || v > CTL_SWITCH_TIMER_MS_MAX) {
			set_err(err, errlen, "--switch-timer-ms must be a "
				"number from 0 (off) to %d, not '%s'",
				CTL_SWITCH_TIMER_MS_MAX, val);
			return -EINVAL;
		}
		o->switch_timer_us = (uint32_t)v * 1000;
		return 0;
	case OPT_QUOTA:
		if (ctl_parse_size(val, &v)) {
			set_err(err, errlen, "--quota wants bytes, e.g. 500M "
				"or 2G (0 = none), not '%s'", val);
			return -EINVAL;
		}
		o->quota = v;
		return 0;
	case OPT_OWNER:
		return parse_owner(o, val, flags, err, errlen);
	case OPT_VERIFY:
		if (strcmp(val, "on") && strcmp(val, "off")) {
			set_err(err, errlen, "--verify is on or off, not '%s'",
				val);
			return -EINVAL;
		}
		o->verify = !strcmp(val, "on");
		return 0;
	}
	set_err(err, errlen, "%s: internal error", name);
	return -EINVAL;
bad_size:
	set_err(err, errlen, "--size must be a power of two from 64K to 1T "
		"(e.g. 16M), not '%s'", val);
	return -EINVAL;
}

/* the index of @arg ("--name" or "--name=value") in vm_add_opts, or -1 */
static int vm_opt_find(const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t n, len = eq ? (size_t)(eq - arg) : strlen(arg);

	for (n = 0; n < sizeof(vm_add_opts) / sizeof(vm_add_opts[0]); n++)
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
	o->verify = true;
	o->uid = (uint32_t)-1;
	o->gid = (uint32_t)-1;
	for (i = 0; i < argc; i++) {
		const char *arg = argv[i];

		if (arg[0] != '-' || !arg[1]) {
			if (name) {
				set_err(err, errlen, "one VM at a time: "
					"'%s' and '%s'", name, arg);
				return -EINVAL;
			}
			name = arg;
			continue;
		}
		eq = strchr(arg, '=');
		n = vm_opt_find(arg);
		if (n < 0) {
			set_err(err, errlen, "vm-add has no option '%.*s'",
				(int)(eq ? (size_t)(eq - arg) : strlen(arg)),
				arg);
			return -EINVAL;
		}
		if (!vm_add_opts[n].has_arg) {
			if (eq) {
				set_err(err, errlen, "%s takes no value",
					vm_add_opts[n].name);
				return -EINVAL;
			}
			val = NULL;
		} else if (eq) {
			val = eq + 1;
		} else if (i + 1 < argc) {
			val = argv[++i];
		} else {
			set_err(err, errlen, "%s needs a value",
				vm_add_opts[n].name);
			return -EINVAL;
		}
		ret = vm_add_opt(o, n, val, flags, err, errlen);
		if (ret)
			return ret;
	}
	if (!name) {
		set_err(err, errlen, "vm-add needs a VM name");
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
	if (!o->verify)
		fputs(" --verify off", f);
	if (o->own) {
		fprintf(f, " --owner %" PRIu32, o->uid);
		if (o->gid != (uint32_t)-1)
			fprintf(f, ":%" PRIu32, o->gid);
	}
}

/*
 * Length of the valid UTF-8 sequence at @s (1..4) with its code point in
 * *@cp, or 0 if the bytes there are not one (overlong forms, surrogates
 * and code points above U+10FFFF are not valid).
 */
static size_t utf8_seq(const unsigned char *s, uint32_t *cp)
{
	uint32_t c;
	size_t n, i;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		c = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (n == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff)))
		return 0;
	if (n == 4 && (c < 0x10000 || c > 0x10ffff))
		return 0;
	*cp = c;
	return n;
}

void ctl_put_text(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	uint32_t cp;
	size_t n;

	while (*s) {
		if (*s >= 0x20 && *s < 0x7f && *s != '\\') {
			fputc(*s++, f);
			continue;
		}
		n = *s >= 0x80 ? utf8_seq(s, &cp) : 0;
		if (n && cp >= 0xa0) {
			fwrite(s, 1, n, f);
			s += n;
		} else {
			fprintf(f, "\\x%02x", *s++);
		}
	}
}

/* a message made safe for one protocol line */
static void one_line(char *dst, size_t len, const char *src)
{
	FILE *f = fmemopen(dst, len, "w");

	if (!f) {
		snprintf(dst, len, "(message lost)");
		return;
	}
	setvbuf(f, NULL, _IONBF, 0);
	ctl_put_text(f, src);
	fputc('\0', f);
	fclose(f);
	dst[len - 1] = '\0';
}

/* ---- JSON ------------------------------------------------------------ */

static void json_string_raw(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	uint32_t cp;
	size_t n;

	fputc('"', f);
	while (*s) {
		switch (*s) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*s < 0x20 || *s == 0x7f) {
				fprintf(f, "\\u%04x", *s);
				break;
			}
			if (*s < 0x80) {
				fputc(*s, f);
				break;
			}
			n = utf8_seq(s, &cp);
			if (!n) {
				fputs("\\ufffd", f);
				break;
			}
			fwrite(s, 1, n, f);
			s += n;
			continue;
		}
		s++;
	}
	fputc('"', f);
}

static void json_indent(struct ctl_json *j)
{
	unsigned int i;

	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* separator and key of the next value */
static void json_member(struct ctl_json *j, const char *key)
{
	if (!j->depth) {
		if (j->top || key)
			j->bad = true;
		j->top = true;
		return;
	}
	if (j->is_obj[j->depth - 1] != (key != NULL))
		j->bad = true;
	if (j->count[j->depth - 1]++)
		fputc(',', j->f);
	json_indent(j);
	if (key) {
		json_string_raw(j->f, key);
		fputs(": ", j->f);
	}
}

void ctl_json_init(struct ctl_json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

static void json_open(struct ctl_json *j, const char *key, bool obj)
{
	json_member(j, key);
	fputc(obj ? '{' : '[', j->f);
	if (j->depth == CTL_JSON_DEPTH) {
		j->bad = true;
		return;
	}
	j->count[j->depth] = 0;
	j->is_obj[j->depth] = obj;
	j->depth++;
}

static void json_close(struct ctl_json *j, bool obj)
{
	if (!j->depth || j->is_obj[j->depth - 1] != obj) {
		j->bad = true;
		return;
	}
	j->depth--;
	if (j->count[j->depth])
		json_indent(j);
	fputc(obj ? '}' : ']', j->f);
}

void ctl_json_begin_object(struct ctl_json *j, const char *key)
{
	json_open(j, key, true);
}

void ctl_json_end_object(struct ctl_json *j)
{
	json_close(j, true);
}

void ctl_json_begin_array(struct ctl_json *j, const char *key)
{
	json_open(j, key, false);
}

void ctl_json_end_array(struct ctl_json *j)
{
	json_close(j, false);
}

void ctl_json_string(struct ctl_json *j, const char *key, const char *val)
{
	json_member(j, key);
	if (val)
		json_string_raw(j->f, val);
	else
		fputs("null", j->f);
}

void ctl_json_u64(struct ctl_json *j, const char *key, uint64_t val)
{
	json_member(j, key);
	fprintf(j->f, "%" PRIu64, val);
}

void ctl_json_i64(struct ctl_json *j, const char *key, int64_t val)
{
	json_member(j, key);
	fprintf(j->f, "%" PRId64, val);
}

void ctl_json_double(struct ctl_json *j, const char *key, double val)
{
	json_member(j, key);
	if (isfinite(val))
		fprintf(j->f, "%.17g", val);
	else
		fputs("null", j->f);
}

void ctl_json_bool(struct ctl_json *j, const char *key, bool val)
{
	json_member(j, key);
	fputs(val ? "true" : "false", j->f);
}

void ctl_json_null(struct ctl_json *j, const char *key)
{
	json_member(j, key);
	fputs("null", j->f);
}

int ctl_json_finish(struct ctl_json *j)
{
	fputc('\n', j->f);
	if (j->bad || j->depth)
		return -EINVAL;
	return ferror(j->f) ? -EIO : 0;
}

/* ======================================================================
 * The server
 * ====================================================================== */

#define NSEC_PER_MSEC		((uint64_t)1000000)
#define NSEC_PER_SEC		((uint64_t)1000000000)
#define CTL_ACCEPT_BACKOFF_NS	(100 * NSEC_PER_MSEC)
#define CTL_FINISH_WAIT_NS	(2 * NSEC_PER_SEC)
#define CTL_ASYNC		1	/* a command answers from a callback */

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

enum conn_state {
	CONN_READING,			/* waiting for the request line */
	CONN_RUNNING,			/* command running or waiting for a VM */
	CONN_CLOSED,			/* socket closed */
};

/**
 * struct ctl_conn - one client connection
 * @ctl: the control socket; NULL once ctl_finish() let go of it
 * @prev: previous in ctl->conns
 * @next: next in ctl->conns
 * @op: poll for the request (POLLIN) or, while a VM command runs, for the
 *	client hanging up (POLLHUP)
 * @fd: the socket, -1 once closed
 * @state: CONN_*
 * @waiting: a VM callback (gr_done_fn) is due; the object must live
 * @hold: the code on the stack uses the object; do not free it
 * @json: the answer is JSON
 * @deadline: CLOCK_MONOTONIC ns by which the request must be complete
 * @cmd: the running asynchronous command, for its answer
 * @vm: its VM's name
 * @len: bytes in @buf
 * @buf: the request line
 */
struct ctl_conn {
	struct gr_ctl *ctl;
	struct ctl_conn *prev, *next;
	struct gr_op op;
	int fd;
	enum conn_state state;
	bool waiting;
	bool hold;
	bool json;
	uint64_t deadline;
	const char *cmd;
	char vm[GR_VM_NAME_MAX];
	size_t len;
	char buf[CTL_LINE_MAX + 1];
};

/**
 * struct gr_ctl - the control socket of an agent
 * @a: the agent
 * @fd: the listening socket
 * @accept_op: poll on @fd, or the pause after a failed accept4()
 * @accept_paused: @accept_op is that pause
 * @timer_op: deadline of the oldest connection still reading
 * @conns: connections, oldest first
 * @tail: the newest
 * @nr_conns: their number
 * @finishing: ctl_finish() runs: re-arm nothing
 * @euid: the agent's effective uid, always allowed
 * @dev: device of the socket file we created
 * @ino: its inode, so that ctl_finish() removes only our own
 * @started: CLOCK_MONOTONIC ns of ctl_init()
 * @path: RUN_DIR/agent.sock
 */
struct gr_ctl {
	struct gr_agent *a;
	int fd;
	struct gr_op accept_op;
	bool accept_paused;
	struct gr_op timer_op;
	struct ctl_conn *conns, *tail;
	unsigned int nr_conns;
	bool finishing;
	uid_t euid;
	dev_t dev;
	ino_t ino;
	uint64_t started;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static void ctl_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* the agent logs to syslog (and stderr: main.c opens it LOG_PERROR) */
static void ctl_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsyslog(LOG_WARNING, fmt, ap);
	va_end(ap);
}

static const char *errno_name(int err)
{
	const char *n = strerrorname_np(err);

	return n ? n : "EIO";
}

/* ---- sending --------------------------------------------------------- */

/*
 * Write everything, synchronously: SO_SNDTIMEO bounds each send(), and the
 * whole answer gets at most two of those periods.
 */
static void send_all(int fd, const char *buf, size_t len)
{
	uint64_t end = mono_ns() + 2 * CTL_SEND_TIMEOUT_MS * NSEC_PER_MSEC;
	ssize_t n;

	while (len) {
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;		/* gone, or too slow: it loses */
		}
		buf += n;
		len -= (size_t)n;
		if (len && mono_ns() > end)
			return;
	}
}

static void send_error(int fd, int err, const char *msg)
{
	char line[1024], safe[900];

	one_line(safe, sizeof(safe), msg && *msg ? msg : strerror(-err));
	snprintf(line, sizeof(line), "error %s %s\n", errno_name(-err), safe);
	send_all(fd, line, strlen(line));
}

static void send_ok(int fd, const char *body, size_t len)
{
	char *buf = malloc(3 + len);

	if (!buf) {
		send_error(fd, -ENOMEM, "the agent is out of memory");
		return;
	}
	memcpy(buf, "ok\n", 3);
	memcpy(buf + 3, body, len);
	send_all(fd, buf, 3 + len);
	free(buf);
}

static void set_send_timeout(int fd)
{
	struct timeval tv = {
		.tv_sec = CTL_SEND_TIMEOUT_MS / 1000,
		.tv_usec = (CTL_SEND_TIMEOUT_MS % 1000) * 1000,
	};

	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* ---- connection lifetime --------------------------------------------- */

/* free @c if nothing refers to it any more */
static void conn_put(struct ctl_conn *c)
{
	struct gr_ctl *ctl = c->ctl;

	if (c->fd >= 0 || c->op.busy || c->waiting || c->hold)
		return;
	if (ctl) {
		if (c->prev)
			c->prev->next = c->next;
		else
			ctl->conns = c->next;
		if (c->next)
			c->next->prev = c->prev;
		else
			ctl->tail = c->prev;
		ctl->nr_conns--;
	}
	free(c);
}

/*
 * Close the socket. shutdown() first: the poll op in flight holds a
 * reference to the socket, and the client must see the end of the answer
 * now, not when the cancellation completes.
 */
static void conn_close(struct ctl_conn *c)
{
	if (c->fd >= 0) {
		shutdown(c->fd, SHUT_RDWR);
		close(c->fd);
		c->fd = -1;
	}
	c->state = CONN_CLOSED;
	if (c->op.busy && c->ctl)
		gr_loop_cancel(&c->ctl->a->loop, &c->op);
	conn_put(c);
}

static void conn_fail(struct ctl_conn *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void conn_fail(struct ctl_conn *c, int err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->fd >= 0)
		send_error(c->fd, err, msg);
	conn_close(c);
}

static int conn_arm(struct ctl_conn *c, unsigned int events)
{
	return gr_loop_poll(&c->ctl->a->loop, &c->op, c->fd, events);
}

/* ---- request deadlines ------------------------------------------------ */

static void ctl_arm_timer(struct gr_ctl *ctl)
{
	uint64_t first = UINT64_MAX, now;
	struct ctl_conn *c;

	if (ctl->timer_op.busy || ctl->finishing)
		return;
	for (c = ctl->conns; c; c = c->next)
		if (c->state == CONN_READING && c->deadline < first)
			first = c->deadline;
	if (first == UINT64_MAX)
		return;
	now = mono_ns();
	gr_loop_timeout(&ctl->a->loop, &ctl->timer_op,
			first > now + NSEC_PER_MSEC ? first - now :
			NSEC_PER_MSEC);
}

static void ctl_timer_done(struct gr_op *op, int res, unsigned int flags)
{
	struct gr_ctl *ctl = container_of(op, struct gr_ctl, timer_op);
	struct ctl_conn *c, *next;
	uint64_t now = mono_ns();

	(void)res;
	(void)flags;
	if (ctl->finishing)
		return;
	for (c = ctl->conns; c; c = next) {
		next = c->next;
		if (c->state == CONN_READING && c->deadline <= now)
			conn_fail(c, -ETIMEDOUT, "no complete request within "
				  "%d s; send one line that ends in a newline",
				  CTL_REQUEST_TIMEOUT_MS / 1000);
	}
	ctl_arm_timer(ctl);
}

/* ---- commands --------------------------------------------------------- */

/**
 * struct req - one request being answered
 * @c: its connection
 * @a: the agent
 * @out: the body of the answer
 * @json: the client wants JSON
 * @j: the JSON writer on @out
 * @msg: the error message
 */
struct req {
	struct ctl_conn *c;
	struct gr_agent *a;
	FILE *out;
	bool json;
	struct ctl_json j;
	char msg[768];
};

static int req_err(struct req *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int req_err(struct req *r, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	return err;
}

/* the VM named @name, or NULL with the error in @r->msg and *@err */
static struct gr_vm *req_vm(struct req *r, const char *name, int *err)
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
static int vm_err(struct req *r, int ret, const char *err, const char *what,
		  const char *vm)
{
	if (ret >= 0)
		ret = -EIO;
	if (err[0])
		return req_err(r, ret, "%s", err);
	return req_err(r, ret, "cannot %s %s: %s", what, vm, strerror(-ret));
}

static void human_bytes(char *buf, size_t len, double v, const char *suffix)
{
	static const char *const unit[] = {
		"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"
	};
	unsigned int i = 0;

	while (v >= 1024 && i < 6) {
		v /= 1024;
		i++;
	}
	if (i)
		snprintf(buf, len, "%.1f %s%s", v, unit[i], suffix);
	else
		snprintf(buf, len, "%.0f %s%s", v, unit[0], suffix);
}

static void put_row(FILE *f, const char *key)
{
	fprintf(f, "  %-13s ", key);
}

static void put_text_or_dash(FILE *f, const char *s)
{
	if (s && *s)
		ctl_put_text(f, s);
	else
		fputc('-', f);
}

static void status_text(FILE *f, const struct gr_vm_info *in)
{
	const struct gr_vm_stats *st = &in->st;
	char b1[32], b2[32];
	int64_t off = in->sync_offset_ns;
	uint64_t aoff;

	ctl_put_text(f, in->name);
	fputc('\n', f);

	put_row(f, "state");
	put_text_or_dash(f, in->state);
	fputs(", guest ", f);
	put_text_or_dash(f, in->guest_state);
	fputc('\n', f);

	put_row(f, "device");
	if (in->doorbell)
		fprintf(f, "doorbell, QEMU %s\n", in->guest_connected ?
			"connected" : "not connected");
	else
		fprintf(f, "plain (polled), QEMU %s\n",
			in->guest_connected ? "mapped" : "not seen");

	put_row(f, "guest");
	if (in->kernel_release[0] || in->nodename[0]) {
		fputs("Linux ", f);
		put_text_or_dash(f, in->kernel_release);
		fputs(" on ", f);
		put_text_or_dash(f, in->nodename);
		fputc('\n', f);
	} else {
		fputs("-\n", f);
	}

	put_row(f, "buffers");
	if (in->nr_rings) {
		human_bytes(b1, sizeof(b1), in->subbuf_size, "");
		fprintf(f, "%" PRIu32 " CPUs (rings) x %" PRIu32
			" sub-buffers of %s\n", in->nr_rings, in->n_subbufs, b1);
	} else {
		fputs("-\n", f);
	}

	put_row(f, "mode");
	fprintf(f, "%s, records %s\n", ctl_mode_name(in->mode),
		in->verify ? "verified (copy)" : "not verified (zero copy)");
	put_row(f, "events");
	ctl_put_text(f, in->events[0] ? in->events : "none");
	fputc('\n', f);
	put_row(f, "pending");
	put_text_or_dash(f, in->pending);
	fputc('\n', f);

	put_row(f, "recorded");
	fprintf(f, "%" PRIu64 " events, %" PRIu64 " sub-buffers (guest "
		"counts)\n", st->guest_events, st->produced);
	put_row(f, "stored");
	human_bytes(b1, sizeof(b1), (double)st->bytes, "");
	human_bytes(b2, sizeof(b2), in->rate_bps, "/s");
	fprintf(f, "%" PRIu64 " packets, %s (%" PRIu64 " bytes), %s\n",
		st->packets, b1, st->bytes, b2);
	put_row(f, "lost");
	fprintf(f, "full %" PRIu64 ", too_big %" PRIu64 ", nested %" PRIu64
		" events; overwritten %" PRIu64 " sub-buffers\n",
		st->lost_full, st->lost_too_big, st->lost_nested,
		st->overwritten);
	put_row(f, "invalid");
	fprintf(f, "%" PRIu64 " sub-buffers dropped (%" PRIu64 " for a bad "
		"record), %" PRIu64 " skipped, %" PRIu64 " write errors, %"
		PRIu64 " bad headers\n", st->invalid, st->invalid_records,
		st->skipped, st->write_errors, st->bad_region);
	put_row(f, "doorbells");
	fprintf(f, "in %" PRIu64 ", out %" PRIu64 ", polls %" PRIu64 "\n",
		st->doorbells_in, st->doorbells_out, st->polls);

	put_row(f, "clock sync");
	if (in->sync_error_ns) {
		aoff = off < 0 ? -(uint64_t)off : (uint64_t)off;
		fprintf(f, "error +/- %.1f us, offset %s%" PRIu64 ".%09" PRIu64
			" s\n", (double)in->sync_error_ns / 1000.0,
			off < 0 ? "-" : "", aoff / NSEC_PER_SEC,
			aoff % NSEC_PER_SEC);
	} else {
		fputs("not synchronized\n", f);
	}

	put_row(f, "quota");
	human_bytes(b1, sizeof(b1), (double)in->usage, "");
	if (in->quota) {
		human_bytes(b2, sizeof(b2), (double)in->quota, "");
		fprintf(f, "%s of %s used (%.1f%%)\n", b1, b2,
			100.0 * (double)in->usage / (double)in->quota);
	} else {
		fprintf(f, "%s used, no quota\n", b1);
	}
	put_row(f, "stop reason");
	put_text_or_dash(f, in->stop_reason);
	fputc('\n', f);
	put_row(f, "session");
	put_text_or_dash(f, in->session);
	fputc('\n', f);
}

/* a comma or space separated list as a JSON array of strings */
static void json_list(struct ctl_json *j, const char *key, const char *list)
{
	char item[GR_NAME_LEN * 2 + 2];
	size_t n;

	ctl_json_begin_array(j, key);
	while (*list) {
		n = strcspn(list, ", ");
		if (n && n < sizeof(item)) {
			memcpy(item, list, n);
			item[n] = '\0';
			ctl_json_string(j, NULL, item);
		}
		list += n;
		list += strspn(list, ", ");
	}
	ctl_json_end_array(j);
}

static void status_json(struct ctl_json *j, const struct gr_vm_info *in)
{
	const struct gr_vm_stats *st = &in->st;

	ctl_json_begin_object(j, NULL);
	ctl_json_string(j, "name", in->name);
	ctl_json_string(j, "state", in->state);
	ctl_json_string(j, "guest_state", in->guest_state);
	ctl_json_string(j, "device", in->doorbell ? "doorbell" : "plain");
	ctl_json_bool(j, "connected", in->guest_connected);
	ctl_json_string(j, "mode", ctl_mode_name(in->mode));
	ctl_json_bool(j, "verify", in->verify);
	ctl_json_u64(j, "nr_rings", in->nr_rings);
	ctl_json_u64(j, "subbuf_size", in->subbuf_size);
	ctl_json_u64(j, "n_subbufs", in->n_subbufs);
	ctl_json_string(j, "kernel_release", in->kernel_release);
	ctl_json_string(j, "nodename", in->nodename);
	json_list(j, "events", in->events);
	ctl_json_string(j, "pending", in->pending);
	ctl_json_string(j, "stop_reason",
			in->stop_reason && *in->stop_reason ?
			in->stop_reason : NULL);
	ctl_json_string(j, "session", in->session[0] ? in->session : NULL);
	ctl_json_u64(j, "quota", in->quota);
	ctl_json_u64(j, "usage", in->usage);
	ctl_json_i64(j, "sync_offset_ns", in->sync_offset_ns);
	ctl_json_u64(j, "sync_error_ns", in->sync_error_ns);
	ctl_json_double(j, "rate_bps", in->rate_bps);
	ctl_json_begin_object(j, "stats");
	ctl_json_u64(j, "packets", st->packets);
	ctl_json_u64(j, "bytes", st->bytes);
	ctl_json_u64(j, "invalid", st->invalid);
	ctl_json_u64(j, "invalid_records", st->invalid_records);
	ctl_json_u64(j, "skipped", st->skipped);
	ctl_json_u64(j, "doorbells_in", st->doorbells_in);
	ctl_json_u64(j, "doorbells_out", st->doorbells_out);
	ctl_json_u64(j, "polls", st->polls);
	ctl_json_u64(j, "write_errors", st->write_errors);
	ctl_json_u64(j, "bad_region", st->bad_region);
	ctl_json_u64(j, "guest_events", st->guest_events);
	ctl_json_u64(j, "lost_full", st->lost_full);
	ctl_json_u64(j, "lost_too_big", st->lost_too_big);
	ctl_json_u64(j, "lost_nested", st->lost_nested);
	ctl_json_u64(j, "overwritten", st->overwritten);
	ctl_json_u64(j, "produced", st->produced);
	ctl_json_end_object(j);
	ctl_json_end_object(j);
}

static int cmd_ping(struct req *r, int argc, char **argv)
{
	uint64_t up = (mono_ns() - r->c->ctl->started) / NSEC_PER_SEC;
	unsigned int n = 0;
	struct gr_vm *vm;

	(void)argc;
	(void)argv;
	for (vm = vm_next(r->a, NULL); vm; vm = vm_next(r->a, vm))
		n++;
	if (!r->json) {
		fprintf(r->out, "guestrelay agent %s, pid %d, up %" PRIu64
			" s, %u VM%s\n", GR_VERSION, (int)getpid(), up,
			n, n == 1 ? "" : "s");
		return 0;
	}
	ctl_json_begin_object(&r->j, NULL);
	ctl_json_string(&r->j, "version", GR_VERSION);
	ctl_json_i64(&r->j, "pid", getpid());
	ctl_json_u64(&r->j, "uptime_s", up);
	ctl_json_u64(&r->j, "vms", n);
	ctl_json_string(&r->j, "run_dir", r->a->run_dir);
	ctl_json_string(&r->j, "store_dir", r->a->store_dir);
	ctl_json_end_object(&r->j);
	return 0;
}

static int cmd_status(struct req *r, int argc, char **argv)
{
	struct gr_vm_info *info;
	struct gr_vm *vm = NULL;
	int err = 0;

	if (argc) {
		vm = req_vm(r, argv[0], &err);
		if (!vm)
			return err;
	}
	info = malloc(sizeof(*info));
	if (!info)
		return req_err(r, -ENOMEM, "the agent is out of memory");
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
		info->name[sizeof(info->name) - 1] = '\0';
		if (r->json) {
			status_json(&r->j, info);
		} else {
			if (ftell(r->out) > 0)
				fputc('\n', r->out);
			status_text(r->out, info);
		}
	}
	free(info);
	if (r->json) {
		ctl_json_end_array(&r->j);
		ctl_json_end_object(&r->j);
	}
	return 0;
}

static int cmd_events(struct req *r, int argc, char **argv)
{
	bool on = !strcmp(r->c->cmd, "enable");
	char err[512] = "", *list;
	struct gr_vm *vm;
	size_t len = 0;
	int i, ret = 0;

	vm = req_vm(r, argv[0], &ret);
	if (!vm)
		return ret;
	for (i = 1; i < argc; i++)
		len += strlen(argv[i]) + 1;
	list = malloc(len + 1);
	if (!list)
		return req_err(r, -ENOMEM, "the agent is out of memory");
	list[0] = '\0';
	for (i = 1; i < argc; i++) {
		if (i > 1)
			strcat(list, ",");
		strcat(list, argv[i]);
	}
	ret = vm_set_events(vm, list, on, err, sizeof(err));
	if (ret) {
		ret = vm_err(r, ret, err, on ? "enable events in" :
			     "disable events in", argv[0]);
	} else if (r->json) {
		ctl_json_begin_object(&r->j, NULL);
		ctl_json_string(&r->j, "vm", argv[0]);
		json_list(&r->j, on ? "enable" : "disable", list);
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

static int cmd_mode(struct req *r, int argc, char **argv)
{
	char err[512] = "";
	struct gr_vm *vm;
	uint32_t mode;
	int ret = 0;

	(void)argc;
	vm = req_vm(r, argv[0], &ret);
	if (!vm)
		return ret;
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

static void conn_async_done(void *arg, int err, const char *msg);

static int cmd_async(struct req *r, int argc, char **argv)
{
	struct ctl_conn *c = r->c;
	struct gr_vm *vm;
	int ret = 0;

	(void)argc;
	vm = req_vm(r, argv[0], &ret);
	if (!vm)
		return ret;
	strcpy(c->vm, argv[0]);
	c->waiting = true;
	if (!strcmp(c->cmd, "flush"))
		ret = vm_flush(vm, conn_async_done, c);
	else if (!strcmp(c->cmd, "snapshot"))
		ret = vm_snapshot(vm, conn_async_done, c);
	else
		ret = vm_stop(vm, conn_async_done, c);
	if (!ret || !c->waiting)
		return CTL_ASYNC;	/* answered by conn_async_done() */
	c->waiting = false;
	if (ret == -ENOTCONN && vm_state(vm) == GR_VM_STOPPED)
		return req_err(r, ret, "%s is stopped (guestrelay start %s "
			       "opens a new session)", argv[0], argv[0]);
	if (ret == -ENOTCONN)
		return req_err(r, ret, "%s has no guest attached (guestrelay "
			       "status %s shows its state)", argv[0], argv[0]);
	if (ret == -EBUSY)
		return req_err(r, ret, "%s is busy with another flush, "
			       "snapshot or stop; try again when it is done",
			       argv[0]);
	return req_err(r, ret, "cannot %s %s: %s", c->cmd, argv[0],
		       strerror(-ret));
}

/* the answer of flush, snapshot or stop */
static void conn_async_done(void *arg, int err, const char *msg)
{
	struct ctl_conn *c = arg;
	struct ctl_json j;
	char *body = NULL, emsg[768];
	size_t len = 0;
	FILE *f;

	c->waiting = false;
	if (c->fd < 0)
		goto out;	/* the client hung up, or the agent stops */
	if (err) {
		if (msg && *msg)
			snprintf(emsg, sizeof(emsg), "%s", msg);
		else
			snprintf(emsg, sizeof(emsg), "%s of %s failed: %s",
				 c->cmd, c->vm, strerror(err < 0 ? -err : err));
		send_error(c->fd, err < 0 ? err : -err, emsg);
		goto out;
	}
	f = open_memstream(&body, &len);
	if (!f) {
		send_error(c->fd, -ENOMEM, "the agent is out of memory");
		goto out;
	}
	if (c->json) {
		ctl_json_init(&j, f);
		ctl_json_begin_object(&j, NULL);
		ctl_json_string(&j, "vm", c->vm);
		if (!strcmp(c->cmd, "flush")) {
			ctl_json_bool(&j, "flushed", true);
			ctl_json_string(&j, "trace", msg);
		} else {
			ctl_json_string(&j, strcmp(c->cmd, "stop") ?
					"snapshot" : "trace", msg);
		}
		ctl_json_end_object(&j);
		ctl_json_finish(&j);
	} else if (!strcmp(c->cmd, "flush") || !msg) {
		ctl_put_text(f, c->vm);
		fprintf(f, ": %s done\n", c->cmd);
	} else {
		ctl_put_text(f, msg);
		fputc('\n', f);
	}
	if (fclose(f))
		send_error(c->fd, -ENOMEM, "the agent is out of memory");
	else
		send_ok(c->fd, body, len);
	free(body);
out:
	conn_close(c);
}

static int cmd_start(struct req *r, int argc, char **argv)
{
	struct gr_vm_info *info;
	char err[512] = "";
	struct gr_vm *vm;
	int ret = 0;

	(void)argc;
	vm = req_vm(r, argv[0], &ret);
	if (!vm)
		return ret;
	ret = vm_start(vm, err, sizeof(err));
	if (ret)
		return vm_err(r, ret, err, "start a session of", argv[0]);
	info = calloc(1, sizeof(*info));
	if (!info)
		return req_err(r, -ENOMEM, "the agent is out of memory");
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

static int cmd_vm_add(struct req *r, int argc, char **argv)
{
	char err[512] = "", size[32], rundir[PATH_MAX + 16] = "";
	char hint[PATH_MAX + 128];
	struct gr_vm_opts o;
	struct gr_vm *vm = NULL;
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
	human_bytes(size, sizeof(size), (double)o.shm_size, "");
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

static int cmd_vm_remove(struct req *r, int argc, char **argv)
{
	struct gr_vm *vm;
	int ret = 0;

	(void)argc;
	vm = req_vm(r, argv[0], &ret);
	if (!vm)
		return ret;
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

static const struct ctl_cmd {
	const char *name;
	int min_args, max_args;
	int (*run)(struct req *r, int argc, char **argv);
	const char *usage;
} ctl_cmds[] = {
	{ "ping", 0, 0, cmd_ping, "ping" },
	{ "status", 0, 1, cmd_status, "status [VM]" },
	{ "enable", 2, CTL_MAX_ARGS, cmd_events, "enable VM EVENT..." },
	{ "disable", 2, CTL_MAX_ARGS, cmd_events, "disable VM EVENT..." },
	{ "mode", 2, 2, cmd_mode, "mode VM stream|flight" },
	{ "flush", 1, 1, cmd_async, "flush VM" },
	{ "snapshot", 1, 1, cmd_async, "snapshot VM" },
	{ "stop", 1, 1, cmd_async, "stop VM" },
	{ "start", 1, 1, cmd_start, "start VM" },
	{ "vm-add", 1, CTL_MAX_ARGS, cmd_vm_add, "vm-add VM [OPTION...]" },
	{ "vm-remove", 1, 1, cmd_vm_remove, "vm-remove VM" },
};

/* split, decode and run the request line @line */
static int run_request(struct req *r, char *line, size_t len)
{
	char *argv[CTL_MAX_ARGS + 2], *p, *sp;
	const struct ctl_cmd *cmd = NULL;
	int argc = 0, ret;
	size_t i;

	if (memchr(line, '\0', len))
		return req_err(r, -EINVAL, "the request contains a NUL byte");
	if (len && line[len - 1] == '\r')
		line[--len] = '\0';
	if (!len)
		return req_err(r, -EINVAL, "empty request");
	for (p = line;; p = sp + 1) {
		sp = strchr(p, ' ');
		if (sp)
			*sp = '\0';
		if (argc == CTL_MAX_ARGS + 2)
			return req_err(r, -E2BIG, "more than %d arguments",
				       CTL_MAX_ARGS);
		ret = ctl_decode_arg(p);
		if (ret && argc < 2)
			return req_err(r, -EINVAL, "malformed request: the "
				       "format or command word is empty or "
				       "malformed; a request is: FORMAT "
				       "COMMAND ARGS...");
		if (ret)
			return req_err(r, -EINVAL, "malformed request: "
				       "argument %d after the command is "
				       "empty, badly percent-encoded or has a "
				       "control character", argc - 1);
		argv[argc++] = p;
		if (!sp)
			break;
	}
	if (!strcmp(argv[0], "json"))
		r->json = true;
	else if (strcmp(argv[0], "text"))
		return req_err(r, -EINVAL, "unknown format '%s' (text or "
			       "json); a request is: FORMAT COMMAND ARGS...",
			       argv[0]);
	r->c->json = r->json;
	if (argc < 2)
		return req_err(r, -EINVAL, "no command after '%s'", argv[0]);
	for (i = 0; i < sizeof(ctl_cmds) / sizeof(ctl_cmds[0]); i++)
		if (!strcmp(argv[1], ctl_cmds[i].name))
			cmd = &ctl_cmds[i];
	if (!cmd)
		return req_err(r, -EINVAL, "unknown command '%s' (guestrelay "
			       "help lists them)", argv[1]);
	if (argc - 2 < cmd->min_args || argc - 2 > cmd->max_args)
		return req_err(r, -EINVAL, "usage: guestrelay %s", cmd->usage);
	r->c->cmd = cmd->name;
	if (r->json)
		ctl_json_init(&r->j, r->out);
	ret = cmd->run(r, argc - 2, argv + 2);
	if (!ret && r->json && ctl_json_finish(&r->j))
		return req_err(r, -EIO, "internal error writing JSON");
	return ret;
}

static void conn_request(struct ctl_conn *c, size_t len)
{
	struct req *r;
	char *body = NULL;
	size_t blen = 0;
	int ret;

	c->state = CONN_RUNNING;
	r = calloc(1, sizeof(*r));
	if (!r) {
		conn_fail(c, -ENOMEM, "the agent is out of memory");
		return;
	}
	r->out = open_memstream(&body, &blen);
	if (!r->out) {
		free(r);
		conn_fail(c, -ENOMEM, "the agent is out of memory");
		return;
	}
	r->c = c;
	r->a = c->ctl->a;
	c->hold = true;
	ret = run_request(r, c->buf, len);
	if (fclose(r->out) && ret >= 0 && ret != CTL_ASYNC)
		ret = req_err(r, -ENOMEM, "the agent is out of memory");
	if (ret == CTL_ASYNC) {
		/*
		 * Answered later; meanwhile notice a client that closed its
		 * socket (POLLHUP). A client that only shut down its
		 * sending side (socat, nc -N) still wants the answer.
		 */
		if (c->waiting && c->fd >= 0 && conn_arm(c, POLLHUP))
			conn_close(c);
	} else if (ret < 0) {
		send_error(c->fd, ret, r->msg);
		conn_close(c);
	} else {
		send_ok(c->fd, body, blen);
		conn_close(c);
	}
	free(body);
	free(r);
	c->hold = false;
	conn_put(c);
}

static void conn_read(struct ctl_conn *c)
{
	ssize_t n;
	char *nl;

	n = recv(c->fd, c->buf + c->len, CTL_LINE_MAX - c->len, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		goto rearm;
	if (n <= 0) {
		conn_close(c);	/* hung up before the end of the request */
		return;
	}
	nl = memchr(c->buf + c->len, '\n', (size_t)n);
	c->len += (size_t)n;
	if (nl) {
		*nl = '\0';
		conn_request(c, (size_t)(nl - c->buf));
		return;
	}
	if (c->len >= CTL_LINE_MAX) {
		conn_fail(c, -EMSGSIZE, "request longer than %d bytes",
			  CTL_LINE_MAX);
		return;
	}
rearm:
	if (conn_arm(c, POLLIN))
		conn_close(c);
}

static void conn_poll_done(struct gr_op *op, int res, unsigned int flags)
{
	struct ctl_conn *c = container_of(op, struct ctl_conn, op);

	(void)flags;
	if (c->state == CONN_CLOSED || !c->ctl || c->ctl->finishing) {
		conn_put(c);
		return;
	}
	if (c->state == CONN_RUNNING && res >= 0 &&
	    !(res & (POLLHUP | POLLERR | POLLNVAL))) {
		/*
		 * io_uring always reports POLLRDHUP: the client only shut
		 * down its sending side and still waits for the answer.
		 * Re-arming would fire at once; the VM's callback comes.
		 */
		return;
	}
	if (c->state == CONN_RUNNING || res < 0) {
		/* hung up while its VM command runs, or a poll error */
		conn_close(c);
		return;
	}
	conn_read(c);
}

/* ---- accepting -------------------------------------------------------- */

static bool peer_in_group(int fd, gid_t gid)
{
	gid_t groups[64], *g = groups;
	socklen_t len = sizeof(groups);
	bool in = false;
	size_t i;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len)) {
		if (errno != ERANGE)
			return false;
		g = malloc(len);
		if (!g)
			return false;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len)) {
			free(g);
			return false;
		}
	}
	for (i = 0; i < len / sizeof(gid_t); i++)
		if (g[i] == gid)
			in = true;
	if (g != groups)
		free(g);
	return in;
}

/* 0 if the peer on @fd may send commands, else -EACCES and a reason */
static int peer_check(struct gr_ctl *ctl, int fd, char *why, size_t len)
{
	gid_t gid = (gid_t)ctl->a->sock_gid;
	struct ucred uc;
	socklen_t sl = sizeof(uc);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &sl)) {
		snprintf(why, len, "cannot identify the peer: %s",
			 strerror(errno));
		return -EACCES;
	}
	if (uc.uid == 0 || uc.uid == ctl->euid)
		return 0;
	if (ctl->a->sock_gid != (unsigned int)-1 &&
	    (uc.gid == gid || peer_in_group(fd, gid)))
		return 0;
	if (ctl->a->sock_gid != (unsigned int)-1)
		snprintf(why, len, "uid %u may not control this agent: only "
			 "root, uid %u and members of group %u may",
			 (unsigned int)uc.uid, (unsigned int)ctl->euid,
			 (unsigned int)gid);
	else
		snprintf(why, len, "uid %u may not control this agent: only "
			 "root and uid %u may (start it with --group to allow "
			 "a group)", (unsigned int)uc.uid,
			 (unsigned int)ctl->euid);
	ctl_log("refused a control connection from pid %d: %s", (int)uc.pid,
		why);
	return -EACCES;
}

static void ctl_new_conn(struct gr_ctl *ctl, int fd)
{
	struct ctl_conn *c;
	char why[256];
	int ret;

	set_send_timeout(fd);
	ret = peer_check(ctl, fd, why, sizeof(why));
	if (ret) {
		send_error(fd, ret, why);
		close(fd);
		return;
	}
	if (ctl->nr_conns >= CTL_MAX_CONNS) {
		send_error(fd, -EBUSY, "the agent is serving its maximum of "
			   "64 connections; try again");
		close(fd);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		send_error(fd, -ENOMEM, "the agent is out of memory");
		close(fd);
		return;
	}
	c->ctl = ctl;
	c->fd = fd;
	c->op.done = conn_poll_done;
	c->state = CONN_READING;
	c->deadline = mono_ns() + CTL_REQUEST_TIMEOUT_MS * NSEC_PER_MSEC;
	c->prev = ctl->tail;
	if (ctl->tail)
		ctl->tail->next = c;
	else
		ctl->conns = c;
	ctl->tail = c;
	ctl->nr_conns++;
	if (conn_arm(c, POLLIN)) {
		conn_fail(c, -ENOMEM, "the agent is out of resources");
		return;
	}
	ctl_arm_timer(ctl);
}

static void ctl_accept_done(struct gr_op *op, int res, unsigned int flags)
{
	struct gr_ctl *ctl = container_of(op, struct gr_ctl, accept_op);
	unsigned int i;
	int fd;

	(void)flags;
	if (ctl->finishing)
		return;
	if (ctl->accept_paused) {
		ctl->accept_paused = false;
		goto rearm;
	}
	if (res < 0) {
		ctl_log("polling %s failed: %s; retrying", ctl->path,
			strerror(-res));
		goto pause;
	}
	for (i = 0; i < CTL_MAX_CONNS; i++) {
		fd = accept4(ctl->fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0) {
			ctl_new_conn(ctl, fd);
			continue;
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			break;
		if (errno == ECONNABORTED || errno == EINTR ||
		    errno == EPROTO)
			continue;
		/* EMFILE, ENFILE, ENOBUFS, ENOMEM: wait, do not spin */
		ctl_log("cannot accept a control connection: %s; pausing "
			"for 100 ms", strerror(errno));
		goto pause;
	}
rearm:
	if (gr_loop_poll(&ctl->a->loop, &ctl->accept_op, ctl->fd, POLLIN))
		goto pause;
	return;
pause:
	ctl->accept_paused = true;
	if (gr_loop_timeout(&ctl->a->loop, &ctl->accept_op,
			    CTL_ACCEPT_BACKOFF_NS))
		ctl_log("the control socket %s stopped accepting: the loop "
			"has no room", ctl->path);
}

/* ---- init / finish ---------------------------------------------------- */

/* Remove a stale agent.sock (ivsh_clear_stale_socket()); say why not */
static int clear_stale(const char *path)
{
	int ret = ivsh_clear_stale_socket(path);

	if (ret == -EEXIST)
		ctl_log("%s exists and is not a socket; move it away", path);
	else if (ret == -EADDRINUSE)
		ctl_log("another agent is listening on %s; stop it first, or "
			"use another --run-dir", path);
	else if (ret)
		ctl_log("cannot tell whether %s is in use: %s", path,
			strerror(-ret));
	return ret;
}

/**
 * ctl_init() - open the control socket RUN_DIR/agent.sock
 * @a: the agent; run_dir, sock_gid and loop are set up
 *
 * Creates the socket with mode 0660 and, if @a->sock_gid is not
 * (unsigned int)-1, that group. A stale socket file (nobody listens) is
 * replaced; anything else at that path is left alone and is an error.
 * Starts accepting on the loop. Logs the reason of a failure itself.
 *
 * Context: the loop's thread, at start-up.
 * Return: 0, -ENAMETOOLONG, -EADDRINUSE (another agent listens), -EEXIST
 * (not a socket), -ENOMEM, or -errno of socket(2), bind(2), chown(2),
 * listen(2).
 */
int ctl_init(struct gr_agent *a)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct gr_ctl *ctl;
	struct stat st;
	mode_t old;
	int ret;

	ctl = calloc(1, sizeof(*ctl));
	if (!ctl)
		return -ENOMEM;
	ctl->a = a;
	ctl->fd = -1;
	ctl->accept_op.done = ctl_accept_done;
	ctl->timer_op.done = ctl_timer_done;
	ctl->euid = geteuid();
	ctl->started = mono_ns();
	if ((size_t)snprintf(ctl->path, sizeof(ctl->path), "%s/%s",
			     a->run_dir, GR_CTL_SOCK_NAME) >=
	    sizeof(ctl->path)) {
		ctl_log("run directory %s is too long for a socket path",
			a->run_dir);
		ret = -ENAMETOOLONG;
		goto out_free;
	}
	ret = clear_stale(ctl->path);
	if (ret) {
		if (ret != -EADDRINUSE && ret != -EEXIST)
			ctl_log("cannot use %s: %s", ctl->path,
				strerror(-ret));
		goto out_free;
	}
	ctl->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			 0);
	if (ctl->fd < 0) {
		ret = -errno;
		ctl_log("cannot create the control socket: %s",
			strerror(errno));
		goto out_free;
	}
	strcpy(sun.sun_path, ctl->path);
	old = umask(0117);		/* the file is created 0660 */
	ret = bind(ctl->fd, (struct sockaddr *)&sun, sizeof(sun)) ? -errno : 0;
	umask(old);
	if (ret) {
		ctl_log("cannot bind %s: %s", ctl->path, strerror(-ret));
		goto out_close;
	}
	if (a->sock_gid != (unsigned int)-1 &&
	    lchown(ctl->path, (uid_t)-1, (gid_t)a->sock_gid)) {
		ret = -errno;
		ctl_log("cannot give %s to group %u: %s", ctl->path,
			a->sock_gid, strerror(errno));
		goto out_unlink;
	}
	if (lstat(ctl->path, &st)) {
		ret = -errno;
		goto out_unlink;
	}
	ctl->dev = st.st_dev;
	ctl->ino = st.st_ino;
	if (listen(ctl->fd, CTL_MAX_CONNS)) {
		ret = -errno;
		ctl_log("cannot listen on %s: %s", ctl->path, strerror(errno));
		goto out_unlink;
	}
	ret = gr_loop_poll(&a->loop, &ctl->accept_op, ctl->fd, POLLIN);
	if (ret)
		goto out_unlink;
	a->ctl = ctl;
	return 0;

out_unlink:
	unlink(ctl->path);
out_close:
	close(ctl->fd);
out_free:
	free(ctl);
	return ret;
}

static bool ctl_ops_busy(const struct gr_ctl *ctl)
{
	const struct ctl_conn *c;

	if (ctl->accept_op.busy || ctl->timer_op.busy)
		return true;
	for (c = ctl->conns; c; c = c->next)
		if (c->op.busy)
			return true;
	return false;
}

/**
 * ctl_finish() - close the control socket and every connection
 * @a: the agent
 *
 * Removes RUN_DIR/agent.sock (if it is still the file ctl_init() made).
 * A client waiting for flush, snapshot or stop is told that the agent
 * stops; the VM's callback may still come later and is then ignored.
 * Cancels the socket's own ops and runs the loop (at most 2 s) until they
 * have completed, so nothing of ctl.c is touched by the loop afterwards.
 *
 * Context: the loop's thread, not from inside a loop callback; call it
 * before gr_loop_finish().
 */
void ctl_finish(struct gr_agent *a)
{
	struct gr_ctl *ctl = a->ctl;
	struct ctl_conn *c, *next;
	uint64_t end;
	struct stat st;

	if (!ctl)
		return;
	ctl->finishing = true;
	if (!lstat(ctl->path, &st) && st.st_dev == ctl->dev &&
	    st.st_ino == ctl->ino)
		unlink(ctl->path);
	close(ctl->fd);
	ctl->fd = -1;
	gr_loop_cancel(&a->loop, &ctl->accept_op);
	gr_loop_cancel(&a->loop, &ctl->timer_op);
	for (c = ctl->conns; c; c = c->next) {
		c->hold = true;
		if (c->waiting && c->fd >= 0)
			send_error(c->fd, -ECANCELED, "the agent is stopping; "
				   "the command may or may not complete");
		conn_close(c);
	}
	end = mono_ns() + CTL_FINISH_WAIT_NS;
	while (ctl_ops_busy(ctl) && mono_ns() < end)
		if (gr_loop_run_once(&a->loop, 100 * NSEC_PER_MSEC) < 0)
			break;
	for (c = ctl->conns; c; c = next) {
		next = c->next;
		if (c->op.busy) {
			/* cannot be freed safely: leave it to the exit */
			ctl_log("a control connection's poll did not complete");
			continue;
		}
		c->ctl = NULL;		/* the VM callback frees it if due */
		c->prev = c->next = NULL;
		c->hold = false;
		conn_put(c);
	}
	a->ctl = NULL;
	if (ctl->accept_op.busy || ctl->timer_op.busy) {
		ctl_log("the control socket's ops did not complete");
		return;
	}
	free(ctl);
}
