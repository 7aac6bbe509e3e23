// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_ivshmem.c - the ivshmem protocol's message parser
 * (qemu-device/ivshmem_client.c: the side QEMU plays, used by the fake
 * guest), fed by a server that sends what the input says over a real
 * socketpair, with real descriptors attached. The agent's server side
 * parses nothing (a byte from a peer disconnects it), so this is the
 * protocol's only parser of untrusted bytes.
 *
 * Input: records of 1 kind byte and 8 value bytes: kind % 5 = 0 a value
 * alone, 1 with an eventfd, 2 with a memfd whose size is 2^(value % 24)
 * bytes, 3 with two descriptors, 4 only the first (value % 8) bytes of a
 * message (a torn one). After each record the client processes what
 * arrived; at the end it is closed (every descriptor it took is closed:
 * libFuzzer's -close_fd_mask and the leak checker see the rest).
 */
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"
#include "ivshmem_client.c"

static int send_fds(int sock, const void *buf, size_t len, const int *fds,
		    unsigned int nfds)
{
	char ctl[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = { (void *)buf, len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (nfds) {
		memset(ctl, 0, sizeof(ctl));
		m.msg_control = ctl;
		m.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}
	return sendmsg(sock, &m, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ivsh_client c;
	int sv[2], fds[2];
	unsigned int k, n;
	uint8_t kind;
	int64_t value;

	if (init_client(&c, 2, NULL))
		FUZZ_BUG("init_client");
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return 0;
	c.sock_fd = sv[0];
	for (n = 0; n < 64 && !fuzz_take(&data, &size, &kind, 1) &&
	     !fuzz_take(&data, &size, &value, sizeof(value)); n++) {
		unsigned int nfds = 0;

		switch (kind % 5) {
		case 1:
			fds[nfds++] = eventfd(0, EFD_CLOEXEC);
			break;
		case 2:
			fds[nfds] = memfd_create("fuzz", MFD_CLOEXEC);
			if (fds[nfds] >= 0 &&
			    ftruncate(fds[nfds], 1LL << ((uint64_t)value % 24)))
				break;
			nfds++;
			break;
		case 3:
			fds[nfds++] = eventfd(0, EFD_CLOEXEC);
			fds[nfds++] = eventfd(0, EFD_CLOEXEC);
			break;
		}
		for (k = 0; k < nfds; k++)
			if (fds[k] < 0)
				nfds = 0;
		send_fds(sv[1], &value,
			 kind % 5 == 4 ? (size_t)((uint64_t)value % 8) :
			 sizeof(value), fds, nfds);
		for (k = 0; k < nfds; k++)
			close(fds[k]);
		if (ivsh_client_process(&c, 0) < 0)
			break;
	}
	close(sv[1]);
	ivsh_client_close(&c);
	return 0;
}
