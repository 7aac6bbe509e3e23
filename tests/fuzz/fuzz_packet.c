// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_packet.c - one finished sub-buffer as the consumer examines it:
 * gr_check_packet() on its commit record and packet header (against the
 * stream's previous packet), then, in verify mode, gr_check_records() on
 * the whole copy.
 *
 * Input: a region header (512 bytes) and its descriptors (576 bytes
 * each), which must pass validation, then u64 last timestamp_end, u64
 * last events_discarded, the 16-byte commit record, then the sub-buffer
 * (zero-filled up to subbuf_size). Ring 0, expected sequence = rec.seq.
 */
#include "fuzz.h"
#include "validate.h"

#define REGION	(1ULL << 24)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gr_event_view ev[GR_WIDE_MAX_EVENTS];
	static uint8_t sub[GR_MAX_SUBBUF_SIZE];
	struct gr_stream_mark last;
	struct gr_region_hdr hdr;
	struct gr_subbuf_rec rec;
	struct gr_event_desc d;
	struct gr_view v;
	const char *why = NULL;
	uint64_t content = 0;
	unsigned int i;
	int ret;

	if (fuzz_take(&data, &size, &hdr, sizeof(hdr)) ||
	    gr_check_region_hdr(&hdr, REGION, &v, &why))
		return 0;
	for (i = 0; i < v.desc_count; i++)
		if (fuzz_take(&data, &size, &d, sizeof(d)) ||
		    gr_check_event_desc(&v, &d, i, &ev[i], &why))
			return 0;
	if (gr_check_families(&v, ev, v.desc_count, &why))
		return 0;
	if (fuzz_take(&data, &size, &last, sizeof(last)) ||
	    fuzz_take(&data, &size, &rec, sizeof(rec)))
		return 0;
	if (size > v.subbuf_size)
		size = v.subbuf_size;
	memset(sub, 0, v.subbuf_size);
	memcpy(sub, data, size);
	if (v.subbuf_size < sizeof(struct gr_packet_header))
		FUZZ_BUG("a sub-buffer smaller than its header was accepted");
	ret = gr_check_packet(&v, 0, le64toh(rec.seq), &rec,
			      (const struct gr_packet_header *)sub, &last,
			      &content, &why);
	if (ret)
		return 0;
	if (content < v.packet_header_size || content > v.subbuf_size)
		FUZZ_BUG("accepted content_size %llu outside the sub-buffer",
			 (unsigned long long)content);
	why = NULL;
	ret = gr_check_records(&v, ev, v.desc_count, sub, content, &why);
	if (ret && !why)
		FUZZ_BUG("a rejected record without a reason");
	return 0;
}
