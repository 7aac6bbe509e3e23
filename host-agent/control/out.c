// SPDX-License-Identifier: GPL-2.0
/*
 * out.c - how the control plane prints (out.h): the one escaper of
 * untrusted strings, for a terminal and for JSON; the JSON writer; byte
 * counts for people. Guest strings (kernel release, nodename, event
 * names) reach people only through put_escaped().
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "out.h"

/*
 * Length of the valid UTF-8 sequence at @s (1..4) with its code point in
 * *@cp, or 0 if the bytes there are not one (overlong forms, surrogates
 * and code points above U+10FFFF are not valid).
 */
static size_t utf8_seq(const unsigned char *s, uint32_t *cp)
{
	uint32_t c;
	size_t n, i;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		c = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (n == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff)))
		return 0;
	if (n == 4 && (c < 0x10000 || c > 0x10ffff))
		return 0;
	*cp = c;
	return n;
}

enum esc {
	ESC_TEXT,		/* for a terminal: \xNN */
	ESC_JSON,		/* inside a JSON string: \uNNNN, \n ... */
};

static void json_escape_byte(FILE *f, unsigned char c)
{
	switch (c) {
	case '"':
		fputs("\\\"", f);
		break;
	case '\\':
		fputs("\\\\", f);
		break;
	case '\b':
		fputs("\\b", f);
		break;
	case '\f':
		fputs("\\f", f);
		break;
	case '\n':
		fputs("\\n", f);
		break;
	case '\r':
		fputs("\\r", f);
		break;
	case '\t':
		fputs("\\t", f);
		break;
	default:
		if (c >= 0x80)
			fputs("\\ufffd", f);	/* not UTF-8 */
		else
			fprintf(f, "\\u%04x", c);
	}
}

/*
 * The one escaper of untrusted strings. Printable ASCII but the quoting
 * characters, and valid UTF-8, go out as they are (for a terminal not the
 * C1 controls U+0080..U+009F); every other byte in the form of @esc.
 */
static void put_escaped(FILE *f, const char *str, enum esc esc)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	uint32_t cp;
	size_t n;

	while (*s) {
		if (*s >= 0x20 && *s < 0x7f && *s != '\\' &&
		    (esc == ESC_TEXT || *s != '"')) {
			fputc(*s++, f);
			continue;
		}
		n = *s >= 0x80 ? utf8_seq(s, &cp) : 0;
		if (n && (esc == ESC_JSON || cp >= 0xa0)) {
			fwrite(s, 1, n, f);
			s += n;
			continue;
		}
		if (esc == ESC_TEXT)
			fprintf(f, "\\x%02x", *s);
		else
			json_escape_byte(f, *s);
		s++;
	}
}

void ctl_put_text(FILE *f, const char *s)
{
	put_escaped(f, s, ESC_TEXT);
}

void ctl_one_line(char *dst, size_t len, const char *src)
{
	FILE *f = fmemopen(dst, len, "w");

	if (!f) {
		snprintf(dst, len, "(message lost)");
		return;
	}
	setvbuf(f, NULL, _IONBF, 0);
	ctl_put_text(f, src);
	fputc('\0', f);
	fclose(f);
	dst[len - 1] = '\0';
}

void ctl_human_bytes(char *buf, size_t len, double v, const char *suffix)
{
	static const char *const unit[] = {
		"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"
	};
	unsigned int i = 0;

	while (v >= 1024 && i < 6) {
		v /= 1024;
		i++;
	}
	if (i)
		snprintf(buf, len, "%.1f %s%s", v, unit[i], suffix);
	else
		snprintf(buf, len, "%.0f %s%s", v, unit[0], suffix);
}

void ctl_human_seconds(char *buf, size_t len, double s)
{
	static const char *const unit[] = { "s", "ms", "us", "ns" };
	unsigned int i = 0;

	if (!(s >= 0)) {
		snprintf(buf, len, "-");
		return;
	}
	while (s < 1 && s > 0 && i < 3) {
		s *= 1000;
		i++;
	}
	snprintf(buf, len, s < 10 ? "%.1f%s" : "%.0f%s", s, unit[i]);
}

/* ---- JSON ------------------------------------------------------------ */

static void json_string_raw(FILE *f, const char *s)
{
	fputc('"', f);
	put_escaped(f, s, ESC_JSON);
	fputc('"', f);
}

static void json_indent(struct ctl_json *j)
{
	unsigned int i;

	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* separator and key of the next value */
static void json_member(struct ctl_json *j, const char *key)
{
	if (!j->depth) {
		if (j->top || key)
			j->bad = true;
		j->top = true;
		return;
	}
	if (j->is_obj[j->depth - 1] != (key != NULL))
		j->bad = true;
	if (j->count[j->depth - 1]++)
		fputc(',', j->f);
	json_indent(j);
	if (key) {
		json_string_raw(j->f, key);
		fputs(": ", j->f);
	}
}

void ctl_json_init(struct ctl_json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

static void json_open(struct ctl_json *j, const char *key, bool obj)
{
	json_member(j, key);
	fputc(obj ? '{' : '[', j->f);
	if (j->depth == CTL_JSON_DEPTH) {
		j->bad = true;
		return;
	}
	j->count[j->depth] = 0;
	j->is_obj[j->depth] = obj;
	j->depth++;
}

static void json_close(struct ctl_json *j, bool obj)
{
	if (!j->depth || j->is_obj[j->depth - 1] != obj) {
		j->bad = true;
		return;
	}
	j->depth--;
	if (j->count[j->depth])
		json_indent(j);
	fputc(obj ? '}' : ']', j->f);
}

void ctl_json_begin_object(struct ctl_json *j, const char *key)
{
	json_open(j, key, true);
}

void ctl_json_end_object(struct ctl_json *j)
{
	json_close(j, true);
}

void ctl_json_begin_array(struct ctl_json *j, const char *key)
{
	json_open(j, key, false);
}

void ctl_json_end_array(struct ctl_json *j)
{
	json_close(j, false);
}

void ctl_json_string(struct ctl_json *j, const char *key, const char *val)
{
	json_member(j, key);
	if (val)
		json_string_raw(j->f, val);
	else
		fputs("null", j->f);
}

void ctl_json_u64(struct ctl_json *j, const char *key, uint64_t val)
{
	json_member(j, key);
	fprintf(j->f, "%" PRIu64, val);
}

void ctl_json_i64(struct ctl_json *j, const char *key, int64_t val)
{
	json_member(j, key);
	fprintf(j->f, "%" PRId64, val);
}

void ctl_json_double(struct ctl_json *j, const char *key, double val)
{
	json_member(j, key);
	if (isfinite(val))
		fprintf(j->f, "%.17g", val);
	else
		fputs("null", j->f);
}

void ctl_json_bool(struct ctl_json *j, const char *key, bool val)
{
	json_member(j, key);
	fputs(val ? "true" : "false", j->f);
}

void ctl_json_null(struct ctl_json *j, const char *key)
{
	json_member(j, key);
	fputs("null", j->f);
}

int ctl_json_finish(struct ctl_json *j)
{
	fputc('\n', j->f);
	if (j->bad || j->depth)
		return -EINVAL;
	return ferror(j->f) ? -EIO : 0;
}

void ctl_json_list(struct ctl_json *j, const char *key, const char *list)
{
	char item[GR_LONG_NAME_LEN * 2 + 2];
	size_t n;

	ctl_json_begin_array(j, key);
	while (*list) {
		n = strcspn(list, ", ");
		if (n && n < sizeof(item)) {
			memcpy(item, list, n);
			item[n] = '\0';
			ctl_json_string(j, NULL, item);
		}
		list += n;
		list += strspn(list, ", ");
	}
	ctl_json_end_array(j);
}
