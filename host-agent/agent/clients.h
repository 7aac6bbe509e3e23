/* SPDX-License-Identifier: GPL-2.0 */
/*
 * clients.h - clients.c: the guest's client channels (spec section 16,
 * GR_F_CLIENT), discovered in the client area, checked (D1, D2) and
 * stored under the session as channels/<name>/<name>_<ring> (klog:
 * channels/klog/klog_0.txt, one text line per record); its state, struct
 * gr_clients, lives in the VM and only clients.c writes it
 */
#ifndef GR_CLIENTS_H
#define GR_CLIENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "agent.h"
#include "guestrelay_abi.h"

struct gr_vm;

/**
 * struct gr_cring - the host's state of one ring of a client channel
 * @fd: its file under the session, -1 if none
 * @next: next sub-buffer number to store; the value last stored to
 *	cons.consumed
 * @off: bytes in @fd
 * @lost: the guest's lost counters last seen (D4): full, too_big,
 *	nested, overwritten
 */
struct gr_cring {
	int fd;
	uint64_t next;
	uint64_t off;
	uint64_t lost[4];
};

/**
 * struct gr_cchan - one directory entry the host uses, or used
 * @state: GR_CCHAN_*
 * @gen: the even gen of the checked copy
 * @name: the checked name
 * @flags: GR_CLIENT_*
 * @nr_rings: rings
 * @subbuf_size: bytes per sub-buffer
 * @n_subbufs: sub-buffers per ring
 * @ring_offset: region offset of the rings
 * @rec_offset: region offset of the commit records
 * @data_offset: region offset of the sub-buffers
 * @end: region offset just past the channel's bytes
 * @rings: @nr_rings states
 * @n: its counts
 */
struct gr_cchan {
	int state;
#define GR_CCHAN_NONE		0	/* never used */
#define GR_CCHAN_OPEN		1	/* published, stored */
#define GR_CCHAN_CLOSED		2	/* withdrawn, kept for status */
	uint64_t gen;
	char name[GR_NAME_LEN];
	uint32_t flags, nr_rings, subbuf_size, n_subbufs;
	uint64_t ring_offset, rec_offset, data_offset, end;
	struct gr_cring *rings;
	struct gr_client_counts n;
};

/**
 * struct gr_clients - the client area of a VM's publication
 * @usable: GR_F_CLIENT in guest_features and D1 passed
 * @area_off: client_offset, checked
 * @area_size: client_size, checked
 * @ch: one per directory entry
 * @gone: the counts of withdrawn channels whose entry was reused, one per
 *	name (no rings), so that the session's status keeps them
 * @untracked: withdrawn channels whose counts found no room in @gone
 * @rejected_gen: per entry, the gen last rejected (counted once)
 * @bad_area: client areas refused (D1)
 * @bad_entries: entries refused (D2)
 * @why: the last refusal
 */
struct gr_clients {
	bool usable;
	uint64_t area_off, area_size;
	struct gr_cchan ch[GR_CLIENT_MAX];
	struct gr_cchan gone[GR_CLIENT_GONE];
	uint64_t untracked;
	uint64_t rejected_gen[GR_CLIENT_MAX];
	uint64_t bad_area, bad_entries;
	char why[160];
};

void clients_open(struct gr_vm *vm);
void clients_drain(struct gr_vm *vm, bool final);
void clients_switch_files(struct gr_vm *vm);
void clients_close(struct gr_vm *vm);
int clients_check_entry(const struct gr_client_chan *e, uint32_t nr_cpus,
			uint64_t area_off, uint64_t area_size,
			struct gr_cchan *out, const char **why);

#endif /* GR_CLIENTS_H */
