/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctf_fixture.h - traces on disk for the tests of the CTF writer and of
 * `guestrelay report` (test_ctf.c, test_report.c)
 *
 * Builds traces the way the agent stores them: a region header and
 * descriptors validated into views, metadata from gr_ctf_metadata(), a
 * .guestrelay file, and stream files of packets built with the ABI
 * structs; runs the real babeltrace2 CLI and python3-bt2 on them; the
 * synthetic trace @syn, built once per suite, with what babeltrace2 and
 * the report must show of it.
 */
#ifndef GR_CTF_FIXTURE_H
#define GR_CTF_FIXTURE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "gr_test.h"
#include "ctf.h"
#include "guestrelay_abi.h"
#include "report.h"
#include "validate.h"

#define ALIGN8(x)	(((x) + 7U) & ~7U)
#define PYTHON		"/usr/bin/python3"
#define T_REGION	(1ULL << 16)
#define T_CPUS		2
#define T_S		4096
#define T_N		4
#define T_DESC_OFF	0x2000		/* room for 16 descriptors */
#define T_NDESC		6
#define T_RING_OFF	0x5000
#define T_REC_OFF	0x5100
#define T_DATA_OFF	0x6000		/* 2 * 4 * 4 KiB, ends 0xe000 */
#define T_MAX_EVENT	1024
#define SG	GR_FIELD_F_SIGNED
#define HX	GR_FIELD_F_HEX
#define INT	GR_FIELD_INTEGER
#define CHR	GR_FIELD_CHARS
#define STR	GR_FIELD_STRING
#define T_HOST_S	1700000000LL	/* guest 0 = this host second */

enum { EV_SWITCH, EV_IRQ, EV_KMALLOC, EV_GAPS, EV_TICK, EV_BLOB };

struct trace {
	char dir[PATH_MAX];
	int dirfd;
	struct gr_region_hdr h;
	struct gr_event_desc d[GR_WIDE_MAX_EVENTS];
	unsigned int nd;
	struct gr_view v;
	struct gr_event_view ev[GR_WIDE_MAX_EVENTS];
	struct gr_ctf_env env;
	struct gr_ctf_clock clock;
};

struct pkt {
	uint8_t b[T_S];
	uint32_t len;
};

struct run {
	char *out;			/* stdout */
	size_t len;
	char *err;			/* stderr */
	int status;
};

extern uint64_t rng_state;		/* rnd(): gr_test_seed() of the program */
extern char tmp_root[PATH_MAX / 2];	/* every trace of the run is in it */
extern struct trace syn;		/* the synthetic trace of the suite */
extern const char syn_report[];		/* gr_report() of it */

uint64_t rnd(void);
void make_hdr(struct gr_region_hdr *h, uint32_t ndesc, uint8_t boot,
		     const char *nodename, uint64_t freq);
void make_descs(struct gr_event_desc d[T_NDESC]);
int trace_create(struct trace *t, const char *name);
void trace_close(struct trace *t);
void pkt_start(struct pkt *p, unsigned int ring, uint64_t seq,
		      uint64_t ts_begin, uint64_t discarded);
void pkt_add(struct pkt *p, uint16_t id, uint32_t tid, uint64_t ts,
		    const void *payload, uint32_t plen);
void pkt_finish(struct pkt *p, uint64_t ts_end);
int stream_append(const struct trace *t, unsigned int ring,
			 const void *buf, size_t len);
void synthetic_env(struct trace *t, const char *vm, uint8_t uuid0);
void trace_init(struct trace *t, const char *nodename, uint8_t boot,
		       uint64_t freq, const char *vm, uint8_t uuid0);
int make_synthetic(struct trace *t, const char *name);
char *slurp(const char *path);
void run_free(struct run *r);
int run(char *const argv[], struct run *r);
int exited_ok(const struct run *r);
int bt_dump(char **dirs, unsigned int n, int each, struct run *r);
/* babeltrace2 DIR into @r: 0 if it exited 0, else its stderr printed */
int bt_text(const char *dir, struct run *r);
/* the metadata gr_ctf_metadata() writes for @t (to free()), or NULL */
char *trace_metadata(struct trace *t);
int same_text(const char *got, const char *want);
char *drop_lines(const char *text, const char *prefix);
unsigned int count_lines(const char *text, const char *prefix);
#define REPORT_HOST	2	/* report_text(): report --host */
int report_text(const char *dir, const struct gr_report_opts *o,
		       int summary, char **text);

int ctf_fixture_suite_init(void);
int ctf_fixture_suite_clean(void);
int ctf_fixture_main(const char *prog, const struct gr_test_suite *suites,
		     size_t n);

#endif /* GR_CTF_FIXTURE_H */
