// SPDX-License-Identifier: GPL-2.0
/*
 * fleet_key.c - the injective encoding of host and VM names into a key of
 * the fleet-status bucket (fleet_key.h says why it is injective)
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "fleet_key.h"

static const char hex[] = "0123456789ABCDEF";

static bool plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-';
}

/* enc(@s) at @out[*pos], NUL not written; -ENAMETOOLONG if no room */
static int enc(const char *s, char *out, size_t len, size_t *pos)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	if (n >= FLEET_NAME_MAX)
		return -ENAMETOOLONG;
	if (!n) {
		if (*pos + 1 >= len)
			return -ENAMETOOLONG;
		out[(*pos)++] = '=';
		return 0;
	}
	for (; *p; p++) {
		if (plain(*p)) {
			if (*pos + 1 >= len)
				return -ENAMETOOLONG;
			out[(*pos)++] = (char)*p;
			continue;
		}
		if (*pos + 3 >= len)
			return -ENAMETOOLONG;
		out[(*pos)++] = '_';
		out[(*pos)++] = hex[*p >> 4];
		out[(*pos)++] = hex[*p & 15];
	}
	return 0;
}

int fleet_key_encode(const char *host, const char *vm, char *key, size_t len)
{
	size_t pos = 0;
	int ret;

	if (!len)
		return -ENAMETOOLONG;
	key[0] = '\0';
	ret = enc(host, key, len, &pos);
	if (!ret && pos + 1 >= len)
		ret = -ENAMETOOLONG;
	if (!ret) {
		key[pos++] = '.';
		ret = enc(vm, key, len, &pos);
	}
	key[ret ? 0 : pos] = '\0';
	return ret;
}

static int unhex(char c)
{
	const char *p = c ? strchr(hex, c) : NULL;

	return p ? (int)(p - hex) : -1;
}

/* decode the token @s[0..n) into @out (FLEET_NAME_MAX bytes) */
static int dec(const char *s, size_t n, char *out)
{
	size_t i, o = 0;
	int hi, lo;

	if (n == 1 && s[0] == '=') {
		out[0] = '\0';
		return 0;
	}
	if (!n)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (o + 1 >= FLEET_NAME_MAX)
			return -EINVAL;
		if (plain((unsigned char)s[i])) {
			out[o++] = s[i];
			continue;
		}
		if (s[i] != '_' || i + 2 >= n)
			return -EINVAL;
		hi = unhex(s[i + 1]);
		lo = unhex(s[i + 2]);
		/* only bytes enc() escapes; never NUL */
		if (hi < 0 || lo < 0 || !(hi | lo) ||
		    plain((unsigned char)(hi << 4 | lo)))
			return -EINVAL;
		out[o++] = (char)(hi << 4 | lo);
		i += 2;
	}
	out[o] = '\0';
	return 0;
}

int fleet_key_decode(const char *key, char *host, char *vm)
{
	const char *dot = strchr(key, '.');

	if (!dot || strchr(dot + 1, '.'))
		return -EINVAL;
	if (dec(key, (size_t)(dot - key), host) ||
	    dec(dot + 1, strlen(dot + 1), vm))
		return -EINVAL;
	return 0;
}
