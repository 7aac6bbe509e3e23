// SPDX-License-Identifier: GPL-2.0
/*
 * vm_probes.c - probes from the host (spec 18.4, GR_F_PROBE): kprobe
 * events the host defines in the guest's kernel, recorded as events by
 * name, through the one request at a time of vm_names.c (M5)
 *
 *   `probe VM DEF`      PROBE: the guest's A or K line -> the descriptor
 *                       adopted (vm_desc_refresh(), M2) -> its id enabled
 *                       (M3) -> remembered in vm->names.probes (Q3)
 *   `probe VM -:NAME`   UNPROBE NAME, or "" for every probe: D lines
 *   first attach        UNPROBE "": what a killed predecessor left (Q3)
 *   re-publication      every probe remembered is defined again (Q3, M6)
 *   vm-remove, stop     UNPROBE "" to every VM, then one bounded wait in
 *                       total (vm_probes_drop())
 *
 * The guest's text is untrusted (M4, Q2): its lines are checked by
 * name_text.c, an A, K or D line must name guestrelay:NAME of the
 * request, and the E line is printable ASCII shown as the guest's reason.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "vm.h"
#include "vm_desc.h"
#include "peer.h"

#define GR_PROBES_DROP_NS	(5000 * 1000000ULL)	/* Q3, in total */
#define GR_PROBES_LINES		(GR_PROBE_MAX + 4)

/**
 * vm_probes_in_use() - is GR_F_PROBE in use with the attached guest (Q1)?
 * @vm: the VM
 *
 * Return: true if the guest sets both GR_F_ANYEVENT and GR_F_PROBE (this
 * host sets both in every control block).
 */
bool vm_probes_in_use(const struct gr_vm *vm)
{
	return vm_names_in_use(vm) && (vm->view.features & GR_F_PROBE);
}

static struct gr_vm_probe *probe_find(struct gr_vm *vm, const char *name)
{
	struct gr_vm_probes *ps = &vm->names.probes;
	unsigned int i;

	for (i = 0; i < ps->nr; i++)
		if (!strcmp(ps->p[i].name, name))
			return &ps->p[i];
	return NULL;
}

static void probe_forget(struct gr_vm *vm, struct gr_vm_probe *p)
{
	struct gr_vm_probes *ps = &vm->names.probes;
	unsigned int i = (unsigned int)(p - ps->p);

	memmove(p, p + 1, (ps->nr - i - 1) * sizeof(*p));
	ps->nr--;
}

/* The guest deleted @p: still wanted, defined again at the next attach */
static void probe_gone(struct gr_vm_probe *p)
{
	p->live = false;
	p->adopted = false;
}

/* The probes of a publication that went are not in the guest any more */
static void probes_new_instance(struct gr_vm *vm)
{
	struct gr_vm_probes *ps = &vm->names.probes;
	unsigned int i;

	if (ps->instance == vm->instance_id)
		return;
	ps->instance = vm->instance_id;
	for (i = 0; i < ps->nr; i++) {
		ps->p[i].live = false;
		ps->p[i].adopted = false;
		ps->p[i].tried = false;
		ps->p[i].id = -1;
	}
}

/* Stop recording @id (the guest does too, P6) */
static void probe_disable(struct gr_vm *vm, int id)
{
	if (id < 0 || id >= GR_WIDE_MAX_EVENTS)
		return;
	vm->enable[id / 64] &= ~(1ULL << (id % 64));
}

/**
 * vm_probes_init() - the probes of vm-add --probe, defined at attach
 * @vm: a VM being added, its options copied
 * @err: receives a message on failure
 * @errlen: size of @err
 *
 * Return: 0 or -EINVAL (a head P2 refuses, a name twice).
 */
int vm_probes_init(struct gr_vm *vm, char *err, size_t errlen)
{
	struct gr_vm_probes *ps = &vm->names.probes;
	char name[GR_PROBE_NAME_MAX];
	const char *why = "";
	unsigned int i;

	for (i = 0; i < GR_PROBE_MAX && vm->opts.probes[i][0]; i++) {
		const char *def = vm->opts.probes[i];

		if (gr_probe_def_name(def, name, &why)) {
			snprintf(err, errlen, "--probe '%s': %s", def, why);
			return -EINVAL;
		}
		if (probe_find(vm, name)) {
			snprintf(err, errlen, "--probe: two probes named %s",
				 name);
			return -EINVAL;
		}
		memset(&ps->p[ps->nr], 0, sizeof(ps->p[0]));
		snprintf(ps->p[ps->nr].name, sizeof(ps->p[0].name), "%s", name);
		snprintf(ps->p[ps->nr].def, sizeof(ps->p[0].def), "%s", def);
		ps->p[ps->nr++].id = -1;
	}
	return 0;
}

/**
 * vm_probe() - define or delete a probe in the guest (spec 18.4)
 * @vm: the VM
 * @def: a definition (`p:NAME SYMBOL ...`, `r:NAME SYMBOL ...`),
 *	`-:NAME` (tracefs' deletion) or "-:*" for every probe of the host
 * @done: called with the report or the error once the guest answered
 * @arg: passed to @done
 * @err: receives a message on failure
 * @errlen: size of @err
 *
 * Return: 0 (@done will be called), -EINVAL, -EEXIST, -ENOSPC, -ENOENT,
 * -EOPNOTSUPP, -EBUSY, -ENOTCONN (@done not called).
 */
int vm_probe(struct gr_vm *vm, const char *def, gr_done_fn done, void *arg,
	     char *err, size_t errlen)
{
	struct gr_vm_probes *ps = &vm->names.probes;
	char name[GR_PROBE_NAME_MAX] = "";
	const char *why = "", *text = def;
	enum gr_names_for kind = GR_NAMES_PROBE;
	uint32_t op = GR_NAME_OP_PROBE;
	int ret;

	ret = vm_names_attached(vm, err, errlen);
	if (ret)
		return ret;
	if (!vm_probes_in_use(vm)) {
		snprintf(err, errlen, "the guest of %s takes no probes from "
			 "the host (no GR_F_PROBE: a guest module of spec 1.8 "
			 "or later is needed)", vm->opts.name);
		return -EOPNOTSUPP;
	}
	probes_new_instance(vm);
	if (!strcmp(def, "-:*")) {
		kind = GR_NAMES_UNPROBE;
		op = GR_NAME_OP_UNPROBE;
		text = "";
	} else if (!strncmp(def, "-:", 2)) {
		text = def + 2;
		if (!strncmp(text, GR_PROBE_GROUP "/", strlen(GR_PROBE_GROUP) + 1))
			text += strlen(GR_PROBE_GROUP) + 1;
		if (!*text || gr_probe_name_len(text) != strlen(text)) {
			snprintf(err, errlen, "-:NAME deletes the probe NAME "
				 "(an identifier of at most 31 characters)");
			return -EINVAL;
		}
		snprintf(name, sizeof(name), "%s", text);
		kind = GR_NAMES_UNPROBE;
		op = GR_NAME_OP_UNPROBE;
	} else {
		ret = gr_probe_def_name(def, name, &why);
		if (ret) {
			snprintf(err, errlen, "'%s': %s", def, why);
			return ret;
		}
		if (probe_find(vm, name) && probe_find(vm, name)->live) {
			snprintf(err, errlen, "%s already has the probe " GR_PROBE_GROUP
				 ":%s (guestrelay probe %s -:%s deletes it)",
				 vm->opts.name, name, vm->opts.name, name);
			return -EEXIST;
		}
		if (!probe_find(vm, name) && ps->nr == GR_PROBE_MAX) {
			snprintf(err, errlen, "%s has %d probes of the host, the "
				 "most there may be (spec 18.4 P2)",
				 vm->opts.name, GR_PROBE_MAX);
			return -ENOSPC;
		}
	}
	ret = vm_names_start(vm, kind, op, text, strlen(text), err, errlen);
	if (ret)
		return ret;
	snprintf(ps->pending, sizeof(ps->pending), "%s", name);
	vm->names.done = done;
	vm->names.arg = arg;
	return 0;
}

/**
 * vm_probe_list() - the probes the host defined in @vm (Q3)
 * @vm: the VM
 * @out: receives up to @max of them
 * @max: room in @out
 *
 * Return: the number of probes.
 */
unsigned int vm_probe_list(struct gr_vm *vm, struct gr_probe_info *out,
			   unsigned int max)
{
	struct gr_vm_probes *ps = &vm->names.probes;
	unsigned int i;

	if (vm->state == GR_VM_ATTACHED)
		probes_new_instance(vm);
	for (i = 0; i < ps->nr && i < max; i++) {
		const struct gr_vm_probe *p = &ps->p[i];

		memset(&out[i], 0, sizeof(out[i]));
		snprintf(out[i].name, sizeof(out[i].name), "%s", p->name);
		snprintf(out[i].def, sizeof(out[i].def), "%s", p->def);
		out[i].id = p->live ? p->id : -1;
		out[i].err = p->err;
		out[i].state = p->adopted ? "recording" :
			       p->live ? "defined, not adopted" :
			       p->err ? "not defined" : "to define";
	}
	return ps->nr;
}

/**
 * vm_probes_live() - probes of the host alive in the guest now
 * @vm: the VM
 *
 * Return: their number.
 */
unsigned int vm_probes_live(const struct gr_vm *vm)
{
	const struct gr_vm_probes *ps = &vm->names.probes;
	unsigned int i, n = 0;

	if (vm->state != GR_VM_ATTACHED || ps->instance != vm->instance_id)
		return 0;
	for (i = 0; i < ps->nr; i++)
		n += ps->p[i].live;
	return n;
}

/*
 * A PROBE created guestrelay:@name as descriptor @id (A or K): adopt it
 * (M2), enable it (M3), remember it (Q3); the report into @msg
 */
static int probe_defined(struct gr_vm *vm, const char *name, uint32_t id,
			 char *msg, size_t size)
{
	struct gr_vm_probes *ps = &vm->names.probes;
	struct gr_vm_probe *p = probe_find(vm, name);
	const struct gr_event_view *e;
	int ret;

	if (!p) {
		p = &ps->p[ps->nr++];
		memset(p, 0, sizeof(*p));
		snprintf(p->name, sizeof(p->name), "%s", name);
	}
	if (vm->names.kind == GR_NAMES_PROBE)
		snprintf(p->def, sizeof(p->def), "%.*s", (int)vm->names.len,
			 vm->names.text);
	p->live = true;
	p->adopted = false;
	p->err = 0;
	p->id = (int)id;
	ps->defined++;
	ret = vm_desc_refresh(vm);
	e = id < vm->view.desc_count ? &vm->events[id] : NULL;
	if (ret < 0 || !e || strcmp(e->system, GR_PROBE_GROUP) ||
	    strcmp(e->name, name)) {
		snprintf(msg, size, GR_PROBE_GROUP ":%s: probe defined as "
			 "event id %u, but the host did not adopt its "
			 "descriptor: not recording (guestrelay status %s "
			 "counts refused descriptors)", name, id,
			 vm->opts.name);
		return -EPROTO;
	}
	vm->enable[id / 64] |= 1ULL << (id % 64);
	hostctl_publish(vm);
	p->adopted = true;
	snprintf(msg, size, GR_PROBE_GROUP ":%s: probe defined, event id %u, "
		 "recording", name, id);
	return 0;
}

/* A PROBE answer's lines: one A or K of guestrelay:NAME, or one R */
static int probe_lines(struct gr_vm *vm, const struct gr_name_line *l,
		       unsigned int nr, char *msg, size_t size)
{
	const char *name = vm->names.probes.pending;
	unsigned int i, hits = 0, at = 0;

	for (i = 0; i < nr && i < GR_PROBES_LINES; i++) {
		if (l[i].kind == GR_NAME_REASON)
			continue;
		if (l[i].kind == GR_NAME_NONE || l[i].kind == GR_NAME_DELETED ||
		    strcmp(l[i].system, GR_PROBE_GROUP) ||
		    strcmp(l[i].name, name))
			goto bad;
		hits++;
		at = i;
	}
	if (hits != 1)
		goto bad;
	if (l[at].kind == GR_NAME_REFUSED) {
		snprintf(msg, size, GR_PROBE_GROUP ":%s: the guest cannot "
			 "record the probe (%s: %s); it deleted it again",
			 name, strerrorname_np((int)l[at].num) ?: "?",
			 strerror((int)l[at].num));
		return -(int)l[at].num;
	}
	return probe_defined(vm, name, l[at].num, msg, size);
bad:
	vm->names.bad_answers++;
	snprintf(msg, size, "the answer of the guest of %s was refused: it "
		 "does not say one A, K or R line of " GR_PROBE_GROUP ":%s",
		 vm->opts.name, name);
	return -EPROTO;
}

/* One D or R line of an UNPROBE answer into the report at @msg + *@off */
static void unprobe_report(char *msg, size_t size, size_t *off,
			   const struct gr_name_line *l)
{
	int e = (int)l->num;

	if (*off >= size)
		return;
	if (l->kind == GR_NAME_DELETED)
		*off += (size_t)snprintf(msg + *off, size - *off, "%s"
					 GR_PROBE_GROUP ":%s: probe deleted "
					 "(event id %u)", *off ? "\n" : "",
					 l->name, l->num);
	else
		*off += (size_t)snprintf(msg + *off, size - *off, "%s"
					 GR_PROBE_GROUP ":%s: the guest could "
					 "not delete the probe (%s: %s); it "
					 "records nothing, deleted later",
					 *off ? "\n" : "", l->name,
					 strerrorname_np(e) ?: "?",
					 strerror(e));
}

/*
 * An UNPROBE answer: a D line per probe deleted, an R line per probe the
 * kernel would not delete (P6: stopped, still the host's); the probes
 * the host asked to forget and that were deleted are forgotten
 */
static int unprobe_lines(struct gr_vm *vm, const struct gr_name_line *l,
			 unsigned int nr, char *msg, size_t size)
{
	struct gr_vm_probes *ps = &vm->names.probes;
	bool forget = vm->names.kind == GR_NAMES_UNPROBE;
	const char *name = ps->pending;
	uint32_t kept = 0;
	struct gr_vm_probe *p;
	int ret = 0;
	size_t off = 0;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		if ((l[i].kind != GR_NAME_DELETED &&
		     l[i].kind != GR_NAME_REFUSED) ||
		    strcmp(l[i].system, GR_PROBE_GROUP) ||
		    (name[0] && strcmp(l[i].name, name)))
			goto bad;
		p = probe_find(vm, l[i].name);
		if (l[i].kind == GR_NAME_DELETED && p && p->live &&
		    p->id != (int)l[i].num)
			goto bad;
	}
	for (i = 0; i < nr; i++) {
		p = probe_find(vm, l[i].name);
		unprobe_report(msg, size, &off, &l[i]);
		if (l[i].kind == GR_NAME_REFUSED) {
			ret = ret ?: -(int)l[i].num;
			if (p) {
				probe_disable(vm, p->id);
				p->adopted = false;
				kept |= 1U << (p - ps->p);
			}
			continue;
		}
		probe_disable(vm, (int)l[i].num);
		ps->deleted++;
		if (p)
			probe_gone(p);
	}
	/* forgotten: the one asked for, or every one, unless kept */
	for (i = ps->nr; forget && i-- > 0;)
		if (!(kept & (1U << i)) &&
		    (!name[0] || !strcmp(ps->p[i].name, name)))
			probe_forget(vm, &ps->p[i]);
	hostctl_publish(vm);
	if (!nr)
		snprintf(msg, size, "%s: no probe of the host to delete",
			 vm->opts.name);
	return ret;
bad:
	vm->names.bad_answers++;
	snprintf(msg, size, "the answer of the guest of %s was refused: a "
		 "line is not 'D|R " GR_PROBE_GROUP ":NAME N' of a probe "
		 "asked for", vm->opts.name);
	return -EPROTO;
}

/* A refused PROBE or UNPROBE: the errno's name and the guest's reason */
static int probe_refused(struct gr_vm *vm, const struct gr_name_answer *a,
			 char *msg, size_t size)
{
	struct gr_vm_probes *ps = &vm->names.probes;
	char reason[GR_NAME_REASON_MAX];
	const char *why = "";
	struct gr_vm_probe *p;
	int e = (int)a->result;

	if (gr_name_reason(a->text, a->len, reason, sizeof(reason), &why)) {
		vm->names.bad_answers++;
		snprintf(msg, size, "the answer of the guest of %s was "
			 "refused: %s", vm->opts.name, why);
		return -EPROTO;
	}
	p = ps->pending[0] ? probe_find(vm, ps->pending) : NULL;
	if (vm->names.op == GR_NAME_OP_UNPROBE && e == ENOENT) {
		if (p && vm->names.kind == GR_NAMES_UNPROBE)
			probe_forget(vm, p);
		else if (p)
			probe_gone(p);
		if (!ps->pending[0] && vm->names.kind == GR_NAMES_UNPROBE)
			ps->nr = 0;
	} else if (p && vm->names.op == GR_NAME_OP_PROBE) {
		p->err = -e;
	}
	snprintf(msg, size, "%s%s%s: the guest refused: %s (%s)%s%s%s",
		 ps->pending[0] ? GR_PROBE_GROUP ":" : "", ps->pending,
		 ps->pending[0] ? "" : vm->opts.name,
		 strerrorname_np(e) ?: "?", strerror(e),
		 reason[0] ? ": \"" : "", reason, reason[0] ? "\"" : "");
	if (e == EPERM)
		snprintf(msg + strlen(msg), size - strlen(msg), " (its "
			 "administrator forbids probes from the host: "
			 "hostprobe=0, or every request by name: byname=0)");
	return -e;
}

/**
 * vm_probes_answer() - the checked answer of a PROBE or UNPROBE
 * @vm: the VM
 * @a: the answer, read once, its numbers checked (M4)
 */
void vm_probes_answer(struct gr_vm *vm, const struct gr_name_answer *a)
{
	struct gr_name_line *lines;
	const char *why = "";
	unsigned int nr;
	char msg[2048];
	int ret;

	lines = calloc(GR_PROBES_LINES, sizeof(*lines));
	if (!lines) {
		vm_names_finish(vm, -ENOMEM, "out of memory");
		return;
	}
	if (a->result) {
		ret = probe_refused(vm, a, msg, sizeof(msg));
	} else if (gr_name_add_parse(a->text, a->len, lines, GR_PROBES_LINES,
				     &nr, &why)) {
		vm->names.bad_answers++;
		snprintf(msg, sizeof(msg), "the answer of the guest of %s was "
			 "refused: %s", vm->opts.name, why);
		ret = -EPROTO;
	} else if (nr > GR_PROBES_LINES) {
		vm->names.bad_answers++;
		snprintf(msg, sizeof(msg), "the answer of the guest of %s was "
			 "refused: more lines than probes", vm->opts.name);
		ret = -EPROTO;
	} else if (vm->names.op == GR_NAME_OP_PROBE) {
		ret = probe_lines(vm, lines, nr, msg, sizeof(msg));
	} else {
		ret = unprobe_lines(vm, lines, nr, msg, sizeof(msg));
	}
	if (ret && vm->names.kind != GR_NAMES_PROBE &&
	    vm->names.kind != GR_NAMES_UNPROBE)
		syslog(LOG_WARNING, "%s: %s", vm->opts.name, msg);
	free(lines);
	vm_names_finish(vm, ret, msg);
}

/**
 * vm_probes_work() - what the probes still want, with no request in flight
 * @vm: the VM (any state)
 *
 * Q3: at the first attach of this agent, UNPROBE of every probe; after a
 * re-publication, the probes the host still wants, one request each
 * (vm_names_poll() calls again once it is answered). A probe is asked
 * once per publication.
 */
void vm_probes_work(struct gr_vm *vm)
{
	struct gr_vm_probes *ps = &vm->names.probes;
	char err[256];
	unsigned int i;

	if (!vm_probes_in_use(vm) || ps->dropping)
		return;
	probes_new_instance(vm);
	if (!ps->cleared) {
		ps->cleared = true;
		ps->pending[0] = '\0';
		if (vm_names_start(vm, GR_NAMES_CLEAR, GR_NAME_OP_UNPROBE, "", 0,
				   err, sizeof(err)))
			syslog(LOG_WARNING, "%s: %s", vm->opts.name, err);
		return;
	}
	for (i = 0; i < ps->nr; i++) {
		struct gr_vm_probe *p = &ps->p[i];

		if (p->live || p->tried)
			continue;
		p->tried = true;
		snprintf(ps->pending, sizeof(ps->pending), "%s", p->name);
		if (vm_names_start(vm, GR_NAMES_REPROBE, GR_NAME_OP_PROBE,
				   p->def, strlen(p->def), err, sizeof(err)))
			syslog(LOG_WARNING, "%s: %s", vm->opts.name, err);
		return;
	}
}

/* Q3: the UNPROBE of every probe, once no request is in flight */
static bool drop_send(struct gr_vm *vm)
{
	struct gr_vm_probes *ps = &vm->names.probes;
	char err[256];

	if (vm->names.active)
		return false;
	ps->pending[0] = '\0';
	if (vm_names_start(vm, GR_NAMES_DROP, GR_NAME_OP_UNPROBE, "", 0, err,
			   sizeof(err)))
		return true;	/* cannot: nothing to wait for */
	peer_kick(vm, GR_VEC_CTRL);
	vm->names.kick = false;
	return true;
}

/**
 * vm_probes_drop() - delete the host's probes in every VM of @vms (Q3)
 * @vms: the VMs (vm-remove: one; the agent's stop: all of them)
 * @n: their number
 *
 * Every VM with probes alive or wanted gets an UNPROBE of every probe as
 * soon as its strip is free; then one wait for all of them, 5 s at most
 * in total (H17), polling every 5 ms.
 */
void vm_probes_drop(struct gr_vm **vms, unsigned int n)
{
	uint64_t deadline = gr_now_ns() + GR_PROBES_DROP_NS;
	const struct timespec tick = { 0, 5000000 };
	unsigned int i, waiting;
	bool *sent;

	sent = calloc(n ? n : 1, sizeof(*sent));
	if (!sent)
		return;
	for (i = 0; i < n; i++) {
		vms[i]->names.probes.dropping = true;
		/* none alive, none wanted: nothing to delete */
		if (!vm_probes_in_use(vms[i]) ||
		    (!vm_probes_live(vms[i]) && !vms[i]->names.probes.nr))
			sent[i] = true;
	}
	for (;;) {
		waiting = 0;
		for (i = 0; i < n; i++) {
			struct gr_vm *vm = vms[i];

			vm_names_poll(vm);
			if (!sent[i]) {
				sent[i] = drop_send(vm);
				waiting++;
			} else if (vm->names.active &&
				   vm->names.kind == GR_NAMES_DROP) {
				waiting++;
			}
		}
		if (!waiting || gr_now_ns() >= deadline)
			break;
		nanosleep(&tick, NULL);
	}
	for (i = 0; i < n; i++) {
		if (vms[i]->names.active)
			vm_names_cancel(vms[i], -ETIMEDOUT, "the agent stops");
		if (vm_probes_live(vms[i]))
			syslog(LOG_WARNING, "%s: %u probes of the host were "
			       "not deleted in the guest (a next agent's "
			       "first attach deletes them)",
			       vms[i]->opts.name, vm_probes_live(vms[i]));
	}
	free(sent);
}
