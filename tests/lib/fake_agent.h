/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fake_agent.h - the control plane's test bench: the real control socket
 * (host-agent/control/) on the real io_uring loop, over TEST DOUBLES of
 * the VM functions of agent.h (vm_add, vm_find, vm_flush ...; vm.c is not
 * linked), and clients: raw requests, or a function run in a forked
 * child with its output caught
 *
 * The doubles keep a list of fake VMs, recognize a fixed set of event
 * names, and hold the callback of flush / snapshot / stop until a test
 * completes it (fake_complete()), so a test can hang up first. Used by
 * test_ctl_codec.c, test_ctl.c and test_cli.c as their CUnit suite's
 * init and clean functions.
 */
#ifndef GR_FAKE_AGENT_H
#define GR_FAKE_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent.h"
#include "opts.h"

#define NOBODY		65534
#define TEST_GID	4242

/* a fake VM: what the commands asked of it */
struct gr_vm {
	struct gr_vm *next;
	struct gr_vm_opts opts;
	uint32_t mode;
	char enabled[512];
	gr_done_fn done;
	void *arg;
	const char *kind;
	bool sync_done;		/* complete flush/snapshot/stop in the call */
	bool stopped;		/* flush/snapshot/stop fail with -ENOTCONN */
	char nodename[GR_NODENAME_LEN + 1];
	char session[256];
	unsigned int starts;
};

extern struct gr_agent ag;		/* the agent the socket belongs to */
extern char tmpdir[64];			/* its run directory */
extern char sock_path[128];		/* RUN_DIR/agent.sock */
extern struct gr_vm_opts last_add;	/* the options of the last vm_add() */
extern char last_list[1024];		/* events of the last enable/disable */
extern bool last_on;			/* it was enable */

/* run @fn in a child; pump the loop meanwhile; its stdout and stderr */
struct child_out {
	int status;
	char out[16384];
	char err[4096];
};
void run_child(struct child_out *co, int (*fn)(void *), void *arg);

void fake_complete(struct gr_vm *vm, int err, const char *msg);
void fake_clear(void);
struct gr_vm *fake_add(const char *name);

uint64_t now_ms(void);
void pump(unsigned int ms);
int client_connect(void);
void client_send(int fd, const char *s, size_t len);
char *client_read(int fd, unsigned int ms);
char *request(const char *line);
void expect(const char *line, const char *prefix);
void expect_has(const char *line, const char *needle);
int start_ctl(unsigned int gid);
int fake_agent_suite_init(void);
int fake_agent_suite_clean(void);

void expect_vm2_opts(const struct gr_vm_opts *o, uint32_t uid, uint32_t gid);
int python_json_ok(const char *text);

#endif /* GR_FAKE_AGENT_H */
