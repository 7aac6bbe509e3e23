// SPDX-License-Identifier: GPL-2.0
/*
 * test_ctf_array.c - fixed arrays of integers in records (v1.14,
 * GR_F_ARRAYS; spec 7.3, 7.4, 7.5)
 *
 * An event laid out as the guest lays out grtp.ko's grtp_array (the
 * shape of the tcp and sock events' addresses: u8, s16 and u32 arrays, a
 * struct by value as its bytes, a char array): the host's descriptor
 * checks (with and without the bit, and every rule of an array broken
 * once), babeltrace2 reading each array as its elements, and `guestrelay
 * report` printing them.
 *
 * Needs babeltrace2 (skipped without).
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf_fixture.h"
#include "gr_build.h"
#include "validate_packet.h"

#define ARR		GR_FIELD_ARRAY
#define EV_ARR		4	/* in place of tick */
#define ARR_PAYLOAD	56

/*
 * seq u32 @0, addr u8[6] @4, deltas s16[3] @10, words u32[4] @16,
 * id (a guid_t) 16 bytes @32, tag char[8] @48
 */
static void arr_descs(struct gr_event_desc *d)
{
	struct gr_field_desc *f;

	memset(&d[EV_ARR], 0, sizeof(d[EV_ARR]));
	f = gr_build_event(&d[EV_ARR], EV_ARR, "grtp_array", "grtp",
			   ARR_PAYLOAD, 0, 6);
	gr_build_field(&f[0], "seq", 0, 4, INT, 0);
	gr_build_field(&f[1], "addr", 4, 6, ARR, 0);
	f[1].elem_size = 1;
	gr_build_field(&f[2], "deltas", 10, 6, ARR, SG);
	f[2].elem_size = 2;
	gr_build_field(&f[3], "words", 16, 16, ARR, 0);
	f[3].elem_size = 4;
	gr_build_field(&f[4], "id", 32, 16, ARR, HX);
	f[4].elem_size = 1;
	gr_build_field(&f[5], "tag", 48, 8, CHR, 0);
}

static void arr_trace(struct trace *t, uint64_t features)
{
	trace_init(t, "guest1", 0x41, 1000000000ULL, "vm1", 0x21);
	t->h.guest_features |= htole64(features);
	arr_descs(t->d);
}

/* the payload of record @k, as grtp.ko fills it */
static void arr_payload(uint8_t *p, uint32_t k)
{
	int16_t deltas[3] = { (int16_t)(k * 37), (int16_t)-(int16_t)k,
			      INT16_MIN };
	uint32_t words[4] = { k, ~k, k << 20, UINT32_MAX - k };
	uint32_t v;
	unsigned int j;
	uint16_t d;

	memset(p, 0, ARR_PAYLOAD);
	v = htole32(k);
	memcpy(p, &v, 4);
	for (j = 0; j < 6; j++)
		p[4 + j] = (uint8_t)(k * 13 + j * 41);
	for (j = 0; j < 3; j++) {
		d = htole16((uint16_t)deltas[j]);
		memcpy(p + 10 + 2 * j, &d, 2);
	}
	for (j = 0; j < 4; j++) {
		v = htole32(words[j]);
		memcpy(p + 16 + 4 * j, &v, 4);
	}
	for (j = 0; j < 16; j++)
		p[32 + j] = (uint8_t)(k + j * 17);
	snprintf((char *)p + 48, 8, "gr%u", k);
}

static int check_desc(struct trace *t, const char **why)
{
	struct gr_event_view ev;
	struct gr_view v;

	if (gr_check_region_hdr(&t->h, T_REGION, &v, why))
		return -EINVAL;
	return gr_check_event_desc(&v, &t->d[EV_ARR], EV_ARR, &ev, why);
}

static void test_descriptors_need_the_bit(void)
{
	const char *why = NULL;
	struct trace t;

	arr_trace(&t, GR_F_ARRAYS);
	CU_ASSERT_EQUAL(check_desc(&t, &why), 0);
	arr_trace(&t, GR_F_DYNARR);
	CU_ASSERT_EQUAL(check_desc(&t, &why), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(why);
	CU_ASSERT_STRING_EQUAL(why, "array field without GR_F_ARRAYS");
}

/* every rule of 7.4 for an array, broken once */
#define ARR_REJECTS(X)							\
	X(elem_size, "array element size is not 1, 2, 4 or 8",		\
	  d[EV_ARR].fields[3].elem_size = 3)				\
	X(elem_zero, "array element size is not 1, 2, 4 or 8",		\
	  d[EV_ARR].fields[1].elem_size = 0)				\
	X(size_not_multiple,						\
	  "array size is not a multiple of its element size",		\
	  d[EV_ARR].fields[3].size = htole16(14))			\
	X(len_field, "array field with a len_field",			\
	  d[EV_ARR].fields[2].len_field = 1)				\
	X(arr_flags, "unknown bits in field flags",			\
	  d[EV_ARR].fields[1].flags = 0x80)				\
	X(beyond_payload, "field extends beyond payload_size",		\
	  d[EV_ARR].payload_size = htole16(40))

#define ARR_REJECT_FN(name, msg, ...)					\
static void test_rejects_##name(void)					\
{									\
	struct trace t;							\
	struct gr_event_desc *d = t.d;					\
	const char *why = NULL;						\
									\
	arr_trace(&t, GR_F_ARRAYS);					\
	__VA_ARGS__;							\
	CU_ASSERT_EQUAL(check_desc(&t, &why), -EINVAL);			\
	CU_ASSERT_PTR_NOT_NULL_FATAL(why);				\
	CU_ASSERT_STRING_EQUAL(why, msg);				\
}
ARR_REJECTS(ARR_REJECT_FN)

/* two records of the event, stored as the agent stores them */
static int arr_stored(struct trace *t, const char *name)
{
	uint8_t pl[ARR_PAYLOAD];
	struct pkt p;

	arr_trace(t, GR_F_ARRAYS);
	if (trace_create(t, name))
		return -EIO;
	pkt_start(&p, 0, 0, 900, 0);
	arr_payload(pl, 7);
	pkt_add(&p, EV_ARR, 3, 1000, pl, ARR_PAYLOAD);
	arr_payload(pl, 0);
	pkt_add(&p, EV_ARR, 3, 2000, pl, ARR_PAYLOAD);
	pkt_finish(&p, 2500);
	if (gr_check_records(&t->v, t->ev, t->nd, p.b, p.len, NULL))
		return -EINVAL;
	return stream_append(t, 0, p.b, sizeof(p.b));
}

static void test_babeltrace_shows_arrays(void)
{
	struct trace t;
	struct run r;
	char *text;

	CU_ASSERT_EQUAL_FATAL(arr_stored(&t, "bt"), 0);
	text = trace_metadata(&t);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text,
		"integer { size = 8; align = 8; signed = false; base = 10; } "
		"_addr[6];\n"
		"\t\tinteger { size = 16; align = 8; signed = true; base = 10; } "
		"_deltas[3];\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text,
		"integer { size = 8; align = 8; signed = false; base = 16; } "
		"_id[16];\n"));
	free(text);
	CU_ASSERT_EQUAL_FATAL(bt_text(t.dir, &r), 0);
	/* record 7: addr 7 * 13 + j * 41 */
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out,
		"seq = 7, addr = [ [0] = 91, [1] = 132, [2] = 173, "
		"[3] = 214, [4] = 255, [5] = 40 ], "
		"deltas = [ [0] = 259, [1] = -7, [2] = -32768 ], "
		"words = [ [0] = 7, [1] = 4294967288, [2] = 7340032, "
		"[3] = 4294967288 ], id = [ [0] = 0x7, [1] = 0x18,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "tag = \"gr7\" }"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out,
		"seq = 0, addr = [ [0] = 0, [1] = 41,"));
	run_free(&r);
	trace_close(&t);
}

static void test_report_prints_arrays(void)
{
	struct gr_report_opts o;
	struct trace t;
	char *text = NULL;

	CU_ASSERT_EQUAL_FATAL(arr_stored(&t, "report"), 0);
	memset(&o, 0, sizeof(o));
	CU_ASSERT_EQUAL(report_text(t.dir, &o, 0, &text), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text,
		"grtp_array: seq=7 addr=[91, 132, 173, 214, 255, 40] "
		"deltas=[259, -7, -32768] "
		"words=[7, 4294967288, 7340032, 4294967288] "
		"id=[0x7, 0x18, 0x29, 0x3a, 0x4b, 0x5c, 0x6d, 0x7e, 0x8f, "
		"0xa0, 0xb1, 0xc2, 0xd3, 0xe4, 0xf5, 0x6] tag=gr7\n"));
	free(text);
	trace_close(&t);
}

#define ARR_REJECT_TEST(name, msg, ...)					\
	GR_TEST_NAMED("rejects " #name, test_rejects_##name),

static const struct gr_test tests[] = {
	GR_TEST_NAMED("descriptors need GR_F_ARRAYS",
		      test_descriptors_need_the_bit),
	ARR_REJECTS(ARR_REJECT_TEST)
	GR_TEST_NAMED("babeltrace2 shows arrays", test_babeltrace_shows_arrays),
	GR_TEST_NAMED("report prints arrays", test_report_prints_arrays),
};

static const struct gr_test_suite suites[] = {
	GR_SUITE("ctf: fixed arrays of integers (v1.14)", tests, NULL, NULL),
};

int main(void)
{
	return ctf_fixture_main("test_ctf_array", suites, ARRAY_SIZE(suites));
}
