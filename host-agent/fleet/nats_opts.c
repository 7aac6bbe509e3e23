// SPDX-License-Identifier: GPL-2.0
/*
 * nats_opts.c - libnats options from a server list and a credentials
 * file (nats_opts.h), shared by every NATS client of guestrelay
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nats_opts.h"

#define GR_NATS_URLS_MAX	16
#define GR_NATS_CREDS_MAX	(64 * 1024)

static int ping_ms = GR_NATS_PING_MS, max_pings = GR_NATS_MAX_PINGS;

void gr_nats_set_liveness(int ms, int pings)
{
	if (ms > 0)
		ping_ms = ms;
	if (pings > 0)
		max_pings = pings;
}

int gr_nats_check_urls(const char *urls, char *err, size_t errlen)
{
	const char *p = urls, *end, *host;
	unsigned int n = 0;
	size_t len;

	if (!urls || !*urls) {
		snprintf(err, errlen, "a NATS server URL is needed");
		return -EINVAL;
	}
	while (*p) {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		if (++n > GR_NATS_URLS_MAX) {
			snprintf(err, errlen, "at most %d NATS URLs",
				 GR_NATS_URLS_MAX);
			return -EINVAL;
		}
		if (len > 7 && !strncmp(p, "nats://", 7))
			host = p + 7;
		else if (len > 6 && !strncmp(p, "tls://", 6))
			host = p + 6;
		else {
			snprintf(err, errlen, "NATS URL %u: nats://HOST:PORT or "
				 "tls://HOST:PORT", n);
			return -EINVAL;
		}
		if (memchr(host, '@', len - (size_t)(host - p))) {
			snprintf(err, errlen, "NATS URL %u holds user "
				 "information: give credentials in a file "
				 "(never in arguments)", n);
			return -EINVAL;
		}
		if (memchr(host, ' ', len - (size_t)(host - p)) ||
		    host == p + len) {
			snprintf(err, errlen, "NATS URL %u: no host", n);
			return -EINVAL;
		}
		p += len;
		if (*p == ',' && !*++p) {
			snprintf(err, errlen, "empty NATS URL after a comma");
			return -EINVAL;
		}
	}
	return 0;
}

/* the whole file @path into a NUL-terminated buffer; -errno */
static int read_secret_file(const char *path, char **bufp, char *err,
			    size_t errlen)
{
	struct stat sb;
	ssize_t r;
	size_t n = 0;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &sb)) {
		snprintf(err, errlen, "credentials file %s: %s", path,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return -EINVAL;
	}
	if (!S_ISREG(sb.st_mode) || sb.st_size > GR_NATS_CREDS_MAX ||
	    (sb.st_mode & S_IROTH)) {
		snprintf(err, errlen, "credentials file %s: %s", path,
			 !S_ISREG(sb.st_mode) ? "not a regular file" :
			 (sb.st_mode & S_IROTH) ? "readable by others "
			 "(chmod o-r)" : "too large");
		close(fd);
		return -EINVAL;
	}
	buf = calloc(1, (size_t)sb.st_size + 1);
	if (!buf) {
		close(fd);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	while (n < (size_t)sb.st_size) {
		r = read(fd, buf + n, (size_t)sb.st_size - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*bufp = buf;
	return 0;
}

static void free_secret(char *buf)
{
	if (buf) {
		explicit_bzero(buf, strlen(buf));
		free(buf);
	}
}

/*
 * one line: "KEY VALUE" (the value trimmed) or "KEY=VALUE" (the value as
 * it is, but a trailing CR); *keyp is "" for a blank or comment line
 */
static void split_line(char *line, char **keyp, char **valp)
{
	char *key = line + strspn(line, " \t"), *val, *end;

	*keyp = *valp = key + strlen(key);
	if (!*key || *key == '#' || *key == '\r')
		return;
	val = key + strspn(key, "abcdefghijklmnopqrstuvwxyz");
	end = val + strlen(val);
	if (*val == '=') {
		*val++ = '\0';
	} else {
		if (*val && !strchr(" \t", *val)) {
			*valp = val;	/* no separator: an unknown key */
			*keyp = "?";
			return;
		}
		if (*val)
			*val++ = '\0';
		val += strspn(val, " \t");
		while (end > val && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
	}
	if (end > val && end[-1] == '\r')
		*--end = '\0';
	*keyp = key;
	*valp = val;
}

/* a file the credentials file names must be readable now */
static int readable(const char *file, const char *path, unsigned int ln,
		    char *err, size_t errlen)
{
	if (!access(file, R_OK))
		return 0;
	snprintf(err, errlen, "credentials file %s, line %u: cannot read the "
		 "file it names: %s", path, ln, strerror(errno));
	return -EINVAL;
}

/* apply the lines of @buf to @o; the error never quotes one */
static int apply_lines(natsOptions *o, char *buf, const char *path,
		       char *err, size_t errlen)
{
	const char *user = NULL, *pass = NULL, *nkey = NULL, *seed = NULL;
	char *line, *save = NULL, *key, *val;
	unsigned int ln = 0;
	natsStatus s = NATS_OK;

	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		ln++;
		split_line(line, &key, &val);
		if (!*key)
			continue;
		if (!*val) {
			snprintf(err, errlen, "credentials file %s, line %u: "
				 "no value", path, ln);
			return -EINVAL;
		}
		if (!strcmp(key, "user"))
			user = val;
		else if (!strcmp(key, "password"))
			pass = val;
		else if (!strcmp(key, "nkey"))
			nkey = val;
		else if (!strcmp(key, "seed")) {
			if (readable(val, path, ln, err, errlen))
				return -EINVAL;
			seed = val;
		} else if (!strcmp(key, "token"))
			s = natsOptions_SetToken(o, val);
		else if (!strcmp(key, "creds")) {
			if (readable(val, path, ln, err, errlen))
				return -EINVAL;
			s = natsOptions_SetUserCredentialsFromFiles(o, val,
								    NULL);
		} else if (!strcmp(key, "ca"))
			s = natsOptions_LoadCATrustedCertificates(o, val);
		else {
			snprintf(err, errlen, "credentials file %s, line %u: "
				 "unknown key (user, password, token, nkey, "
				 "seed, creds, ca)", path, ln);
			return -EINVAL;
		}
		if (s != NATS_OK) {
			snprintf(err, errlen, "credentials file %s, line %u: "
				 "%s", path, ln, natsStatus_GetText(s));
			return -EINVAL;
		}
	}
	if (!user != !pass || !nkey != !seed) {
		snprintf(err, errlen, "credentials file %s: %s go together",
			 path, !user != !pass ? "user and password" :
			 "nkey and seed");
		return -EINVAL;
	}
	if (user && natsOptions_SetUserInfo(o, user, pass) != NATS_OK) {
		snprintf(err, errlen, "credentials file %s: user rejected",
			 path);
		return -EINVAL;
	}
	if (nkey && natsOptions_SetNKeyFromSeed(o, nkey, seed) != NATS_OK) {
		snprintf(err, errlen, "credentials file %s: nkey rejected",
			 path);
		return -EINVAL;
	}
	return 0;
}

static int apply_creds(natsOptions *o, const char *path, char *err,
		       size_t errlen)
{
	char *buf = NULL;
	natsStatus s;
	int ret;

	ret = read_secret_file(path, &buf, err, errlen);
	if (ret)
		return ret;
	if (strstr(buf, "-----BEGIN NATS USER JWT-----")) {
		/* a .creds file: libnats reads it itself */
		s = natsOptions_SetUserCredentialsFromFiles(o, path, NULL);
		if (s != NATS_OK) {
			snprintf(err, errlen, "credentials file %s: %s", path,
				 natsStatus_GetText(s));
			ret = -EINVAL;
		}
	} else {
		ret = apply_lines(o, buf, path, err, errlen);
	}
	free_secret(buf);
	return ret;
}

int gr_nats_options(natsOptions **optsp, const char *urls, const char *creds,
		    const char *name, char *err, size_t errlen)
{
	const char *list[GR_NATS_URLS_MAX];
	char *copy, *p, *save = NULL;
	natsOptions *o = NULL;
	int n = 0, ret;
	natsStatus s;

	ret = gr_nats_check_urls(urls, err, errlen);
	if (ret)
		return ret;
	copy = strdup(urls);
	if (!copy || natsOptions_Create(&o) != NATS_OK) {
		free(copy);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (p = strtok_r(copy, ",", &save); p && n < GR_NATS_URLS_MAX;
	     p = strtok_r(NULL, ",", &save))
		list[n++] = p;
	s = natsOptions_SetServers(o, list, n);
	free(copy);
	if (s == NATS_OK)
		s = natsOptions_SetName(o, name);
	if (s == NATS_OK)
		s = natsOptions_SetTimeout(o, 2000);
	if (s == NATS_OK)
		s = natsOptions_SetAllowReconnect(o, true);
	if (s == NATS_OK)
		s = natsOptions_SetMaxReconnect(o, -1);
	if (s == NATS_OK)
		s = natsOptions_SetReconnectWait(o, 1000);
	if (s == NATS_OK)
		s = natsOptions_SetPingInterval(o, ping_ms);
	if (s == NATS_OK)
		s = natsOptions_SetMaxPingsOut(o, max_pings);
	if (s != NATS_OK) {
		snprintf(err, errlen, "NATS options: %s", natsStatus_GetText(s));
		natsOptions_Destroy(o);
		return -EINVAL;
	}
	if (creds) {
		ret = apply_creds(o, creds, err, errlen);
		if (ret) {
			natsOptions_Destroy(o);
			return ret;
		}
	}
	*optsp = o;
	return 0;
}

void gr_nats_err(natsStatus s, char *err, size_t errlen)
{
	natsStatus ls = NATS_OK;
	const char *last = nats_GetLastError(&ls);
	size_t i;

	if (last && *last && ls == s)
		snprintf(err, errlen, "%s: %s", natsStatus_GetText(s), last);
	else
		snprintf(err, errlen, "%s", natsStatus_GetText(s));
	for (i = 0; err[i]; i++)
		if ((unsigned char)err[i] < 0x20 || err[i] == 0x7f)
			err[i] = ' ';
}
