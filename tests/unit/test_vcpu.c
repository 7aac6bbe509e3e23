// SPDX-License-Identifier: GPL-2.0
/*
 * test_vcpu.c - the host side of a guest's time (host-agent/agent/vcpu.c):
 * the parsers of /proc/<pid>/task/<tid>/{schedstat,stat,comm} on made-up
 * lines and on the real files of this test's own threads, named as
 * QEMU names its vCPU threads: found by name, their run time is the
 * thread's CPU clock, two of them pinned to one CPU wait for each other
 * (steal), one "ALL CPUs/TCG" thread is single-threaded TCG; QMP's
 * monitor found in QEMU command lines, and QMP query-cpus-fast answers
 * (made-up ones, hostile ones) checked against this test's own threads
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gr_test.h"
#include "vcpu.h"

#define MS		(1000ULL * 1000)

static void test_schedstat_lines(void)
{
	static const char *const bad[] = {
		"", "\n", "x 1 2", "1", "1 ", "1 x 2", "-1 2 3", "1  2 3",
		"1 2x 3", "99999999999999999999999 1 1",
	};
	uint64_t run = 7, delay = 7;
	size_t i;

	CU_ASSERT_EQUAL(vcpu_parse_schedstat("133626779 19696340 775\n",
					     &run, &delay), 0);
	CU_ASSERT_EQUAL(run, 133626779ULL);
	CU_ASSERT_EQUAL(delay, 19696340ULL);
	CU_ASSERT_EQUAL(vcpu_parse_schedstat("0 0 0", &run, &delay), 0);
	CU_ASSERT_EQUAL(run, 0);
	CU_ASSERT_EQUAL(delay, 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		run = delay = 7;
		CU_ASSERT_EQUAL(vcpu_parse_schedstat(bad[i], &run, &delay),
				-EINVAL);
		CU_ASSERT_EQUAL(run, 7);
	}
}

static void test_stat_lines(void)
{
	/* a name with spaces and parentheses: fields count from its last ')' */
	static const char line[] =
		"4242 (CPU 1/TCG) x) R 1 4242 4242 0 -1 4194368 1 0 0 0 5 6 0 0 "
		"20 0 9 0 100 1000 200 18446744073709551615 1 1 0 0 0 0 0 "
		"4096 0 0 0 0 -1 3 0 0 0 0 0\n";
	static const char *const bad[] = {
		"", "4242 no parens", "1 (a) R 1 2 3",
		"1 (a) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 "
		"21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 x 0",
		"1 (a) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 "
		"21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 99999 0",
	};
	int cpu = -7;
	size_t i;

	CU_ASSERT_EQUAL(vcpu_parse_stat_cpu(line, &cpu), 0);
	CU_ASSERT_EQUAL(cpu, 3);
	CU_ASSERT_EQUAL(vcpu_parse_stat_cpu("1 (a) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36",
					    &cpu), 0);
	CU_ASSERT_EQUAL(cpu, 36);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		cpu = -7;
		CU_ASSERT_EQUAL(vcpu_parse_stat_cpu(bad[i], &cpu), -EINVAL);
		CU_ASSERT_EQUAL(cpu, -7);
	}
}

static void test_thread_names(void)
{
	static const char *const others[] = {
		"qemu-system-x86", "CPU x/TCG", "CPU 1", "CPU 1/", "CPU /KVM",
		"CPU 1/T G", "CPU 99999999/KVM", "ALL CPUs/", "IO mon_iothread",
		"call_rcu", "CPU 1/TCGTOOLONG",
	};
	char accel[8];
	size_t i;
	int idx;

	CU_ASSERT_EQUAL(vcpu_parse_name("CPU 0/TCG\n", &idx, accel,
					sizeof(accel)), 1);
	CU_ASSERT_EQUAL(idx, 0);
	CU_ASSERT_STRING_EQUAL(accel, "TCG");
	CU_ASSERT_EQUAL(vcpu_parse_name("CPU 12/KVM", &idx, accel,
					sizeof(accel)), 1);
	CU_ASSERT_EQUAL(idx, 12);
	CU_ASSERT_STRING_EQUAL(accel, "KVM");
	CU_ASSERT_EQUAL(vcpu_parse_name("ALL CPUs/TCG\n", &idx, accel,
					sizeof(accel)), 1);
	CU_ASSERT_EQUAL(idx, GR_VCPU_ALL);
	for (i = 0; i < ARRAY_SIZE(others); i++)
		CU_ASSERT_EQUAL(vcpu_parse_name(others[i], &idx, accel,
						sizeof(accel)), 0);
}

/* ---- real threads of this process ------------------------------------- */

struct worker {
	pthread_t th;
	const char *name;
	int cpu;			/* pin to this CPU, -1: do not */
	atomic_int tid;
	atomic_bool spin;		/* burn CPU while set */
	atomic_bool quit;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	cpu_set_t set;

	pthread_setname_np(pthread_self(), w->name);
	if (w->cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	atomic_store(&w->tid, gettid());
	while (!atomic_load(&w->quit)) {
		if (!atomic_load(&w->spin))
			usleep(1000);
	}
	return NULL;
}

static void start(struct worker *w, const char *name, int cpu, bool spin)
{
	w->name = name;
	w->cpu = cpu;
	atomic_store(&w->tid, 0);
	atomic_store(&w->spin, spin);
	atomic_store(&w->quit, false);
	CU_ASSERT_FATAL(pthread_create(&w->th, NULL, worker_main, w) == 0);
	while (!atomic_load(&w->tid))
		usleep(1000);
}

static void stop(struct worker *w)
{
	atomic_store(&w->quit, true);
	pthread_join(w->th, NULL);
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t thread_cpu_ns(pthread_t th)
{
	struct timespec ts;
	clockid_t clk;

	if (pthread_getcpuclockid(th, &clk) || clock_gettime(clk, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* two threads named as QEMU's vCPUs: found, mapped, measured */
static void test_own_vcpu_threads(void)
{
	struct worker w[2];
	struct gr_vcpus v;
	uint64_t before, after;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	memset(&v, 0, sizeof(v));
	start(&w[0], "CPU 1/TCG", -1, true);
	start(&w[1], "CPU 0/TCG", -1, false);
	sleep_ms(150);
	vcpu_tick(&v, getpid(), now_ns(), "test");
	CU_ASSERT_EQUAL(v.err, 0);
	CU_ASSERT_STRING_EQUAL(vcpu_threading(&v), "multi");
	CU_ASSERT_STRING_EQUAL(v.accel, "TCG");
	CU_ASSERT_EQUAL_FATAL(v.n, 2);
	/* by cpu-index, whatever the order of creation */
	CU_ASSERT_EQUAL(v.cpu[0].index, 0);
	CU_ASSERT_EQUAL(v.cpu[0].tid, atomic_load(&w[1].tid));
	CU_ASSERT_EQUAL(v.cpu[1].index, 1);
	CU_ASSERT_EQUAL(v.cpu[1].tid, atomic_load(&w[0].tid));
	CU_ASSERT(v.cpu[1].host_cpu >= 0 && v.cpu[1].host_cpu < ncpu);
	CU_ASSERT(v.others >= 1);	/* the test's main thread */
	CU_ASSERT(v.others_run_ns > 0);

	/*
	 * schedstat's run time is the thread's CPU clock: read between two
	 * reads of that clock, it lies between them
	 */
	atomic_store(&w[0].spin, false);
	sleep_ms(20);
	before = thread_cpu_ns(w[0].th);
	vcpu_tick(&v, getpid(), now_ns() + 2000 * MS, "test");
	after = thread_cpu_ns(w[0].th);
	CU_ASSERT(v.cpu[1].run_ns > 0);
	CU_ASSERT(v.cpu[1].run_ns + 5 * MS >= before);
	CU_ASSERT(v.cpu[1].run_ns <= after + 5 * MS);
	CU_ASSERT(v.cpu[0].run_ns < v.cpu[1].run_ns);

	/* QEMU gone: nothing known */
	vcpu_tick(&v, 0, now_ns(), "test");
	CU_ASSERT_EQUAL(v.n, 0);
	CU_ASSERT_STRING_EQUAL(vcpu_threading(&v), "none");
	stop(&w[0]);
	stop(&w[1]);
}

/* a vCPU thread that shares its CPU with a busy thread waits: steal */
static void test_steal_of_a_shared_cpu(void)
{
	struct worker w[2];
	struct gr_vcpus v;
	uint64_t t0, d0, d1;
	cpu_set_t set;
	int cpu = 0;

	/* the first CPU this test may run on */
	CU_ASSERT_FATAL(sched_getaffinity(0, sizeof(set), &set) == 0);
	while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &set))
		cpu++;
	memset(&v, 0, sizeof(v));
	start(&w[0], "CPU 0/KVM", cpu, false);
	start(&w[1], "busy", cpu, false);
	vcpu_tick(&v, getpid(), t0 = now_ns(), "test");
	CU_ASSERT_EQUAL_FATAL(v.n, 1);
	d0 = v.cpu[0].delay_ns;
	atomic_store(&w[0].spin, true);
	atomic_store(&w[1].spin, true);
	sleep_ms(400);
	/* a sample (not a scan): one second of the loop's time later */
	vcpu_tick(&v, getpid(), t0 + 1000 * MS, "test");
	d1 = v.cpu[0].delay_ns;
	stop(&w[1]);
	stop(&w[0]);
	CU_ASSERT_EQUAL(v.cpu[0].tid, atomic_load(&w[0].tid));
	CU_ASSERT_STRING_EQUAL(v.accel, "KVM");
	/* half of 400 ms if alone with the busy thread; at least 50 */
	CU_ASSERT(d1 - d0 >= 50 * MS);
	printf("\n    steal of a vCPU thread sharing CPU %d with a busy thread for 400 ms: %.0f ms\n",
	       cpu, (double)(d1 - d0) / 1e6);
}

/* single-threaded TCG: one thread, the VM's steal */
static void test_all_cpus_thread(void)
{
	struct worker w;
	struct gr_vcpus v;

	memset(&v, 0, sizeof(v));
	start(&w, "ALL CPUs/TCG", -1, false);
	vcpu_tick(&v, getpid(), now_ns(), "test");
	CU_ASSERT_EQUAL_FATAL(v.n, 1);
	CU_ASSERT_EQUAL(v.cpu[0].index, GR_VCPU_ALL);
	CU_ASSERT(v.all_cpus);
	CU_ASSERT_STRING_EQUAL(vcpu_threading(&v), "single");
	stop(&w);
	/* the thread is gone: the next sample asks for a scan, which finds none */
	vcpu_tick(&v, getpid(), now_ns() + 1000 * MS, "test");
	CU_ASSERT(v.rescan);
	vcpu_tick(&v, getpid(), now_ns() + 1000 * MS, "test");
	CU_ASSERT_EQUAL(v.n, 0);
	CU_ASSERT_STRING_EQUAL(vcpu_threading(&v), "unnamed");
}

/* a pid whose /proc cannot be read: said, not fatal */
static void test_unreadable_pid(void)
{
	struct gr_vcpus v;

	memset(&v, 0, sizeof(v));
	vcpu_tick(&v, 0x3ffffff0, now_ns(), "test");
	CU_ASSERT_EQUAL(v.err, -ENOENT);
	CU_ASSERT(v.told);
	CU_ASSERT_STRING_EQUAL(vcpu_threading(&v), "unreadable");
	CU_ASSERT_EQUAL(v.n, 0);
}

/* a command line as /proc/<pid>/cmdline holds it: its arguments + NUL */
#define CMDLINE(s)	(s), sizeof(s) - 1

static void test_qmp_cmdline(void)
{
	static const struct {
		const char *args;
		size_t len;
		const char *path;
	} ok[] = {
		{ CMDLINE("qemu\0-qmp\0unix:/run/q.sock,server=on,wait=off\0"),
		  "/run/q.sock" },
		{ CMDLINE("qemu\0-S\0--qmp\0unix:/a,,b,server,nowait\0"),
		  "/a,b" },
		{ CMDLINE("qemu\0-qmp-pretty\0unix:path=/p,server=on\0"),
		  "/p" },
		{ CMDLINE("qemu\0-qmp\0tcp:127.0.0.1:4444,server\0-qmp\0unix:/second,server\0"),
		  "/second" },
		/* -mon before its -chardev, a readline monitor first */
		{ CMDLINE("qemu\0-mon\0chardev=rl\0-mon\0cm,mode=control,pretty=on\0"
			  "-chardev\0socket,id=rl,path=/rl\0"
			  "-chardev\0socket,path=/cm.sock,server=on,wait=off,id=cm\0"),
		  "/cm.sock" },
		{ CMDLINE("qemu\0-chardev\0backend=socket,id=m,path=/b\0-mon\0chardev=m,mode=control\0"),
		  "/b" },
	};
	static const struct {
		const char *args;
		size_t len;
	} none[] = {
		{ CMDLINE("qemu\0-name\0vm,debug-threads=off\0") },
		{ CMDLINE("qemu\0-qmp\0tcp:127.0.0.1:4444,server\0") },
		{ CMDLINE("qemu\0-qmp\0unix:\0") },
		{ CMDLINE("qemu\0-qmp\0") },
		{ CMDLINE("qemu\0-mon\0chardev=m\0-chardev\0socket,id=m,path=/rl\0") },
		{ CMDLINE("qemu\0-mon\0chardev=x,mode=control\0-chardev\0socket,id=m,path=/m\0") },
		{ CMDLINE("qemu\0-mon\0chardev=m,mode=control\0-chardev\0pty,id=m,path=/m\0") },
		{ CMDLINE("qemu\0-mon\0chardev=m,mode=control\0-chardev\0socket,idx=m,path=/m\0") },
		{ "qemu\0-qmp\0unix:/no-nul", 19 },
		{ "", 0 },
	};
	char path[108], big[300], small[4];
	size_t i;
	int n;

	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		memset(path, 'x', sizeof(path));
		CU_ASSERT_EQUAL(vcpu_qmp_path(ok[i].args, ok[i].len, path,
					      sizeof(path)), 0);
		CU_ASSERT_STRING_EQUAL(path, ok[i].path);
	}
	for (i = 0; i < ARRAY_SIZE(none); i++)
		CU_ASSERT_EQUAL(vcpu_qmp_path(none[i].args, none[i].len, path,
					      sizeof(path)), -ENOENT);
	CU_ASSERT_EQUAL(vcpu_qmp_path(ok[0].args, ok[0].len, small,
				      sizeof(small)), -ENAMETOOLONG);
	n = snprintf(big, sizeof(big), "qemu%c-chardev%csocket,id=m,path=/%0200d%c-mon%cm,mode=control%c",
		     0, 0, 0, 0, 0, 0);
	CU_ASSERT_EQUAL(vcpu_qmp_path(big, (size_t)n + 1, path, sizeof(path)),
			-ENOENT);	/* a path beyond any socket's is no chardev */
}

/* QMP query-cpus-fast answers: the tids must be this test's threads */
static void test_qmp_answers(void)
{
	static const char *const bad[] = {
		"", "[]", "nonsense", "{\"return\": {}}", "{\"return\": 7}",
		"{\"return\": [7]}", "{\"return\": [{}]}",
		"{\"return\": [{\"cpu-index\": \"0\", \"thread-id\": %d}]}",
		"{\"return\": [{\"cpu-index\": 0, \"thread-id\": \"%d\"}]}",
		"{\"return\": [{\"cpu-index\": 0.5, \"thread-id\": %d}]}",
		"{\"return\": [{\"cpu-index\": -1, \"thread-id\": %d}]}",
		"{\"return\": [{\"cpu-index\": 99999999999999999999, \"thread-id\": %d}]}",
		"{\"return\": [{\"cpu-index\": 0, \"thread-id\": 4294967297}]}",
		"{\"return\": [{\"cpu-index\": 0, \"thread-id\": -%d}]}",
		"{\"return\": [{\"cpu-index\": 0, \"thread-id\": %d}, {\"cpu-index\": 0, \"thread-id\": %d}]}",
		"{\"return\": [{\"cpu-index\": 0, \"cpu-index\": 1, \"thread-id\": %d}]}",
	};
	struct gr_vcpu cpu[GR_VCPU_MAX];
	struct worker w[2];
	char buf[512], *big;
	int me = gettid(), t0, t1, n;
	size_t i, len;

	start(&w[0], "worker 0", -1, false);
	start(&w[1], "worker 1", -1, false);
	t0 = atomic_load(&w[0].tid);
	t1 = atomic_load(&w[1].tid);
	snprintf(buf, sizeof(buf),
		 "{\"return\": [{\"cpu-index\": 1, \"thread-id\": %d, \"qom-path\": \"/machine/unattached/device[1]\", \"target\": \"x86_64\"}, "
		 "{\"thread-id\": %d, \"cpu-index\": 0, \"props\": {\"core-id\": 0}}]}",
		 t1, t0);
	CU_ASSERT_EQUAL_FATAL(vcpu_qmp_parse_cpus(buf, getpid(), cpu, GR_VCPU_MAX), 2);
	CU_ASSERT_EQUAL(cpu[0].index, 1);
	CU_ASSERT_EQUAL(cpu[0].tid, t1);
	CU_ASSERT_EQUAL(cpu[1].index, 0);
	CU_ASSERT_EQUAL(cpu[1].tid, t0);
	/* room for one */
	CU_ASSERT_EQUAL(vcpu_qmp_parse_cpus(buf, getpid(), cpu, 1), 1);
	/* a thread of another process (init's) is left out, ours is kept */
	snprintf(buf, sizeof(buf),
		 "{\"return\": [{\"cpu-index\": 0, \"thread-id\": 1}, {\"cpu-index\": 1, \"thread-id\": %d}]}",
		 t0);
	CU_ASSERT_EQUAL_FATAL(vcpu_qmp_parse_cpus(buf, getpid(), cpu, GR_VCPU_MAX), 1);
	CU_ASSERT_EQUAL(cpu[0].index, 1);
	CU_ASSERT_EQUAL(cpu[0].tid, t0);
	/* every vCPU on one thread: single-threaded TCG */
	snprintf(buf, sizeof(buf),
		 "{\"return\": [{\"cpu-index\": 0, \"thread-id\": %d}, {\"cpu-index\": 1, \"thread-id\": %d}]}",
		 t0, t0);
	CU_ASSERT_EQUAL_FATAL(vcpu_qmp_parse_cpus(buf, getpid(), cpu, GR_VCPU_MAX), 1);
	CU_ASSERT_EQUAL(cpu[0].index, GR_VCPU_ALL);
	/* some share a thread, some not */
	snprintf(buf, sizeof(buf),
		 "{\"return\": [{\"cpu-index\": 0, \"thread-id\": %d}, {\"cpu-index\": 1, \"thread-id\": %d}, {\"cpu-index\": 2, \"thread-id\": %d}]}",
		 t0, t1, t0);
	CU_ASSERT_EQUAL(vcpu_qmp_parse_cpus(buf, getpid(), cpu, GR_VCPU_MAX), -EPROTO);
	CU_ASSERT_EQUAL(vcpu_qmp_parse_cpus("{\"error\": {\"class\": \"CommandNotFound\", \"desc\": \"x\"}}",
					    getpid(), cpu, GR_VCPU_MAX), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(vcpu_qmp_parse_cpus("{\"return\": []}", getpid(), cpu,
					    GR_VCPU_MAX), 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(buf, sizeof(buf), bad[i], me, me);
		CU_ASSERT_EQUAL(vcpu_qmp_parse_cpus(buf, getpid(), cpu,
						    GR_VCPU_MAX), -EPROTO);
	}
	/* a huge array: refused before its entries are looked at */
	len = 16 + 5000 * 3;
	big = malloc(len);
	CU_ASSERT_FATAL(big != NULL);
	n = snprintf(big, len, "{\"return\": [");
	for (i = 0; i < 5000; i++)
		n += snprintf(big + n, len - (size_t)n, "%s7", i ? "," : "");
	snprintf(big + n, len - (size_t)n, "]}");
	CU_ASSERT_EQUAL(vcpu_qmp_parse_cpus(big, getpid(), cpu, GR_VCPU_MAX), -EPROTO);
	free(big);
	stop(&w[0]);
	stop(&w[1]);
}

/* this test has no QMP monitor: said, the threads stay unnamed */
static void test_no_qmp_monitor(void)
{
	struct gr_vcpus v;

	memset(&v, 0, sizeof(v));
	vcpu_tick(&v, getpid(), now_ns(), "test");
	CU_ASSERT_EQUAL(v.err, 0);
	CU_ASSERT_EQUAL(v.qmp_err, -ENOENT);
	CU_ASSERT(v.qmp_told);
	CU_ASSERT(!v.from_qmp);
	CU_ASSERT_STRING_EQUAL(vcpu_threading(&v), "unnamed");
}

static const struct gr_test tests[] = {
	GR_TEST(test_schedstat_lines),
	GR_TEST(test_stat_lines),
	GR_TEST(test_thread_names),
	GR_TEST(test_own_vcpu_threads),
	GR_TEST(test_steal_of_a_shared_cpu),
	GR_TEST(test_all_cpus_thread),
	GR_TEST(test_unreadable_pid),
	GR_TEST(test_qmp_cmdline),
	GR_TEST(test_qmp_answers),
	GR_TEST(test_no_qmp_monitor),
};

int main(void)
{
	return gr_test_main("vcpu", tests, ARRAY_SIZE(tests), NULL, NULL);
}
