// SPDX-License-Identifier: GPL-2.0
/*
 * test_validate_random.c - the host's validators under random mutation
 *
 * Mutates valid structures (tests/lib/validate_fixture.c) many times and
 * re-checks, with independent 128-bit arithmetic, every invariant of
 * whatever the validators accept. GR_TEST_SEED=N in the environment
 * replays one random sequence.
 */
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gr_build.h"
#include "gr_test.h"
#include "validate_fixture.h"

#include "guestrelay_abi.h"
#include "validate.h"

/* --- randomized ---------------------------------------------------------- */

#define RANDOM_ROUNDS	100000

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static uint64_t interesting(void)
{
	static const uint64_t vals[] = {
		0, 1, 2, 3, 7, 8, 16, 64, 72, 127, 128, 255, 256, 511, 512,
		513, 575, 576, 4095, 4096, 4097, 0x2000, 0x3000, 0x4000,
		0x7fff, 0x8000, 0xc000, 0xffff, 0x10000, 0x10001, 65528,
		1 << 20, 1 << 24, 0x7fffffff, 0x80000000ULL, 0xffffffffULL,
		1ULL << 32, 1ULL << 40, 1ULL << 63, UINT64_MAX,
		UINT64_MAX - 7, UINT64_MAX - 4095, UINT64_MAX - 0xbfff,
		GR_REGION_MAGIC, GR_CTF_MAGIC, GR_SEQ_BUSY,
	};

	if (rnd() % 4 == 0)
		return rnd();
	return vals[rnd() % ARRAY_SIZE(vals)];
}

/* flip bytes, or store an interesting value into an aligned word */
static void mutate(void *obj, size_t len, size_t word_limit)
{
	uint8_t *p = obj;
	unsigned int n = 1 + rnd() % 4, i;
	uint64_t val;
	size_t off;

	for (i = 0; i < n; i++) {
		switch (rnd() % 4) {
		case 0:
			p[rnd() % len] ^= (uint8_t)(1u << (rnd() % 8));
			break;
		case 1:
			p[rnd() % len] = (uint8_t)rnd();
			break;
		case 2:
			off = (rnd() % (word_limit / 4)) * 4;
			val = htole64(interesting());
			memcpy(p + off, &val, 4);	/* low half, LE */
			break;
		default:
			off = (rnd() % (word_limit / 8)) * 8;
			val = htole64(interesting());
			memcpy(p + off, &val, 8);
			break;
		}
	}
}

static int str_ok(const char *s, size_t cap, int ident)
{
	size_t n = strnlen(s, cap), i;

	if (n == cap)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (ident ? !((c >= 'a' && c <= 'z') || c == '_' ||
			      (i && c >= '0' && c <= '9')) :
			    (c < 0x20 || c > 0x7e || c == '"' || c == '\\'))
			return 0;
	}
	return !ident || n;
}

/* re-derive, independently, what an accepted header must satisfy */
static int hdr_invariants(const struct gr_region_hdr *h, uint64_t real,
			  const struct gr_view *v)
{
	unsigned __int128 start[4], end[4];
	uint64_t align[4] = { 8, 64, 64, GR_PAGE_SIZE };
	unsigned __int128 slots = (unsigned __int128)v->nr_rings * v->n_subbufs;
	int i, j;

	if (le64toh(h->magic) != GR_REGION_MAGIC ||
	    le16toh(h->abi_major) != GR_ABI_MAJOR ||
	    le32toh(h->hdr_size) != 512 || v->region_size != real ||
	    le64toh(h->region_size) != real)
		return 0;
	if (v->nr_rings < 1 || v->nr_rings > GR_MAX_RINGS ||
	    v->nr_cpus < 1 || v->nr_cpus > GR_MAX_NR_CPUS ||
	    (v->flags & ~1U) ||
	    (v->flags ? v->nr_rings != 1 : v->nr_rings != v->nr_cpus))
		return 0;
	if (!v->desc_count)
		return 0;
	if (v->subbuf_size < 4096 || v->subbuf_size > (1U << 24) ||
	    (v->subbuf_size & (v->subbuf_size - 1)) ||
	    (1U << v->subbuf_shift) != v->subbuf_size ||
	    v->n_subbufs < 2 || v->n_subbufs > 65536)
		return 0;
	if (v->packet_header_size != 72 || v->max_event_size < 16 ||
	    v->max_event_size % 8 || v->max_event_size > 65528 ||
	    v->max_event_size > v->subbuf_size - 72)
		return 0;
	if (v->desc_count > 256 || v->desc_stride < 576 || v->desc_stride % 8 ||
	    !v->clock_freq || v->clock_freq > 10000000000ULL)
		return 0;

	start[0] = v->desc_offset;
	end[0] = start[0] + (unsigned __int128)v->desc_count * v->desc_stride;
	start[1] = v->ring_offset;
	end[1] = start[1] + (unsigned __int128)v->nr_rings * 128;
	start[2] = v->subbuf_rec_offset;
	end[2] = start[2] + slots * 16;
	start[3] = v->data_offset;
	end[3] = start[3] + slots * v->subbuf_size;
	for (i = 0; i < 4; i++) {
		if (start[i] < GR_LAYOUT_START || end[i] > real ||
		    (uint64_t)start[i] % align[i])
			return 0;
		for (j = 0; j < i; j++)
			if (start[i] < end[j] && start[j] < end[i] &&
			    start[i] != end[i] && start[j] != end[j])
				return 0;
	}
	/* the helpers' last byte of each area is inside the region */
	if (v->desc_count &&
	    gr_view_desc_off(v, v->desc_count - 1) + 576 > real)
		return 0;
	if (gr_view_ring_off(v, v->nr_rings - 1) + 128 > real ||
	    gr_view_rec_off(v, v->nr_rings - 1, v->n_subbufs - 1) + 16 > real ||
	    gr_view_subbuf_off(v, v->nr_rings - 1, v->n_subbufs - 1) +
	    v->subbuf_size > real)
		return 0;

	return str_ok(v->clock_name, sizeof(v->clock_name), 1) &&
	       !gr_is_tsdl_keyword(v->clock_name) &&
	       str_ok(v->kernel_release, sizeof(v->kernel_release), 0) &&
	       str_ok(v->nodename, sizeof(v->nodename), 0);
}

static void test_random_header_mutations(void)
{
	struct gr_region_hdr h;
	struct gr_view v;
	const char *why;
	unsigned long accepted = 0, bad_invariant = 0, no_reason = 0;
	uint64_t real;
	int i, ret;

	for (i = 0; i < RANDOM_ROUNDS; i++) {
		make_hdr(&h);
		if (rnd() % 8 == 0)
			make_global_hdr(&h, 1 + rnd() % 16);
		/* words up to reserved[]; bytes anywhere */
		mutate(&h, sizeof(h), offsetof(struct gr_region_hdr, reserved));
		real = T_REGION;
		if (rnd() % 16 == 0)
			real = rnd() % 2 ? 1ULL << (rnd() % 64) : rnd();
		why = NULL;
		memset(&v, 0, sizeof(v));
		ret = gr_check_region_hdr(&h, real, &v, &why);
		if (ret) {
			if (!why)
				no_reason++;
			continue;
		}
		accepted++;
		if (!hdr_invariants(&h, real, &v))
			bad_invariant++;
	}
	printf("\n    header: %lu of %d mutations accepted ", accepted,
	       RANDOM_ROUNDS);
	CU_ASSERT_EQUAL(bad_invariant, 0);
	CU_ASSERT_EQUAL(no_reason, 0);
	CU_ASSERT_TRUE(accepted > 0);
	CU_ASSERT_TRUE(accepted < RANDOM_ROUNDS);
}

static int desc_invariants(const struct gr_view *v,
			   const struct gr_event_view *ev, unsigned int idx)
{
	unsigned int i, j;

	if (ev->id != idx || ev->nr_fields > GR_MAX_FIELDS ||
	    (ev->flags & ~GR_EVENT_F_VARLEN) ||
	    16u + ev->payload_size > v->max_event_size ||
	    ev->min_record < 16 || ev->min_record > ev->max_record ||
	    ev->max_record > v->max_event_size ||
	    ev->max_record != ((16u + ev->payload_size + 7) & ~7u) ||
	    !str_ok(ev->name, sizeof(ev->name), 1) ||
	    !str_ok(ev->system, sizeof(ev->system), 1))
		return 0;
	if ((ev->flags & GR_EVENT_F_VARLEN) &&
	    (!ev->nr_fields ||
	     ev->fields[ev->nr_fields - 1].type != GR_FIELD_STRING))
		return 0;
	for (i = 0; i < ev->nr_fields; i++) {
		const struct gr_field_view *f = &ev->fields[i];

		if (!str_ok(f->name, sizeof(f->name), 1) ||
		    !f->size ||
		    (uint32_t)f->offset + f->size > ev->payload_size)
			return 0;
		if (f->type == GR_FIELD_STRING && i + 1 != ev->nr_fields)
			return 0;
		if (f->type == GR_FIELD_INTEGER &&
		    (f->size & (f->size - 1) || f->size > 8))
			return 0;
		if (f->type != GR_FIELD_INTEGER && f->type != GR_FIELD_CHARS &&
		    f->type != GR_FIELD_STRING)
			return 0;
		for (j = 0; j < i; j++) {
			const struct gr_field_view *o = &ev->fields[j];

			if (!strcmp(f->name, o->name) ||
			    (f->offset < o->offset + o->size &&
			     o->offset < f->offset + f->size))
				return 0;
		}
	}
	return 1;
}

static void test_random_descriptor_mutations(void)
{
	struct gr_event_desc d[T_NDESC];
	struct gr_event_view ev;
	struct gr_view v;
	const char *why;
	unsigned long accepted = 0, bad_invariant = 0, no_reason = 0;
	unsigned int idx;
	int i, ret;

	make_view(&v);
	for (i = 0; i < RANDOM_ROUNDS; i++) {
		make_descs(d);
		idx = rnd() % T_NDESC;
		mutate(&d[idx], sizeof(d[idx]), sizeof(d[idx]));
		why = NULL;
		ret = gr_check_event_desc(&v, &d[idx], idx, &ev, &why);
		if (ret) {
			if (!why)
				no_reason++;
			continue;
		}
		accepted++;
		if (!desc_invariants(&v, &ev, idx))
			bad_invariant++;
	}
	printf("\n    descriptor: %lu of %d mutations accepted ", accepted,
	       RANDOM_ROUNDS);
	CU_ASSERT_EQUAL(bad_invariant, 0);
	CU_ASSERT_EQUAL(no_reason, 0);
	CU_ASSERT_TRUE(accepted > 0);
}

static void test_random_packet_mutations(void)
{
	struct {
		struct gr_subbuf_rec rec;
		struct gr_packet_header ph;
	} p;
	struct gr_region_hdr h;
	struct gr_view views[2], *v;
	const char *why;
	unsigned long accepted = 0, bad_invariant = 0, no_reason = 0;
	uint64_t bytes, seq;
	unsigned int ring;
	int i, ret;

	make_view(&views[0]);
	make_global_hdr(&h, 8);
	CU_ASSERT_EQUAL_FATAL(gr_check_region_hdr(&h, T_REGION, &views[1],
						  &why), 0);
	for (i = 0; i < RANDOM_ROUNDS; i++) {
		v = &views[rnd() % 2];
		ring = (unsigned int)(rnd() % v->nr_rings);
		seq = rnd() % 2 ? T_SEQ : rnd();
		if (seq == GR_SEQ_BUSY)
			seq = 0;
		make_packet(&p.rec, &p.ph, ring, seq);
		if (gr_view_is_global(v))
			p.ph.cpu_id = htole32((uint32_t)(rnd() % 8));
		mutate(&p, sizeof(p), sizeof(p));
		if (rnd() % 16 == 0)
			ring = (unsigned int)rnd();
		why = NULL;
		bytes = 0;
		ret = gr_check_packet(v, ring, seq, &p.rec, &p.ph, NULL, &bytes, &why);
		if (ret) {
			if (!why)
				no_reason++;
			continue;
		}
		accepted++;
		if (ring >= v->nr_rings ||
		    le64toh(p.rec.seq) != seq ||
		    le64toh(p.ph.packet_seq_num) != seq ||
		    le32toh(p.ph.magic) != GR_CTF_MAGIC || p.ph.stream_id ||
		    le64toh(p.ph.stream_instance_id) != ring ||
		    le32toh(p.ph.cpu_id) != ring ||
		    le64toh(p.ph.packet_size) != (uint64_t)v->subbuf_size * 8 ||
		    bytes < 72 || bytes > v->subbuf_size || bytes % 8 ||
		    bytes * 8 != le64toh(p.ph.content_size) ||
		    bytes != le32toh(p.rec.bytes) ||
		    le64toh(p.ph.timestamp_begin) > le64toh(p.ph.timestamp_end) ||
		    le64toh(p.ph.timestamp_end) > v->ts_max ||
		    le64toh(p.ph.events_discarded) == UINT64_MAX)
			bad_invariant++;
	}
	printf("\n    packet: %lu of %d mutations accepted ", accepted,
	       RANDOM_ROUNDS);
	CU_ASSERT_EQUAL(bad_invariant, 0);
	CU_ASSERT_EQUAL(no_reason, 0);
	CU_ASSERT_TRUE(accepted > 0);
}

static void test_random_event_headers(void)
{
	struct gr_event_view ev[T_NDESC];
	struct gr_event_header e;
	struct gr_record_view r;
	const char *why;
	unsigned long accepted = 0, bad_invariant = 0;
	uint64_t remaining;
	struct gr_view v;
	int i;

	make_view(&v);
	make_event_views(ev);
	for (i = 0; i < RANDOM_ROUNDS; i++) {
		make_evh(&e, (uint16_t)(rnd() % 4), (uint16_t)(rnd() % 256));
		if (rnd() % 4 == 0)
			mutate(&e, sizeof(e), sizeof(e));
		remaining = rnd() % 2 ? rnd() % 300 : interesting();
		why = NULL;
		if (gr_check_event_header(&v, &e, ev, T_NDESC, remaining, &r, &why))
			continue;
		accepted++;
		if (r.id >= T_NDESC || r.size % 8 || r.size < 16 ||
		    r.size > remaining || r.size < ev[r.id].min_record ||
		    r.size > ev[r.id].max_record)
			bad_invariant++;
	}
	CU_ASSERT_EQUAL(bad_invariant, 0);
	CU_ASSERT_TRUE(accepted > 0);
}

/* --- registration -------------------------------------------------------- */

static const struct gr_test random_tests[] = {
	GR_TEST_NAMED("random header mutations keep invariants",
	  test_random_header_mutations),
	GR_TEST_NAMED("random descriptor mutations keep invariants",
	  test_random_descriptor_mutations),
	GR_TEST_NAMED("random packet mutations keep invariants",
	  test_random_packet_mutations),
	GR_TEST_NAMED("random event headers keep invariants", test_random_event_headers),
};

static const struct gr_test_suite suites[] = {
	GR_SUITE("randomized", random_tests, NULL, NULL),
};

int main(void)
{
	const char *seed = getenv("GR_TEST_SEED");

	/* a fixed default: CI runs the same cases; GR_TEST_SEED varies them */
	rng_state = seed ? strtoull(seed, NULL, 0) : 0x9e3779b97f4a7c15ULL;
	if (!rng_state)
		rng_state = 1;
	printf("test_validate_random: random seed %#llx (GR_TEST_SEED to replay)\n",
	       (unsigned long long)rng_state);

	return gr_test_run(suites, ARRAY_SIZE(suites));
}

