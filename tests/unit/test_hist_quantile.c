// SPDX-License-Identifier: GPL-2.0
/*
 * test_hist_quantile.c - the quantiles of a log2 latency table
 * (gr_hist_log2_quantile(), region/hist_map.c) that status and fleet
 * status show: the upper bound 2^k ns of the bucket where the cumulative
 * count reaches the quantile, with exact ranks for any count
 */
#include <stdint.h>
#include <string.h>

#include "gr_test.h"
#include "hist_map.h"

#define ROWS_MAX	8

struct table {
	struct gr_hist_table t;
	struct gr_hist_row rows[ROWS_MAX];
};

/* the bound of log2 bucket @k in seconds, as status shows it */
static double le(unsigned int k)
{
	return (k < 64 ? (double)(1ULL << k) : 18446744073709551616.0) / 1e9;
}

static void table_init(struct table *tb)
{
	memset(tb, 0, sizeof(*tb));
	tb->t.rows = tb->rows;
	tb->t.cap = ROWS_MAX;
}

/* a row of @hits events in bucket @k (key @lat), @other as the other key */
static void add(struct table *tb, unsigned int lat, uint64_t other,
		uint64_t k, uint64_t hits)
{
	struct gr_hist_row *r = &tb->rows[tb->t.nr_rows++];

	CU_ASSERT_FATAL(tb->t.nr_rows <= ROWS_MAX);
	r->key[lat] = k;
	r->key[!lat] = other;
	r->hitcount = hits;
}

static void test_empty_table_has_no_quantile(void)
{
	struct table tb;

	table_init(&tb);
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 500), -1);
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 990), -1);
	/* keys seen, but no event counted under them */
	add(&tb, 0, 0, 12, 0);
	add(&tb, 0, 0, 20, 0);
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 500), -1);
}

static void test_one_bucket_is_every_quantile(void)
{
	struct table tb;

	table_init(&tb);
	add(&tb, 0, 0, 12, 7);
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 1), le(12));
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 500), le(12));
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 990), le(12));
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 1000), le(12));
	/* bucket 0: delays up to 1 ns */
	table_init(&tb);
	add(&tb, 0, 0, 0, 1);
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 990), 1e-9);
}

static void test_rank_is_the_ceiling_of_the_share(void)
{
	struct table tb;

	/* 100 events, 99 in bucket 3: the 99th is still in bucket 3 */
	table_init(&tb);
	add(&tb, 0, 0, 20, 1);
	add(&tb, 0, 0, 3, 99);
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 500), le(3));
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 990), le(3));
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 1000), le(20));
	/* 3 events, one each: p50 is the 2nd (ceil(1.5)) */
	table_init(&tb);
	add(&tb, 0, 0, 5, 1);
	add(&tb, 0, 0, 6, 1);
	add(&tb, 0, 0, 7, 1);
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 500), le(6));
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 334), le(6));
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 333), le(5));
}

static void test_p99_in_the_last_bucket(void)
{
	struct table tb;

	/* 98 fast, 2 slow: the 99th event is a slow one */
	table_init(&tb);
	add(&tb, 0, 0, 3, 98);
	add(&tb, 0, 0, 30, 2);
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 500), le(3));
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 990), le(30));
	/* a delay of 64 bits, and a hostile key above 64: bucket 64 */
	table_init(&tb);
	add(&tb, 0, 0, 64, 1);
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 990), le(64));
	add(&tb, 0, 0, 1000, 1);
	add(&tb, 0, 0, UINT64_MAX, 1);
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 500), le(64));
}

static void test_large_counts(void)
{
	const uint64_t half = 500ULL << 50;	/* above 2^53 */
	struct table tb;

	/*
	 * 2 x half + 1 events: the median is event half + 1, in the upper
	 * bucket; in doubles the + 1 would be lost and it would fall in
	 * the lower one
	 */
	table_init(&tb);
	add(&tb, 0, 0, 4, half);
	add(&tb, 0, 0, 9, half + 1);
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 500), le(9));
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 499), le(4));
	/* counts whose sum passes 2^64 saturate: no wrap to a small total */
	table_init(&tb);
	add(&tb, 0, 0, 1, 1ULL << 63);
	add(&tb, 0, 0, 5, 1ULL << 63);
	add(&tb, 0, 0, 7, 1ULL << 62);
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 500), le(1));
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 990), le(5));
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 1000), le(5));
	table_init(&tb);
	add(&tb, 0, 0, 2, UINT64_MAX);
	add(&tb, 0, 0, 2, UINT64_MAX);
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 990), le(2));
}

static void test_second_key_summed_over(void)
{
	struct table tb;

	/* syscall latency by id: key 0 the id, key 1 the log2 delay */
	table_init(&tb);
	add(&tb, 1, 0, 3, 40);
	add(&tb, 1, 1, 3, 40);
	add(&tb, 1, 2, 10, 19);
	add(&tb, 1, 231, 15, 1);
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 1, 500), le(3));
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 1, 990), le(10));
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 1, 1000), le(15));
}

static void test_bad_arguments(void)
{
	struct table tb;

	table_init(&tb);
	add(&tb, 0, 0, 3, 1);
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 0), -1);
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, 0, 1001), -1);
	CU_ASSERT_EQUAL(gr_hist_log2_quantile(&tb.t, GR_HIST_MAX_KEYS, 500),
			-1);
}

static const struct gr_test tests[] = {
	GR_TEST(test_empty_table_has_no_quantile),
	GR_TEST(test_one_bucket_is_every_quantile),
	GR_TEST(test_rank_is_the_ceiling_of_the_share),
	GR_TEST(test_p99_in_the_last_bucket),
	GR_TEST(test_large_counts),
	GR_TEST(test_second_key_summed_over),
	GR_TEST(test_bad_arguments),
};

int main(void)
{
	return gr_test_main("hist_quantile", tests, ARRAY_SIZE(tests), NULL,
			    NULL);
}
