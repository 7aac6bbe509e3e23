/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gr_ctf_packet.h - sub-buffers as CTF 1.8 packets (spec 3.9, 6.3, 6.5)
 *
 * subbuf_start callbacks for the relay core (gr_relay.h): each sub-buffer
 * starts with a struct gr_packet_header, written when the sub-buffer
 * starts BEING_WRITTEN and finalized when it is finished, so relay
 * padding is CTF's content_size < packet_size and a PRODUCED sub-buffer
 * goes to disk unchanged.
 */
#ifndef _GR_CTF_PACKET_H
#define _GR_CTF_PACKET_H

#include "gr_relay.h"

int gr_ctf_subbuf_start(struct gr_buf *buf, void *subbuf,
			void *prev_subbuf, size_t prev_padding);
int gr_ctf_subbuf_start_stream(struct gr_buf *buf, void *subbuf,
			       void *prev_subbuf, size_t prev_padding);
int gr_ctf_subbuf_start_flight(struct gr_buf *buf, void *subbuf,
			       void *prev_subbuf, size_t prev_padding);

#endif /* _GR_CTF_PACKET_H */
