// SPDX-License-Identifier: GPL-2.0
/*
 * addr.c - the ADDR:PORT of the agent's listening options (--metrics,
 * --live)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"

/**
 * gr_parse_addr() - ADDR:PORT as a socket address
 * @s: "IPV4:PORT" or "[IPV6]:PORT" (numeric addresses; 0.0.0.0 and [::]
 *	for every address), PORT from 1 to 65535
 * @ss: receives the address
 * @len: receives its length
 *
 * Return: 0, or -EINVAL.
 */
int gr_parse_addr(const char *s, struct sockaddr_storage *ss,
		       socklen_t *len)
{
	char host[INET6_ADDRSTRLEN];
	const char *colon, *h = s, *end;
	unsigned long port;
	size_t hlen;
	char *pend;

	memset(ss, 0, sizeof(*ss));
	colon = strrchr(s, ':');
	if (!colon || !colon[1])
		return -EINVAL;
	end = colon;
	if (*s == '[') {
		if (colon == s || colon[-1] != ']')
			return -EINVAL;
		h = s + 1;
		end = colon - 1;
	}
	hlen = (size_t)(end - h);
	if (!hlen || hlen >= sizeof(host))
		return -EINVAL;
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	if (colon[1] < '0' || colon[1] > '9')
		return -EINVAL;
	errno = 0;
	port = strtoul(colon + 1, &pend, 10);
	if (errno || *pend || port < 1 || port > 65535)
		return -EINVAL;

	if (*s == '[') {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

		if (inet_pton(AF_INET6, host, &a6->sin6_addr) != 1)
			return -EINVAL;
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*a6);
	} else {
		struct sockaddr_in *a4 = (struct sockaddr_in *)ss;

		if (inet_pton(AF_INET, host, &a4->sin_addr) != 1)
			return -EINVAL;
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		*len = sizeof(*a4);
	}
	return 0;
}

/**
 * gr_addr_port() - the port of an address gr_parse_addr() made
 * @ss: the address
 *
 * Return: the port, in host order.
 */
uint16_t gr_addr_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}
