/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtp_trace.h - the test tracepoint of grtp.ko: one event with the
 * dynamic arrays of integers of the kernel's event machinery (u32, u8 and
 * a bitmask), so that guestrelay's records of them can be compared with
 * ftrace's (three: each may take 256 bytes of a record, and guestrelay
 * shares 1,024 bytes among an event's variable fields), and one with
 * fixed arrays of integers (u8, s16, u32), a char array and a struct by
 * value (spec 1.14, GR_F_ARRAYS)
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM grtp

#if !defined(_GRTP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _GRTP_TRACE_H

#include <linux/cpumask.h>
#include <linux/tracepoint.h>
#include <linux/uuid.h>

TRACE_EVENT(grtp_dynarr,
	    TP_PROTO(unsigned int seq, const u32 *vals, unsigned int n,
		     const u8 *bytes, unsigned int m,
		     const struct cpumask *cpus),
	    TP_ARGS(seq, vals, n, bytes, m, cpus),
	    TP_STRUCT__entry(__field(unsigned int, seq)
			     __dynamic_array(u32, vals, n)
			     __dynamic_array(u8, bytes, m)
			     __bitmask(cpus, nr_cpumask_bits)),
	    TP_fast_assign(__entry->seq = seq;
			   memcpy(__get_dynamic_array(vals), vals,
				  n * sizeof(*vals));
			   memcpy(__get_dynamic_array(bytes), bytes, m);
			   __assign_bitmask(cpus, cpumask_bits(cpus),
					    nr_cpumask_bits);),
	    TP_printk("seq=%u vals=%s bytes=%s cpus=%s",
		      __entry->seq,
		      __print_array(__get_dynamic_array(vals),
				    __get_dynamic_array_len(vals) / sizeof(u32),
				    sizeof(u32)),
		      __print_hex(__get_dynamic_array(bytes),
				  __get_dynamic_array_len(bytes)),
		      __get_bitmask(cpus))
);

TRACE_EVENT(grtp_array,
	    TP_PROTO(unsigned int seq, const u8 *addr, const s16 *deltas,
		     const u32 *words, const guid_t *id, const char *tag),
	    TP_ARGS(seq, addr, deltas, words, id, tag),
	    TP_STRUCT__entry(__field(unsigned int, seq)
			     __array(u8, addr, 6)
			     __array(s16, deltas, 3)
			     __array(u32, words, 4)
			     __field_struct(guid_t, id)
			     __array(char, tag, 8)),
	    TP_fast_assign(__entry->seq = seq;
			   memcpy(__entry->addr, addr, 6);
			   memcpy(__entry->deltas, deltas,
				  sizeof(__entry->deltas));
			   memcpy(__entry->words, words,
				  sizeof(__entry->words));
			   guid_copy(&__entry->id, id);
			   strscpy(__entry->tag, tag, sizeof(__entry->tag));),
	    TP_printk("seq=%u addr=%pM deltas=%s words=%s id=%pUb tag=%s",
		      __entry->seq, __entry->addr,
		      __print_array(__entry->deltas, 3, sizeof(s16)),
		      __print_array(__entry->words, 4, sizeof(u32)),
		      &__entry->id, __entry->tag)
);
#endif /* _GRTP_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE grtp_trace
#include <trace/define_trace.h>
