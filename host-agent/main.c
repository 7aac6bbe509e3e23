// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - `guestrelay agent`: arguments, start-up and the loop
 *
 * Every other subcommand is the CLI (cli.c). The agent runs in the
 * foreground (systemd and libvirt manage it), logs to syslog and stderr,
 * and turns SIGINT/SIGTERM into a loop event (signalfd): VMs are closed
 * cleanly, their shared memory files are kept so that a new agent resumes
 * the running guests, and the sockets are removed.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "agent.h"

struct sig_watch {
	struct gr_op op;
	struct gr_agent *agent;
	int fd;
};

static void sig_done(struct gr_op *op, int res, unsigned int flags)
{
	struct sig_watch *w = (struct sig_watch *)op;
	struct signalfd_siginfo si;

	(void)flags;
	if (res > 0 && read(w->fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			syslog(LOG_INFO, "SIGHUP: nothing to reload");
		} else {
			syslog(LOG_INFO, "%s: stopping",
			       strsignal((int)si.ssi_signo));
			w->agent->stopping = true;
			return;
		}
	}
	gr_loop_poll(&w->agent->loop, &w->op, w->fd, POLLIN);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: guestrelay agent [options]\n"
		"  --run-dir DIR         sockets (default " GR_DEFAULT_RUN_DIR ")\n"
		"  --store DIR           traces (default " GR_DEFAULT_STORE_DIR ")\n"
		"  --group NAME          group allowed on the control socket\n"
		"  --vm NAME             serve a VM from the start (repeatable); the\n"
		"                        options below apply to the --vm before them,\n"
		"                        or, before any --vm, to every VM\n"
		"  --plain               ivshmem-plain device (no doorbells)\n"
		"  --size BYTES          shared memory size (power of two)\n"
		"  --mode stream|flight  recording mode\n"
		"  --events LIST         events to record (names, globs, all)\n"
		"  --subbuf-size BYTES   sub-buffer size wish\n"
		"  --subbufs N           sub-buffers per CPU wish\n"
		"  --switch-timer-ms MS  deliver partial sub-buffers after MS\n"
		"  --quota BYTES         disk quota of the VM\n"
		"VMs can also be added later: guestrelay vm-add NAME ...\n");
}

static uint64_t parse_size(const char *s, int *bad)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	switch (*end) {
	case 'k': case 'K':
		v <<= 10; end++; break;
	case 'm': case 'M':
		v <<= 20; end++; break;
	case 'g': case 'G':
		v <<= 30; end++; break;
	}
	if (*end || end == s)
		*bad = 1;
	return v;
}

static int agent_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "run-dir", required_argument, NULL, 'r' },
		{ "store", required_argument, NULL, 's' },
		{ "group", required_argument, NULL, 'g' },
		{ "vm", required_argument, NULL, 'v' },
		{ "plain", no_argument, NULL, 'p' },
		{ "size", required_argument, NULL, 'S' },
		{ "mode", required_argument, NULL, 'm' },
		{ "events", required_argument, NULL, 'e' },
		{ "subbuf-size", required_argument, NULL, 'b' },
		{ "subbufs", required_argument, NULL, 'n' },
		{ "switch-timer-ms", required_argument, NULL, 't' },
		{ "quota", required_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct gr_agent a;
	struct gr_vm_opts defaults = { .mode = GR_MODE_STREAM };
	struct gr_vm_opts *vms = NULL, *o = &defaults;
	struct sig_watch sw = { .op.done = sig_done, .agent = &a };
	unsigned int nvms = 0, i;
	char err[512];
	sigset_t mask;
	int c, bad = 0, ret;
	struct group *gr;

	snprintf(a.run_dir, sizeof(a.run_dir), "%s", GR_DEFAULT_RUN_DIR);
	snprintf(a.store_dir, sizeof(a.store_dir), "%s", GR_DEFAULT_STORE_DIR);
	a.sock_gid = (unsigned int)-1;
	a.store_fd = -1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			snprintf(a.run_dir, sizeof(a.run_dir), "%s", optarg);
			break;
		case 's':
			snprintf(a.store_dir, sizeof(a.store_dir), "%s", optarg);
			break;
		case 'g':
			gr = getgrnam(optarg);
			if (!gr) {
				fprintf(stderr, "guestrelay agent: no group '%s'\n", optarg);
				return 2;
			}
			a.sock_gid = gr->gr_gid;
			break;
		case 'v':
			vms = realloc(vms, (nvms + 1) * sizeof(*vms));
			if (!vms)
				return 1;
			vms[nvms] = defaults;
			snprintf(vms[nvms].name, sizeof(vms[nvms].name), "%s", optarg);
			o = &vms[nvms++];
			break;
		case 'p':
			o->plain = true;
			break;
		case 'S':
			o->shm_size = parse_size(optarg, &bad);
			break;
		case 'm':
			if (!strcmp(optarg, "stream"))
				o->mode = GR_MODE_STREAM;
			else if (!strcmp(optarg, "flight"))
				o->mode = GR_MODE_FLIGHT;
			else
				bad = 1;
			break;
		case 'e':
			snprintf(o->events, sizeof(o->events), "%s", optarg);
			break;
		case 'b':
			o->subbuf_size = (uint32_t)parse_size(optarg, &bad);
			break;
		case 'n':
			o->n_subbufs = (uint32_t)parse_size(optarg, &bad);
			break;
		case 't':
			o->switch_timer_us = (uint32_t)parse_size(optarg, &bad) * 1000;
			break;
		case 'q':
			o->quota = parse_size(optarg, &bad);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (bad || optind != argc) {
		fprintf(stderr, "guestrelay agent: invalid arguments (see --help)\n");
		free(vms);
		return 2;
	}

	openlog("guestrelay", LOG_PID | LOG_PERROR, LOG_DAEMON);
	umask(027);
	if (mkdir(a.run_dir, 0755) && errno != EEXIST) {
		syslog(LOG_ERR, "cannot create %s: %m", a.run_dir);
		return 1;
	}
	ret = store_open(a.store_dir, &a.store_fd);
	if (ret) {
		syslog(LOG_ERR, "cannot open the store %s: %s", a.store_dir,
		       strerror(-ret));
		return 1;
	}
	ret = gr_loop_init(&a.loop, 1024);
	if (ret) {
		syslog(LOG_ERR, "cannot set up io_uring: %s", strerror(-ret));
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sw.fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sw.fd < 0) {
		syslog(LOG_ERR, "signalfd: %m");
		return 1;
	}
	gr_loop_poll(&a.loop, &sw.op, sw.fd, POLLIN);
	if (ctl_init(&a))
		return 1;	/* ctl_init() said why */
	for (i = 0; i < nvms; i++) {
		struct gr_vm *vm;

		ret = vm_add(&a, &vms[i], &vm, err, sizeof(err));
		if (ret)
			syslog(LOG_ERR, "%s: %s", vms[i].name, err);
	}
	free(vms);
	syslog(LOG_INFO, "guestrelay %s: control socket %s/%s, traces in %s",
	       GR_VERSION, a.run_dir, GR_CTL_SOCK_NAME, a.store_dir);

	while (!a.stopping) {
		ret = gr_loop_run_once(&a.loop, 0);
		if (ret < 0) {
			syslog(LOG_ERR, "io_uring: %s", strerror(-ret));
			break;
		}
	}

	/* close every VM's session once its writes completed (5 s at most) */
	ctl_finish(&a);
	{
		struct gr_vm *vm;

		while ((vm = vm_next(&a, NULL)))
			vm_remove(vm);
	}
	for (i = 0; i < 500 && a.vms; i++)
		gr_loop_run_once(&a.loop, 10000000ULL);
	if (a.vms)
		syslog(LOG_WARNING, "writes still in flight at exit");
	gr_loop_finish(&a.loop);
	close(sw.fd);
	close(a.store_fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "agent"))
		return agent_main(argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "--version") ||
			  !strcmp(argv[1], "version"))) {
		printf("guestrelay %s (ABI %d.%d)\n", GR_VERSION, GR_ABI_MAJOR,
		       GR_ABI_MINOR);
		return 0;
	}
	return cli_main(argc - 1, argv + 1);
}
