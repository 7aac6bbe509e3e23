/* SPDX-License-Identifier: GPL-2.0 */
/*
 * validate_packet.h - the checks of what a running guest produces: ring
 * counters, commit records, packet headers and records (validate_packet.c)
 */
#ifndef GR_VALIDATE_PACKET_H
#define GR_VALIDATE_PACKET_H

#include <stdbool.h>
#include <stdint.h>

#include "guestrelay_abi.h"
#include "validate.h"

int gr_check_counters(const struct gr_view *v, uint64_t produced,
		      uint64_t consumed, int flight_mode, uint64_t *first,
		      uint64_t *ready, const char **why);
int gr_check_packet(const struct gr_view *v, unsigned int ring,
		    uint64_t expected_seq, const struct gr_subbuf_rec *rec_copy,
		    const struct gr_packet_header *hdr_copy,
		    const struct gr_stream_mark *last, uint64_t *content_bytes,
		    const char **why);
void gr_stream_mark_set(struct gr_stream_mark *m,
			const struct gr_packet_header *hdr_copy);
int gr_check_records(const struct gr_view *v,
		     const struct gr_event_view *events, unsigned int nr_events,
		     const void *packet, uint64_t content_bytes,
		     const char **why);
int gr_check_records_end(const struct gr_view *v,
			 const struct gr_event_view *events,
			 unsigned int nr_events, const void *packet,
			 uint64_t content_bytes, uint64_t *end,
			 const char **why);
uint32_t gr_event_declared_end(const struct gr_event_view *ev);
int gr_record_var_walk(const struct gr_event_view *ev,
		       const uint8_t *payload, uint32_t plen, uint32_t *start,
		       uint32_t *end, const char **why);
uint64_t gr_stored_packet_len(const struct gr_packet_header *h,
			      uint64_t ring, uint64_t subbuf_size);
uint64_t gr_packet_content_end(const struct gr_view *v,
			       const struct gr_event_view *events,
			       unsigned int nr_events, const void *packet,
			       uint64_t content_bytes);
int gr_packet_content_end_at(const struct gr_view *v,
			     const struct gr_event_view *events,
			     unsigned int nr_events, const void *packet,
			     uint64_t content_bytes, uint64_t last,
			     uint64_t *end);
uint64_t gr_packet_end(const struct gr_view *v,
		       const struct gr_event_view *events,
		       unsigned int nr_events, const void *packet,
		       uint64_t content_bytes, uint64_t last, bool *refused);
int gr_check_event_header(const struct gr_view *v,
			  const struct gr_event_header *copy,
			  const struct gr_event_view *events,
			  unsigned int nr_events, uint64_t remaining,
			  struct gr_record_view *out, const char **why);

#endif /* GR_VALIDATE_PACKET_H */
