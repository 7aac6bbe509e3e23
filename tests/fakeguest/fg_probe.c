// SPDX-License-Identifier: GPL-2.0
/*
 * fg_probe.c - probes from the host (spec 18.4, GR_F_PROBE) in the fake
 * guest: it plays the guest's kernel's kprobe_events for a few symbols
 *
 *   symbols     do_sys_openat2, vfs_read, vfs_write (else ENOENT)
 *   fetchargs   NAME=%REG, NAME=$retval (r only), NAME=+OFF(%REG) or
 *               -OFF(%REG), with :u8..u64, :s8..s64, :x8..x64 or, for a
 *               dereference, :string / :ustring (default x64)
 *   layout      as the kernel's format: after the 8 bytes of common
 *               fields `unsigned long __probe_ip` (p) or `unsigned long
 *               __probe_func; unsigned long __probe_ret_ip` (r), then one
 *               field per fetcharg, packed; a string is a __data_loc
 *
 * PROBE checks the head (P2: EINVAL with an E line), the limit (ENOSPC),
 * the kernel's refusals (P3: errno and `E error: MESSAGE at column N`),
 * then adds guestrelay:NAME as ADD does (P4, fg_names_add_event()); a
 * layout its descriptor cannot carry (a string not last) is R EOPNOTSUPP
 * and deleted again. A probe deleted earlier takes its id back if its
 * layout is the same (P5). UNPROBE deletes (P6). The writers record each
 * live probe the host enabled once per tick (fg_names_write()).
 */
#include <ctype.h>

#include "fakeguest.h"

#define FG_PROBE_ARGS		8	/* fetchargs of a probe at most */

static const char *const fg_syms[] = {
	"do_sys_openat2", "vfs_read", "vfs_write",
};

static const char *const fg_regs[] = {
	"di", "si", "dx", "cx", "r8", "r9", "ax", "bx", "bp", "sp", "ip",
};

/* The kernel's refusal: @err and its error_log entry as an E line (P3) */
static int fg_probe_refuse(struct fakeguest *fg, struct gr_name_ans *a,
			   u32 *len, int err, const char *msg, int col)
{
	char pad[1501];

	switch (fg->opt.names_hostile) {
	case FG_NAMES_HOSTILE_PROBE_REASON:
		fg_names_line(a, len, "E error: \x1b]0;owned\x07%s\r at column %d\n",
			      msg ? msg : "", col);
		return err;
	case FG_NAMES_HOSTILE_PROBE_LONG:
		memset(pad, 'L', sizeof(pad) - 1);
		pad[sizeof(pad) - 1] = '\0';
		fg_names_line(a, len, "E error: %s\n", pad);
		return err;
	default:
		break;
	}
	if (msg)
		fg_names_line(a, len, "E error: %s at column %d\n", msg, col);
	else
		fg_names_line(a, len, "E %s\n", strerrorname_np(err));
	return err;
}

static bool fg_ident(const char *s, size_t n)
{
	size_t i;

	if (!n || n > 31 || isdigit((unsigned char)s[0]))
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

static bool fg_reg(const char *s, size_t n)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fg_regs); i++)
		if (strlen(fg_regs[i]) == n && !strncmp(s, fg_regs[i], n))
			return true;
	return false;
}

static struct fg_probe *fg_probe_find(struct fakeguest *fg, const char *name)
{
	u32 k;

	for (k = 0; k < fg->nr_probes; k++)
		if (!strcmp(fg->probes[k].name, name))
			return &fg->probes[k];
	return NULL;
}

/*
 * One fetcharg `NAME=VALUE[:TYPE]` at @s (@n bytes) into the fields text
 * @f at tracefs offset *@off; the kernel's message on error
 */
static const char *fg_fetcharg(const char *s, size_t n, bool ret, char *f,
			       size_t size, unsigned int *off)
{
	const char *eq = memchr(s, '=', n), *colon, *v, *end = s + n;
	char type[16] = "x64", name[32];
	unsigned int bits;
	bool deref = false;
	size_t l = strlen(f);

	if (!eq || !fg_ident(s, (size_t)(eq - s)))
		return "Invalid argument name";
	snprintf(name, sizeof(name), "%.*s", (int)(eq - s), s);
	if (strstr(f, name) && (strstr(f, name)[strlen(name)] == '@') &&
	    strstr(f, name)[-1] == ' ')
		return "Argument name is already used";
	v = eq + 1;
	colon = memchr(v, ':', (size_t)(end - v));
	if (colon) {
		if ((size_t)(end - colon - 1) >= sizeof(type) || colon + 1 == end)
			return "Unknown type";
		snprintf(type, sizeof(type), "%.*s", (int)(end - colon - 1),
			 colon + 1);
		end = colon;
	}
	if (*v == '%') {
		if (!fg_reg(v + 1, (size_t)(end - v - 1)))
			return "Invalid register name";
	} else if (end - v == 7 && !strncmp(v, "$retval", 7)) {
		if (!ret)
			return "$retval is only available on return probe";
	} else if (*v == '+' || *v == '-') {
		const char *paren = memchr(v, '(', (size_t)(end - v));

		if (!paren || paren == v + 1 || end[-1] != ')' ||
		    paren[1] != '%' || !fg_reg(paren + 2,
					       (size_t)(end - paren - 3)))
			return "Invalid fetch argument";
		for (v++; v < paren; v++)
			if (!isdigit((unsigned char)*v))
				return "Invalid fetch argument";
		deref = true;
	} else {
		return "Invalid fetch argument";
	}
	if (!strcmp(type, "string") || !strcmp(type, "ustring")) {
		if (!deref)
			return "String type needs a memory dereference";
		snprintf(f + l, size - l, ";__data_loc char[] %s@%u+4u", name,
			 *off);
		*off += 4;
		return NULL;
	}
	if (!strchr("usx", type[0]) || sscanf(type + 1, "%u", &bits) != 1 ||
	    (bits != 8 && bits != 16 && bits != 32 && bits != 64) ||
	    strlen(type) != 1 + (bits < 10 ? 1 : 2))
		return "Unknown type";
	snprintf(f + l, size - l, ";%c%u %s@%u+%u%c", type[0] == 's' ? 's' :
		 'u', bits, name, *off, bits / 8, type[0] == 's' ? 's' : 'u');
	*off += bits / 8;
	return NULL;
}

/* A string fetcharg the descriptor mapping carries: one, and last */
static bool fg_layout_ok(const char *fields)
{
	const char *s = strstr(fields, "__data_loc");

	return !s || (!strchr(s, ';') && strstr(s + 1, "__data_loc") == NULL);
}

/* PROBE (P2-P5): @def is the request's text, NUL-terminated */
static int fg_probe_define(struct fakeguest *fg, const char *def,
			   struct gr_name_ans *a, u32 *len)
{
	const char *p = def, *name, *sym, *tok;
	char fields[512], nm[32];
	unsigned int off, nargs = 0, i;
	struct fg_cat_ev e;
	struct fg_probe *pr;
	bool ret = false;
	size_t n, symlen;
	u32 live = 0, k;
	long offs = 0;
	int err;

	if (*p == 'r') {
		ret = true;
		for (p++; isdigit((unsigned char)*p); p++)
			;
	} else if (*p == 'p') {
		p++;
	} else {
		return fg_probe_refuse(fg, a, len, EINVAL, "Invalid probe type", 0);
	}
	if (*p != ':')
		return fg_probe_refuse(fg, a, len, EINVAL,
				       "A probe of the host needs a name",
				       (int)(p - def));
	p++;
	if (!strncmp(p, GR_PROBE_GROUP "/", strlen(GR_PROBE_GROUP) + 1))
		p += strlen(GR_PROBE_GROUP) + 1;
	name = p;
	n = strcspn(p, " ");
	if (memchr(p, '/', n))
		return fg_probe_refuse(fg, a, len, EINVAL, "Group is not "
				       GR_PROBE_GROUP, (int)(p - def));
	if (!fg_ident(p, n) || !p[n])
		return fg_probe_refuse(fg, a, len, EINVAL, "Invalid event name",
				       (int)(p - def));
	snprintf(nm, sizeof(nm), "%.*s", (int)n, p);
	for (i = 0; i < fg->nr_events; i++)	/* N4 */
		if (!strcmp(fg->events[i].name, nm))
			return fg_probe_refuse(fg, a, len, EINVAL, "Event name "
					       "is the table's",
					       (int)(name - def));
	for (k = 0; k < fg->nr_probes; k++)
		live += fg->probes[k].live;
	pr = fg_probe_find(fg, nm);
	if (pr && pr->live)
		return fg_probe_refuse(fg, a, len, EEXIST, "Event already "
				       "exists", (int)(name - def));
	if (live >= GR_PROBE_MAX)
		return fg_probe_refuse(fg, a, len, ENOSPC, NULL, 0);
	sym = name + n + strspn(name + n, " ");
	symlen = strcspn(sym, " +");
	for (i = 0; i < ARRAY_SIZE(fg_syms); i++)
		if (strlen(fg_syms[i]) == symlen &&
		    !strncmp(sym, fg_syms[i], symlen))
			break;
	if (i == ARRAY_SIZE(fg_syms))
		return fg_probe_refuse(fg, a, len, ENOENT, "Failed to find "
				       "symbol", (int)(sym - def));
	tok = sym + symlen;
	if (*tok == '+') {
		char *end;

		offs = strtol(tok + 1, &end, 0);
		if (end == tok + 1 || (*end && *end != ' '))
			return fg_probe_refuse(fg, a, len, EINVAL, "Invalid "
					       "offset", (int)(tok - def));
		if (ret && offs)
			return fg_probe_refuse(fg, a, len, EINVAL, "Return "
					       "probe must be used without "
					       "offset", (int)(tok - def));
		if (offs % 4)
			return fg_probe_refuse(fg, a, len, EILSEQ, NULL, 0);
		tok = end;
	}
	snprintf(fields, sizeof(fields), ret ?
		 "unsigned long __probe_func@8+8u;"
		 "unsigned long __probe_ret_ip@16+8u" :
		 "unsigned long __probe_ip@8+8u");
	off = ret ? 24 : 16;
	while (*tok) {
		const char *why;

		tok += strspn(tok, " ");
		n = strcspn(tok, " ");
		if (!n)
			break;
		if (++nargs > FG_PROBE_ARGS)
			return fg_probe_refuse(fg, a, len, E2BIG, "Too many "
					       "arguments", (int)(tok - def));
		why = fg_fetcharg(tok, n, ret, fields, sizeof(fields), &off);
		if (why)
			return fg_probe_refuse(fg, a, len, EINVAL, why,
					       (int)(tok - def));
		tok += n;
	}
	/* the kernel created it: laid out as ADD does (P4), or P5 */
	a->matched = 1;
	fg->probes_created++;
	if (pr && pr->id >= 0) {
		if (strcmp(pr->fields, fields)) {
			a->refused = 1;
			fg->probes_deleted++;
			fg_names_line(a, len, "R %s:%s %d\n", GR_PROBE_GROUP, nm,
				      EEXIST);
			return 0;
		}
		pr->live = true;
		__atomic_store_n(&fg->added_gone[pr->id - fg->nr_events], 0,
				 __ATOMIC_RELAXED);
		fg_names_line(a, len, "K %s:%s %d\n", GR_PROBE_GROUP, nm,
			      pr->id);
		return 0;
	}
	if (!pr) {
		if (fg->nr_probes == ARRAY_SIZE(fg->probes))
			return fg_probe_refuse(fg, a, len, ENOSPC, NULL, 0);
		pr = &fg->probes[fg->nr_probes++];
		memset(pr, 0, sizeof(*pr));
		snprintf(pr->name, sizeof(pr->name), "%s", nm);
		pr->id = -1;
	}
	snprintf(pr->fields, sizeof(pr->fields), "%s", fields);
	memset(&e, 0, sizeof(e));
	snprintf(e.system, sizeof(e.system), GR_PROBE_GROUP);
	snprintf(e.name, sizeof(e.name), "%s", nm);
	e.kind = FG_EV_PROBE;
	e.fields = pr->fields;
	e.table_id = -1;
	err = fg_layout_ok(fields) ? fg_names_add_event(fg, &e) : -EOPNOTSUPP;
	if (err) {			/* P4: deleted again before answering */
		a->refused = 1;
		fg->probes_deleted++;
		fg_names_line(a, len, "R %s:%s %d\n", GR_PROBE_GROUP, nm, -err);
		return 0;
	}
	pr->id = (int)(fg->nr_events + fg->nr_added - 1);
	pr->live = true;
	a->added = 1;
	fg_names_line(a, len, "A %s:%s %d\n",
		      fg->opt.names_hostile == FG_NAMES_HOSTILE_PROBE_SYSTEM ?
		      "kprobes" : GR_PROBE_GROUP, nm, pr->id);
	return 0;
}

/* P6: stop recording it, delete it, one D line */
static void fg_probe_delete(struct fakeguest *fg, struct fg_probe *pr,
			    struct gr_name_ans *a, u32 *len)
{
	__atomic_store_n(&fg->added_gone[pr->id - fg->nr_events], 1,
			 __ATOMIC_RELAXED);
	pr->live = false;
	fg->probes_deleted++;
	a->matched++;
	fg_names_line(a, len, "D %s:%s %d\n", GR_PROBE_GROUP, pr->name, pr->id);
}

/* UNPROBE (P6): NAME, guestrelay:NAME, or "" for every probe */
static int fg_probe_undefine(struct fakeguest *fg, const char *text,
			     struct gr_name_ans *a, u32 *len)
{
	struct fg_probe *pr;
	u32 k;

	if (!strncmp(text, GR_PROBE_GROUP ":", strlen(GR_PROBE_GROUP) + 1))
		text += strlen(GR_PROBE_GROUP) + 1;
	if (!*text) {
		fg->probes_unprobe_all++;
		for (k = 0; k < fg->nr_probes; k++)
			if (fg->probes[k].live)
				fg_probe_delete(fg, &fg->probes[k], a, len);
	} else {
		pr = fg_probe_find(fg, text);
		if (!pr || !pr->live)
			return ENOENT;
		fg_probe_delete(fg, pr, a, len);
	}
	if (fg->opt.names_hostile == FG_NAMES_HOSTILE_PROBE_DLINE)
		fg_names_line(a, len, "D %s:ghost 99\n", GR_PROBE_GROUP);
	return 0;
}

/**
 * fg_probe_pass() - a PROBE or UNPROBE request (spec 18.4)
 * @fg: the fake guest
 * @op: GR_NAME_OP_PROBE or GR_NAME_OP_UNPROBE (else EOPNOTSUPP)
 * @text: the request's text, NUL-terminated
 * @a: the answer (its text and counts)
 *
 * Context: the control pass, under pass_lock.
 * Return: 0 or -errno for the answer's result (the E line in @a's text).
 */
int fg_probe_pass(struct fakeguest *fg, u32 op, const char *text,
		  struct gr_name_ans *a)
{
	u32 len = 0;
	int ret;

	/* P1: both features in use */
	if ((op != GR_NAME_OP_PROBE && op != GR_NAME_OP_UNPROBE) ||
	    !fg->opt.probes ||
	    !(__atomic_load_n(&fg->features, __ATOMIC_RELAXED) & GR_F_PROBE))
		return -EOPNOTSUPP;
	if (fg->opt.no_hostprobe)
		return -EPERM;
	if (op == GR_NAME_OP_PROBE)
		ret = fg_probe_define(fg, text, a, &len);
	else
		ret = fg_probe_undefine(fg, text, a, &len);
	a->len = len;
	if (ret && !fg->opt.quiet)
		fg_log("probe '%s' refused: %s", text, strerrorname_np(ret));
	return -ret;
}

/**
 * fg_probes_reset() - a new publication: no probe lives (P7, N6)
 * @fg: the fake guest
 */
void fg_probes_reset(struct fakeguest *fg)
{
	fg->nr_probes = 0;
	memset(fg->added_gone, 0, sizeof(fg->added_gone));
}
