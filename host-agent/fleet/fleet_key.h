/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fleet_key.h - the key of one VM's entry in the fleet-status bucket
 *
 * A JetStream key-value key may hold [-/_=.a-zA-Z0-9], and '.' splits it
 * into subject tokens, none of which may be empty. Host names are chosen
 * by operators and VM names may hold '.', so both are encoded, and the
 * key is
 *
 *	enc(host) "." enc(vm)
 *
 * where enc() keeps [A-Za-z0-9-] as they are and writes every other byte
 * (also '_', '.', '/', '=') as '_' and two upper-case hex digits; the
 * empty string is "=". No encoded token holds a '.', and '_' always
 * starts exactly three characters, so a key splits into its two tokens
 * and each decodes to one string only: the encoding is injective, and no
 * name can form another VM's key, a wildcard or an extra token.
 * fleet_key_decode() accepts exactly the keys fleet_key_encode() writes.
 */
#ifndef GR_FLEET_KEY_H
#define GR_FLEET_KEY_H

#include <stddef.h>

#define FLEET_HOST_MAX		256	/* bytes of a host name incl. NUL */
#define FLEET_NAME_MAX		256	/* of a decoded name (host or VM) */
/* longest key: two names of FLEET_NAME_MAX - 1 bytes, 3 chars a byte */
#define FLEET_KEY_MAX		(2 * 3 * (FLEET_NAME_MAX - 1) + 2)

/**
 * fleet_key_encode() - the key of VM @vm of host @host
 * @host: host name (any bytes but NUL, at most FLEET_NAME_MAX - 1)
 * @vm: VM name (the same)
 * @key: receives the key, NUL-terminated
 * @len: size of @key (FLEET_KEY_MAX is enough)
 *
 * Context: any.
 * Return: 0, -ENAMETOOLONG if a name is too long or @key too small.
 */
int fleet_key_encode(const char *host, const char *vm, char *key, size_t len);

/**
 * fleet_key_decode() - the host and VM names of a key
 * @key: a key read from the bucket (untrusted)
 * @host: receives the host name (FLEET_NAME_MAX bytes)
 * @vm: receives the VM name (FLEET_NAME_MAX bytes)
 *
 * Context: any.
 * Return: 0, or -EINVAL if @key is not one fleet_key_encode() writes.
 */
int fleet_key_decode(const char *key, char *host, char *vm);

#endif /* GR_FLEET_KEY_H */
