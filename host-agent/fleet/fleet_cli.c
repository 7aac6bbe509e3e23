// SPDX-License-Identifier: GPL-2.0
/*
 * fleet_cli.c - `guestrelay fleet status URL[,URL...]`: every entry of
 * the fleet-status bucket, as one table sorted by host and VM, or JSON
 *
 * The entries are read with a key-value watcher over the whole bucket
 * (kvStore_WatchAll(), without deletions): it delivers the current value
 * of every key, then a marker that the initial values are done. Each
 * value is checked (fleet_entry_parse()): a broken one is a row marked
 * INVALID with the reason, never a crash or a garbled table.
 *
 * Exit status: 0 shown (also with invalid entries: stderr counts them),
 * 1 NATS unreachable or no such bucket, 2 bad usage.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <nats/nats.h>

#include "fleet_entry.h"
#include "fleet_status.h"
#include "nats_opts.h"

#define FLEET_CLI_MAX_ROWS	100000

static const char fleet_usage[] =
	"usage: guestrelay fleet status URL[,URL...] [--json] [--bucket NAME]\n"
	"                               [--creds FILE] [--timeout SEC]\n"
	"  Every host's VMs, as their agents publish them (agent\n"
	"  --fleet-status URL): host, VM, state, events/s, bytes/s, events\n"
	"  lost by cause (full/too_big/nested, then sub-buffers overwritten),\n"
	"  invalid sub-buffers, clock-sync error, steal (seconds QEMU's vCPU\n"
	"  threads were runnable and not running on the host, summed, then\n"
	"  the vCPU that lost the most), the run-queue latency table's p50\n"
	"  and p99 (hist --latency runq; - without one), shipping backlog\n"
	"  and the age of the entry, sorted by host then VM. An entry that\n"
	"  is not what an agent writes is shown as INVALID, with the reason.\n"
	"  --json          a JSON array, one object per entry, with every\n"
	"                  running latency table's summary (latency)\n"
	"  --bucket NAME   the key-value bucket (default " FLEET_BUCKET_DEFAULT ")\n"
	"  --creds FILE    NATS credentials (as agent --fleet-creds)\n"
	"  --timeout SEC   give up after SEC seconds (default 10)\n";

struct fleet_args {
	const char *urls;
	const char *bucket;
	const char *creds;
	bool json;
	int timeout_s;
};

static int usage_err(const char *fmt, const char *arg)
{
	fputs("guestrelay fleet: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs(" (guestrelay fleet --help)\n", stderr);
	return 2;
}

static int parse(int argc, char **argv, struct fleet_args *fa)
{
	char err[256], *end;
	long v;
	int i;

	fa->bucket = FLEET_BUCKET_DEFAULT;
	fa->timeout_s = 10;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--json")) {
			fa->json = true;
		} else if (!strcmp(a, "--bucket") || !strcmp(a, "--creds") ||
			   !strcmp(a, "--timeout")) {
			if (i + 1 >= argc)
				return usage_err("%s needs a value", a);
			if (a[2] == 'b')
				fa->bucket = argv[++i];
			else if (a[2] == 'c')
				fa->creds = argv[++i];
			else {
				v = strtol(argv[++i], &end, 10);
				if (*end || end == argv[i] || v < 1 || v > 3600)
					return usage_err("--timeout wants 1 to "
							 "3600 s, not '%s'",
							 argv[i]);
				fa->timeout_s = (int)v;
			}
		} else if (a[0] == '-') {
			return usage_err("no option '%s'", a);
		} else if (!fa->urls) {
			fa->urls = a;
		} else {
			return usage_err("one server list only, not also '%s'",
					 a);
		}
	}
	if (!fa->urls)
		return usage_err("%s", "a NATS server URL is needed");
	if (gr_nats_check_urls(fa->urls, err, sizeof(err)))
		return usage_err("%s", err);
	if (!*fa->bucket || strlen(fa->bucket) >= FLEET_BUCKET_MAX ||
	    strspn(fa->bucket, "abcdefghijklmnopqrstuvwxyz"
		   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
	    strlen(fa->bucket))
		return usage_err("--bucket: 1 to 63 of [A-Za-z0-9_-], not '%s'",
				 fa->bucket);
	return 0;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* every entry of @kv into *@rowsp; 0, or 1 (said) */
static int read_rows(kvStore *kv, int timeout_s, struct fleet_row **rowsp,
		     size_t *np)
{
	struct fleet_row *rows = NULL, *nr;
	kvWatchOptions wo;
	kvWatcher *w = NULL;
	kvEntry *e = NULL;
	size_t n = 0, cap = 0;
	int64_t deadline = now_ns() + (int64_t)timeout_s * 1000000000LL;
	int64_t left;
	natsStatus s;

	kvWatchOptions_Init(&wo);
	wo.IgnoreDeletes = true;
	s = kvStore_WatchAll(&w, kv, &wo);
	while (s == NATS_OK) {
		left = (deadline - now_ns()) / 1000000;
		if (left <= 0) {
			s = NATS_TIMEOUT;
			break;
		}
		s = kvWatcher_Next(&e, w, left);
		if (s != NATS_OK || !e)
			break;		/* NULL: the initial values are done */
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			nr = cap <= FLEET_CLI_MAX_ROWS ?
				realloc(rows, cap * sizeof(*rows)) : NULL;
			if (!nr) {
				s = NATS_NO_MEMORY;
				kvEntry_Destroy(e);
				break;
			}
			rows = nr;
		}
		fleet_entry_parse(&rows[n++], kvEntry_Key(e), kvEntry_Value(e),
				  (size_t)kvEntry_ValueLen(e),
				  (now_ns() - kvEntry_Created(e)) / 1000000);
		kvEntry_Destroy(e);
	}
	kvWatcher_Destroy(w);
	if (s != NATS_OK) {
		char err[256];

		gr_nats_err(s, err, sizeof(err));
		fprintf(stderr, "guestrelay fleet: reading the bucket: %s\n",
			err);
		while (n)
			fleet_row_clear(&rows[--n]);
		free(rows);
		return 1;
	}
	*rowsp = rows;
	*np = n;
	return 0;
}

static int fleet_status(struct fleet_args *fa)
{
	struct fleet_row *rows = NULL;
	natsConnection *nc = NULL;
	natsOptions *o = NULL;
	size_t n = 0, i, bad = 0;
	kvStore *kv = NULL;
	jsCtx *js = NULL;
	char err[256];
	jsOptions jo;
	natsStatus s;
	int ret = 1;

	if (gr_nats_options(&o, fa->urls, fa->creds, "guestrelay fleet status",
			    err, sizeof(err))) {
		fprintf(stderr, "guestrelay fleet: %s\n", err);
		return 1;
	}
	natsOptions_SetMaxReconnect(o, 0);
	natsOptions_SetTimeout(o, (int64_t)fa->timeout_s * 1000);
	s = natsConnection_Connect(&nc, o);
	if (s == NATS_OK) {
		jsOptions_Init(&jo);
		jo.Wait = (int64_t)fa->timeout_s * 1000;
		s = natsConnection_JetStream(&js, nc, &jo);
	}
	if (s == NATS_OK) {
		s = js_KeyValue(&kv, js, fa->bucket);
		if (s == NATS_NOT_FOUND) {
			fprintf(stderr, "guestrelay fleet: no bucket %s (no "
				"agent has published with --fleet-status to "
				"these servers yet)\n", fa->bucket);
			goto out;
		}
	}
	if (s != NATS_OK) {
		gr_nats_err(s, err, sizeof(err));
		fprintf(stderr, "guestrelay fleet: NATS: %s\n", err);
		goto out;
	}
	if (read_rows(kv, fa->timeout_s, &rows, &n))
		goto out;
	fleet_rows_sort(rows, n);
	for (i = 0; i < n; i++)
		bad += !rows[i].valid;
	if (fa->json)
		ret = fleet_print_json(stdout, rows, n) ? 1 : 0;
	else {
		fleet_print_table(stdout, rows, n);
		ret = 0;
	}
	if (bad)
		fprintf(stderr, "guestrelay fleet: %zu of %zu entries are "
			"invalid (not what an agent writes)\n", bad, n);
	if (fflush(stdout))
		ret = 1;
out:
	for (i = 0; i < n; i++)
		fleet_row_clear(&rows[i]);
	free(rows);
	kvStore_Destroy(kv);
	jsCtx_Destroy(js);
	natsConnection_Destroy(nc);
	natsOptions_Destroy(o);
	nats_Close();
	return ret;
}

int fleet_main(int argc, char **argv)
{
	struct fleet_args fa = { 0 };
	int ret;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		fputs(fleet_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (strcmp(argv[1], "status"))
		return usage_err("no command '%s' (status)", argv[1]);
	if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
		fputs(fleet_usage, stdout);
		return 0;
	}
	ret = parse(argc - 1, argv + 1, &fa);
	return ret ? ret : fleet_status(&fa);
}
