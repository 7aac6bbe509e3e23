// SPDX-License-Identifier: GPL-2.0
/*
 * test_vm_desc.c - descriptors a guest adds at run time, as the agent
 * adopts them (host-agent/agent/vm_desc.c; spec 18.3 M2, M3)
 *
 * One VM put together by hand (tests/lib/gr_agent_vm.c) with GR_F_ANYEVENT
 * and four descriptor slots, its table one event: the test writes
 * descriptors into the free slots and stores status.desc_live as a guest
 * does, and checks what vm_desc_refresh() adopts, refuses and counts, the
 * session's files, the record checks and the enable bits.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gr_agent_vm.h"
#include "gr_build.h"
#include "gr_test.h"

/* the guest adds descriptor @id named @name, then desc_live = @live */
static void guest_add(struct gr_avm *t, unsigned int id, const char *name,
		      uint32_t live)
{
	struct gr_event_desc *d = (struct gr_event_desc *)
		(t->vm.region + gr_view_desc_off(&t->vm.view, id));
	struct gr_field_desc *f;

	memset(d, 0, sizeof(*d));
	f = gr_build_event(d, (uint16_t)id, name, "test", 8, 0, 1);
	gr_build_field(&f[0], "value", 0, 8, GR_FIELD_INTEGER, 0);
	/* spec 18.2 N3: the descriptor, then desc_live with release */
	__atomic_store_n(&gr_avm_status(t)->desc_live, htole32(live),
			 __ATOMIC_RELEASE);
}

static void set_live(struct gr_avm *t, uint32_t live)
{
	__atomic_store_n(&gr_avm_status(t)->desc_live, htole32(live),
			 __ATOMIC_RELEASE);
}

/* a VM with GR_F_ANYEVENT, its arrays on the heap as vm.c's attach has */
static struct gr_avm *anyevent_vm(uint64_t features)
{
	struct gr_avm *t = gr_avm_new(features, GR_VERIFY_ON, 0);

	t->agent.stopping = true;	/* the files' fsyncs here, not queued */
	memcpy(&t->vm.hdr_copy, t->vm.region, sizeof(t->vm.hdr_copy));
	t->vm.events = calloc(2, sizeof(*t->vm.events));
	t->vm.desc_copy = calloc(2, sizeof(*t->vm.desc_copy));
	CU_ASSERT_PTR_NOT_NULL_FATAL(t->vm.events);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t->vm.desc_copy);
	t->vm.events[0] = t->ev;
	t->vm.desc_copy[0] = t->desc;
	return t;
}

static void anyevent_free(struct gr_avm *t)
{
	unlinkat(t->vm.sess.fd, GR_CTF_METADATA, 0);
	unlinkat(t->vm.sess.fd, GR_CTF_INFO, 0);
	free(t->vm.events);
	free(t->vm.desc_copy);
	gr_avm_free(t);
}

/*
 * The records of a packet of one record of event @id (payload 8 bytes):
 * 0, or -EINVAL for its id (any other reason fails the test)
 */
static int record_ok(struct gr_avm *t, uint16_t id)
{
	uint8_t pkt[256] = { 0 }, value[8] = { 0 };
	uint32_t len = sizeof(struct gr_packet_header);
	const char *why = "";
	int ret;

	len += gr_build_record(pkt + len, id, 1, 0, value, sizeof(value));
	ret = gr_check_records(&t->vm.view, t->vm.events,
			       t->vm.view.desc_count, pkt, len, &why);
	if (ret)
		CU_ASSERT_PTR_NOT_NULL(strstr(why, "id"));
	return ret;
}

static void test_added_descriptors_are_adopted_and_declared(void)
{
	struct gr_avm *t = anyevent_vm(GR_F_ANYEVENT);
	struct gr_ctf_info *info = calloc(1, sizeof(*info));
	char buf[16384];

	CU_ASSERT_PTR_NOT_NULL_FATAL(info);
	CU_ASSERT_EQUAL(vm_desc_refresh(&t->vm), 0);	/* nothing new */
	CU_ASSERT_EQUAL(record_ok(t, 1), -EINVAL);	/* unknown id */
	guest_add(t, 1, "alpha", 1);			/* not covered yet */
	guest_add(t, 2, "beta", 3);
	CU_ASSERT_EQUAL(vm_desc_refresh(&t->vm), 2);
	CU_ASSERT_EQUAL(t->vm.view.desc_count, 3);
	CU_ASSERT_EQUAL(t->vm.view.desc_table, 1);
	CU_ASSERT_STRING_EQUAL(t->vm.events[2].name, "beta");
	CU_ASSERT_EQUAL(t->vm.st.desc_added, 2);
	CU_ASSERT_EQUAL(record_ok(t, 2), 0);
	CU_ASSERT_EQUAL(record_ok(t, 3), -EINVAL);	/* not added */
	CU_ASSERT_EQUAL(vm_desc_refresh(&t->vm), 0);
	/* the session's metadata declares them, .guestrelay holds them */
	CU_ASSERT_FATAL(gr_test_read_text(t->vm.sess.fd, GR_CTF_METADATA, buf,
					  sizeof(buf)) > 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "name = \"alpha\";\n\tid = 1;"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "name = \"beta\";\n\tid = 2;"));
	CU_ASSERT_EQUAL(gr_ctf_read_info(t->vm.sess.fd, info, NULL), 0);
	CU_ASSERT_EQUAL(info->nr_events, 3);
	CU_ASSERT_EQUAL(info->view.desc_count, 3);
	/* one more: appended after those */
	guest_add(t, 3, "gamma", 4);
	CU_ASSERT_EQUAL(vm_desc_refresh(&t->vm), 1);
	CU_ASSERT_EQUAL(t->vm.view.desc_count, 4);
	free(info);
	anyevent_free(t);
}

static void test_desc_live_out_of_range_is_counted_and_ignored(void)
{
	struct gr_avm *t = anyevent_vm(GR_F_ANYEVENT);

	guest_add(t, 1, "alpha", 2);
	CU_ASSERT_EQUAL(vm_desc_refresh(&t->vm), 1);
	/* backwards: below what the host adopted; counted once per value */
	set_live(t, 1);
	CU_ASSERT_EQUAL(vm_desc_refresh(&t->vm), -ERANGE);
	CU_ASSERT_EQUAL(vm_desc_refresh(&t->vm), -ERANGE);
	CU_ASSERT_EQUAL(t->vm.st.desc_live_bad, 1);
	/* above desc_capacity */
	set_live(t, GR_AVM_CAPACITY + 1);
	CU_ASSERT_EQUAL(vm_desc_refresh(&t->vm), -ERANGE);
	CU_ASSERT_EQUAL(t->vm.st.desc_live_bad, 2);
	CU_ASSERT_EQUAL(t->vm.view.desc_count, 2);
	CU_ASSERT_EQUAL(record_ok(t, 1), 0);
	anyevent_free(t);
}

static void test_refused_batch_is_counted_once_and_stays_unknown(void)
{
	struct gr_avm *t = anyevent_vm(GR_F_ANYEVENT);
	struct gr_event_desc *d;

	/* the second of two repeats the table's name: both refused */
	guest_add(t, 1, "alpha", 1);
	guest_add(t, 2, "sched_switch", 3);
	CU_ASSERT_EQUAL(vm_desc_refresh(&t->vm), -EINVAL);
	CU_ASSERT_EQUAL(vm_desc_refresh(&t->vm), -EINVAL);
	CU_ASSERT_EQUAL(t->vm.st.desc_refused, 1);
	CU_ASSERT_EQUAL(t->vm.view.desc_count, 1);
	CU_ASSERT_EQUAL(record_ok(t, 1), -EINVAL);
	/* a bad field in the next one: the batch grows, refused again */
	guest_add(t, 3, "gamma", 4);
	d = (struct gr_event_desc *)(t->vm.region +
				     gr_view_desc_off(&t->vm.view, 3));
	d->fields[0].size = htole16(3);
	CU_ASSERT_EQUAL(vm_desc_refresh(&t->vm), -EINVAL);
	CU_ASSERT_EQUAL(t->vm.st.desc_refused, 2);
	CU_ASSERT_EQUAL(t->vm.st.desc_added, 0);
	anyevent_free(t);
}

/* M3: no enable bit for an id whose descriptor is not adopted */
static void test_enable_bits_name_adopted_ids_only(void)
{
	struct gr_avm *t = anyevent_vm(GR_F_ANYEVENT);
	struct gr_host_ctrl *c = gr_avm_ctrl(t);

	hostctl_init(&t->vm);
	guest_add(t, 1, "alpha", 2);
	t->vm.enable[0] = 0x7;		/* ids 0, 1, 2; 2 not added */
	hostctl_publish(&t->vm);
	CU_ASSERT_EQUAL(le64toh(c->enable[0]), 0x1);
	CU_ASSERT(le64toh(c->host_features) & GR_F_ANYEVENT);
	CU_ASSERT_EQUAL(vm_desc_refresh(&t->vm), 1);
	hostctl_publish(&t->vm);
	CU_ASSERT_EQUAL(le64toh(c->enable[0]), 0x3);
	/* waiting for a new publication: its table's ids only (N6, M6) */
	t->vm.state = GR_VM_WAITING;
	hostctl_publish(&t->vm);
	CU_ASSERT_EQUAL(le64toh(c->enable[0]), 0x1);
	anyevent_free(t);
}

/* a guest without the feature: desc_live is a reserved field */
static void test_without_the_feature_nothing_is_read(void)
{
	struct gr_avm *t = anyevent_vm(0);

	CU_ASSERT_EQUAL(t->vm.view.desc_capacity, 1);
	set_live(t, 3);
	CU_ASSERT_EQUAL(vm_desc_refresh(&t->vm), 0);
	CU_ASSERT_EQUAL(t->vm.view.desc_count, 1);
	CU_ASSERT_EQUAL(t->vm.st.desc_live_bad, 0);
	anyevent_free(t);
}

static const struct gr_test tests[] = {
	GR_TEST_NAMED("added descriptors are adopted and declared",
		      test_added_descriptors_are_adopted_and_declared),
	GR_TEST_NAMED("desc_live out of range is counted and ignored",
		      test_desc_live_out_of_range_is_counted_and_ignored),
	GR_TEST_NAMED("a refused batch is counted once and stays unknown",
		      test_refused_batch_is_counted_once_and_stays_unknown),
	GR_TEST_NAMED("enable bits name adopted ids only (M3)",
		      test_enable_bits_name_adopted_ids_only),
	GR_TEST_NAMED("without the feature nothing is read",
		      test_without_the_feature_nothing_is_read),
};

static const struct gr_test_suite suites[] = {
	GR_SUITE("descriptors added at run time", tests, NULL, NULL),
};

int main(void)
{
	return gr_test_run(suites, ARRAY_SIZE(suites));
}
