// SPDX-License-Identifier: GPL-2.0
/*
 * test_subject.c - subjects, message ids and framing of shipped traces
 * (host-agent/fleet/subject.c): hostile names never form another subject
 * or another path, the decoder takes only what the encoder makes, and
 * objects cut into parts come back whole whatever the order of arrival
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gr_test.h"
#include "subject.h"

/* names an operator or a guest could choose; VM names can hold '.' */
static const char *const hostile[] = {
	"a.b", "a_2Eb", "a_b", "_", "__", "_2E", "..", ".", "...", "a..b",
	"*", ">", "a.*", "a.>", "a b", "a\tb", "a\nb", "a\rb", "-", "--x",
	"A", "a", "0", "_41", "a/b", "../x", "\xc3\xbc", "\xff\xfe", "x=y",
	"a%2Eb", "GUESTRELAY", "metadata", "info", "s0", "$SYS", "a\"b",
	"", "name.with.many.dots.and.more",
};

#define NH ARRAY_SIZE(hostile)

static bool token_chars_ok(const char *t)
{
	for (; *t; t++)
		if (!((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') ||
		      (*t >= '0' && *t <= '9') || *t == '-' || *t == '_'))
			return false;
	return true;
}

static void test_encode_roundtrip_and_token_chars(void)
{
	char tok[GR_NAME_TOKEN_MAX * 3], back[GR_NAME_TOKEN_MAX];
	size_t i;

	for (i = 0; i < NH; i++) {
		int n = gr_subj_encode(hostile[i], tok, sizeof(tok));

		CU_ASSERT_FATAL(n > 0);
		CU_ASSERT(token_chars_ok(tok));
		CU_ASSERT_EQUAL(gr_subj_decode(tok, (size_t)n, back,
					       sizeof(back)),
				(int)strlen(hostile[i]));
		CU_ASSERT_STRING_EQUAL(back, hostile[i]);
	}
}

static void test_encode_is_injective(void)
{
	char a[GR_NAME_TOKEN_MAX * 3], b[GR_NAME_TOKEN_MAX * 3];
	size_t i, j;

	for (i = 0; i < NH; i++)
		for (j = 0; j < NH; j++) {
			if (i == j)
				continue;
			gr_subj_encode(hostile[i], a, sizeof(a));
			gr_subj_encode(hostile[j], b, sizeof(b));
			CU_ASSERT(strcmp(a, b) != 0);
		}
	/* every single byte */
	for (i = 1; i < 256; i++)
		for (j = i + 1; j < 256; j++) {
			char x[2] = { (char)i, 0 }, y[2] = { (char)j, 0 };

			gr_subj_encode(x, a, sizeof(a));
			gr_subj_encode(y, b, sizeof(b));
			CU_ASSERT(strcmp(a, b) != 0);
		}
}

static void test_decode_refuses_non_canonical(void)
{
	static const char *const bad[] = {
		"a_2e",		/* lower-case hex */
		"_41",		/* escape of a plain byte ('A') */
		"_2D",		/* escape of '-' */
		"_00",		/* NUL */
		"a_",		/* cut escape */
		"a_4",
		"_G0",
		"a.b", "a*", ">", "a b", "",	/* not token bytes / empty */
		"__",		/* "_" only as the whole token */
		"a_5",
	};
	char out[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		CU_ASSERT_EQUAL(gr_subj_decode(bad[i], strlen(bad[i]), out,
					       sizeof(out)), -EINVAL);
	CU_ASSERT_EQUAL(gr_subj_decode("_", 1, out, sizeof(out)), 0);
	CU_ASSERT_STRING_EQUAL(out, "");
	CU_ASSERT_EQUAL(gr_subj_decode("_5F", 3, out, sizeof(out)), 1);
	CU_ASSERT_STRING_EQUAL(out, "_");
}

static void test_encode_bounds(void)
{
	char small[4];

	CU_ASSERT_EQUAL(gr_subj_encode("abcd", small, sizeof(small)),
			-ENAMETOOLONG);
	CU_ASSERT_EQUAL(gr_subj_encode(".", small, sizeof(small)), 3);
	CU_ASSERT_EQUAL(gr_subj_encode("..", small, sizeof(small)),
			-ENAMETOOLONG);
	CU_ASSERT_EQUAL(gr_subj_decode("abcd", 4, small, sizeof(small)),
			-ENAMETOOLONG);
}

static void count_tokens(const char *s, int *n)
{
	*n = 1;
	for (; *s; s++)
		*n += *s == '.';
}

static void test_subject_has_five_tokens_whatever_the_names(void)
{
	char subj[GR_SUBJ_MAX];
	struct gr_obj o, back;
	size_t i;
	int n;

	for (i = 0; i < NH; i++) {
		memset(&o, 0, sizeof(o));
		snprintf(o.host, sizeof(o.host), "%s", hostile[i]);
		snprintf(o.vm, sizeof(o.vm), "%s", hostile[NH - 1 - i]);
		snprintf(o.session, sizeof(o.session), "%s", hostile[i]);
		o.kind = GR_OBJ_STREAM;
		o.ring = (uint32_t)i * 1000;
		CU_ASSERT_FATAL(gr_subj_build("GUESTRELAY", &o, subj,
					      sizeof(subj)) == 0);
		count_tokens(subj, &n);
		CU_ASSERT_EQUAL(n, 5);
		CU_ASSERT(!strchr(subj, '*') && !strchr(subj, '>') &&
			  !strchr(subj, ' '));
		/* parsed back only when every name may be a directory */
		if (gr_dir_name_ok(o.host) && gr_dir_name_ok(o.vm) &&
		    gr_dir_name_ok(o.session)) {
			CU_ASSERT_EQUAL(gr_subj_parse("GUESTRELAY", subj,
						      &back), 0);
			CU_ASSERT_STRING_EQUAL(back.vm, o.vm);
			CU_ASSERT_EQUAL(back.ring, o.ring);
		} else {
			CU_ASSERT_EQUAL(gr_subj_parse("GUESTRELAY", subj,
						      &back), -EINVAL);
		}
	}
	CU_ASSERT_EQUAL(gr_subj_build("GUEST.RELAY", &o, subj, sizeof(subj)),
			-EINVAL);
	CU_ASSERT_EQUAL(gr_subj_build("G*", &o, subj, sizeof(subj)), -EINVAL);
}

static void test_subject_parse_refuses_hostile_subjects(void)
{
	static const char *const bad[] = {
		"GUESTRELAY",
		"GUESTRELAY.h.v.s",
		"GUESTRELAY.h.v.s.s0.x",
		"GUESTRELAYX.h.v.s.s0",
		"OTHER.h.v.s.s0",
		"GUESTRELAY.h.v.s.s01",
		"GUESTRELAY.h.v.s.s",
		"GUESTRELAY.h.v.s.s-1",
		"GUESTRELAY.h.v.s.s4294967296",
		"GUESTRELAY.h.v.s.stream_0",
		"GUESTRELAY.h.v.s.Metadata",
		"GUESTRELAY._2E_2E.v.s.s0",	/* ".." */
		"GUESTRELAY.h._2E.s.s0",	/* "." */
		"GUESTRELAY.h._2Ehidden.s.s0",	/* hidden */
		"GUESTRELAY.h.a_2Fb.s.s0",	/* "/" */
		"GUESTRELAY.h.v._.s0",		/* empty name */
		"GUESTRELAY.h.v.s_2e.s0",	/* not canonical */
		"GUESTRELAY.h.v.s_41.s0",
		"GUESTRELAY.h.v.s.*",
		"GUESTRELAY.h.v.s.>",
		"GUESTRELAY..v.s.s0",
		"GUESTRELAY.h.v.s_20x.s0",	/* space */
	};
	struct gr_obj o;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		CU_ASSERT_EQUAL(gr_subj_parse("GUESTRELAY", bad[i], &o),
				-EINVAL);
	CU_ASSERT_EQUAL(gr_subj_parse("GUESTRELAY",
				      "GUESTRELAY.host-1.vm_2E1.2026T.s4294967295",
				      &o), 0);
	CU_ASSERT_EQUAL(o.ring, 4294967295u);
	CU_ASSERT_EQUAL(gr_subj_parse("GUESTRELAY",
				      "GUESTRELAY.host-1.vm_2E1.2026T.s7", &o),
			0);
	CU_ASSERT_STRING_EQUAL(o.vm, "vm.1");
	CU_ASSERT_EQUAL(o.kind, GR_OBJ_STREAM);
	CU_ASSERT_EQUAL(o.ring, 7);
	CU_ASSERT_EQUAL(gr_subj_parse("GUESTRELAY",
				      "GUESTRELAY.h.v.s.metadata", &o), 0);
	CU_ASSERT_EQUAL(o.kind, GR_OBJ_METADATA);
	CU_ASSERT_EQUAL(gr_subj_parse("GUESTRELAY", "GUESTRELAY.h.v.s.info",
				      &o), 0);
	CU_ASSERT_EQUAL(o.kind, GR_OBJ_INFO);
}

#define CK_NAME "20261128T051500+0000-20261128T051502+0000-3"
#define CK_TOK "20261128T051500_2B0000-20261128T051502_2B0000-3"

/* a closed chunk: one token more, rebuilt as <session>/archives/<chunk> */
static void test_subject_of_a_chunk(void)
{
	char subj[GR_SUBJ_MAX], id[GR_SUBJ_MAX], flat[GR_SUBJ_MAX];
	struct gr_frame f = { .gen = 9, .part = 0 };
	struct gr_obj o, back;
	int n;

	memset(&o, 0, sizeof(o));
	snprintf(o.host, sizeof(o.host), "h");
	snprintf(o.vm, sizeof(o.vm), "v");
	snprintf(o.session, sizeof(o.session), "s");
	o.kind = GR_OBJ_STREAM;
	o.ring = 2;
	CU_ASSERT_EQUAL(gr_msgid_build(&o, &f, 0, flat, sizeof(flat)), 0);
	snprintf(o.chunk, sizeof(o.chunk), CK_NAME);
	CU_ASSERT_FATAL(gr_subj_build("GR", &o, subj, sizeof(subj)) == 0);
	CU_ASSERT_STRING_EQUAL(subj, "GR.h.v.s." CK_TOK ".s2");
	count_tokens(subj, &n);
	CU_ASSERT_EQUAL(n, 6);
	memset(&back, 0x55, sizeof(back));
	CU_ASSERT_EQUAL(gr_subj_parse("GR", subj, &back), 0);
	CU_ASSERT_STRING_EQUAL(back.chunk, CK_NAME);
	CU_ASSERT_STRING_EQUAL(back.session, "s");
	CU_ASSERT_EQUAL(back.kind, GR_OBJ_STREAM);
	CU_ASSERT_EQUAL(back.ring, 2);
	/* a flat subject says so: no chunk left from a previous parse */
	CU_ASSERT_EQUAL(gr_subj_parse("GR", "GR.h.v.s.metadata", &back), 0);
	CU_ASSERT_STRING_EQUAL(back.chunk, "");
	/* the id names the chunk: never a flat session's id */
	CU_ASSERT_EQUAL(gr_msgid_build(&o, &f, 0, id, sizeof(id)), 0);
	CU_ASSERT_STRING_EQUAL(id, "h.v.s." CK_TOK ".s2.9.0");
	CU_ASSERT_STRING_NOT_EQUAL(id, flat);
	/* only a closed chunk's name is built */
	snprintf(o.chunk, sizeof(o.chunk), "20261128T051500+0000-3");
	CU_ASSERT_EQUAL(gr_subj_build("GR", &o, subj, sizeof(subj)), -EINVAL);
	snprintf(o.chunk, sizeof(o.chunk), "../x");
	CU_ASSERT_EQUAL(gr_msgid_build(&o, &f, 0, id, sizeof(id)), -EINVAL);
}

static void test_subject_parse_refuses_hostile_chunks(void)
{
	static const char *const bad[] = {
		"GR.h.v.s.20261128T051500_2B0000-3.s0",	/* active */
		"GR.h.v.s.archives.s0",
		"GR.h.v.s._2E_2E.s0",
		"GR.h.v.s.20261128T051500_2b0000-20261128T051502_2B0000-3.s0",
		"GR.h.v.s.20261128T051500+0000-20261128T051502+0000-3.s0",
		"GR.h.v.s." CK_TOK "_2F_2E_2E.s0",
		"GR.h.v.s." CK_TOK "x.s0",
		"GR.h.v.s." CK_TOK "-1.s0",
		"GR.h.v.s." CK_TOK ".s0.s0",
		"GR.h.v.s." CK_TOK "." CK_TOK ".s0",
		"GR.h.v.s." CK_TOK ".",
		"GR.h.v.s." CK_TOK,
		"GR.h.v.s.." CK_TOK ".s0",
		"GR.h.v.s." CK_TOK "1234567890123456789.s0",
	};
	struct gr_obj o;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		CU_ASSERT_EQUAL(gr_subj_parse("GR", bad[i], &o), -EINVAL);
	CU_ASSERT_EQUAL(gr_subj_parse("GR", "GR.h.v.s." CK_TOK ".info",
				      &o), 0);
	CU_ASSERT_EQUAL(o.kind, GR_OBJ_INFO);
}

static void test_dir_names(void)
{
	CU_ASSERT(gr_dir_name_ok("vm.1"));
	CU_ASSERT(gr_dir_name_ok("20261125T161152Z-2"));
	CU_ASSERT(gr_dir_name_ok("snapshot-20261125T161152Z"));
	CU_ASSERT(!gr_dir_name_ok(""));
	CU_ASSERT(!gr_dir_name_ok("."));
	CU_ASSERT(!gr_dir_name_ok(".."));
	CU_ASSERT(!gr_dir_name_ok(".collect"));
	CU_ASSERT(!gr_dir_name_ok("a/b"));
	CU_ASSERT(!gr_dir_name_ok("a b"));
}

static void test_msgid_distinct(void)
{
	struct gr_obj o = { .host = "h", .vm = "a.b", .session = "s",
			    .kind = GR_OBJ_STREAM, .ring = 1 };
	struct gr_obj p = { .host = "h", .vm = "a", .session = "b.s",
			    .kind = GR_OBJ_STREAM, .ring = 1 };
	struct gr_frame f = { .gen = 12, .part = 0 };
	char a[GR_SUBJ_MAX], b[GR_SUBJ_MAX];

	CU_ASSERT_EQUAL(gr_msgid_build(&o, &f, 0, a, sizeof(a)), 0);
	CU_ASSERT_EQUAL(gr_msgid_build(&p, &f, 0, b, sizeof(b)), 0);
	CU_ASSERT(strcmp(a, b) != 0);
	f.part = 1;
	CU_ASSERT_EQUAL(gr_msgid_build(&o, &f, 0, b, sizeof(b)), 0);
	CU_ASSERT(strcmp(a, b) != 0);
	f.part = 0;
	f.gen = 13;
	CU_ASSERT_EQUAL(gr_msgid_build(&o, &f, 0, b, sizeof(b)), 0);
	CU_ASSERT(strcmp(a, b) != 0);
	/* two versions of metadata with one mtime still differ */
	o.kind = GR_OBJ_METADATA;
	CU_ASSERT_EQUAL(gr_msgid_build(&o, &f, 1, a, sizeof(a)), 0);
	CU_ASSERT_EQUAL(gr_msgid_build(&o, &f, 2, b, sizeof(b)), 0);
	CU_ASSERT(strcmp(a, b) != 0);
}

/* the reference vectors of the SipHash paper: key 00..0f, message 00.. */
static void test_siphash_reference_vectors(void)
{
	uint8_t key[GR_MSGID_KEY_LEN], msg[15];
	unsigned int i;

	for (i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)i;
	for (i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)i;
	CU_ASSERT_EQUAL(gr_siphash(key, msg, 0), 0x726fdb47dd0e0e31ULL);
	CU_ASSERT_EQUAL(gr_siphash(key, msg, 15), 0xa129ca6149be45e5ULL);
}

static void test_sealed_msgid_needs_the_key(void)
{
	struct gr_obj o = { .host = "h", .vm = "v", .session = "s",
			    .kind = GR_OBJ_STREAM, .ring = 0 };
	struct gr_frame f = { .gen = 41, .part = 0 };
	uint8_t k1[GR_MSGID_KEY_LEN] = { 1 }, k2[GR_MSGID_KEY_LEN] = { 2 };
	char bare[GR_SUBJ_MAX], a[GR_SUBJ_MAX], b[GR_SUBJ_MAX];
	char r1[GR_SUBJ_MAX], r2[GR_SUBJ_MAX], small[24];

	CU_ASSERT_EQUAL(gr_msgid_build(&o, &f, 0, bare, sizeof(bare)), 0);
	memcpy(a, bare, sizeof(a));
	memcpy(b, bare, sizeof(b));
	CU_ASSERT_EQUAL(gr_msgid_seal(a, sizeof(a), k1, 0), 0);
	CU_ASSERT_EQUAL(gr_msgid_seal(b, sizeof(b), k2, 0), 0);
	/* the bare id, a dot and 16 hex digits; another key, another tag */
	CU_ASSERT_EQUAL(strlen(a), strlen(bare) + 17);
	CU_ASSERT_EQUAL(strncmp(a, bare, strlen(bare)), 0);
	CU_ASSERT(strcmp(a, b) != 0);
	/* the same key makes the same id (resends are deduplicated) */
	memcpy(b, bare, sizeof(b));
	CU_ASSERT_EQUAL(gr_msgid_seal(b, sizeof(b), k1, 0), 0);
	CU_ASSERT_STRING_EQUAL(a, b);
	/* fresh ids after a conflict: each different, each sealed */
	memcpy(r1, bare, sizeof(r1));
	memcpy(r2, bare, sizeof(r2));
	CU_ASSERT_EQUAL(gr_msgid_seal(r1, sizeof(r1), k1, 1), 0);
	CU_ASSERT_EQUAL(gr_msgid_seal(r2, sizeof(r2), k1, 2), 0);
	CU_ASSERT(strstr(r1, ".r1.") != NULL);
	CU_ASSERT(strcmp(r1, a) != 0 && strcmp(r1, r2) != 0);
	snprintf(small, sizeof(small), "%.20s", bare);
	CU_ASSERT_EQUAL(gr_msgid_seal(small, sizeof(small), k1, 0),
			-ENAMETOOLONG);
}

static void test_frame_roundtrip_and_strictness(void)
{
	struct gr_frame f = { .off = 1ULL << 40, .len = 100000, .part = 3,
			      .chunk = 30000, .gen = 77 }, g;
	char s[160];
	static const char *const bad[] = {
		"", "1 2 3", "0 100 0 1 100 0 extra", "00 100 0 1 100 0",
		"+0 100 0 1 100 0", "-1 100 0 1 100 0", "0  100 0 1 100 0",
		"0 100 0 1 0 0",		/* chunk 0 */
		"0 100 1 1 100 0",		/* part >= nparts */
		"0 100 0 2 100 0",		/* nparts != ceil(len/chunk) */
		"0 100 0 1 100 18446744073709551616",	/* overflow */
		"18446744073709551615 1 0 1 100 0",	/* off + len wraps */
		"0 100 0 1 4294967296 0",
		"0x10 100 0 1 100 0",
	};
	size_t i;

	f.nparts = gr_frame_nparts(f.len, f.chunk);
	CU_ASSERT_EQUAL(f.nparts, 4);
	CU_ASSERT_EQUAL(gr_frame_format(&f, s, sizeof(s)), 0);
	CU_ASSERT_EQUAL(gr_frame_parse(s, 10000, &g), 0);	/* last part */
	CU_ASSERT_EQUAL(g.off, f.off);
	CU_ASSERT_EQUAL(g.gen, 77);
	CU_ASSERT_EQUAL(gr_frame_parse(s, 9999, &g), -EINVAL);
	CU_ASSERT_EQUAL(gr_frame_parse(s, 30000, &g), -EINVAL);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		CU_ASSERT_EQUAL(gr_frame_parse(bad[i], 100, &g), -EINVAL);
	CU_ASSERT_EQUAL(gr_frame_parse("0 100 0 1 100 0", 100, &g), 0);
	CU_ASSERT_EQUAL(gr_frame_nparts(0, 10), 1);
	CU_ASSERT_EQUAL(gr_frame_nparts(20, 10), 2);
	CU_ASSERT_EQUAL(gr_frame_nparts(21, 10), 3);
	CU_ASSERT_EQUAL(gr_frame_parse("0 0 0 1 10 0", 0, &g), 0);
}

static void test_reassembly_any_order(void)
{
	enum { LEN = 16 << 20, CHUNK = 65536 - 1024 };
	uint8_t *src = malloc(LEN);
	struct gr_frame f = { .off = 4096, .len = LEN, .chunk = CHUNK,
			      .gen = 5 };
	struct gr_reasm r;
	uint32_t k, n, *order;
	int ret = 0;

	CU_ASSERT_FATAL(src != NULL);
	for (k = 0; k < LEN; k++)
		src[k] = (uint8_t)(k * 2654435761u >> 13);
	f.nparts = n = gr_frame_nparts(LEN, CHUNK);
	order = malloc(n * sizeof(*order));
	for (k = 0; k < n; k++)
		order[k] = k;
	srand(7);
	for (k = n - 1; k > 0; k--) {
		uint32_t j = (uint32_t)rand() % (k + 1), t = order[k];

		order[k] = order[j];
		order[j] = t;
	}
	CU_ASSERT_FATAL(gr_reasm_init(&r, &f) == 0);
	for (k = 0; k < n; k++) {
		uint64_t from = (uint64_t)order[k] * CHUNK, len = LEN - from;

		if (len > CHUNK)
			len = CHUNK;
		f.part = order[k];
		ret = gr_reasm_add(&r, &f, src + from, len);
		CU_ASSERT_EQUAL(ret, k == n - 1);
		/* a duplicate part changes nothing */
		if (k == n / 2)
			CU_ASSERT_EQUAL(gr_reasm_add(&r, &f, src + from, len),
					0);
	}
	CU_ASSERT_EQUAL(memcmp(r.buf, src, LEN), 0);
	/* a part whose frame disagrees */
	f.gen = 6;
	CU_ASSERT_EQUAL(gr_reasm_add(&r, &f, src, CHUNK), -EINVAL);
	f.gen = 5;
	f.len = LEN - 8;
	CU_ASSERT_EQUAL(gr_reasm_add(&r, &f, src, CHUNK), -EINVAL);
	gr_reasm_free(&r);
	free(order);
	free(src);
}

static const struct gr_test tests[] = {
	GR_TEST(test_encode_roundtrip_and_token_chars),
	GR_TEST(test_encode_is_injective),
	GR_TEST(test_decode_refuses_non_canonical),
	GR_TEST(test_encode_bounds),
	GR_TEST(test_subject_has_five_tokens_whatever_the_names),
	GR_TEST(test_subject_parse_refuses_hostile_subjects),
	GR_TEST(test_subject_of_a_chunk),
	GR_TEST(test_subject_parse_refuses_hostile_chunks),
	GR_TEST(test_dir_names),
	GR_TEST(test_msgid_distinct),
	GR_TEST(test_siphash_reference_vectors),
	GR_TEST(test_sealed_msgid_needs_the_key),
	GR_TEST(test_frame_roundtrip_and_strictness),
	GR_TEST(test_reassembly_any_order),
};

int main(void)
{
	return gr_test_main("subject", tests, ARRAY_SIZE(tests), NULL,
			    NULL);
}
