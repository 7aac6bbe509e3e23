// SPDX-License-Identifier: GPL-2.0
/*
 * relay_ir.c - one writer path of the guest's relay core, N times, for
 * callgrind to count its instructions (tests/bench/bench_core.sh)
 *
 *   relay_ir PATH PAYLOAD N
 *
 * PAYLOAD is 8, 56 or 248 bytes, a compile-time constant in each loop as
 * a probe's sizeof(*payload) is (irq_handler_exit, sys_enter,
 * sched_process_exec have payloads of about these sizes).
 *
 * PATH is what one event does:
 *   floor    the least any tracer could do: read the clock, store a
 *            16-byte event header and the payload at a bump pointer that
 *            wraps in the same ring memory (no enable test, no nesting
 *            guard, no interrupt save, no sub-buffer logic)
 *   rec      a probe's path: gr_rec_begin(), fill, gr_rec_commit()
 *   write    gr_chan_write() of a payload prepared on the stack
 *   reserve  gr_chan_reserve(), fill (the caller protects the ring)
 *   clock    the event clock alone
 *   keep     rec with a filter program on the event (spec 14) that keeps
 *            every record: load the first payload word, compare, return
 *   drop     the same program with the constant that drops every record
 *            (each record is taken back out of the ring at commit)
 *   fkeep    rec with a follow filter (spec 15) whose set holds the
 *            writing thread: every record is kept
 *   fdrop    the same with a set that does not hold it: every record is
 *            taken back
 *   hrec     rec with a hist request (spec 17) counting the event: key
 *            log2 of the first payload word, its sum as value
 *   hagg     the same request with the event not recorded: the payload
 *            goes to the CPU's scratch buffer and is only counted
 *
 * The code is guest-module/gr_relay.[ch], gr_record.[ch] and
 * gr_ctf_packet.c built in userspace (tests/shim), the same inline fast
 * path the module compiles (write and reserve: gr_relay_client.h), over
 * a buffer-only channel of CTF packets in flight mode so it never fills:
 * sub-buffer switches happen at their real rate and are part of the
 * count. The driver runs N and 2N events and takes the difference, so
 * start-up is not counted. Instruction counts do not depend on the machine's load.
 */
#include "gr_ctf_packet.h"
#include "gr_env.h"
#include "gr_filter.h"
#include "gr_hist.h"
#include "gr_layout.h"
#include "gr_record.h"
#include "gr_relay_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EV_ID		1
#define MAX_PAYLOAD	248

static u64 fill_word;

/* The payload: @len bytes, 8 at a time, as a probe stores its fields */
static __always_inline void fill(void *p, size_t len)
{
	u64 *w = p;
	size_t i;

	for (i = 0; i < len / 8; i++)
		w[i] = fill_word + i;
}

static __always_inline void floor_one(u8 *mem, size_t size, size_t *off,
				      size_t len)
{
	struct gr_event_header *eh;
	size_t rec = ALIGN(sizeof(*eh) + len, (size_t)GR_RECORD_ALIGN);

	if (*off + rec > size)
		*off = 0;
	eh = (struct gr_event_header *)(mem + *off);
	*off += rec;
	eh->id = cpu_to_le16(EV_ID);
	eh->size = cpu_to_le16((u16)rec);
	eh->tid = cpu_to_le32(gr_current_tid());
	eh->timestamp = cpu_to_le64(gr_clock());
	fill(eh + 1, len);
}

/* One path, @n events of @len bytes; @len is a constant where inlined */
static __always_inline u64 run(struct gr_chan *chan, const char *path,
			       long n, size_t len)
{
	u8 stage[MAX_PAYLOAD] __aligned(8);
	size_t off = 0;
	struct gr_rec rec;
	u64 sink = 0;
	long i;
	void *p;

	memset(stage, 0x5a, sizeof(stage));
	if (!strcmp(path, "floor")) {
		/* the same memory the rings use, the same cache footprint */
		for (i = 0; i < n; i++, fill_word++)
			floor_one(chan->bufs[0].data,
				  (size_t)chan->layout.n_subbufs *
				  chan->layout.subbuf_size, &off, len);
	} else if (!strcmp(path, "rec") || !strcmp(path, "keep") ||
		   !strcmp(path, "drop") || !strcmp(path, "fkeep") ||
		   !strcmp(path, "fdrop") || !strcmp(path, "hrec") ||
		   !strcmp(path, "hagg")) {
		for (i = 0; i < n; i++, fill_word++) {
			p = gr_rec_begin(&rec, EV_ID, len);
			if (!p)
				continue;
			fill(p, len);
			gr_rec_commit(&rec);
		}
	} else if (!strcmp(path, "write")) {
		for (i = 0; i < n; i++, fill_word++) {
			fill(stage, len);
			sink += gr_chan_write(chan, stage, len) == 0;
		}
	} else if (!strcmp(path, "reserve")) {
		for (i = 0; i < n; i++, fill_word++) {
			p = gr_chan_reserve(chan, len);
			if (p)
				fill(p, len);
		}
	} else if (!strcmp(path, "clock")) {
		for (i = 0; i < n; i++)
			sink += gr_clock();
	} else {
		fprintf(stderr, "relay_ir: unknown path '%s'\n", path);
		exit(2);
	}
	return sink;
}

/*
 * Install a filter program on EV_ID, read and verified by the guest's own
 * code from a filter area as a host writes it: A := payload[0..7];
 * A >= k ? drop : keep. k = 0 drops every record, k = ~0 keeps them (the
 * payload's first word never reaches it).
 */
static int install_filter(size_t len, bool keep)
{
	static u8 area[GR_FILTER_OFFSET + GR_FILTER_SLOTS *
		       sizeof(struct gr_filter_slot)] __aligned(64);
	static struct gr_filter_bounds bounds[GR_WIDE_MAX_EVENTS];
	static struct gr_filter_set set;
	struct gr_filter_slot *slot = (void *)(area + GR_FILTER_OFFSET);
	struct gr_filter_err err;

	slot->event_id = cpu_to_le16(EV_ID);
	slot->nr_insns = cpu_to_le16(4);
	slot->insns[0].code = GR_FI_LD;
	slot->insns[0].width = 8;
	slot->insns[1].code = GR_FI_JGE;
	slot->insns[1].k = cpu_to_le64(keep ? ~0ULL : 0);
	slot->insns[1].jf = 1;
	slot->insns[2].code = GR_FI_RET;	/* true: drop */
	slot->insns[3].code = GR_FI_RET;	/* false: keep */
	slot->insns[3].k = cpu_to_le64(1);
	bounds[EV_ID].fixed = (u16)len;
	bounds[EV_ID].max = (u16)len;
	if (gr_filter_read_area(area, EV_ID + 1, bounds, &set, &err)) {
		fprintf(stderr, "relay_ir: filter refused (reason %u, insn %u)\n",
			err.reason, err.insn);
		return -1;
	}
	gr_rec_set_filters(&set);
	return 0;
}

/*
 * Install a follow set (spec 15) that holds this thread (@keep) or only
 * another one; EV_ID names no second task.
 */
static int install_follow(bool keep)
{
	static struct gr_follow f;
	unsigned int i;

	f.nr_bits = GR_FOLLOW_PID_LIMIT;
	f.bits = kvzalloc(GR_FOLLOW_PID_LIMIT / 8, GFP_KERNEL);
	if (!f.bits)
		return -1;
	for (i = 0; i < GR_WIDE_MAX_EVENTS; i++)
		f.other_off[i] = GR_FOLLOW_NO_OFF;
	f.spec.flags = GR_FOLLOW_F_ON | GR_FOLLOW_F_FORK;
	gr_follow_add(&f, keep ? gr_current_tid() : gr_current_tid() ^ 1);
	gr_rec_set_follow(&f);
	return 0;
}

/*
 * Install a hist request (spec 17) on EV_ID, verified and installed by
 * the guest's own code from a hist area as a host writes it: key
 * log2(payload[0..7]), value payload[0..7]; @record: the event is also
 * recorded (else only counted, through the scratch buffer)
 */
static int install_hist(size_t len, bool record)
{
	static struct gr_filter_bounds bounds[EV_ID + 1];
	static struct gr_hist_ctx ctx;
	struct gr_hist_req *req;
	u64 size = 1 << 20;
	u8 *area = kvzalloc(size, GFP_KERNEL);

	if (!area || gr_rec_scratch_init(MAX_PAYLOAD))
		return -1;
	bounds[EV_ID].fixed = (u16)len;
	bounds[EV_ID].max = (u16)len;
	gr_hist_ctx_init(&ctx, area, size, 1, EV_ID + 1, bounds,
			 1000000000ULL, NULL);
	req = (struct gr_hist_req *)(area + GR_HIST_REQ_OFFSET);
	req->gen = cpu_to_le64(1);
	req->event_id = cpu_to_le16(EV_ID);
	req->kind = GR_HIST_PLAIN;
	req->nr_keys = 1;
	req->key[0].src = GR_HS_FIELD;
	req->key[0].width = 8;
	req->key[0].xform = GR_HT_LOG2;
	req->nr_vals = 1;
	req->val[0].src = GR_HS_FIELD;
	req->val[0].width = 8;
	req->entries_log2 = 10;
	if (!gr_hist_apply(&ctx, true) || !gr_hist_running(&ctx)) {
		fprintf(stderr, "relay_ir: hist request refused (reason %u)\n",
			((struct gr_hist_state *)(area +
						  GR_HIST_STATE_OFFSET))->reason);
		return -1;
	}
	if (!record)
		gr_rec_set_events(NULL);
	return 0;
}

static struct gr_client client;

/*
 * A buffer-only channel of CTF packets (out of line: main()'s loops stay
 * as they were compiled before the client API had a file of its own)
 */
static __attribute__((noinline)) int open_chan(struct gr_chan **chanp,
					       const struct gr_layout *lay)
{
	static const struct gr_callbacks cb = {
		.subbuf_start = gr_ctf_subbuf_start,
	};
	int ret = gr_client_open(&client, NULL, lay, &cb, NULL, NULL);

	*chanp = client.chan;
	return ret;
}

int main(int argc, char **argv)
{
	struct gr_geometry geo = { .region_size = 8 << 20, .nr_cpus = 1,
				   .desc_count = 16, .subbuf_size = 65536,
				   .n_subbufs = 16 };
	u64 enable[GR_WIDE_MAX_EVENTS / 64] = { 1ULL << EV_ID };
	struct gr_layout lay;
	struct gr_chan *chan;
	u64 sink;
	size_t len;
	long n;

	if (argc != 4) {
		fprintf(stderr, "usage: relay_ir floor|rec|keep|drop|fkeep|fdrop|hrec|hagg|write|reserve|clock 8|56|248 N\n");
		return 2;
	}
	len = strtoul(argv[2], NULL, 0);
	n = atol(argv[3]);
	if (n <= 0) {
		fprintf(stderr, "relay_ir: N must be positive\n");
		return 2;
	}
	if (gr_layout_compute(&geo, &lay) || open_chan(&chan, &lay) ||
	    gr_chan_set_mode(chan, GR_MODE_FLIGHT)) {
		fprintf(stderr, "relay_ir: cannot open a channel\n");
		return 1;
	}
	gr_rec_set_events(enable);
	gr_rec_activate(chan);
	if ((!strcmp(argv[1], "keep") || !strcmp(argv[1], "drop")) &&
	    install_filter(len, !strcmp(argv[1], "keep")))
		return 1;
	if ((!strcmp(argv[1], "fkeep") || !strcmp(argv[1], "fdrop")) &&
	    install_follow(!strcmp(argv[1], "fkeep")))
		return 1;
	if ((!strcmp(argv[1], "hrec") || !strcmp(argv[1], "hagg")) &&
	    install_hist(len, !strcmp(argv[1], "hrec")))
		return 1;
	switch (len) {
	case 8:
		sink = run(chan, argv[1], n, 8);
		break;
	case 56:
		sink = run(chan, argv[1], n, 56);
		break;
	case 248:
		sink = run(chan, argv[1], n, 248);
		break;
	default:
		fprintf(stderr, "relay_ir: PAYLOAD is 8, 56 or 248\n");
		return 2;
	}
	printf("path=%s payload=%zu n=%ld events=%llu sink=%llu\n", argv[1],
	       len, n, (unsigned long long)chan->bufs[0].events,
	       (unsigned long long)(sink & 1));
	gr_client_close(&client);
	return 0;
}
