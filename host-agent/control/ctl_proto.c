// SPDX-License-Identifier: GPL-2.0
/*
 * ctl_proto.c - the control protocol's framing (ctl_proto.h): encoding
 * and decoding of arguments, splitting a request line, reading an answer.
 * Every byte a client sends passes through ctl_split_request() before
 * the server looks at it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ctl_proto.h"

static const char hexdig[] = "0123456789ABCDEF";

void ctl_encode_arg(FILE *f, const char *arg)
{
	const unsigned char *p;

	for (p = (const unsigned char *)arg; *p; p++) {
		if (*p > 0x20 && *p < 0x7f && *p != '%') {
			fputc(*p, f);
		} else {
			fputc('%', f);
			fputc(hexdig[*p >> 4], f);
			fputc(hexdig[*p & 15], f);
		}
	}
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int ctl_decode_arg(char *s)
{
	unsigned char *r = (unsigned char *)s, *w = r;
	int hi, lo;

	if (!*r)
		return -EINVAL;
	while (*r) {
		if (*r == '%') {
			hi = hexval(r[1]);
			lo = hi < 0 ? -1 : hexval(r[2]);
			if (lo < 0)
				return -EINVAL;
			*w = (unsigned char)(hi << 4 | lo);
			r += 3;
		} else if (*r > 0x20 && *r < 0x7f) {
			*w = *r++;
		} else {
			return -EINVAL;	/* should have been encoded */
		}
		if (*w < 0x20 || *w == 0x7f)
			return -EINVAL;
		w++;
	}
	*w = '\0';
	return 0;
}

int ctl_split_request(char *line, size_t len, char **argv, int *argc,
		      char *err, size_t errlen)
{
	char *p, *sp;
	int n = 0;

	line[len] = '\0';
	if (memchr(line, '\0', len)) {
		snprintf(err, errlen, "the request contains a NUL byte");
		return -EINVAL;
	}
	if (len && line[len - 1] == '\r')
		line[--len] = '\0';
	if (!len) {
		snprintf(err, errlen, "empty request");
		return -EINVAL;
	}
	for (p = line;; p = sp + 1) {
		sp = strchr(p, ' ');
		if (sp)
			*sp = '\0';
		if (n == CTL_MAX_ARGS + 2) {
			snprintf(err, errlen, "more than %d arguments",
				 CTL_MAX_ARGS);
			return -E2BIG;
		}
		if (ctl_decode_arg(p)) {
			if (n < 2)
				snprintf(err, errlen, "malformed request: the "
					 "format or command word is empty or "
					 "malformed; a request is: FORMAT "
					 "COMMAND ARGS...");
			else
				snprintf(err, errlen, "malformed request: "
					 "argument %d after the command is "
					 "empty, badly percent-encoded or has "
					 "a control character", n - 1);
			return -EINVAL;
		}
		argv[n++] = p;
		if (!sp)
			break;
	}
	*argc = n;
	return 0;
}

int ctl_split_answer(char *buf, size_t len, const char **body, size_t *blen,
		     char *ename, size_t elen)
{
	char *nl = memchr(buf, '\n', len), *sp;

	*ename = '\0';
	if (nl && nl - buf == 2 && !strncmp(buf, "ok", 2)) {
		*body = nl + 1;
		*blen = len - (size_t)(nl + 1 - buf);
		return 0;
	}
	if (!nl || strncmp(buf, "error ", 6))
		return -EPROTO;
	*nl = '\0';
	sp = strchr(buf + 6, ' ');
	snprintf(ename, elen, "%.*s", (int)(sp ? (size_t)(sp - buf - 6) :
					    strlen(buf + 6)), buf + 6);
	*body = sp ? sp + 1 : buf + 6;
	*blen = strlen(*body);
	return 1;
}
