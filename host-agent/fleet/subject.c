// SPDX-License-Identifier: GPL-2.0
/*
 * subject.c - subjects, message ids and framing of shipped traces
 *
 * See subject.h for the scheme. Everything here is pure (no I/O), so the
 * agent's shipper and the collector share it and the unit tests
 * (tests/unit/test_subject.c) drive it with hostile input.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "subject.h"

static const char hex[] = "0123456789ABCDEF";

static bool plain_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-';
}

/**
 * gr_subj_encode() - a name as one subject token
 * @name: any NUL-terminated bytes
 * @out: receives the token
 * @cap: size of @out
 *
 * Return: the token's length, or -ENAMETOOLONG.
 */
int gr_subj_encode(const char *name, char *out, size_t cap)
{
	const unsigned char *p = (const unsigned char *)name;
	size_t n = 0;

	if (!*p) {
		if (cap < 2)
			return -ENAMETOOLONG;
		memcpy(out, "_", 2);
		return 1;
	}
	for (; *p; p++) {
		if (plain_byte(*p)) {
			if (n + 1 >= cap)
				return -ENAMETOOLONG;
			out[n++] = (char)*p;
			continue;
		}
		if (n + 3 >= cap)
			return -ENAMETOOLONG;
		out[n++] = '_';
		out[n++] = hex[*p >> 4];
		out[n++] = hex[*p & 15];
	}
	out[n] = '\0';
	return (int)n;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;	/* lower case is not canonical */
}

/**
 * gr_subj_decode() - the name a token stands for, canonical form only
 * @tok: the token (not NUL-terminated)
 * @len: its length
 * @out: receives the name
 * @cap: size of @out
 *
 * Refuses anything gr_subj_encode() cannot have produced: a byte outside
 * [A-Za-z0-9_-], an escape of a plain byte or of NUL, lower-case or
 * missing hex digits, "_" anywhere but as the whole token.
 *
 * Return: the name's length, or -EINVAL / -ENAMETOOLONG.
 */
int gr_subj_decode(const char *tok, size_t len, char *out, size_t cap)
{
	size_t i = 0, n = 0;

	if (len == 1 && tok[0] == '_') {
		if (cap < 1)
			return -ENAMETOOLONG;
		out[0] = '\0';
		return 0;
	}
	if (!len)
		return -EINVAL;
	while (i < len) {
		unsigned char c = (unsigned char)tok[i];
		int hi, lo;

		if (n + 1 >= cap)
			return -ENAMETOOLONG;
		if (plain_byte(c)) {
			out[n++] = (char)c;
			i++;
			continue;
		}
		if (c != '_' || len - i < 3)
			return -EINVAL;
		hi = hexval(tok[i + 1]);
		lo = hexval(tok[i + 2]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		c = (unsigned char)(hi << 4 | lo);
		if (!c || plain_byte(c))
			return -EINVAL;
		out[n++] = (char)c;
		i += 3;
	}
	out[n] = '\0';
	return (int)n;
}

/* A JetStream stream name that is also a subject's first token */
bool gr_stream_name_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (!n || n >= GR_STREAM_NAME_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (!plain_byte((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

/**
 * gr_dir_name_ok() - may @s name a directory of a collected tree
 * @s: a decoded host, VM or session name
 *
 * [A-Za-z0-9_.-], 1 to 255 bytes, not starting with '.': never "." or
 * "..", never a hidden file, never a path separator. VM names obey this
 * already (ivsh_shm_check_name()); session names are made by the agent.
 */
bool gr_dir_name_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (!n || n > 255 || s[0] == '.')
		return false;
	for (i = 0; i < n; i++)
		if (!plain_byte((unsigned char)s[i]) && s[i] != '_' &&
		    s[i] != '.')
			return false;
	return true;
}

static int file_token(const struct gr_obj *o, char *out, size_t cap)
{
	int n;

	switch (o->kind) {
	case GR_OBJ_METADATA:
		n = snprintf(out, cap, "metadata");
		break;
	case GR_OBJ_INFO:
		n = snprintf(out, cap, "info");
		break;
	case GR_OBJ_STREAM:
		n = snprintf(out, cap, "s%" PRIu32, o->ring);
		break;
	default:
		return -EINVAL;
	}
	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/* host, vm, session and the chunk if any encoded, joined by '.' */
static int names_join(const struct gr_obj *o, char *out, size_t cap)
{
	const char *names[4] = { o->host, o->vm, o->session, o->chunk };
	int i, r, nr = o->chunk[0] ? 4 : 3;
	size_t n = 0;

	if (o->chunk[0] && !chunk_parse(o->chunk, true, NULL, NULL))
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		r = gr_subj_encode(names[i], out + n, cap - n);
		if (r < 0)
			return r;
		n += (size_t)r;
		if (n + 2 > cap)
			return -ENAMETOOLONG;
		out[n++] = '.';
	}
	out[n] = '\0';
	return (int)n;
}

/**
 * gr_subj_build() - the subject of object @o in stream @stream
 * Return: 0, -EINVAL (bad stream name) or -ENAMETOOLONG.
 */
int gr_subj_build(const char *stream, const struct gr_obj *o, char *out,
		  size_t cap)
{
	size_t n = strlen(stream);
	int r;

	if (!gr_stream_name_ok(stream))
		return -EINVAL;
	if (n + 2 > cap)
		return -ENAMETOOLONG;
	memcpy(out, stream, n);
	out[n++] = '.';
	r = names_join(o, out + n, cap - n);
	if (r < 0)
		return r;
	n += (size_t)r;
	return file_token(o, out + n, cap - n);
}

/* strict decimal: no sign, no leading zero (but "0"), no overflow */
static int parse_u64(const char *s, size_t len, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (!len || len > 20 || (len > 1 && s[0] == '0'))
		return -EINVAL;
	for (i = 0; i < len; i++) {
		unsigned int d;

		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		d = (unsigned int)(s[i] - '0');
		if (x > (UINT64_MAX - d) / 10)
			return -EINVAL;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

/**
 * gr_subj_parse() - which object a subject names, strictly
 * @stream: the stream's name: the first token must be it
 * @subj: a subject as received
 * @o: receives host, VM, session (each passing gr_dir_name_ok()), the
 *	chunk ("" for a flat session; else a closed chunk's name, as
 *	chunk_parse() takes it) and file
 *
 * Return: 0 or -EINVAL.
 */
int gr_subj_parse(const char *stream, const char *subj, struct gr_obj *o)
{
	size_t sl = strlen(stream);
	const char *p, *dot;
	char *names[3] = { o->host, o->vm, o->session };
	uint64_t ring;
	int i;

	if (strncmp(subj, stream, sl) || subj[sl] != '.')
		return -EINVAL;
	p = subj + sl + 1;
	for (i = 0; i < 3; i++) {
		dot = strchr(p, '.');
		if (!dot || gr_subj_decode(p, (size_t)(dot - p), names[i],
					   GR_NAME_TOKEN_MAX) < 0 ||
		    !gr_dir_name_ok(names[i]))
			return -EINVAL;
		p = dot + 1;
	}
	o->chunk[0] = '\0';
	dot = strchr(p, '.');
	if (dot) {
		/* a closed chunk: exactly chunk.c's BEGIN-END-ID */
		if (gr_subj_decode(p, (size_t)(dot - p), o->chunk,
				   sizeof(o->chunk)) < 0 ||
		    !chunk_parse(o->chunk, true, NULL, NULL)) {
			o->chunk[0] = '\0';
			return -EINVAL;
		}
		p = dot + 1;
	}
	if (!strcmp(p, "metadata")) {
		o->kind = GR_OBJ_METADATA;
		o->ring = 0;
		return 0;
	}
	if (!strcmp(p, "info")) {
		o->kind = GR_OBJ_INFO;
		o->ring = 0;
		return 0;
	}
	if (p[0] != 's' || parse_u64(p + 1, strlen(p + 1), &ring) ||
	    ring > UINT32_MAX)
		return -EINVAL;
	o->kind = GR_OBJ_STREAM;
	o->ring = (uint32_t)ring;
	return 0;
}

/**
 * gr_msgid_build() - the Nats-Msg-Id of one part of an object
 * @o: the object
 * @f: the part's frame: its GEN and PART are in the id
 * @hash: for metadata and .guestrelay, a hash of the version's bytes (two
 *	versions with one mtime still differ); ignored for packets
 */
int gr_msgid_build(const struct gr_obj *o, const struct gr_frame *f,
		   uint64_t hash, char *out, size_t cap)
{
	int r = names_join(o, out, cap), n;
	size_t len;

	if (r < 0)
		return r;
	len = (size_t)r;
	r = file_token(o, out + len, cap - len);
	if (r)
		return r;
	len += strlen(out + len);
	if (o->kind == GR_OBJ_STREAM)
		n = snprintf(out + len, cap - len, ".%" PRIu64 ".%" PRIu32,
			     f->gen, f->part);
	else
		n = snprintf(out + len, cap - len, ".%" PRIu64 ".%" PRIu32
			     ".%016" PRIx64, f->gen, f->part, hash);
	return n < 0 || (size_t)n >= cap - len ? -ENAMETOOLONG : 0;
}

/* parts of an object of @len bytes cut at @chunk (an empty one is one) */
uint32_t gr_frame_nparts(uint64_t len, uint32_t chunk)
{
	uint64_t n = chunk ? (len + chunk - 1) / chunk : 0;

	if (!n)
		return 1;
	return n > UINT32_MAX ? 0 : (uint32_t)n;
}

int gr_frame_format(const struct gr_frame *f, char *out, size_t cap)
{
	int n = snprintf(out, cap, "%" PRIu64 " %" PRIu64 " %" PRIu32 " %"
			 PRIu32 " %" PRIu32 " %" PRIu64, f->off, f->len,
			 f->part, f->nparts, f->chunk, f->gen);

	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/**
 * gr_frame_parse() - a Gr-Frame header, checked against its message
 * @s: the header's value
 * @datalen: the message's payload length
 * @f: receives the frame
 *
 * Return: 0 if the six numbers are strict decimals, PART < NPARTS ==
 * gr_frame_nparts(LEN, CHUNK), OFF + LEN does not wrap and the payload is
 * exactly that part's bytes; -EINVAL otherwise.
 */
int gr_frame_parse(const char *s, uint64_t datalen, struct gr_frame *f)
{
	uint64_t v[6], want;
	const char *p = s, *sp;
	int i;

	for (i = 0; i < 6; i++) {
		sp = strchr(p, ' ');
		if (i < 5 && !sp)
			return -EINVAL;
		if (i == 5)
			sp = p + strlen(p);
		if (parse_u64(p, (size_t)(sp - p), &v[i]))
			return -EINVAL;
		p = sp + 1;
	}
	if (v[2] > UINT32_MAX || v[3] > UINT32_MAX || v[4] > UINT32_MAX ||
	    !v[4] || v[0] + v[1] < v[0] || v[0] + v[1] > INT64_MAX)
		return -EINVAL;
	f->off = v[0];
	f->len = v[1];
	f->part = (uint32_t)v[2];
	f->nparts = (uint32_t)v[3];
	f->chunk = (uint32_t)v[4];
	f->gen = v[5];
	if (f->nparts != gr_frame_nparts(f->len, f->chunk) ||
	    f->part >= f->nparts)
		return -EINVAL;
	want = f->len - (uint64_t)f->part * f->chunk;
	if (want > f->chunk)
		want = f->chunk;
	return datalen == want ? 0 : -EINVAL;
}

/**
 * gr_reasm_init() - start putting an object together
 * @r: the reassembly
 * @f: the frame of its first part seen
 *
 * Return: 0, -ENOMEM.
 */
int gr_reasm_init(struct gr_reasm *r, const struct gr_frame *f)
{
	memset(r, 0, sizeof(*r));
	r->f = *f;
	r->buf = malloc(f->len ? f->len : 1);
	r->have = calloc(f->nparts, 1);
	if (!r->buf || !r->have) {
		gr_reasm_free(r);
		return -ENOMEM;
	}
	return 0;
}

/**
 * gr_reasm_add() - one part, already checked by gr_frame_parse()
 * Return: 1 when every part is in, 0 if more are needed, -EINVAL if the
 * part's frame disagrees with the first one's (then drop the whole
 * object).
 */
int gr_reasm_add(struct gr_reasm *r, const struct gr_frame *f,
		 const void *data, uint64_t len)
{
	if (f->off != r->f.off || f->len != r->f.len || f->gen != r->f.gen ||
	    f->nparts != r->f.nparts || f->chunk != r->f.chunk)
		return -EINVAL;
	if (!r->have[f->part]) {
		memcpy(r->buf + (uint64_t)f->part * f->chunk, data, len);
		r->have[f->part] = 1;
		r->got++;
	}
	return r->got == r->f.nparts;
}

void gr_reasm_free(struct gr_reasm *r)
{
	free(r->buf);
	free(r->have);
	r->buf = NULL;
	r->have = NULL;
}

/* FNV-1a, 64 bits: tells two versions of a file apart in a message id */
uint64_t gr_fnv64(const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t rotl64(uint64_t x, unsigned int b)
{
	return (x << b) | (x >> (64 - b));
}

/* one SipRound of the four state words */
static void sip_round(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = rotl64(v[1], 13) ^ v[0];
	v[0] = rotl64(v[0], 32);
	v[2] += v[3];
	v[3] = rotl64(v[3], 16) ^ v[2];
	v[0] += v[3];
	v[3] = rotl64(v[3], 21) ^ v[0];
	v[2] += v[1];
	v[1] = rotl64(v[1], 17) ^ v[2];
	v[2] = rotl64(v[2], 32);
}

static uint64_t le64_at(const unsigned char *b, size_t n)
{
	uint64_t x = 0;

	while (n--)
		x = (x << 8) | b[n];
	return x;
}

/**
 * gr_siphash() - SipHash-2-4 of @len bytes under a 128-bit key: the tag
 * that makes a message id unguessable without the key
 */
uint64_t gr_siphash(const uint8_t key[GR_MSGID_KEY_LEN], const void *p,
		    size_t len)
{
	const unsigned char *b = p;
	uint64_t k0 = le64_at(key, 8), k1 = le64_at(key + 8, 8), m;
	uint64_t v[4] = {
		k0 ^ 0x736f6d6570736575ULL, k1 ^ 0x646f72616e646f6dULL,
		k0 ^ 0x6c7967656e657261ULL, k1 ^ 0x7465646279746573ULL,
	};
	size_t i, left = len & 7;

	for (i = 0; i + 8 <= len; i += 8) {
		m = le64_at(b + i, 8);
		v[3] ^= m;
		sip_round(v);
		sip_round(v);
		v[0] ^= m;
	}
	m = le64_at(b + i, left) | ((uint64_t)(len & 0xff) << 56);
	v[3] ^= m;
	sip_round(v);
	sip_round(v);
	v[0] ^= m;
	v[2] ^= 0xff;
	for (i = 0; i < 4; i++)
		sip_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/**
 * gr_msgid_seal() - make a message id (gr_msgid_build()) the agent's own
 * @id: the id; ".r<retry>" (when @retry) and ".<tag>" are appended
 * @cap: size of @id
 * @key: the agent's secret
 * @retry: 0, or the how-many-th fresh id of an object whose id was taken
 *
 * The tag is 16 hex digits of gr_siphash() of everything before it:
 * whoever lacks the key cannot claim the id of a packet not yet sent.
 *
 * Return: 0 or -ENAMETOOLONG.
 */
int gr_msgid_seal(char *id, size_t cap, const uint8_t key[GR_MSGID_KEY_LEN],
		  uint32_t retry)
{
	size_t len = strlen(id);
	int n = 0;

	if (retry)
		n = snprintf(id + len, cap - len, ".r%" PRIu32, retry);
	if (n < 0 || (size_t)n >= cap - len)
		return -ENAMETOOLONG;
	len += (size_t)n;
	n = snprintf(id + len, cap - len, ".%016" PRIx64,
		     gr_siphash(key, id, len));
	return n < 0 || (size_t)n >= cap - len ? -ENAMETOOLONG : 0;
}
