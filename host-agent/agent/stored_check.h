/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stored_check.h - the third verify mode: write from the shared pages,
 * then check what was stored
 */
#ifndef GR_STORED_CHECK_H
#define GR_STORED_CHECK_H

#include <stdint.h>
#include <sys/types.h>

#include "guestrelay_abi.h"
#include "validate.h"
#include "validate_packet.h"

/* gr_stored_check() found the stored records good */
#define GR_STORED_OK		0
/* they failed; @copy holds a checked copy to write over them */
#define GR_STORED_REWRITE	1

int gr_stored_check_file(int fd, off_t off, uint64_t len,
			 const struct gr_view *v,
			 const struct gr_event_view *events,
			 unsigned int nr_events, const char **why);
int gr_stored_check(int fd, off_t off, uint64_t len, const struct gr_view *v,
		    const struct gr_event_view *events, unsigned int nr_events,
		    struct gr_packet_header *hdr, const uint8_t *shared,
		    const struct gr_subbuf_rec *rec, uint64_t seq,
		    uint8_t *copy, const char **why);

#endif /* GR_STORED_CHECK_H */
