/* SPDX-License-Identifier: GPL-2.0 */
/*
 * out.h - what the control plane prints: the one escaper of untrusted
 * strings (for a terminal and for JSON), a small JSON writer, byte counts
 * for people, and the rendering of `status` (status.c).
 */
#ifndef GR_OUT_H
#define GR_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "agent.h"

/**
 * ctl_put_text() - print an untrusted string for a terminal
 * @f: where to
 * @s: the string (may come from a guest); NULL prints nothing
 *
 * Printable ASCII and valid UTF-8 (except C1 controls) are printed as is;
 * every other byte, and '\\', is printed as \xNN, so no string can move
 * the cursor or spoof a line.
 *
 * Context: any.
 */
void ctl_put_text(FILE *f, const char *s);

/**
 * ctl_one_line() - @src escaped by ctl_put_text() into @dst
 * @dst: receives the line, NUL-terminated, cut to fit
 * @len: size of @dst
 * @src: the message
 *
 * Context: any.
 */
void ctl_one_line(char *dst, size_t len, const char *src);

/**
 * ctl_human_bytes() - "2.6 MiB" for people
 * @buf: receives the text
 * @len: size of @buf
 * @v: bytes
 * @suffix: appended, e.g. "/s"
 *
 * Context: any.
 */
void ctl_human_bytes(char *buf, size_t len, double v, const char *suffix);

/**
 * ctl_human_seconds() - "4.1us", "1.0ms", "16s" for people
 * @buf: receives the text
 * @len: size of @buf
 * @s: seconds, >= 0 (a negative value gives "-")
 *
 * In ns, us, ms or s, the largest unit that leaves at least 1; one
 * decimal below 10, none above.
 *
 * Context: any.
 */
void ctl_human_seconds(char *buf, size_t len, double s);

#define CTL_JSON_DEPTH	16

/**
 * struct ctl_json - a small JSON writer
 * @f: where to
 * @depth: open objects and arrays
 * @count: members written in each open object or array
 * @is_obj: each open level is an object (else an array)
 * @top: the top-level value was started
 * @bad: misuse (a key in an array, none in an object, unbalanced or too
 *	deep nesting, two top-level values) was seen
 *
 * Strings are escaped completely: '"', '\\' and every control character
 * (U+0000..U+001F and U+007F); bytes that are not valid UTF-8 become
 * U+FFFD, so the output is always valid JSON in UTF-8. Numbers are written
 * in decimal; a non-finite double is written as null.
 */
struct ctl_json {
	FILE *f;
	unsigned int depth;
	unsigned int count[CTL_JSON_DEPTH];
	bool is_obj[CTL_JSON_DEPTH];
	bool top;
	bool bad;
};

void ctl_json_init(struct ctl_json *j, FILE *f);
void ctl_json_begin_object(struct ctl_json *j, const char *key);
void ctl_json_end_object(struct ctl_json *j);
void ctl_json_begin_array(struct ctl_json *j, const char *key);
void ctl_json_end_array(struct ctl_json *j);
void ctl_json_string(struct ctl_json *j, const char *key, const char *val);
void ctl_json_u64(struct ctl_json *j, const char *key, uint64_t val);
void ctl_json_i64(struct ctl_json *j, const char *key, int64_t val);
void ctl_json_double(struct ctl_json *j, const char *key, double val);
void ctl_json_bool(struct ctl_json *j, const char *key, bool val);
void ctl_json_null(struct ctl_json *j, const char *key);
int ctl_json_finish(struct ctl_json *j);

/* a comma or space separated list as a JSON array of strings */
void ctl_json_list(struct ctl_json *j, const char *key, const char *list);

/* ---- status.c ---------------------------------------------------------- */

/* one VM's status for people: its name, then one "  key  value" per line */
void ctl_status_text(FILE *f, const struct gr_vm_info *in);

/* one VM's status as a JSON object (an array member) */
void ctl_status_json(struct ctl_json *j, const struct gr_vm_info *in);

/* the same object as the member @key of an object (fleet status) */
void ctl_status_json_member(struct ctl_json *j, const char *key,
			    const struct gr_vm_info *in);

#endif /* GR_OUT_H */
