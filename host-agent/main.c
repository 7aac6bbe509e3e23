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

#include "crash.h"
#include "agent.h"
#include "cli.h"
#include "fleet_status.h"
#include "kvm_tsc.h"
#include "metrics.h"
#include "opts.h"
#include "ship.h"
#include "live.h"
#include "store.h"

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

/* once per loop iteration, before it waits (loop.c) */
static void before_wait(void *arg)
{
	vm_before_wait(arg);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: guestrelay agent [options]\n"
		"  --run-dir DIR         sockets (default " GR_DEFAULT_RUN_DIR ")\n"
		"  --store DIR           traces (default " GR_DEFAULT_STORE_DIR ")\n"
		"  --group NAME          group allowed on the control socket\n"
		"  --kvm-debugfs DIR     KVM's debugfs (default " GR_KVM_DEBUGFS "):\n"
		"                        the exact clock mapping of KVM guests\n"
		"                        reads their TSC offset and scaling\n"
		"                        there (needs root); \"\" = never\n"
		"  --metrics ADDR:PORT   serve Prometheus metrics at\n"
		"                        http://ADDR:PORT/metrics; ADDR is an\n"
		"                        IPv4 address or [IPv6] (127.0.0.1:9464,\n"
		"                        [::1]:9464, 0.0.0.0:9464 for any)\n"
		"  --ship URL[,URL...]   publish the store to NATS JetStream\n"
		"                        (nats://HOST:PORT, tls://HOST:PORT);\n"
		"                        closed chunks too, and retention keeps\n"
		"                        each until JetStream has it\n"
		"  --ship-prune DURABLE  delete a closed chunk once the collectors'\n"
		"                        durable consumer DURABLE acknowledged all\n"
		"                        its messages (guestrelay collect --durable,\n"
		"                        default guestrelay-collect)\n"
		"  --ship-creds FILE     NATS credentials: a .creds file, or\n"
		"                        lines user=/password=, token=, or\n"
		"                        nkey=/seed=FILE; ca=FILE for tls://\n"
		"  --ship-stream NAME    JetStream stream (default " GR_SHIP_DEFAULT_STREAM ")\n"
		"  --ship-replicas N     its replicas if it is created (default 1)\n"
		"  --live ADDR:PORT      serve every VM as an LTTng live session\n"
		"                        (babeltrace2 -i lttng-live\n"
		"                        net://ADDR:PORT/host/HOST/VM); no\n"
		"                        authentication: keep it on loopback\n"
		"  --ship-ack-timeout-ms MS  acks of a batch later than this:\n"
		"                        connect again, that server last (2000)\n"
		"  --nats-ping-ms MS     ping NATS servers this often (1000)\n"
		"  --nats-max-pings N    unanswered pings that drop a server (2)\n"
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
		"  --rotate-size BYTES   chunks: close one at BYTES (README)\n"
		"  --rotate-interval S   ... or after S seconds\n"
		"  --keep-chunks N       keep N closed chunks, delete older ones\n"
		"  --keep-bytes BYTES    keep BYTES of closed chunks\n"
		"  --verify on|off|stored\n"
		"                        check records on a private copy before\n"
		"                        storing (default on); off: zero copy;\n"
		"                        stored: zero copy, then check what was stored\n"
		"  --host-stream on|off  the host scheduler's view of QEMU's\n"
		"                        threads beside the trace (default on)\n"
		"  --owner UID[:GID]     owner of the VM's shared memory and socket\n"
		"VM options are those of vm-add, with the same bounds.\n"
		"VMs can also be added later: guestrelay vm-add NAME ...\n"
		"Fleet status (guestrelay fleet --help):\n%s", fleet_agent_usage);
}

static struct fleet_cfg fleet_opts;	/* --host, --fleet-* */

/* the vm-add options given for one VM (or, first, for every VM) */
struct vm_args {
	int argc;
	char **argv;
};

static int push_arg(struct vm_args *va, char *arg)
{
	char **n = realloc(va->argv, (size_t)(va->argc + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	n[va->argc++] = arg;
	va->argv = n;
	return 0;
}

/*
 * `--opt VALUE` or `--opt=VALUE` of the agent itself: *val receives the
 * value, *i moves past it. Return: 1 if @argv[*i] is @opt, 0 if not, -1
 * if its value is missing.
 */
static int agent_opt(int argc, char **argv, int *i, const char *opt,
		     char **val)
{
	size_t len = strlen(opt);
	char *arg = argv[*i];

	if (strncmp(arg, opt, len) || (arg[len] && arg[len] != '='))
		return 0;
	if (arg[len] == '=') {
		*val = arg + len + 1;
		return 1;
	}
	if (*i + 1 >= argc)
		return -1;
	*val = argv[++*i];
	return 1;
}

/* an ADDR:PORT option's value, checked; Return: 0, or -1 (said) */
static int addr_opt(const char *opt, const char *val, const char **out)
{
	struct sockaddr_storage ss;
	socklen_t len;

	*out = val;
	if (!gr_parse_addr(val, &ss, &len))
		return 0;
	fprintf(stderr, "guestrelay agent: %s: bad address '%s' (%s)\n", opt,
		val, GR_ADDR_HELP);
	return -1;
}

/*
 * The options of `agent`: its own, and per --vm the options of vm-add,
 * checked by the one VM option parser (ctl_parse_vm_add()), as `vm-add`,
 * the libvirt hook and metadata are. Options before any --vm apply to
 * every VM. Return: 0, 1 for --help, -1 on an error (said on stderr).
 */
static int agent_args(int argc, char **argv, struct gr_agent *a,
		      const char **metrics, const char **live,
		      struct gr_ship_cfg *ship,
		      struct gr_vm_opts **vms, unsigned int *nvms)
{
	struct vm_args all = { 0 }, *per = NULL, *cur = &all;
	unsigned int n = 0, k;
	char err[512], *val;
	struct group *gr;
	int i, r, ret = 0;

	for (i = 1; i < argc && !ret; i++) {
		char *arg = argv[i];

		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			ret = 1;
			break;
		}
		r = agent_opt(argc, argv, &i, "--run-dir", &val);
		if (r > 0) {
			snprintf(a->run_dir, sizeof(a->run_dir), "%s", val);
			continue;
		}
		if (!r && (r = agent_opt(argc, argv, &i, "--store", &val)) > 0) {
			snprintf(a->store_dir, sizeof(a->store_dir), "%s", val);
			continue;
		}
		if (!r && (r = agent_opt(argc, argv, &i, "--kvm-debugfs",
					 &val)) > 0) {
			snprintf(a->kvm_debugfs, sizeof(a->kvm_debugfs), "%s",
				 val);
			continue;
		}
		if (!r && (r = agent_opt(argc, argv, &i, "--group", &val)) > 0) {
			gr = getgrnam(val);
			if (!gr) {
				fprintf(stderr, "guestrelay agent: no group '%s'\n",
					val);
				ret = -1;
			}
			a->sock_gid = gr ? gr->gr_gid : a->sock_gid;
			continue;
		}
		if (!r && (r = agent_opt(argc, argv, &i, "--metrics",
					 &val)) > 0) {
			ret = addr_opt("--metrics", val, metrics);
			continue;
		}
		if (!r && (r = agent_opt(argc, argv, &i, "--live", &val)) > 0) {
			ret = addr_opt("--live", val, live);
			continue;
		}
		for (k = 0; !r && fleet_agent_opts[k]; k++)
			r = agent_opt(argc, argv, &i, fleet_agent_opts[k], &val);
		if (r > 0) {
			ret = fleet_agent_set(&fleet_opts, fleet_agent_opts[k - 1],
					      val);
			continue;
		}
		if (!r && (r = agent_opt(argc, argv, &i, "--ship", &val)) > 0) {
			ship->urls = val;
			continue;
		}
		if (!r && (r = agent_opt(argc, argv, &i, "--ship-creds",
					 &val)) > 0) {
			ship->creds = val;
			continue;
		}
		if (!r && (r = agent_opt(argc, argv, &i, "--ship-stream",
					 &val)) > 0) {
			ship->stream = val;
			continue;
		}
		if (!r && (r = agent_opt(argc, argv, &i, "--ship-replicas",
					 &val)) > 0) {
			ship->replicas = atoi(val);
			continue;
		}
		for (k = 0; !r && ship_agent_opts[k]; k++)
			r = agent_opt(argc, argv, &i, ship_agent_opts[k], &val);
		if (r > 0) {
			ret = ship_agent_set(ship, ship_agent_opts[k - 1], val,
					     err, sizeof(err)) ? -1 : 0;
			if (ret)
				fprintf(stderr, "guestrelay agent: %s\n", err);
			continue;
		}
		if (!r && (r = agent_opt(argc, argv, &i, "--vm", &val)) > 0) {
			struct vm_args *p = realloc(per, (n + 1) * sizeof(*p));

			if (!p) {
				ret = -1;
				break;
			}
			per = p;
			cur = &per[n++];
			memset(cur, 0, sizeof(*cur));
			ret = push_arg(cur, val) ? -1 : 0;
			continue;
		}
		if (r < 0) {
			fprintf(stderr, "guestrelay agent: %s needs a value\n",
				arg);
			ret = -1;
			break;
		}
		r = ctl_vm_opt_arity(arg);
		if (r < 0 || (r && i + 1 >= argc)) {
			fprintf(stderr, "guestrelay agent: %s '%s' (see --help)\n",
				r < 0 ? "unknown option" : "no value for", arg);
			ret = -1;
			break;
		}
		if (push_arg(cur, arg) || (r && push_arg(cur, argv[++i])))
			ret = -1;
	}

	*vms = ret ? NULL : calloc(n ? n : 1, sizeof(**vms));
	if (!ret && !*vms)
		ret = -1;
	for (k = 0; !ret && k < n; k++) {
		struct vm_args one = { 0 };
		int j;

		/* the VM's own options after the common ones: they win */
		ret = push_arg(&one, per[k].argv[0]) ? -1 : 0;
		for (j = 0; !ret && j < all.argc; j++)
			ret = push_arg(&one, all.argv[j]) ? -1 : 0;
		for (j = 1; !ret && j < per[k].argc; j++)
			ret = push_arg(&one, per[k].argv[j]) ? -1 : 0;
		if (!ret && ctl_parse_vm_add(&(*vms)[k], one.argc, one.argv,
					     CTL_OPTS_NAMES, err, sizeof(err))) {
			fprintf(stderr, "guestrelay agent: --vm %s: %s\n",
				per[k].argv[0], err);
			ret = -1;
		}
		free(one.argv);
	}
	*nvms = ret ? 0 : n;
	if (ret) {
		free(*vms);
		*vms = NULL;
	}
	for (k = 0; k < n; k++)
		free(per[k].argv);
	free(per);
	free(all.argv);
	return ret;
}

/* status and /metrics show each VM's shipping backlog (gr_vm_ship_hook) */
static void vm_ship_backlog(const char *vm, struct gr_vm_ship *out)
{
	struct gr_ship_backlog bl;

	ship_backlog(vm, &bl);
	out->enabled = bl.enabled;
	out->connected = bl.connected;
	out->backlog_bytes = bl.bytes;
	out->backlog_packets = bl.packets;
	out->oldest_s = bl.oldest_s;
}

/* fleet status entries carry the shipper's backlog (fleet_backlog_hook) */
static bool fleet_ship_backlog(const struct gr_vm *vm, struct fleet_backlog *b,
			       void *arg)
{
	struct gr_ship_backlog sb;

	(void)arg;
	if (ship_backlog(vm_name(vm), &sb) || !sb.enabled)
		return false;
	b->bytes = sb.bytes;
	b->packets = sb.packets;
	b->oldest_age_ms = (int64_t)(sb.oldest_s * 1000.0);
	return true;
}

static int agent_main(int argc, char **argv)
{
	static struct gr_agent a;
	struct gr_vm_opts *vms = NULL;
	struct sig_watch sw = { .op.done = sig_done, .agent = &a };
	struct gr_metrics *metrics = NULL;
	struct fleet *fleet = NULL;
	const char *metrics_addr = NULL, *live_addr = NULL;
	struct gr_ship_cfg ship = {
		.stream = GR_SHIP_DEFAULT_STREAM, .replicas = 1,
	};
	unsigned int nvms = 0, i;
	char err[512];
	sigset_t mask;
	int ret;

	snprintf(a.run_dir, sizeof(a.run_dir), "%s", GR_DEFAULT_RUN_DIR);
	snprintf(a.kvm_debugfs, sizeof(a.kvm_debugfs), "%s", GR_KVM_DEBUGFS);
	snprintf(a.store_dir, sizeof(a.store_dir), "%s", GR_DEFAULT_STORE_DIR);
	a.sock_gid = (unsigned int)-1;
	a.store_fd = -1;
	fleet_cfg_init(&fleet_opts);
	ret = agent_args(argc, argv, &a, &metrics_addr, &live_addr, &ship,
			 &vms, &nvms);
	if (ret > 0) {
		usage(stdout);
		return 0;
	}
	if (ret)
		return 2;
	/* one host name and, unless told otherwise, one NATS for both */
	ship.host = fleet_opts.host;
	if (!fleet_opts.urls && ship.urls) {
		fleet_opts.urls = ship.urls;
		fleet_opts.creds = ship.creds;
	}
	if (ship.urls) {
		gr_vm_ship_hook = vm_ship_backlog;
		fleet_backlog_hook = fleet_ship_backlog;
		fleet_backlog_arg = NULL;
	}
	if ((ship.urls || ship.creds) &&
	    ship_check_cfg(&ship, err, sizeof(err))) {
		fprintf(stderr, "guestrelay agent: %s\n", err);
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
	a.loop.before_wait = before_wait;
	a.loop.before_wait_arg = &a;
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
	/* after the signals are blocked: its threads inherit the mask */
	ship.store_dir = a.store_dir;
	if (ship.urls && ship_start(&ship, err, sizeof(err))) {
		syslog(LOG_ERR, "%s", err);
		return 1;
	}
	if (live_addr) {
		struct gr_live_cfg lc = {
			.addr = live_addr, .store_dir = a.store_dir,
			.host = fleet_opts.host,
		};

		if (live_start(&lc, err, sizeof(err))) {
			syslog(LOG_ERR, "live: %s", err);
			return 1;
		}
	}
	if (ctl_init(&a))
		return 1;	/* ctl_init() said why */
	if (metrics_addr &&
	    metrics_init(&a, metrics_addr, &metrics, err, sizeof(err))) {
		syslog(LOG_ERR, "%s", err);
		ctl_finish(&a);
		return 1;
	}
	if (fleet_init(&a, &fleet_opts, &fleet, err, sizeof(err))) {
		syslog(LOG_ERR, "fleet status: %s", err);
		metrics_finish(metrics);
		ctl_finish(&a);
		return 1;
	}
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
		metrics_count_pass(metrics, ret);
		if (ret < 0) {
			syslog(LOG_ERR, "io_uring: %s", strerror(-ret));
			break;
		}
	}

	fleet_finish(fleet);
	metrics_finish(metrics);
	/* close every VM's session once its writes and fsyncs completed (5 s
	 * at most) */
	ctl_finish(&a);
	{
		struct gr_vm *vm, **all;
		unsigned int n = 0;

		/* spec 18.4 Q3: every VM's probes asked at once, one wait */
		for (vm = vm_next(&a, NULL); vm; vm = vm_next(&a, vm))
			n++;
		all = calloc(n ? n : 1, sizeof(*all));
		if (all) {
			n = 0;
			for (vm = vm_next(&a, NULL); vm; vm = vm_next(&a, vm))
				all[n++] = vm;
			vm_probes_drop(all, n);
			free(all);
		}
		while ((vm = vm_next(&a, NULL)))
			vm_remove(vm);
	}
	for (i = 0; i < 500 && (a.vms || a.syncs); i++)
		gr_loop_run_once(&a.loop, 10000000ULL);
	if (a.vms || a.syncs)
		syslog(LOG_WARNING, "writes still in flight at exit");
	gr_loop_finish(&a.loop);
	live_stop();
	ship_stop();
	close(sw.fd);
	close(a.store_fd);
	return 0;
}

int main(int argc, char **argv)
{
	gr_crash_report_install();
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
