// SPDX-License-Identifier: GPL-2.0
/*
 * test_validate_long.c - the host's checks of a descriptor's extension
 * (v1.15, GR_F_LONG_DESC, spec 20.3 K1, K2)
 *
 * A layout with the bit and a stride of GR_LONG_DESC_STRIDE; descriptors
 * whose extension carries a long event name, a long system, fields past
 * the sixteenth and long field names, each read back through the one
 * view the host's consumers use (gr_check_desc_slot()), and each rule of
 * 20.1 broken once.
 */
#include <endian.h>
#include <string.h>

#include "filter.h"
#include "gr_test.h"
#include "hist.h"
#include "validate_fixture.h"

#define L_NAME		"hyperv_nested_flush_guest_mapping_range"	/* 39 */
#define L_SYSTEM	"thermal_power_allocator"			/* 23 */
#define L_FIELD		"balanced_dirty_ratelimit"			/* 24 */

/* a header of the fixture's layout with the bit and the long stride */
static void long_view(struct gr_view *v, int with_bit)
{
	struct gr_region_hdr h;
	const char *why = NULL;

	make_hdr(&h);
	h.desc_stride = htole32(GR_LONG_DESC_STRIDE);
	if (with_bit)
		h.guest_features |= htole64(GR_F_LONG_DESC);
	CU_ASSERT_EQUAL_FATAL(gr_check_region_hdr(&h, T_REGION, v, &why), 0);
}

static void ext_names(struct gr_event_desc_ext *x, const char *name,
		      const char *system, uint16_t nr_fields)
{
	x->flags = htole16(GR_DESC_EXT_F_USED);
	x->nr_fields = htole16(nr_fields);
	memcpy(x->name, name, strlen(name));
	memcpy(x->system, system, strlen(system));
}

/*
 * @s: event 1 of @nr (17..32) fields of 8 bytes, the descriptor's 16
 * then the extension's; with @varlen a string of 32 bytes last, in the
 * descriptor (fields 0..14 fixed, then the extension's, then the string)
 */
static void many_fields(struct gr_event_desc_long *s, unsigned int nr,
			int varlen)
{
	unsigned int i, fixed = varlen ? nr - 1 : nr, in_desc;
	struct gr_field_desc *f;
	char name[16];

	memset(s, 0, sizeof(*s));
	f = gr_build_event(&s->desc, 1, "netif_receive_skb_e_1", "net",
			   (uint16_t)(fixed * 8 + (varlen ? 32 : 0)),
			   varlen ? GR_EVENT_F_VARLEN : 0, GR_MAX_FIELDS);
	in_desc = varlen ? GR_MAX_FIELDS - 1 : GR_MAX_FIELDS;
	for (i = 0; i < fixed; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		gr_build_field(i < in_desc ? &f[i] : &s->ext.fields[i - in_desc],
			       name, (uint16_t)(i * 8), 8, GR_FIELD_INTEGER, 0);
	}
	if (varlen)
		gr_build_field(&f[GR_MAX_FIELDS - 1], "name",
			       (uint16_t)(fixed * 8), 32, GR_FIELD_STRING, 0);
	ext_names(&s->ext, "netif_receive_skb_entry", "net", (uint16_t)nr);
}

static int check(const struct gr_view *v, const struct gr_event_desc_long *s,
		 struct gr_event_view *ev, const char **why)
{
	return gr_check_desc_slot(v, s, 1, ev, why);
}

static void test_hdr_long_desc_needs_the_long_stride(void)
{
	struct gr_region_hdr h;
	struct gr_view v;
	const char *why = NULL;

	make_hdr(&h);
	h.guest_features |= htole64(GR_F_LONG_DESC);
	expect(gr_check_region_hdr(&h, T_REGION, &v, &why), &why, -EINVAL,
	       "desc_stride is below GR_LONG_DESC_STRIDE with GR_F_LONG_DESC");
	h.desc_stride = htole32(GR_LONG_DESC_STRIDE - 8);
	CU_ASSERT_EQUAL(gr_check_region_hdr(&h, T_REGION, &v, &why), -EINVAL);
	h.desc_stride = htole32(GR_LONG_DESC_STRIDE);
	CU_ASSERT_EQUAL(gr_check_region_hdr(&h, T_REGION, &v, &why), 0);
	CU_ASSERT_TRUE(v.features & GR_F_LONG_DESC);
}

static void test_long_names_replace_the_short_ones(void)
{
	struct gr_event_desc_long s;
	struct gr_event_view ev;
	struct gr_field_desc *f;
	struct gr_view v;
	const char *why = NULL;

	long_view(&v, 1);
	memset(&s, 0, sizeof(s));
	f = gr_build_event(&s.desc, 1, "hyperv_nested_flush_guest_m_1",
			   "thermal_power_a", 16, 0, 2);
	gr_build_field(&f[0], "dirty_ratelimit", 0, 8, GR_FIELD_INTEGER, 0);
	gr_build_field(&f[1], "balanced_dirty_ratel_1", 8, 8,
		       GR_FIELD_INTEGER, 0);
	ext_names(&s.ext, L_NAME, L_SYSTEM, 2);
	s.ext.nr_long_names = 1;
	s.ext.long_names[0].field = 1;
	memcpy(s.ext.long_names[0].name, L_FIELD, strlen(L_FIELD));
	CU_ASSERT_EQUAL_FATAL(check(&v, &s, &ev, &why), 0);
	CU_ASSERT_STRING_EQUAL(ev.name, L_NAME);
	CU_ASSERT_STRING_EQUAL(ev.system, L_SYSTEM);
	CU_ASSERT_EQUAL(ev.nr_fields, 2);
	CU_ASSERT_STRING_EQUAL(ev.fields[0].name, "dirty_ratelimit");
	CU_ASSERT_STRING_EQUAL(ev.fields[1].name, L_FIELD);
	CU_ASSERT_EQUAL(ev.fields[1].offset, 8);

	/* the 576 bytes alone: the short names, as an older reader sees */
	CU_ASSERT_EQUAL_FATAL(gr_check_event_desc(&v, &s.desc, 1, &ev, &why),
			      0);
	CU_ASSERT_STRING_EQUAL(ev.name, "hyperv_nested_flush_guest_m_1");
	CU_ASSERT_STRING_EQUAL(ev.fields[1].name, "balanced_dirty_ratel_1");
}

static void test_ext_ignored_without_the_bit(void)
{
	struct gr_event_desc_long s;
	struct gr_event_view ev;
	struct gr_view v;
	const char *why = NULL;

	long_view(&v, 0);
	many_fields(&s, 19, 0);
	CU_ASSERT_EQUAL_FATAL(check(&v, &s, &ev, &why), 0);
	CU_ASSERT_STRING_EQUAL(ev.name, "netif_receive_skb_e_1");
	CU_ASSERT_EQUAL(ev.nr_fields, GR_MAX_FIELDS);
	/* nor is an unused extension read */
	long_view(&v, 1);
	s.ext.flags = 0;
	CU_ASSERT_EQUAL_FATAL(check(&v, &s, &ev, &why), 0);
	CU_ASSERT_EQUAL(ev.nr_fields, GR_MAX_FIELDS);
}

static void test_fields_past_sixteen(void)
{
	struct gr_event_desc_long s;
	struct gr_event_view ev;
	struct gr_view v;
	const char *why = NULL;
	unsigned int i;

	long_view(&v, 1);
	many_fields(&s, 19, 0);
	CU_ASSERT_EQUAL_FATAL(check(&v, &s, &ev, &why), 0);
	CU_ASSERT_STRING_EQUAL(ev.name, "netif_receive_skb_entry");
	CU_ASSERT_EQUAL(ev.nr_fields, 19);
	for (i = 0; i < 19; i++)
		CU_ASSERT_EQUAL(ev.fields[i].offset, i * 8);
	CU_ASSERT_STRING_EQUAL(ev.fields[18].name, "f18");
	CU_ASSERT_EQUAL(ev.max_record, 16 + 19 * 8);

	many_fields(&s, GR_LONG_MAX_FIELDS, 0);
	CU_ASSERT_EQUAL(check(&v, &s, &ev, &why), 0);
	CU_ASSERT_EQUAL(ev.nr_fields, GR_LONG_MAX_FIELDS);
}

static void test_ext_fields_go_before_the_variable_ones(void)
{
	struct gr_event_desc_long s;
	struct gr_event_view ev;
	struct gr_view v;
	const char *why = NULL;

	long_view(&v, 1);
	many_fields(&s, 19, 1);
	/* the 576 bytes alone end with their string */
	CU_ASSERT_EQUAL_FATAL(gr_check_event_desc(&v, &s.desc, 1, &ev, &why),
			      0);
	CU_ASSERT_EQUAL(ev.fields[15].type, GR_FIELD_STRING);
	CU_ASSERT_EQUAL_FATAL(check(&v, &s, &ev, &why), 0);
	CU_ASSERT_EQUAL(ev.nr_fields, 19);
	CU_ASSERT_STRING_EQUAL(ev.fields[15].name, "f15");
	CU_ASSERT_STRING_EQUAL(ev.fields[17].name, "f17");
	CU_ASSERT_STRING_EQUAL(ev.fields[18].name, "name");
	CU_ASSERT_EQUAL(ev.fields[18].type, GR_FIELD_STRING);
	CU_ASSERT_EQUAL(gr_event_first_var(&ev), 18);
	CU_ASSERT_EQUAL(ev.min_record, 16 + 18 * 8 + 8);
}

static void test_ext_refusals(void)
{
	struct gr_event_desc_long s;
	struct gr_event_view ev;
	struct gr_view v;
	const char *why = NULL;

	long_view(&v, 1);

	many_fields(&s, 19, 0);
	s.ext.flags |= htole16(0x8000);
	expect(check(&v, &s, &ev, &why), &why, -EINVAL,
	       "unknown bits in the extension's flags");

	many_fields(&s, 19, 0);
	memset(s.ext.name, 'a', sizeof(s.ext.name));
	expect(check(&v, &s, &ev, &why), &why, -EINVAL,
	       "event name is not NUL-terminated");

	many_fields(&s, 19, 0);
	s.ext.system[0] = 'N';
	expect(check(&v, &s, &ev, &why), &why, -EINVAL,
	       "event system is not an identifier [a-z_][a-z0-9_]*");

	many_fields(&s, 19, 0);
	s.ext.nr_fields = htole16(GR_LONG_MAX_FIELDS + 1);
	expect(check(&v, &s, &ev, &why), &why, -EINVAL,
	       "extension nr_fields is below the descriptor's or above GR_LONG_MAX_FIELDS");
	s.ext.nr_fields = htole16(15);
	CU_ASSERT_EQUAL(check(&v, &s, &ev, &why), -EINVAL);

	many_fields(&s, 19, 0);
	s.desc.nr_fields = htole16(15);
	expect(check(&v, &s, &ev, &why), &why, -EINVAL,
	       "extension fields while the descriptor has room");

	many_fields(&s, 19, 0);
	s.ext.fields[0].type = GR_FIELD_STRING;
	expect(check(&v, &s, &ev, &why), &why, -EINVAL,
	       "a variable field in the extension");

	many_fields(&s, 19, 0);
	s.ext.fields[1].offset = htole16(16 * 8 + 4);	/* into fields[0] */
	expect(check(&v, &s, &ev, &why), &why, -EINVAL,
	       "fields overlap");

	many_fields(&s, 19, 0);
	s.ext.fields[2].offset = htole16(8);	/* below the descriptor's */
	CU_ASSERT_EQUAL(check(&v, &s, &ev, &why), -EINVAL);

	many_fields(&s, 19, 0);
	memcpy(s.ext.fields[0].name, "f3", 3);
	expect(check(&v, &s, &ev, &why), &why, -EINVAL,
	       "duplicate field name");

	many_fields(&s, 19, 0);
	s.ext.nr_long_names = GR_LONG_FIELD_NAMES + 1;
	expect(check(&v, &s, &ev, &why), &why, -EINVAL,
	       "extension nr_long_names is above GR_LONG_FIELD_NAMES");

	many_fields(&s, 19, 0);
	s.ext.nr_long_names = 1;
	s.ext.long_names[0].field = 19;
	memcpy(s.ext.long_names[0].name, L_FIELD, strlen(L_FIELD));
	expect(check(&v, &s, &ev, &why), &why, -EINVAL,
	       "long field name of no field");

	s.ext.nr_long_names = 2;
	s.ext.long_names[0].field = 4;
	s.ext.long_names[1] = s.ext.long_names[0];
	expect(check(&v, &s, &ev, &why), &why, -EINVAL,
	       "long field names not in increasing field order");

	/* a long name equal to another field's name */
	s.ext.nr_long_names = 1;
	memset(s.ext.long_names[0].name, 0, sizeof(s.ext.long_names[0].name));
	memcpy(s.ext.long_names[0].name, "f17", 3);
	expect(check(&v, &s, &ev, &why), &why, -EINVAL,
	       "duplicate field name");

	memset(s.ext.long_names[0].name, 'x',
	       sizeof(s.ext.long_names[0].name));
	expect(check(&v, &s, &ev, &why), &why, -EINVAL,
	       "field name is not NUL-terminated");

	/* the 576 bytes must pass on their own */
	many_fields(&s, 19, 0);
	s.desc.name[0] = 0;
	expect(check(&v, &s, &ev, &why), &why, -EINVAL,
	       "event name is empty");
}

static void test_long_names_unique_in_the_table(void)
{
	struct gr_event_desc_long s[2];
	struct gr_event_view ev[2], out[2];
	struct gr_region_hdr h;
	struct gr_view v;
	const char *why = NULL;

	make_hdr(&h);
	h.desc_stride = htole32(GR_LONG_DESC_STRIDE);
	h.desc_count = htole32(1);
	h.desc_capacity = htole32(3);
	h.guest_features |= htole64(GR_F_LONG_DESC | GR_F_ANYEVENT);
	CU_ASSERT_EQUAL_FATAL(gr_check_region_hdr(&h, T_REGION, &v, &why), 0);
	memset(ev, 0, sizeof(ev));
	memcpy(ev[0].name, "sched_switch", 12);
	many_fields(&s[0], 19, 0);
	many_fields(&s[1], 17, 0);
	s[1].desc.id = htole16(2);
	memcpy(s[1].desc.name, "netif_receive_skb_e_2", 21);
	/* two short names differ, the long ones do not */
	expect(gr_check_added_descs(&v, ev, s, 3, out, &why), &why, -EINVAL,
	       "two events have the same name");
	memset(s[1].ext.name, 0, sizeof(s[1].ext.name));
	memcpy(s[1].ext.name, "napi_gro_receive_entry", 22);
	CU_ASSERT_EQUAL(gr_check_added_descs(&v, ev, s, 3, out, &why), 0);
	CU_ASSERT_STRING_EQUAL(out[1].name, "napi_gro_receive_entry");
	CU_ASSERT_EQUAL(out[0].nr_fields, 19);
	CU_ASSERT_EQUAL(out[1].nr_fields, 17);
}

static void test_copy_reads_the_ext_only_with_the_bit(void)
{
	static uint8_t region[T_REGION];
	struct gr_event_desc_long s;
	struct gr_view v;

	many_fields((struct gr_event_desc_long *)(region + T_DESC_OFF +
						  GR_LONG_DESC_STRIDE), 19, 0);
	long_view(&v, 1);
	gr_copy_desc_slot(&v, region, 1, &s);
	CU_ASSERT_EQUAL(le16toh(s.ext.nr_fields), 19);
	long_view(&v, 0);
	gr_copy_desc_slot(&v, region, 1, &s);
	CU_ASSERT_EQUAL(s.ext.nr_fields, 0);
	CU_ASSERT_EQUAL(le16toh(s.desc.nr_fields), GR_MAX_FIELDS);
}

/* K3: filters and hist keys find fields by their long names, past 16 */
static void test_filter_and_hist_by_long_field_names(void)
{
	static struct gr_hist_spec spec;
	struct gr_event_desc_long s;
	struct gr_filter_slot slot;
	struct gr_event_view ev;
	struct gr_fx_error err;
	struct gr_view v;
	const char *why = NULL;

	long_view(&v, 1);
	many_fields(&s, 19, 0);
	s.ext.nr_long_names = 1;
	s.ext.long_names[0].field = 17;
	memcpy(s.ext.long_names[0].name, L_FIELD, strlen(L_FIELD));
	CU_ASSERT_EQUAL_FATAL(check(&v, &s, &ev, &why), 0);
	memset(&err, 0, sizeof(err));
	CU_ASSERT_EQUAL(gr_fx_build(L_FIELD " > 5 && f18 == 3", &ev, &slot,
				    &err), 0);
	CU_ASSERT_EQUAL(gr_fx_build("f17 == 3", &ev, &slot, &err), -EINVAL);
	memset(&err, 0, sizeof(err));
	CU_ASSERT_EQUAL(gr_hist_parse("keys=f18:vals=" L_FIELD, NULL, &ev, 12,
				      &spec, &err), 0);
	CU_ASSERT_EQUAL(le16toh(spec.req.key[0].off), 18 * 8);
	CU_ASSERT_EQUAL(le16toh(spec.req.val[0].off), 17 * 8);
	CU_ASSERT_STRING_EQUAL(spec.val_name[0], L_FIELD);
	CU_ASSERT_STRING_EQUAL(spec.event, "netif_receive_skb_entry");
}

static const struct gr_test long_tests[] = {
	GR_TEST(test_hdr_long_desc_needs_the_long_stride),
	GR_TEST(test_long_names_replace_the_short_ones),
	GR_TEST(test_ext_ignored_without_the_bit),
	GR_TEST(test_fields_past_sixteen),
	GR_TEST(test_ext_fields_go_before_the_variable_ones),
	GR_TEST(test_ext_refusals),
	GR_TEST(test_long_names_unique_in_the_table),
	GR_TEST(test_copy_reads_the_ext_only_with_the_bit),
	GR_TEST(test_filter_and_hist_by_long_field_names),
};

static const struct gr_test_suite suites[] = {
	GR_SUITE("long descriptors (v1.15)", long_tests, NULL, NULL),
};

int main(void)
{
	return gr_test_run(suites, ARRAY_SIZE(suites));
}
