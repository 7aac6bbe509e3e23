// SPDX-License-Identifier: GPL-2.0
/*
 * test_ctf_dynarr.c - records with several strings and dynamic arrays
 * (v1.11, GR_F_DYNARR; spec 7.1, 7.3, 7.4, 7.5)
 *
 * An event laid out as the guest lays out power:device_pm_callback_start
 * (two strings here) and one as ipi:ipi_raise (a __bitmask, an array of
 * unsigned longs whose count replaces its location word): the host's
 * descriptor checks (with and without the bit, and every rule broken
 * once), the record walk (each string's NUL and each count within its
 * maximum and the record), babeltrace2 reading the strings as strings
 * and the array as an array, and `guestrelay report` printing them.
 *
 * Needs babeltrace2 and /usr/bin/python3 with bt2 (skipped without).
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf_fixture.h"
#include "gr_build.h"
#include "validate_packet.h"

#define SEQ		GR_FIELD_SEQUENCE
#define EV_PM		4	/* in place of tick */
#define EV_IPI		5	/* in place of blob */
#define PM_FIXED	12	/* device_loc, driver_loc, event */
#define PM_STR		64	/* maximum of each string */
#define IPI_FIXED	16	/* target_cpus_len, pad, reason */
#define IPI_ARR		32	/* four unsigned longs at most */

/* the two events, in a descriptor table of the synthetic trace's shape */
static void dyn_descs(struct gr_event_desc *d)
{
	struct gr_field_desc *f;

	memset(&d[EV_PM], 0, sizeof(d[EV_PM]));
	f = gr_build_event(&d[EV_PM], EV_PM, "device_pm_callback_start",
			   "power", PM_FIXED + 2 * PM_STR, GR_EVENT_F_VARLEN, 5);
	gr_build_field(&f[0], "device_loc", 0, 4, INT, HX);
	gr_build_field(&f[1], "driver_loc", 4, 4, INT, HX);
	gr_build_field(&f[2], "event", 8, 4, INT, SG);
	gr_build_field(&f[3], "device", PM_FIXED, PM_STR, STR, 0);
	gr_build_field(&f[4], "driver", PM_FIXED + PM_STR, PM_STR, STR, 0);

	memset(&d[EV_IPI], 0, sizeof(d[EV_IPI]));
	f = gr_build_event(&d[EV_IPI], EV_IPI, "ipi_raise", "ipi",
			   IPI_FIXED + IPI_ARR, GR_EVENT_F_VARLEN, 3);
	gr_build_field(&f[0], "target_cpus_len", 0, 4, INT, 0);
	gr_build_field(&f[1], "reason", 8, 8, INT, HX);
	gr_build_field(&f[2], "target_cpus", IPI_FIXED, IPI_ARR, SEQ, HX);
	f[2].elem_size = 8;
	f[2].len_field = 0;
}

static void dyn_trace(struct trace *t, uint64_t features)
{
	trace_init(t, "guest1", 0x41, 1000000000ULL, "vm1", 0x21);
	t->h.guest_features |= htole64(features);
	dyn_descs(t->d);
}

/* the payload of a device_pm_callback_start record; its length */
static uint32_t pm_payload(uint8_t *p, const char *dev, const char *drv,
			   int32_t event)
{
	uint32_t a = (uint32_t)strlen(dev) + 1, b = (uint32_t)strlen(drv) + 1;
	uint32_t loc;

	memset(p, 0, PM_FIXED + 2 * PM_STR);
	/* the kernel's location words, kept as they were (hex) */
	loc = htole32(a << 16 | 0x20);
	memcpy(p, &loc, 4);
	loc = htole32(b << 16 | (0x20 + a));
	memcpy(p + 4, &loc, 4);
	event = (int32_t)htole32((uint32_t)event);
	memcpy(p + 8, &event, 4);
	memcpy(p + PM_FIXED, dev, a);
	memcpy(p + PM_FIXED + a, drv, b);
	return PM_FIXED + a + b;
}

static uint32_t ipi_payload(uint8_t *p, const uint64_t *cpus, uint32_t n,
			    uint64_t reason)
{
	uint32_t cnt = htole32(n), i;
	uint64_t v;

	memset(p, 0, IPI_FIXED + IPI_ARR);
	memcpy(p, &cnt, 4);
	v = htole64(reason);
	memcpy(p + 8, &v, 8);
	for (i = 0; i < n; i++) {
		v = htole64(cpus[i]);
		memcpy(p + IPI_FIXED + 8 * i, &v, 8);
	}
	return IPI_FIXED + 8 * n;
}

static int check_desc(struct trace *t, unsigned int i, const char **why)
{
	struct gr_view v;
	struct gr_event_view ev;

	if (gr_check_region_hdr(&t->h, T_REGION, &v, why))
		return -EINVAL;
	return gr_check_event_desc(&v, &t->d[i], i, &ev, why);
}

static void test_descriptors_need_the_bit(void)
{
	struct trace t;
	const char *why = NULL;

	dyn_trace(&t, GR_F_DYNARR);
	CU_ASSERT_EQUAL(check_desc(&t, EV_PM, &why), 0);
	CU_ASSERT_EQUAL(check_desc(&t, EV_IPI, &why), 0);
	dyn_trace(&t, 0);
	CU_ASSERT_EQUAL(check_desc(&t, EV_PM, &why), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "string field is not the last field");
	CU_ASSERT_EQUAL(check_desc(&t, EV_IPI, &why), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "sequence field without GR_F_DYNARR");
}

/* every rule of 7.4 for variable fields, broken once */
#define DYN_REJECTS(X)							\
	X(fixed_after_var, "a fixed field after a variable one",	\
	  d[EV_PM].fields[1].type = STR;				\
	  d[EV_PM].fields[1].flags = 0)					\
	X(var_gap, "variable field not right after the previous one",	\
	  d[EV_PM].fields[4].offset = htole16(PM_FIXED + PM_STR + 1);	\
	  d[EV_PM].fields[4].size = htole16(PM_STR - 1))		\
	X(count_signed, "sequence count is not an unsigned integer",	\
	  d[EV_IPI].fields[0].flags = SG)				\
	X(count_not_integer, "sequence count is not an unsigned integer", \
	  d[EV_IPI].fields[0].type = CHR;				\
	  d[EV_IPI].fields[0].flags = 0)				\
	X(count_is_var, "sequence count is not a field of the fixed part", \
	  d[EV_IPI].fields[2].len_field = 2)				\
	X(count_out_of_range,						\
	  "sequence count is not a field of the fixed part",		\
	  d[EV_IPI].fields[2].len_field = 200)				\
	X(elem_size, "sequence element size is not 1, 2, 4 or 8",	\
	  d[EV_IPI].fields[2].elem_size = 3)				\
	X(size_not_multiple,						\
	  "sequence size is not a multiple of its element size",	\
	  d[EV_IPI].fields[2].size = htole16(IPI_ARR - 4);		\
	  d[EV_IPI].payload_size = htole16(IPI_FIXED + IPI_ARR - 4))	\
	X(seq_flags, "unknown bits in field flags",			\
	  d[EV_IPI].fields[2].flags = 0x80)				\
	X(seq_not_varlen, "sequence field in an event without VARLEN",	\
	  d[EV_IPI].flags = 0)

#define DYN_REJECT_FN(name, msg, ...)					\
static void test_rejects_##name(void)					\
{									\
	struct trace t;							\
	struct gr_event_desc *d = t.d;					\
	const char *why = NULL;						\
									\
	dyn_trace(&t, GR_F_DYNARR);					\
	__VA_ARGS__;							\
	CU_ASSERT_EQUAL(check_desc(&t, EV_PM, &why) ?:			\
			check_desc(&t, EV_IPI, &why), -EINVAL);		\
	CU_ASSERT_PTR_NOT_NULL_FATAL(why);				\
	CU_ASSERT_STRING_EQUAL(why, msg);				\
}
DYN_REJECTS(DYN_REJECT_FN)

/* a packet of three records, checked; @bad breaks one of them */
static int walk_packet(int bad, const char **why)
{
	static const uint64_t cpus[] = { 0x3, 0x1 };
	uint8_t pl[PM_FIXED + 2 * PM_STR];
	char dev[PM_STR + 8];
	struct trace t;
	struct pkt p;
	uint32_t n;
	int ret;

	dyn_trace(&t, GR_F_DYNARR);
	if (trace_create(&t, "walk"))
		return -EIO;
	pkt_start(&p, 0, 0, 900, 0);
	/* a first string longer than its maximum: no NUL within it */
	memset(dev, 'a', sizeof(dev) - 1);
	dev[sizeof(dev) - 1] = '\0';
	n = pm_payload(pl, bad == 1 ? dev : "0000:00:02.0", "virtio-pci", 2);
	pkt_add(&p, EV_PM, 3, 1000, pl, n);
	n = ipi_payload(pl, cpus, 2, 0xffffffff81000000ULL);
	if (bad == 2)		/* a count above the maximum */
		pl[0] = IPI_ARR / 8 + 1;
	if (bad == 3)		/* a count beyond the record */
		pl[0] = 3;
	pkt_add(&p, EV_IPI, 3, 2000, pl, n);
	n = ipi_payload(pl, cpus, 0, 1);
	if (bad == 4)		/* a record longer than its fields */
		n += 8;
	pkt_add(&p, EV_IPI, 3, 3000, pl, n);
	pkt_finish(&p, 3500);
	ret = gr_check_records(&t.v, t.ev, t.nd, p.b, p.len, why);
	trace_close(&t);
	return ret;
}

static void test_records_are_walked(void)
{
	const char *why = NULL;

	CU_ASSERT_EQUAL(walk_packet(0, &why), 0);
	CU_ASSERT_EQUAL(walk_packet(1, &why), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "string is not terminated in its record");
	CU_ASSERT_EQUAL(walk_packet(2, &why), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "sequence is longer than its maximum or its record");
	CU_ASSERT_EQUAL(walk_packet(3, &why), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "sequence is longer than its maximum or its record");
	CU_ASSERT_EQUAL(walk_packet(4, &why), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "record is longer than its string");
}

/* the trace of the two events, stored as the agent stores it */
static int dyn_stored(struct trace *t, const char *name)
{
	static const uint64_t cpus[] = { 0x5, 0x0, 0xffff0000ffff0000ULL };
	uint8_t pl[PM_FIXED + 2 * PM_STR];
	struct pkt p;
	uint32_t n;

	dyn_trace(t, GR_F_DYNARR);
	if (trace_create(t, name))
		return -EIO;
	pkt_start(&p, 0, 0, 900, 0);
	n = pm_payload(pl, "serial8250", "", -3);
	pkt_add(&p, EV_PM, 3, 1000, pl, n);
	n = ipi_payload(pl, cpus, 3, 0xffffffff81000000ULL);
	pkt_add(&p, EV_IPI, 3, 2000, pl, n);
	n = ipi_payload(pl, cpus, 0, 1);
	pkt_add(&p, EV_IPI, 3, 3000, pl, n);
	/* the last record ends with its string: content up to its NUL */
	n = pm_payload(pl, "port", "drv", 7);
	pkt_add(&p, EV_PM, 3, 4000, pl, n);
	pkt_finish(&p, 4500);
	if (gr_check_records(&t->v, t->ev, t->nd, p.b, p.len, NULL))
		return -EINVAL;
	return stream_append(t, 0, p.b, sizeof(p.b));
}

static void test_babeltrace_shows_strings_and_arrays(void)
{
	struct trace t;
	struct run r;
	char *text;

	CU_ASSERT_EQUAL_FATAL(dyn_stored(&t, "bt"), 0);
	text = trace_metadata(&t);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text,
		"string { encoding = UTF8; } _device;\n"
		"\t\tstring { encoding = UTF8; } _driver;\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text,
		"integer { size = 64; align = 8; signed = false; base = 16; } "
		"_target_cpus[_target_cpus_len];\n"));
	free(text);
	CU_ASSERT_EQUAL_FATAL(bt_text(t.dir, &r), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out,
		"event = -3, device = \"serial8250\", driver = \"\" }"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out,
		"target_cpus_len = 3, reason = 0xFFFFFFFF81000000, "
		"target_cpus = [ [0] = 0x5, [1] = 0x0, [2] = 0xFFFF0000FFFF0000 ] }"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out,
		"target_cpus_len = 0, reason = 0x1, target_cpus = [ ] }"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out,
		"event = 7, device = \"port\", driver = \"drv\" }"));
	run_free(&r);
	trace_close(&t);
}

static void test_report_prints_strings_and_arrays(void)
{
	struct gr_report_opts o;
	struct trace t;
	char *text = NULL;

	CU_ASSERT_EQUAL_FATAL(dyn_stored(&t, "report"), 0);
	memset(&o, 0, sizeof(o));
	CU_ASSERT_EQUAL(report_text(t.dir, &o, 0, &text), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text,
		"device_pm_callback_start: device_loc=0xb0020 "
		"driver_loc=0x1002b event=-3 device=serial8250 driver=\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text,
		"ipi_raise: target_cpus_len=3 reason=0xffffffff81000000 "
		"target_cpus=[0x5, 0x0, 0xffff0000ffff0000]\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text,
		"ipi_raise: target_cpus_len=0 reason=0x1 target_cpus=[]\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "device=port driver=drv\n"));
	free(text);
	trace_close(&t);
}

#define DYN_REJECT_TEST(name, msg, ...)					\
	GR_TEST_NAMED("rejects " #name, test_rejects_##name),

static const struct gr_test tests[] = {
	GR_TEST_NAMED("descriptors need GR_F_DYNARR",
		      test_descriptors_need_the_bit),
	DYN_REJECTS(DYN_REJECT_TEST)
	GR_TEST_NAMED("records are walked", test_records_are_walked),
	GR_TEST_NAMED("babeltrace2 shows strings and arrays",
		      test_babeltrace_shows_strings_and_arrays),
	GR_TEST_NAMED("report prints strings and arrays",
		      test_report_prints_strings_and_arrays),
};

static const struct gr_test_suite suites[] = {
	GR_SUITE("ctf: strings and dynamic arrays (v1.11)", tests, NULL, NULL),
};

int main(void)
{
	return ctf_fixture_main("test_ctf_dynarr", suites, ARRAY_SIZE(suites));
}
