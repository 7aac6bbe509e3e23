// SPDX-License-Identifier: GPL-2.0
/*
 * gr_ctf_packet.c - sub-buffers as CTF 1.8 packets
 *
 * The subbuf_start callbacks of the module's channel. The relay core's
 * switch (gr_buf_switch() in gr_relay.c) calls one with the sub-buffer
 * just finished and the one offered; it finalizes the first packet's
 * header (timestamp_end, content_size, events_discarded), decides, and
 * starts the second's (spec 6.3). The switch's timestamp is the ring's
 * buf->last_ts, which the switch set (spec 6.9): the old packet's
 * timestamp_end is the new one's timestamp_begin.
 */

#include "gr_ctf_packet.h"

/*
 * CTF's events_discarded (spec G16): cumulative, never reset, per ring,
 * across resets and publications (a reader takes differences between
 * consecutive packets of a stream; a decrease would confuse it). Uses the
 * raw counters, not the *_base-relative values that prod.lost_* show
 * after a reset.
 */
static u64 gr_ctf_discarded(struct gr_buf *buf)
{
	return buf->lost_full + buf->lost_too_big +
	       (u64)atomic64_read(&buf->lost_nested);
}

static void gr_ctf_packet_begin(struct gr_buf *buf, void *subbuf)
{
	const struct gr_chan *chan = buf->chan;
	struct gr_packet_header *ph = subbuf;
	u64 now = buf->last_ts;

	gr_subbuf_start_reserve(buf, sizeof(*ph));
	ph->magic = cpu_to_le32(GR_CTF_MAGIC);
	ph->stream_id = cpu_to_le32(0);
	ph->stream_instance_id = cpu_to_le64(buf->index);
	ph->timestamp_begin = cpu_to_le64(now);
	ph->timestamp_end = cpu_to_le64(now);
	ph->content_size = cpu_to_le64(sizeof(*ph) * 8);
	ph->packet_size = cpu_to_le64((u64)chan->layout.subbuf_size * 8);
	ph->packet_seq_num = cpu_to_le64(buf->produced);
	ph->events_discarded = cpu_to_le64(gr_ctf_discarded(buf));
	ph->cpu_id = cpu_to_le32(chan->global ? 0 : buf->index);
	ph->reserved = cpu_to_le32(0);
}

static void gr_ctf_packet_finish(struct gr_buf *buf, void *subbuf,
				 size_t padding)
{
	struct gr_packet_header *ph = subbuf;
	u64 content = buf->chan->layout.subbuf_size - padding;

	ph->timestamp_end = cpu_to_le64(buf->last_ts);
	ph->content_size = cpu_to_le64(content * 8);
	ph->events_discarded = cpu_to_le64(gr_ctf_discarded(buf));
}

/**
 * gr_ctf_subbuf_start_stream() - subbuf_start of a no-overwrite channel
 * @buf: the ring
 * @subbuf: the sub-buffer to start
 * @prev_subbuf: the sub-buffer just finished, NULL if none (at open, at
 *	reset, and when retrying a switch refused earlier)
 * @prev_padding: unused bytes at the end of @prev_subbuf
 *
 * Finalizes the CTF packet of @prev_subbuf (timestamp_end, content_size =
 * (subbuf_size - @prev_padding) * 8, events_discarded), which the core
 * then commits, and refuses the switch if every sub-buffer is PRODUCED;
 * else starts the packet of @subbuf (magic, stream_id 0,
 * stream_instance_id, cpu_id, packet_size, packet_seq_num,
 * timestamp_begin).
 *
 * Context: called by the core from the ring's writer context.
 * Return: 1 to switch, 0 to refuse.
 */
int gr_ctf_subbuf_start_stream(struct gr_buf *buf, void *subbuf,
			       void *prev_subbuf, size_t prev_padding)
{
	if (prev_subbuf)
		gr_ctf_packet_finish(buf, prev_subbuf, prev_padding);
	/* spec G10: never a PRODUCED, unconsumed slot in stream mode */
	if (gr_buf_full(buf))
		return 0;
	gr_ctf_packet_begin(buf, subbuf);
	return 1;
}

/**
 * gr_ctf_subbuf_start_flight() - subbuf_start of an overwrite channel
 * @buf: the ring
 * @subbuf: the sub-buffer to start
 * @prev_subbuf: the sub-buffer just finished, or NULL
 * @prev_padding: unused bytes at the end of @prev_subbuf
 *
 * As gr_ctf_subbuf_start_stream() but never refuses; the core counts
 * prod.overwritten when @subbuf was still PRODUCED.
 *
 * Context: called by the core from the ring's writer context.
 * Return: 1.
 */
int gr_ctf_subbuf_start_flight(struct gr_buf *buf, void *subbuf,
			       void *prev_subbuf, size_t prev_padding)
{
	if (prev_subbuf)
		gr_ctf_packet_finish(buf, prev_subbuf, prev_padding);
	gr_ctf_packet_begin(buf, subbuf);
	return 1;
}

/**
 * gr_ctf_subbuf_start() - subbuf_start following the channel's mode
 * @buf: the ring
 * @subbuf: the sub-buffer to start
 * @prev_subbuf: the sub-buffer just finished, or NULL
 * @prev_padding: unused bytes at the end of @prev_subbuf
 *
 * Reads the channel's mode (gr_chan_set_mode()) at every switch.
 *
 * Context: called by the core from the ring's writer context.
 * Return: 1 to switch, 0 to refuse.
 */
int gr_ctf_subbuf_start(struct gr_buf *buf, void *subbuf,
			void *prev_subbuf, size_t prev_padding)
{
	if (READ_ONCE(buf->chan->mode) == GR_MODE_FLIGHT)
		return gr_ctf_subbuf_start_flight(buf, subbuf, prev_subbuf,
						  prev_padding);
	return gr_ctf_subbuf_start_stream(buf, subbuf, prev_subbuf,
					  prev_padding);
}
