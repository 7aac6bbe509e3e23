// SPDX-License-Identifier: GPL-2.0
/*
 * test_vm_names.c - host-agent/agent/vm_names.c alone: the host's
 * requests for events by name (spec 18) in the strip of a real shared
 * region, the guest's answers written by hand
 *
 * The VM is tests/lib/gr_agent_vm.c's (one event, sched:sched_switch),
 * with hostctl.c, vm_settings.c and vm_desc.c real (its guest adds no
 * descriptor, so nothing is adopted): one request at a time, seq
 * continued from the region, every field before seq, pages until
 * next = total, answers to another seq ignored, 5 s
 * bound, refusals, and enable resolved against the adopted table; and
 * the probes from the host (spec 18.4): the first UNPROBE, the E line,
 * hostile D and A lines, the definitions the host refuses itself.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gr_agent_vm.h"
#include "gr_test.h"

struct t_reply {
	int calls;
	int err;
	char msg[1024];
	unsigned int nr;
	char first[2 * GR_NAME_PART_MAX];
};

static void t_done(void *arg, int err, const char *msg)
{
	struct t_reply *r = arg;

	r->calls++;
	r->err = err;
	snprintf(r->msg, sizeof(r->msg), "%s", msg ? msg : "");
}

static void t_list_done(void *arg, int err, const char *msg,
			const struct gr_name_list *l)
{
	struct t_reply *r = arg;

	t_done(arg, err, msg);
	r->nr = l ? l->nr : 0;
	if (l && l->nr)
		snprintf(r->first, sizeof(r->first), "%s:%s",
			 l->ev[0].system, l->ev[0].name);
}

static struct gr_name_req *t_req(struct gr_avm *t)
{
	return (struct gr_name_req *)(t->vm.region + GR_NAME_REQ_OFFSET);
}

/*
 * The guest's answer to the request in the strip, seq last, with an ADD
 * answer's counts @n: matched, added, refused (NULL: 0)
 */
static void t_answer_counts(struct gr_avm *t, uint64_t seq, uint32_t result,
			    uint32_t total, uint32_t next, const char *text,
			    const uint32_t *n)
{
	struct gr_name_ans *a = (struct gr_name_ans *)(t->vm.region +
						       GR_NAME_ANS_OFFSET);

	memset(a, 0, sizeof(*a));
	if (n) {
		a->matched = htole32(n[0]);
		a->added = htole32(n[1]);
		a->refused = htole32(n[2]);
	}
	a->result = htole32(result);
	a->total = htole32(total);
	a->next = htole32(next);
	a->len = htole32((uint32_t)strlen(text));
	memcpy(a->text, text, strlen(text));
	__atomic_store_n(&a->seq, htole64(seq), __ATOMIC_RELEASE);
}

static void t_answer(struct gr_avm *t, uint64_t seq, uint32_t result,
		     uint32_t total, uint32_t next, const char *text)
{
	t_answer_counts(t, seq, result, total, next, text, NULL);
}

static uint64_t t_seq(struct gr_avm *t)
{
	return le64toh(__atomic_load_n(&t_req(t)->seq, __ATOMIC_ACQUIRE));
}

static struct gr_avm *t_open(uint64_t features)
{
	struct gr_avm *t = gr_avm_new(features, GR_VERIFY_OFF, 0);

	hostctl_init(&t->vm);
	return t;
}

static void test_list_pages_until_total(void)
{
	struct gr_avm *t = t_open(GR_F_ANYEVENT);
	const char *p1 = "sched:sched_switch n\n";
	const char *p2 = "fsys:ev_ints y u8 a@8+1u\n";
	uint32_t total = (uint32_t)(strlen(p1) + strlen(p2));
	struct t_reply r = { 0 };
	char err[256];

	t_req(t)->seq = htole64(41);	/* an earlier agent's requests */
	CU_ASSERT_EQUAL_FATAL(vm_list_events(&t->vm, "s*", t_list_done, &r,
					     err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(t_seq(t), 42);
	CU_ASSERT_EQUAL(le32toh(t_req(t)->op), GR_NAME_OP_LIST);
	CU_ASSERT_EQUAL(le32toh(t_req(t)->offset), 0);
	CU_ASSERT_EQUAL(le32toh(t_req(t)->len), 2);
	CU_ASSERT(!memcmp(t_req(t)->text, "s*", 2));
	CU_ASSERT(t->vm.names.kick);
	/* one at a time (M5) */
	CU_ASSERT_EQUAL(vm_list_events(&t->vm, "", t_list_done, &r, err,
				       sizeof(err)), -EBUSY);
	vm_names_poll(&t->vm);
	CU_ASSERT_EQUAL(r.calls, 0);
	/* the first page: the next is asked for at its offset */
	t_answer(t, 42, 0, total, (uint32_t)strlen(p1), p1);
	vm_names_poll(&t->vm);
	CU_ASSERT_EQUAL(r.calls, 0);
	CU_ASSERT_EQUAL(t_seq(t), 43);
	CU_ASSERT_EQUAL(le32toh(t_req(t)->offset), strlen(p1));
	t_answer(t, 43, 0, total, total, p2);
	vm_names_poll(&t->vm);
	CU_ASSERT_EQUAL(r.calls, 1);
	CU_ASSERT_EQUAL(r.err, 0);
	CU_ASSERT_EQUAL(r.nr, 2);
	CU_ASSERT_STRING_EQUAL(r.first, "sched:sched_switch");
	CU_ASSERT(!t->vm.names.active);
	gr_avm_free(t);
}

static void test_answer_to_another_seq_is_not_ours(void)
{
	struct gr_avm *t = t_open(GR_F_ANYEVENT);
	struct t_reply r = { 0 };
	char err[256];

	CU_ASSERT_EQUAL_FATAL(vm_list_events(&t->vm, "", t_list_done, &r,
					     err, sizeof(err)), 0);
	t_answer(t, t_seq(t) + 7, 0, 0, 0, "");
	vm_names_poll(&t->vm);
	CU_ASSERT_EQUAL(r.calls, 0);
	/* H17: bounded */
	t->vm.names.deadline_ns = 0;
	vm_names_poll(&t->vm);
	CU_ASSERT_EQUAL(r.calls, 1);
	CU_ASSERT_EQUAL(r.err, -ETIMEDOUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.msg, "did not answer"));
	gr_avm_free(t);
}

static void test_hostile_answers_are_refused(void)
{
	static const struct {
		uint32_t total, next;
		const char *text;
		const char *why;
	} bad[] = {
		{ 10, 30, "a:b y\n", "outside" },
		{ 6, 6, "a:b y", "whole line" },
		{ 6, 6, "a:b \x1b\n", "listing is not" },
		{ 2u << 20, 6, "a:b y\n", "1 MiB" },
	};
	struct t_reply r;
	struct gr_avm *t;
	char err[256];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		t = t_open(GR_F_ANYEVENT);
		memset(&r, 0, sizeof(r));
		CU_ASSERT_EQUAL_FATAL(vm_list_events(&t->vm, "", t_list_done,
						     &r, err, sizeof(err)), 0);
		t_answer(t, t_seq(t), 0, bad[i].total, bad[i].next,
			 bad[i].text);
		vm_names_poll(&t->vm);
		CU_ASSERT_EQUAL(r.calls, 1);
		CU_ASSERT_EQUAL(r.err, -EPROTO);
		CU_ASSERT_PTR_NOT_NULL(strstr(r.msg, bad[i].why));
		CU_ASSERT_EQUAL(t->vm.names.bad_answers, 1);
		gr_avm_free(t);
	}
}

static void test_enable_known_sets_the_bit(void)
{
	struct gr_avm *t = t_open(GR_F_ANYEVENT);
	uint64_t seq0 = t->vm.hc.ctrl_seq;
	struct t_reply r = { 0 };
	char err[256];

	CU_ASSERT_EQUAL_FATAL(vm_enable_events(&t->vm, "sched:sched_switch",
					       t_done, &r, err, sizeof(err)),
			      GR_ASYNC);
	CU_ASSERT_EQUAL(le32toh(t_req(t)->op), GR_NAME_OP_ADD);
	CU_ASSERT(!memcmp(t_req(t)->text, "sched:sched_switch", 18));
	CU_ASSERT_EQUAL(t->vm.enable[0], 0);
	t_answer(t, t_seq(t), 0, 0, 0, "K sched:sched_switch 0\n");
	vm_names_poll(&t->vm);
	CU_ASSERT_EQUAL(r.calls, 1);
	CU_ASSERT_EQUAL(r.err, 0);
	CU_ASSERT_STRING_EQUAL(r.msg, "sched:sched_switch known\n");
	CU_ASSERT_EQUAL(t->vm.enable[0], 1);
	CU_ASSERT(t->vm.hc.ctrl_seq > seq0);	/* published */
	/* a name the table has, without a system part: nothing asked */
	memset(&r, 0, sizeof(r));
	CU_ASSERT_EQUAL(vm_enable_events(&t->vm, "sched_*", t_done, &r, err,
					 sizeof(err)), 0);
	CU_ASSERT(!t->vm.names.active);
	gr_avm_free(t);
}

/*
 * enable '*': an answer with more event lines than the report shows, or
 * more events than lines, is summed up from its complete counts, its
 * refusals by reason
 */
static void test_enable_all_is_summed_up(void)
{
	static const uint32_t n[3] = { 600, 0, 599 };
	struct gr_avm *t = t_open(GR_F_ANYEVENT);
	struct t_reply r = { 0 };
	char err[256], text[GR_NAME_ANS_TEXT];
	size_t len;
	int i;

	CU_ASSERT_EQUAL_FATAL(vm_enable_events(&t->vm, "*", t_done, &r, err,
					       sizeof(err)), GR_ASYNC);
	len = (size_t)snprintf(text, sizeof(text), "K sched:sched_switch 0\n");
	for (i = 0; i < 40; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"R s%d:e%d %d\n", i, i, ENOSPC);
	for (i = 0; i < 10; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"R f:g%d %d\n", i, EOPNOTSUPP);
	CU_ASSERT_FATAL(len < sizeof(text));
	t_answer_counts(t, t_seq(t), 0, 0, 0, text, n);
	vm_names_poll(&t->vm);
	CU_ASSERT_EQUAL(r.calls, 1);
	CU_ASSERT_EQUAL(r.err, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.msg, "600 events named: 0 added, 1 known, 599 refused\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.msg, "(the 50 of 599 the answer lists): "));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.msg, strerror(ENOSPC)));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.msg, strerror(EOPNOTSUPP)));
	CU_ASSERT_PTR_NULL(strstr(r.msg, "s3:e3"));
	CU_ASSERT_EQUAL(t->vm.enable[0], 1);
	gr_avm_free(t);
}

static void test_enable_of_nothing_fails_with_the_guests_reason(void)
{
	struct gr_avm *t = t_open(GR_F_ANYEVENT);
	struct t_reply r = { 0 };
	char err[256];

	CU_ASSERT_EQUAL_FATAL(vm_enable_events(&t->vm, "sched_switch,x:y*",
					       t_done, &r, err, sizeof(err)),
			      GR_ASYNC);
	/* only the pattern the table does not match is asked for */
	CU_ASSERT_EQUAL(le32toh(t_req(t)->len), 4);
	t_answer(t, t_seq(t), 0, 0, 0, "N x:y* 2\n");
	vm_names_poll(&t->vm);
	CU_ASSERT_EQUAL(r.err, -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.msg, "'x:y*' names no event"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.msg, "No such file or directory"));
	CU_ASSERT_PTR_NULL(strchr(r.msg, '\n'));
	CU_ASSERT_EQUAL(t->vm.enable[0], 0);	/* all or nothing */
	gr_avm_free(t);
}

/* The record of run-time changes a new guest is asked again at attach */
static void test_run_time_changes_kept_in_order(void)
{
	struct gr_avm *t = t_open(GR_F_ANYEVENT);
	uint64_t set[GR_WIDE_MAX_EVENTS / 64] = { 0 };
	uint64_t clr[GR_WIDE_MAX_EVENTS / 64] = { 0 };
	char err[256], big[GR_EV_LIST_MAX], *l;

	t->vm.enable[0] = 1;
	CU_ASSERT_EQUAL(vm_set_events(&t->vm, "sched_switch", false, err,
				      sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(t->vm.ev_changes, "!sched_switch");
	CU_ASSERT_EQUAL(t->vm.enable[0], 0);
	CU_ASSERT_EQUAL(vm_set_events(&t->vm, "sched_*", true, err,
				      sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(t->vm.ev_changes, "!sched_switch,sched_*");
	CU_ASSERT_EQUAL(t->vm.enable[0], 1);
	/* the same pattern again replaces its earlier change */
	CU_ASSERT_EQUAL(vm_set_events(&t->vm, "sched_switch", true, err,
				      sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(t->vm.ev_changes, "sched_*,sched_switch");
	/* '!' within an enable list: the later token wins */
	CU_ASSERT_EQUAL(vm_set_events(&t->vm, "sched_*,!sched_switch", true,
				      err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(t->vm.ev_changes, "sched_*,!sched_switch");
	CU_ASSERT_EQUAL(t->vm.enable[0], 0);
	CU_ASSERT_EQUAL(vm_set_events(&t->vm, "!sched_switch", false, err,
				      sizeof(err)), -EINVAL);
	/* what a new guest is asked: --events (or the defaults), then these */
	snprintf(t->vm.opts.events, sizeof(t->vm.opts.events), "irq_*");
	l = vm_events_list(&t->vm, true);
	CU_ASSERT_STRING_EQUAL(l, "irq_*,sched_*,!sched_switch");
	CU_ASSERT_EQUAL(vm_resolve_events(&t->vm, l, false, set, clr, err,
					  sizeof(err)), 0);
	CU_ASSERT_EQUAL(set[0], 0);
	CU_ASSERT_EQUAL(clr[0], 1);
	free(l);
	/* the defaults are resolved, never asked for by name */
	t->vm.opts.events[0] = '\0';
	l = vm_events_list(&t->vm, false);
	CU_ASSERT_STRING_EQUAL(l, "sched_*,!sched_switch");
	free(l);
	l = vm_events_list(&t->vm, true);
	CU_ASSERT_PTR_NOT_NULL(strstr(l, "lttng_statedump,vmsync,sched_*"));
	free(l);
	/* a record that would outgrow the list: refused, nothing changed */
	big[0] = '\0';
	while (strlen(big) + 13 < sizeof(big) - 1)
		strcat(big, big[0] ? ",sched_switch" : "sched_switch");
	CU_ASSERT_EQUAL(vm_set_events(&t->vm, big, true, err, sizeof(err)),
			-E2BIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "vm-add --events"));
	CU_ASSERT_EQUAL(t->vm.enable[0], 0);
	CU_ASSERT_STRING_EQUAL(t->vm.ev_changes, "sched_*,!sched_switch");
	gr_avm_free(t);
}

static void test_refusal_and_cancel(void)
{
	struct gr_avm *t = t_open(GR_F_ANYEVENT);
	struct t_reply r = { 0 };
	char err[256];

	CU_ASSERT_EQUAL_FATAL(vm_enable_events(&t->vm, "a:b", t_done, &r,
					       err, sizeof(err)), GR_ASYNC);
	t_answer(t, t_seq(t), EPERM, 0, 0, "");
	vm_names_poll(&t->vm);
	CU_ASSERT_EQUAL(r.err, -EPERM);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.msg, "byname=0"));
	memset(&r, 0, sizeof(r));
	CU_ASSERT_EQUAL_FATAL(vm_enable_events(&t->vm, "a:b", t_done, &r,
					       err, sizeof(err)), GR_ASYNC);
	vm_names_cancel(&t->vm, -ENOTCONN, "gone");
	CU_ASSERT_EQUAL(r.calls, 1);
	CU_ASSERT_EQUAL(r.err, -ENOTCONN);
	CU_ASSERT(!t->vm.names.active);
	gr_avm_free(t);
}

static void test_without_the_feature(void)
{
	struct gr_avm *t = t_open(0);
	struct t_reply r = { 0 };
	char err[512];

	CU_ASSERT_EQUAL(vm_list_events(&t->vm, "", t_list_done, &r, err,
				       sizeof(err)), -EOPNOTSUPP);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "GR_F_ANYEVENT"));
	CU_ASSERT_EQUAL(vm_enable_events(&t->vm, "a:b", t_done, &r, err,
					 sizeof(err)), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown event 'a:b'"));
	CU_ASSERT_EQUAL(t_seq(t), 0);	/* the strip is written by nobody */
	gr_avm_free(t);
}

/* vm_probes.c rings the guest at the agent's stop; no guest here */
void peer_kick(struct gr_vm *vm, unsigned int vector)
{
	(void)vm;
	(void)vector;
}

/* Spec 18.4 Q3: the first request of an idle VM is UNPROBE of every one */
static struct gr_avm *t_open_probes(void)
{
	struct gr_avm *t = t_open(GR_F_ANYEVENT | GR_F_PROBE);

	vm_names_poll(&t->vm);
	CU_ASSERT_EQUAL(le32toh(t_req(t)->op), GR_NAME_OP_UNPROBE);
	CU_ASSERT_EQUAL(le32toh(t_req(t)->len), 0);
	t_answer(t, t_seq(t), 0, 0, 0, "D guestrelay:left_over 7\n");
	vm_names_poll(&t->vm);
	CU_ASSERT(!t->vm.names.active);
	return t;
}

/* PROBE NAME answered with @text; the reply in @r */
static void t_probe(struct gr_avm *t, const char *def, uint32_t result,
		    const char *text, struct t_reply *r)
{
	char err[512];

	memset(r, 0, sizeof(*r));
	CU_ASSERT_EQUAL_FATAL(vm_probe(&t->vm, def, t_done, r, err,
				       sizeof(err)), 0);
	t_answer(t, t_seq(t), result, 0, 0, text);
	vm_names_poll(&t->vm);
	CU_ASSERT_EQUAL(r->calls, 1);
}

static void test_probe_refused_with_the_kernels_reason(void)
{
	struct gr_avm *t = t_open_probes();
	struct t_reply r;
	const char *def = "p:myopen do_sys_openat3 dfd=%di";

	t_probe(t, def, ENOENT, "E error: Failed to find symbol at column 9\n",
		&r);
	CU_ASSERT_EQUAL(le32toh(t_req(t)->op), GR_NAME_OP_PROBE);
	CU_ASSERT_EQUAL(le32toh(t_req(t)->len), strlen(def));
	CU_ASSERT(!memcmp(t_req(t)->text, def, strlen(def)));
	CU_ASSERT_EQUAL(r.err, -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.msg, "guestrelay:myopen: the guest "
				      "refused: ENOENT"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.msg, "Failed to find symbol at column 9"));
	CU_ASSERT_EQUAL(vm_probes_live(&t->vm), 0);
	/* hostprobe=0 */
	t_probe(t, def, EPERM, "", &r);
	CU_ASSERT_EQUAL(r.err, -EPERM);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.msg, "hostprobe=0"));
	gr_avm_free(t);
}

static void test_probe_hostile_answers(void)
{
	struct gr_avm *t = t_open_probes();
	struct t_reply r;
	const char *def = "p:myopen vfs_read";

	t_probe(t, def, EINVAL, "E bad \x1b[31m colour\n", &r);
	CU_ASSERT_EQUAL(r.err, -EPROTO);
	CU_ASSERT_PTR_NULL(strchr(r.msg, 0x1b));
	t_probe(t, def, EINVAL, "E one\nE two\n", &r);
	CU_ASSERT_EQUAL(r.err, -EPROTO);
	t_probe(t, def, 0, "A sched:myopen 1\n", &r);
	CU_ASSERT_EQUAL(r.err, -EPROTO);
	t_probe(t, def, 0, "A guestrelay:myopen 1\nA guestrelay:myopen 2\n",
		&r);
	CU_ASSERT_EQUAL(r.err, -EPROTO);
	CU_ASSERT_EQUAL(t->vm.names.bad_answers, 4);
	CU_ASSERT_EQUAL(vm_probes_live(&t->vm), 0);
	gr_avm_free(t);
}

static void test_probe_defined_listed_deleted(void)
{
	struct gr_avm *t = t_open_probes();
	struct gr_probe_info p[GR_PROBE_MAX];
	struct t_reply r;
	char err[512];

	/* this guest adds no descriptor: defined, but nothing adopted */
	t_probe(t, "r:myread vfs_read ret=$retval", 0,
		"A guestrelay:myread 1\n", &r);
	CU_ASSERT_EQUAL(r.err, -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.msg, "not recording"));
	CU_ASSERT_EQUAL(t->vm.enable[0] & 2, 0);
	CU_ASSERT_EQUAL(vm_probes_live(&t->vm), 1);
	CU_ASSERT_EQUAL(vm_probe_list(&t->vm, p, GR_PROBE_MAX), 1);
	CU_ASSERT_STRING_EQUAL(p[0].name, "myread");
	CU_ASSERT_STRING_EQUAL(p[0].def, "r:myread vfs_read ret=$retval");
	CU_ASSERT_EQUAL(p[0].id, 1);
	/* the same name again: the host says so without asking */
	CU_ASSERT_EQUAL(vm_probe(&t->vm, "p:myread vfs_write", t_done, &r,
				 err, sizeof(err)), -EEXIST);
	/* a D line of another probe, or another id, is not the answer */
	t_probe(t, "-:myread", 0, "D guestrelay:other 1\n", &r);
	CU_ASSERT_EQUAL(r.err, -EPROTO);
	CU_ASSERT_EQUAL(le32toh(t_req(t)->op), GR_NAME_OP_UNPROBE);
	CU_ASSERT(!memcmp(t_req(t)->text, "myread", 6));
	t_probe(t, "-:myread", 0, "D guestrelay:myread 9\n", &r);
	CU_ASSERT_EQUAL(r.err, -EPROTO);
	/* P6: the kernel would not delete it (EBUSY): stopped, still ours */
	t_probe(t, "-:myread", 0, "R guestrelay:myread 16\n", &r);
	CU_ASSERT_EQUAL(r.err, -EBUSY);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.msg, "could not delete the probe (EBUSY"));
	CU_ASSERT_EQUAL(vm_probe_list(&t->vm, p, GR_PROBE_MAX), 1);
	CU_ASSERT_EQUAL(vm_probes_live(&t->vm), 1);
	t_probe(t, "-:guestrelay/myread", 0, "D guestrelay:myread 1\n", &r);
	CU_ASSERT_EQUAL(r.err, 0);
	CU_ASSERT_STRING_EQUAL(r.msg, "guestrelay:myread: probe deleted "
			       "(event id 1)");
	CU_ASSERT_EQUAL(vm_probe_list(&t->vm, p, GR_PROBE_MAX), 0);
	/* every probe: the empty text */
	t_probe(t, "-:*", ENOENT, "", &r);
	CU_ASSERT_EQUAL(le32toh(t_req(t)->len), 0);
	CU_ASSERT_EQUAL(r.err, -ENOENT);
	gr_avm_free(t);
}

static void test_probe_definitions_checked(void)
{
	static const char *const bad[] = {
		"x:a vfs_read", "p vfs_read", "p:1a vfs_read",
		"p:other/a vfs_read", "p:a", "p:a ", "-:", "-:a b",
		"p:a_name_that_is_longer_than_31_chars vfs_read",
		"p:a vfs_read\x01",
	};
	struct gr_avm *t = t_open_probes();
	struct t_reply r = { 0 };
	char err[512];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		CU_ASSERT_EQUAL(vm_probe(&t->vm, bad[i], t_done, &r, err,
					 sizeof(err)), -EINVAL);
	CU_ASSERT(!t->vm.names.active);
	gr_avm_free(t);
	/* a guest without GR_F_PROBE is never asked */
	t = t_open(GR_F_ANYEVENT);
	vm_names_poll(&t->vm);
	CU_ASSERT_EQUAL(t_seq(t), 0);
	CU_ASSERT_EQUAL(vm_probe(&t->vm, "p:a vfs_read", t_done, &r, err,
				 sizeof(err)), -EOPNOTSUPP);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "GR_F_PROBE"));
	gr_avm_free(t);
}

static const struct gr_test tests[] = {
	GR_TEST(test_list_pages_until_total),
	GR_TEST(test_answer_to_another_seq_is_not_ours),
	GR_TEST(test_hostile_answers_are_refused),
	GR_TEST(test_enable_known_sets_the_bit),
	GR_TEST(test_enable_all_is_summed_up),
	GR_TEST(test_enable_of_nothing_fails_with_the_guests_reason),
	GR_TEST(test_run_time_changes_kept_in_order),
	GR_TEST(test_refusal_and_cancel),
	GR_TEST(test_without_the_feature),
	GR_TEST(test_probe_refused_with_the_kernels_reason),
	GR_TEST(test_probe_hostile_answers),
	GR_TEST(test_probe_defined_listed_deleted),
	GR_TEST(test_probe_definitions_checked),
};

int main(void)
{
	return gr_test_main("vm_names", tests, ARRAY_SIZE(tests), NULL, NULL);
}
