/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nats_opts.h - how every part of guestrelay that talks to NATS (fleet
 * status, shipping, collecting) turns a server list and a credentials
 * file into libnats options
 *
 * URLs: nats://HOST:PORT or tls://HOST:PORT, comma separated; a URL
 * holding user information ("user:pass@") is refused, so that no secret
 * is ever in a process's arguments: secrets come from the credentials
 * file, which is one of
 *   - a NATS .creds file (user JWT and nkey seed, as `nsc` writes it):
 *     handed to natsOptions_SetUserCredentialsFromFiles();
 *   - a text file of "KEY VALUE" or "KEY=VALUE" lines ('#' starts a
 *     comment; the value of KEY=VALUE is taken as it is, that of
 *     KEY VALUE without the blanks around it), the format of
 *     --ship-creds too:
 *       user NAME        password SECRET     (natsOptions_SetUserInfo)
 *       token SECRET                         (natsOptions_SetToken)
 *       nkey PUBLIC_KEY  seed FILE           (natsOptions_SetNKeyFromSeed)
 *       creds FILE       (a .creds file, as above: JWT and nkey)
 *       ca FILE          (CA certificates for tls:// servers)
 * The file must not be readable by others (mode o-r). Secrets read from
 * it are wiped from memory after libnats copied them and are never
 * logged: error texts name the file and the line number only.
 */
#ifndef GR_NATS_OPTS_H
#define GR_NATS_OPTS_H

#include <stddef.h>
#include <nats/nats.h>

/**
 * gr_nats_check_urls() - is @urls a server list gr_nats_options() takes
 * @urls: "URL[,URL...]"
 * @err: receives why not (the URL is not repeated: it may hold a secret)
 * @errlen: its size
 *
 * Context: any.
 * Return: 0 or -EINVAL.
 */
int gr_nats_check_urls(const char *urls, char *err, size_t errlen);

/**
 * gr_nats_options() - libnats options for @urls with @creds
 * @optsp: receives the options (natsOptions_Destroy() them)
 * @urls: server list (gr_nats_check_urls())
 * @creds: credentials file, or NULL
 * @name: the connection's name, as the server shows it
 * @err: receives a message on failure (never a secret)
 * @errlen: its size
 *
 * The options reconnect forever (every second, randomized servers),
 * connect within 2 s, ping the server every GR_NATS_PING_MS and give
 * the connection up after GR_NATS_MAX_PINGS unanswered pings (a hung or
 * partitioned server is left after (max + 1) x interval: 3 s), and keep
 * libnats' own defaults otherwise.
 *
 * Context: any thread.
 * Return: 0, -EINVAL (bad URL or credentials file), -ENOMEM.
 */
int gr_nats_options(natsOptions **optsp, const char *urls, const char *creds,
		    const char *name, char *err, size_t errlen);

#define GR_NATS_PING_MS		1000
#define GR_NATS_MAX_PINGS	2

/**
 * gr_nats_set_liveness() - the ping interval and the unanswered pings
 * after which a connection is given up, for every gr_nats_options() of
 * the process made afterwards
 * @ping_ms: interval, or -1 to keep it
 * @max_pings: pings out, or -1 to keep it
 *
 * Context: at start, before any connection (not thread-safe).
 */
void gr_nats_set_liveness(int ping_ms, int max_pings);

/**
 * gr_nats_err() - the text of a failed libnats call of this thread: its
 * status and libnats' last error (e.g. the server's JetStream error)
 * @s: the status returned
 * @err: receives the text (control characters replaced)
 * @errlen: its size
 *
 * Context: the thread that made the call.
 */
void gr_nats_err(natsStatus s, char *err, size_t errlen);

#endif /* GR_NATS_OPTS_H */
