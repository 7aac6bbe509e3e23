// SPDX-License-Identifier: GPL-2.0
/*
 * grbench.ko: per-event cost of the probes attached to a tracepoint
 *
 * A like-for-like measure of tracers inside one guest. The probes that
 * guestrelay, ftrace, both or neither attached to a tracepoint are called
 * the way the tracepoint calls them (the __traceiter_*() loop of
 * include/linux/tracepoint.h: load tp->funcs, call each func with its
 * data, stop at the entry whose func is NULL), CALLS times in a row, with
 * the same prepared arguments whatever is attached. The time spent in
 * those calls divided by CALLS is the cost of one event. Only the set of
 * attached probes differs between variants; with nothing attached the
 * loop itself is measured.
 *
 *   write "TARGET CALLS" to /sys/kernel/debug/grbench/run   run it now
 *   read /sys/kernel/debug/grbench/run                      the last result
 *   write "TARGET CALLS" to /sys/kernel/debug/grbench/count the same calls
 *                    one by one between the markers of tcgcount.so, the
 *                    QEMU plugin that counts instructions, memory accesses
 *                    and atomics (tests/bench/tcgcount); reading it (or
 *                    run) gives the result with count=K, the plugin's
 *                    run K, and ns of no meaning
 *   read /sys/kernel/debug/grbench/probes                   what is attached
 *   write ID to /sys/kernel/debug/grbench/perf   a perf counter on CPU 0
 *                    on trace event ID (its tracefs id), made as
 *                    guestrelay's anyevent= path makes its counters, with
 *                    an overflow handler that does nothing: perf's stage
 *                    of the event alone (bench_anyevent.sh); 0 releases it
 *
 * The result is one line:
 *
 *   target=T calls=N ns=TOTAL cpu=C changed=0|1 probes=P funcs=F,F
 *
 * ns: nanoseconds inside the timed chunks (ktime_get_ns()); cpu: where the
 * first chunk ran; probes: how many probes each call went through; funcs:
 * those probes as %ps prints them ("gr_probe_sched_switch [guestrelay]");
 * changed=1: the attached probes changed during the run, which makes the
 * result meaningless.
 *
 * The calls run in chunks of GRB_CHUNK with preemption and local
 * interrupts off, each chunk timed on its own: no interrupt handler and
 * no other task lands inside the timed region, for every variant alike,
 * and interrupts are never held off for longer than one chunk (a few ms
 * under TCG). Between chunks the writer may be rescheduled or migrated.
 *
 * Arguments, fixed for all variants:
 *
 *   sched_switch        preempt false, prev current, next init_task (the
 *                       idle task of CPU 0), prev_state TASK_RUNNING
 *   sys_enter           current's pt_regs and their syscall number (the
 *                       write(2) that started the run)
 *   irq_handler_exit    irq 0, a static irqaction "grbench", IRQ_HANDLED
 *   sched_process_exec  current, its pid, a linux_binprm whose only field
 *                       set is a GRB_FILENAME_LEN-character filename
 *   softirq_entry,      vector GRB_SOFTIRQ_VEC: the two tracepoints of
 *   softirq_raise       one event class, the first recorded by
 *                       guestrelay's native probe, the second (which has
 *                       none) by its anyevent= path (bench_anyevent.sh)
 *
 * The floor: floor_<tracepoint> (floor_sched_switch, ...) calls, through
 * the same loop, one probe of grbench's own that does the least any
 * tracer must do per event: read the event clock (the TSC when the kernel
 * trusts it, as guestrelay's clock=auto; floor_clock says which), store a
 * 16-byte struct gr_event_header (id, size, tid, timestamp) and the
 * payload guestrelay records for that event (the same bytes, from the
 * same sources) into BAR2 of the ivshmem device, at a bump pointer that
 * wraps within a fixed window. Nothing else: no enable test, no nesting guard, no interrupt
 * save, no sub-buffer. See "The floor" below for where it writes and why
 * that is harmless; a floor run fails with -EBUSY once guestrelay owns
 * the device.
 *
 * Clock targets time what an event can be stamped with, each read summed
 * in a loop: clock_mono_fast is ktime_get_mono_fast_ns() (guestrelay's
 * clock and ftrace's "mono"), clock_raw_fast ktime_get_raw_fast_ns(),
 * clock_local trace_clock_local() (ftrace's default "local"),
 * clock_local_clock local_clock(), clock_tsc_ordered rdtsc_ordered(),
 * clock_tsc rdtsc(); clock_none is the same loop with a load instead of
 * a clock read.
 *
 * The probes write real records: a trace taken while this runs holds
 * CALLS made-up events per run (current switching to swapper/0, ...).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/align.h>
#include <linux/binfmts.h>
#include <linux/build_bug.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/if.h>
#include <linux/init.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/perf_event.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/trace_clock.h>
#include <linux/tracepoint.h>
#include <asm/msr.h>
#include <asm/syscall.h>
#include <asm/tsc.h>

/* Only for the register_trace_*() declarations GRB_CHECK_PROTO() uses. */
#include <trace/events/irq.h>
#include <trace/events/sched.h>
#include <trace/events/syscalls.h>

/*
 * guestrelay's ABI (spec/) and event table (guest-module/): the floor
 * writes the records guestrelay writes, so it takes their layout from
 * the same definitions (Kbuild adds both directories).
 */
#include "gr_events.h"
#include "guestrelay_abi.h"
/* tcgcount.so's markers (tests/bench/tcgcount/, Kbuild adds it) */
#include "tc_mark.h"

/* Calls per chunk: preemption and interrupts are off for one chunk. */
#define GRB_CHUNK	1000
/* Calls per run at most: about 30 s at 3 us a call under TCG. */
#define GRB_MAX_CALLS	10000000
/* Probes named in a result; more are counted but not named. */
#define GRB_MAX_FUNCS	8
/*
 * Characters of the sched_process_exec filename: guestrelay's payload is
 * then 256 bytes (tid, old_tid and the string with its NUL), ftrace's
 * 260 (pid, old_pid, a 4-byte __data_loc and the string).
 */
#define GRB_FILENAME_LEN	247
/* The vector softirq_entry and softirq_raise are called with */
#define GRB_SOFTIRQ_VEC		TASKLET_SOFTIRQ

/* ivshmem (vendor 0x1af4), the device guestrelay drives */
#define GRB_IVSHMEM_DEVICE	0x1110
/* The floor's window: one sub-buffer of guestrelay's default size */
#define GRB_FLOOR_WINDOW	SZ_64K
/* Smallest BAR2 the floor writes into: see grb_floor_open() */
#define GRB_FLOOR_MIN_REGION	SZ_1M

/*
 * GRB_CHECK_PROTO() - fail the build unless function pointer @fn has the
 * probe prototype of tracepoint @tp in the kernel we build against. The
 * call is inside sizeof(): type-checked, never evaluated, and it
 * references no __tracepoint_* symbol (most are not exported).
 */
#define GRB_CHECK_PROTO(tp, fn)						\
	static_assert(sizeof(register_trace_##tp(fn, NULL)) == sizeof(int), \
		      #tp ": probe prototype")

/**
 * struct grb_target - something a run can time
 * @name: what is written to the run file
 * @tp_name: the tracepoint whose probes are called, NULL for a clock or
 *	a floor
 * @loop: makes @n calls with preemption and interrupts off
 * @floor: for a floor target, its probe (the prototype of @loop's
 *	tracepoint); NULL otherwise
 * @tp: the tracepoint, found at load; NULL if this kernel lacks it. For a
 *	floor target, @floor_tp.
 * @floor_tp: a floor target's stand-in tracepoint: only its @funcs is
 *	used, by @loop, and it points to @floor_funcs during a run only
 * @floor_funcs: @floor with the floor's state as data, then the end
 */
struct grb_target {
	const char *name;
	const char *tp_name;
	void (*loop)(struct tracepoint *tp, unsigned int n);
	void *floor;
	struct tracepoint *tp;
	struct tracepoint floor_tp;
	struct tracepoint_func floor_funcs[2];
};

/**
 * struct grb_snap - the probes attached to a tracepoint at one moment
 * @funcs: the probe array (a new one is published on every change)
 * @nr: probes in it
 * @func: the first GRB_MAX_FUNCS of them
 */
struct grb_snap {
	const struct tracepoint_func *funcs;
	unsigned int nr;
	void *func[GRB_MAX_FUNCS];
};

static DEFINE_MUTEX(grb_lock);		/* one run at a time; grb_result */
static char grb_result[512];
static struct dentry *grb_dir;
static u64 grb_sink;			/* keeps the clock reads alive */

static struct irqaction grb_irqaction = { .name = "grbench" };
static char grb_filename[GRB_FILENAME_LEN + 1];
static struct linux_binprm grb_bprm;

/*
 * The loops. Each is the tracepoint's own iteration over tp->funcs with
 * the probe prototype of that tracepoint; the caller has preemption and
 * interrupts off, which is the sched-RCU read side tp->funcs needs.
 */
static void grb_loop_sched_switch(struct tracepoint *tp, unsigned int n)
{
	void (*fn)(void *data, bool preempt, struct task_struct *prev,
		   struct task_struct *next, unsigned int prev_state);
	struct task_struct *prev = current, *next = &init_task;
	const struct tracepoint_func *f;

	GRB_CHECK_PROTO(sched_switch, fn);
	while (n--) {
		f = rcu_dereference_sched(tp->funcs);
		if (!f)
			continue;
		do {
			fn = READ_ONCE(f->func);
			fn(f->data, false, prev, next, TASK_RUNNING);
		} while ((++f)->func);
	}
}

static void grb_loop_sys_enter(struct tracepoint *tp, unsigned int n)
{
	void (*fn)(void *data, struct pt_regs *regs, long id);
	struct pt_regs *regs = task_pt_regs(current);
	long id = syscall_get_nr(current, regs);
	const struct tracepoint_func *f;

	GRB_CHECK_PROTO(sys_enter, fn);
	while (n--) {
		f = rcu_dereference_sched(tp->funcs);
		if (!f)
			continue;
		do {
			fn = READ_ONCE(f->func);
			fn(f->data, regs, id);
		} while ((++f)->func);
	}
}

static void grb_loop_irq_handler_exit(struct tracepoint *tp, unsigned int n)
{
	void (*fn)(void *data, int irq, struct irqaction *action, int ret);
	const struct tracepoint_func *f;

	GRB_CHECK_PROTO(irq_handler_exit, fn);
	while (n--) {
		f = rcu_dereference_sched(tp->funcs);
		if (!f)
			continue;
		do {
			fn = READ_ONCE(f->func);
			fn(f->data, 0, &grb_irqaction, IRQ_HANDLED);
		} while ((++f)->func);
	}
}

/* softirq_entry and softirq_raise: one class, one prototype */
static void grb_loop_softirq(struct tracepoint *tp, unsigned int n)
{
	void (*fn)(void *data, unsigned int vec_nr);
	const struct tracepoint_func *f;

	GRB_CHECK_PROTO(softirq_entry, fn);
	GRB_CHECK_PROTO(softirq_raise, fn);
	while (n--) {
		f = rcu_dereference_sched(tp->funcs);
		if (!f)
			continue;
		do {
			fn = READ_ONCE(f->func);
			fn(f->data, GRB_SOFTIRQ_VEC);
		} while ((++f)->func);
	}
}

static void grb_loop_sched_process_exec(struct tracepoint *tp, unsigned int n)
{
	void (*fn)(void *data, struct task_struct *p, pid_t old_pid,
		   struct linux_binprm *bprm);
	struct task_struct *p = current;
	pid_t old_pid = task_pid_nr(p);
	const struct tracepoint_func *f;

	GRB_CHECK_PROTO(sched_process_exec, fn);
	while (n--) {
		f = rcu_dereference_sched(tp->funcs);
		if (!f)
			continue;
		do {
			fn = READ_ONCE(f->func);
			fn(f->data, p, old_pid, &grb_bprm);
		} while ((++f)->func);
	}
}

/*
 * The clock loops: one read per call, summed so that none is optimized
 * away. clock_none is the loop alone, a load in place of the read.
 */
static void grb_loop_clock_none(struct tracepoint *tp, unsigned int n)
{
	u64 sum = 0;

	while (n--)
		sum += READ_ONCE(grb_sink);
	WRITE_ONCE(grb_sink, sum);
}

static void grb_loop_clock_mono_fast(struct tracepoint *tp, unsigned int n)
{
	u64 sum = 0;

	while (n--)
		sum += ktime_get_mono_fast_ns();
	WRITE_ONCE(grb_sink, sum);
}

static void grb_loop_clock_raw_fast(struct tracepoint *tp, unsigned int n)
{
	u64 sum = 0;

	while (n--)
		sum += ktime_get_raw_fast_ns();
	WRITE_ONCE(grb_sink, sum);
}

static void grb_loop_clock_local(struct tracepoint *tp, unsigned int n)
{
	u64 sum = 0;

	while (n--)
		sum += trace_clock_local();
	WRITE_ONCE(grb_sink, sum);
}

static void grb_loop_clock_local_clock(struct tracepoint *tp, unsigned int n)
{
	u64 sum = 0;

	while (n--)
		sum += local_clock();
	WRITE_ONCE(grb_sink, sum);
}

static void grb_loop_clock_tsc_ordered(struct tracepoint *tp, unsigned int n)
{
	u64 sum = 0;

	while (n--)
		sum += rdtsc_ordered();
	WRITE_ONCE(grb_sink, sum);
}

static void grb_loop_clock_tsc(struct tracepoint *tp, unsigned int n)
{
	u64 sum = 0;

	while (n--)
		sum += rdtsc();
	WRITE_ONCE(grb_sink, sum);
}

/*
 * The floor
 *
 * Where it writes: BAR2 of the ivshmem device guestrelay would bind (its
 * host control block carries GR_CTRL_MAGIC), GRB_FLOOR_WINDOW bytes at
 * half the region's size. guestrelay.ko is not loaded then (bench-probes
 * runs the floor in its "none" phase and loads guestrelay.ko later), and
 * a floor run makes sure of it:
 *
 *  - it holds the device lock for the whole run, so no driver can bind
 *    meanwhile, and finds no driver bound;
 *  - it claims all of BAR2 (request_mem_region()), as guestrelay's probe
 *    does, so neither can use the region while the other holds it;
 *  - the region is not published (hdr.magic is not GR_REGION_MAGIC):
 *    spec 5.2 and 5.3, the host reads nothing but hdr.magic until the
 *    guest publishes, and writes only its control block (0x1000) and,
 *    once it has validated a published layout, the cons halves of the
 *    rings.
 *
 * Half the region is past everything the host reads or writes before and
 * after a publication: the header, status and control pages end at
 * GR_LAYOUT_START, and the descriptors, rings and commit records of any
 * layout guestrelay can choose (spec 4.2: at most 256 * 576 + 1024 * 128
 * bytes, plus 16 bytes per sub-buffer of at least 4 KiB) end below
 * 0x2000 + 272 KiB + R / 256, less than R / 2 - 64 KiB for R >= 1 MiB.
 * So the window lies in the sub-buffer data (or the unused end) of every
 * layout, bytes guestrelay overwrites as it records and whose content
 * the host reads only once guestrelay has produced it (spec G3: bytes of
 * a sub-buffer after its content are unspecified). Even so the run
 * zeroes the window when it ends: the region is left as the host created
 * it (zero-filled, spec 5.1) except for the host's own control block.
 */

/**
 * struct grb_floor - the floor's state during a run
 * @pdev: the device, referenced and locked
 * @region_size: its BAR2 size
 * @hdr: BAR2's first GR_LAYOUT_START bytes (header, status, control)
 * @win: the window, GRB_FLOOR_WINDOW bytes at @region_size / 2
 * @off: the bump pointer: where the next record goes in @win
 */
struct grb_floor {
	struct pci_dev *pdev;
	resource_size_t region_size;
	void *hdr;
	u8 *win;
	size_t off;
};

static struct grb_floor grb_floor;

/*
 * A record of event @id with @len payload bytes at the bump pointer,
 * which wraps to the start of the window when the record does not fit
 * before its end: the clock read, the header stored; returns where the
 * payload goes. The header's size is rounded up to 8 as in every record;
 * the payloads timed here need no rounding (asserted below), so the
 * header and the payload are all the floor stores.
 */
/*
 * The floor's clock is the cheapest one guestrelay would stamp events
 * with in this boot: the TSC when the kernel trusts it across CPUs (as
 * guestrelay.ko's clock=auto decides), else ktime_get_mono_fast_ns().
 */
static bool grb_floor_tsc;

static __always_inline void *grb_floor_rec(struct grb_floor *fl,
					   unsigned int id, size_t len)
{
	size_t size = ALIGN(sizeof(struct gr_event_header) + len,
			    GR_RECORD_ALIGN);
	struct gr_event_header *eh;
	u64 ts = grb_floor_tsc ? rdtsc_ordered() : ktime_get_mono_fast_ns();

	if (unlikely(fl->off + size > GRB_FLOOR_WINDOW))
		fl->off = 0;
	eh = (struct gr_event_header *)(fl->win + fl->off);
	fl->off += size;
	eh->timestamp = cpu_to_le64(ts);
	eh->id = cpu_to_le16(id);
	eh->size = cpu_to_le16(size);
	eh->tid = cpu_to_le32(task_pid_nr(current));
	return eh + 1;
}

/*
 * The payload structs of guestrelay's events, struct grb_ev_<event>,
 * generated from gr_events_table.h as guestrelay generates its own (one
 * anonymous struct per member, so no padding is added): the same members
 * in the same order, so the same bytes; and grb_ev_<event>_rec(), a
 * floor record of that event with its payload typed.
 */
#define GR_INT(type, m, fl)		; struct { type m; }
#define GR_CHARS(m, len)		; struct { char m[len]; }
#define GRB_PAYLOAD(call, ...)						\
	struct grb_ev_##call {						\
		__VA_ARGS__;						\
	};								\
	static __always_inline struct grb_ev_##call *			\
	grb_ev_##call##_rec(struct grb_floor *fl, size_t len)		\
	{								\
		return grb_floor_rec(fl, GR_EV_##call, len);		\
	}
#define GR_EVENT(call, sys, proto, fields, assign)			\
	GRB_PAYLOAD(call, fields)
#define GR_EVENT_AS(call, sys, pl, proto, assign)
#define GR_EVENT_STR(call, sys, fields, str, len)			\
	GRB_PAYLOAD(call, fields GR_CHARS(str, len))
#include "gr_events_table.h"

/*
 * No tail padding: every floor record is header and payload, nothing
 * else (guestrelay's record of the same size has none either).
 */
static_assert(sizeof(struct grb_ev_sched_switch) % GR_RECORD_ALIGN == 0);
static_assert(sizeof(struct grb_ev_sys_enter) % GR_RECORD_ALIGN == 0);
static_assert(sizeof(struct grb_ev_irq_handler_exit) % GR_RECORD_ALIGN == 0);
static_assert((offsetof(struct grb_ev_sched_process_exec, filename) +
	       GRB_FILENAME_LEN + 1) % GR_RECORD_ALIGN == 0);

/*
 * The floor probes: the payload of guestrelay's probe for the same
 * tracepoint, every field from the same source (gr_events_table.h), a
 * task's comm copied whole with its last byte forced to NUL as
 * guestrelay does.
 */
static void grb_floor_sched_switch(void *data, bool preempt,
				   struct task_struct *prev,
				   struct task_struct *next,
				   unsigned int prev_state)
{
	struct grb_ev_sched_switch *ev;

	ev = grb_ev_sched_switch_rec(data, sizeof(*ev));
	memcpy(ev->prev_comm, prev->comm, TASK_COMM_LEN);
	ev->prev_comm[TASK_COMM_LEN - 1] = '\0';
	ev->prev_tid = cpu_to_le32(task_pid_nr(prev));
	ev->prev_prio = cpu_to_le32(gr_prio(prev->prio));
	ev->prev_state = cpu_to_le64(gr_switch_state(preempt, prev_state,
						      prev));
	memcpy(ev->next_comm, next->comm, TASK_COMM_LEN);
	ev->next_comm[TASK_COMM_LEN - 1] = '\0';
	ev->next_tid = cpu_to_le32(task_pid_nr(next));
	ev->next_prio = cpu_to_le32(gr_prio(next->prio));
}

static void grb_floor_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct grb_ev_sys_enter *ev;

	static_assert(offsetof(struct grb_ev_sys_enter, arg5) ==
		      offsetof(struct grb_ev_sys_enter, arg0) + 5 * 8);
	ev = grb_ev_sys_enter_rec(data, sizeof(*ev));
	ev->id = cpu_to_le64(id);
	gr_syscall_args_fill(&ev->arg0, regs);
}

static void grb_floor_irq_handler_exit(void *data, int irq,
				       struct irqaction *action, int ret)
{
	struct grb_ev_irq_handler_exit *ev;

	ev = grb_ev_irq_handler_exit_rec(data, sizeof(*ev));
	ev->irq = cpu_to_le32(irq);
	ev->ret = cpu_to_le32(ret);
}

/* The record is cut after the string's NUL, as guestrelay cuts it */
static void grb_floor_sched_process_exec(void *data, struct task_struct *p,
					 pid_t old_pid,
					 struct linux_binprm *bprm)
{
	const char *name = bprm->filename ? bprm->filename : "";
	struct grb_ev_sched_process_exec *ev;
	size_t n = strnlen(name, sizeof(ev->filename) - 1);

	ev = grb_ev_sched_process_exec_rec(data,
					   offsetof(typeof(*ev), filename) + n + 1);
	ev->tid = cpu_to_le32(task_pid_nr(p));
	ev->old_tid = cpu_to_le32(old_pid);
	memcpy(ev->filename, name, n);
	ev->filename[n] = '\0';
}

/*
 * Take @pdev's BAR2 for the floor, device lock held by the caller: no
 * driver bound, the region claimed and mapped, guestrelay's host block
 * present, no layout published. Return: 0, or -errno with nothing held.
 */
static int grb_floor_map(struct grb_floor *fl, struct pci_dev *pdev)
{
	resource_size_t start = pci_resource_start(pdev, 2);
	resource_size_t size = pci_resource_len(pdev, 2);
	u64 magic;
	int ret;

	if (pdev->dev.driver)
		return -EBUSY;
	if (size < GRB_FLOOR_MIN_REGION || !is_power_of_2(size))
		return -ENODEV;
	ret = pci_enable_device_mem(pdev);
	if (ret)
		return ret;
	if (!request_mem_region(start, size, KBUILD_MODNAME)) {
		ret = -EBUSY;
		goto out_disable;
	}
	/* As guestrelay maps it: BAR2 is host RAM, mapped write-back */
	fl->hdr = memremap(start, GR_LAYOUT_START, MEMREMAP_WB);
	if (!fl->hdr) {
		ret = -ENOMEM;
		goto out_release;
	}
	magic = le64_to_cpu(READ_ONCE(((struct gr_host_ctrl *)
				       (fl->hdr + GR_CTRL_OFFSET))->magic));
	if (magic != GR_CTRL_MAGIC) {
		ret = -ENODEV;
		goto out_unmap_hdr;
	}
	magic = le64_to_cpu(READ_ONCE(((struct gr_region_hdr *)
				       (fl->hdr + GR_HDR_OFFSET))->magic));
	if (magic == GR_REGION_MAGIC) {
		ret = -EBUSY;
		goto out_unmap_hdr;
	}
	fl->win = memremap(start + size / 2, GRB_FLOOR_WINDOW, MEMREMAP_WB);
	if (!fl->win) {
		ret = -ENOMEM;
		goto out_unmap_hdr;
	}
	fl->region_size = size;
	fl->off = 0;
	return 0;

out_unmap_hdr:
	memunmap(fl->hdr);
out_release:
	release_mem_region(start, size);
out_disable:
	pci_disable_device(pdev);
	return ret;
}

/*
 * grb_floor_open() - take BAR2 for floor target @t; grb_floor_close()
 * gives it back. Caller holds grb_lock.
 * Return: 0; -EBUSY if a driver (guestrelay) has the device or the
 * region is published; -ENODEV if there is no such device.
 */
static int grb_floor_open(struct grb_target *t)
{
	struct grb_floor *fl = &grb_floor;
	struct pci_dev *pdev = NULL;
	int ret = -ENODEV;

	while ((pdev = pci_get_device(PCI_VENDOR_ID_REDHAT_QUMRANET,
				      GRB_IVSHMEM_DEVICE, pdev))) {
		device_lock(&pdev->dev);
		ret = grb_floor_map(fl, pdev);
		if (!ret)
			break;
		device_unlock(&pdev->dev);
		if (ret != -ENODEV)
			break;
	}
	if (ret) {
		pci_dev_put(pdev);
		return ret;
	}
	fl->pdev = pdev;
	t->floor_funcs[0].func = t->floor;
	t->floor_funcs[0].data = fl;
	rcu_assign_pointer(t->floor_tp.funcs, t->floor_funcs);
	return 0;
}

/*
 * Gives BAR2 back after a run of floor target @t. Return: 0, or -EIO if
 * the window's first record does not read back as this task's (the
 * stores did not reach memory: an undecoded BAR reads all ones).
 */
static int grb_floor_close(struct grb_target *t)
{
	struct grb_floor *fl = &grb_floor;
	struct pci_dev *pdev = fl->pdev;
	struct gr_event_header *eh = (struct gr_event_header *)fl->win;
	int ret = 0;

	/* Only this task calls the floor probe, and it is done */
	RCU_INIT_POINTER(t->floor_tp.funcs, NULL);
	if (fl->off && (le32_to_cpu(eh->tid) != task_pid_nr(current) ||
			le16_to_cpu(eh->id) >= GR_NR_EVENTS ||
			le16_to_cpu(eh->size) < sizeof(*eh) ||
			le16_to_cpu(eh->size) % GR_RECORD_ALIGN)) {
		pr_warn("%s: BAR2 did not keep the records written\n", t->name);
		ret = -EIO;
	}
	memset(fl->win, 0, GRB_FLOOR_WINDOW);
	memunmap(fl->win);
	memunmap(fl->hdr);
	release_mem_region(pci_resource_start(pdev, 2), fl->region_size);
	pci_disable_device(pdev);
	device_unlock(&pdev->dev);
	pci_dev_put(pdev);
	memset(fl, 0, sizeof(*fl));
	return ret;
}

static struct grb_target grb_targets[] = {
	{ "sched_switch", "sched_switch", grb_loop_sched_switch },
	{ "sys_enter", "sys_enter", grb_loop_sys_enter },
	{ "irq_handler_exit", "irq_handler_exit", grb_loop_irq_handler_exit },
	{ "sched_process_exec", "sched_process_exec",
	  grb_loop_sched_process_exec },
	{ "softirq_entry", "softirq_entry", grb_loop_softirq },
	{ "softirq_raise", "softirq_raise", grb_loop_softirq },
	{ "floor_sched_switch", NULL, grb_loop_sched_switch,
	  grb_floor_sched_switch },
	{ "floor_sys_enter", NULL, grb_loop_sys_enter, grb_floor_sys_enter },
	{ "floor_irq_handler_exit", NULL, grb_loop_irq_handler_exit,
	  grb_floor_irq_handler_exit },
	{ "floor_sched_process_exec", NULL, grb_loop_sched_process_exec,
	  grb_floor_sched_process_exec },
	{ "clock_none", NULL, grb_loop_clock_none },
	{ "clock_mono_fast", NULL, grb_loop_clock_mono_fast },
	{ "clock_raw_fast", NULL, grb_loop_clock_raw_fast },
	{ "clock_local", NULL, grb_loop_clock_local },
	{ "clock_local_clock", NULL, grb_loop_clock_local_clock },
	{ "clock_tsc_ordered", NULL, grb_loop_clock_tsc_ordered },
	{ "clock_tsc", NULL, grb_loop_clock_tsc },
};

/* The floor probes have their tracepoint's probe prototype */
GRB_CHECK_PROTO(sched_switch, grb_floor_sched_switch);
GRB_CHECK_PROTO(sys_enter, grb_floor_sys_enter);
GRB_CHECK_PROTO(irq_handler_exit, grb_floor_irq_handler_exit);
GRB_CHECK_PROTO(sched_process_exec, grb_floor_sched_process_exec);

static void grb_find_tp(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(grb_targets); i++)
		if (grb_targets[i].tp_name &&
		    !strcmp(tp->name, grb_targets[i].tp_name))
			grb_targets[i].tp = tp;
}

static struct grb_target *grb_target_get(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(grb_targets); i++)
		if (!strcmp(name, grb_targets[i].name))
			return &grb_targets[i];
	return NULL;
}

/* What is attached to @tp now; an empty snapshot for a clock (NULL). */
static void grb_snap(struct tracepoint *tp, struct grb_snap *s)
{
	const struct tracepoint_func *f;

	memset(s, 0, sizeof(*s));
	if (!tp)
		return;
	rcu_read_lock_sched();
	f = rcu_dereference_sched(tp->funcs);
	s->funcs = f;
	for (; f && f->func; f++) {
		if (s->nr < GRB_MAX_FUNCS)
			s->func[s->nr] = f->func;
		s->nr++;
	}
	rcu_read_unlock_sched();
}

static bool grb_snap_same(const struct grb_snap *a, const struct grb_snap *b)
{
	return a->funcs == b->funcs && a->nr == b->nr &&
	       !memcmp(a->func, b->func, sizeof(a->func));
}

static unsigned int grb_counts;		/* count runs since load */

/* @n calls of @t, each one between tcgcount's START and STOP markers */
static void grb_count_calls(struct grb_target *t, unsigned int n)
{
	while (n--) {
		tc_mark_start();
		t->loop(t->tp, 1);
		tc_mark_stop();
	}
}

/*
 * Time @calls calls of @t into grb_result, or with @count, make them
 * one by one between tcgcount's markers and end with its REPORT marker
 * (the result then says count=K: the plugin's run K). Caller holds
 * grb_lock.
 */
static int grb_run(struct grb_target *t, unsigned int calls, bool count)
{
	struct grb_snap before, after;
	unsigned int done, n, i;
	unsigned long flags;
	u64 t0, t1, ns = 0;
	int cpu = -1, ret = 0;
	size_t len;

	if (t->tp_name && !t->tp)
		return -ENOENT;
	if (t->floor) {
		ret = grb_floor_open(t);
		if (ret)
			return ret;
	}
	grb_snap(t->tp, &before);
	for (done = 0; done < calls; done += n) {
		n = min_t(unsigned int, calls - done, GRB_CHUNK);
		preempt_disable();
		local_irq_save(flags);
		if (cpu < 0)
			cpu = smp_processor_id();
		t0 = ktime_get_ns();
		if (count)
			grb_count_calls(t, n);
		else
			t->loop(t->tp, n);
		t1 = ktime_get_ns();
		local_irq_restore(flags);
		preempt_enable();
		ns += t1 - t0;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto out;
		}
		cond_resched();
	}
	grb_snap(t->tp, &after);

	len = scnprintf(grb_result, sizeof(grb_result), "target=%s calls=%u ",
			t->name, calls);
	if (count) {
		tc_mark_report();
		len += scnprintf(grb_result + len, sizeof(grb_result) - len,
				 "count=%u ", ++grb_counts);
	}
	len += scnprintf(grb_result + len, sizeof(grb_result) - len,
			 "ns=%llu cpu=%d changed=%d probes=%u funcs=", ns, cpu,
			 !grb_snap_same(&before, &after), before.nr);
	for (i = 0; i < min_t(unsigned int, before.nr, GRB_MAX_FUNCS); i++)
		len += scnprintf(grb_result + len, sizeof(grb_result) - len,
				 "%s%ps", i ? "," : "", before.func[i]);
	scnprintf(grb_result + len, sizeof(grb_result) - len, "\n");
out:
	if (t->floor && grb_floor_close(t) && !ret)
		ret = -EIO;
	return ret;
}

static ssize_t grb_run_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	/* the count file's private data is non-NULL (grb_init()) */
	bool counted = file_inode(file)->i_private;
	struct grb_target *t;
	unsigned int calls;
	char name[32];
	char *buf;
	int ret;

	if (count > 64)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = sscanf(buf, "%31s %u", name, &calls);
	kfree(buf);
	if (ret != 2 || !calls || calls > GRB_MAX_CALLS)
		return -EINVAL;
	t = grb_target_get(name);
	if (!t)
		return -ENOENT;
	ret = mutex_lock_interruptible(&grb_lock);
	if (ret)
		return ret;
	ret = grb_run(t, calls, counted);
	mutex_unlock(&grb_lock);
	return ret ? ret : count;
}

static ssize_t grb_run_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	ssize_t ret;

	ret = mutex_lock_interruptible(&grb_lock);
	if (ret)
		return ret;
	ret = simple_read_from_buffer(ubuf, count, ppos, grb_result,
				      strlen(grb_result));
	mutex_unlock(&grb_lock);
	return ret;
}

static const struct file_operations grb_run_fops = {
	.owner = THIS_MODULE,
	.write = grb_run_write,
	.read = grb_run_read,
	.llseek = default_llseek,
};

/* One line per tracepoint target: "name: PROBE..." (as %ps prints them) */
static int grb_probes_show(struct seq_file *m, void *unused)
{
	const struct grb_target *t;
	struct grb_snap s;
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(grb_targets); i++) {
		t = &grb_targets[i];
		if (!t->tp_name)
			continue;
		seq_printf(m, "%s:", t->name);
		if (!t->tp) {
			seq_puts(m, " (no such tracepoint)\n");
			continue;
		}
		grb_snap(t->tp, &s);
		for (j = 0; j < min_t(unsigned int, s.nr, GRB_MAX_FUNCS); j++)
			seq_printf(m, " %ps", s.func[j]);
		if (s.nr > GRB_MAX_FUNCS)
			seq_printf(m, " (+%u more)", s.nr - GRB_MAX_FUNCS);
		seq_puts(m, s.nr ? "\n" : " (none)\n");
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(grb_probes);

static int grb_floor_clock_show(struct seq_file *m, void *v)
{
	seq_puts(m, grb_floor_tsc ? "tsc\n" : "mono_fast\n");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(grb_floor_clock);

/* The perf counter of the perf file, NULL when there is none */
static struct perf_event *grb_perf;

static void grb_perf_handler(struct perf_event *pe,
			     struct perf_sample_data *data,
			     struct pt_regs *regs)
{
}

/*
 * "ID": a counter on CPU 0 with guestrelay's anyevent= attributes
 * (gr_anyevent.c) on trace event ID, replacing any earlier one; "0":
 * none. Caller holds grb_lock.
 */
static int grb_perf_set(u64 id)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.config = id,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_PERIOD,
	};
	struct perf_event *pe = NULL;

	if (id) {
		pe = perf_event_create_kernel_counter(&attr, 0, NULL,
						      grb_perf_handler, NULL);
		if (IS_ERR(pe))
			return PTR_ERR(pe);
	}
	if (grb_perf)
		perf_event_release_kernel(grb_perf);
	grb_perf = pe;
	return 0;
}

static ssize_t grb_perf_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	u64 id;
	int ret;

	ret = kstrtou64_from_user(ubuf, count, 0, &id);
	if (ret)
		return ret;
	ret = mutex_lock_interruptible(&grb_lock);
	if (ret)
		return ret;
	ret = grb_perf_set(id);
	mutex_unlock(&grb_lock);
	return ret ? ret : count;
}

static const struct file_operations grb_perf_fops = {
	.owner = THIS_MODULE,
	.write = grb_perf_write,
	.llseek = noop_llseek,
};

static int __init grb_init(void)
{
	unsigned int i;

	memset(grb_filename, 'x', GRB_FILENAME_LEN);
	memcpy(grb_filename, "/grbench/", strlen("/grbench/"));
	grb_bprm.filename = grb_filename;

	for (i = 0; i < ARRAY_SIZE(grb_targets); i++) {
		if (!grb_targets[i].floor)
			continue;
		grb_targets[i].floor_tp.name = grb_targets[i].name;
		grb_targets[i].tp = &grb_targets[i].floor_tp;
	}
	for_each_kernel_tracepoint(grb_find_tp, NULL);
	for (i = 0; i < ARRAY_SIZE(grb_targets); i++)
		if (grb_targets[i].tp_name && !grb_targets[i].tp)
			pr_info("no tracepoint %s\n", grb_targets[i].tp_name);

	grb_floor_tsc = boot_cpu_has(X86_FEATURE_TSC) && tsc_khz &&
			!check_tsc_unstable();
	scnprintf(grb_result, sizeof(grb_result), "no run yet\n");
	grb_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("run", 0600, grb_dir, NULL, &grb_run_fops);
	debugfs_create_file("count", 0600, grb_dir, &grb_counts, &grb_run_fops);
	debugfs_create_file("probes", 0400, grb_dir, NULL, &grb_probes_fops);
	debugfs_create_file("floor_clock", 0400, grb_dir, NULL,
			    &grb_floor_clock_fops);
	debugfs_create_file("perf", 0200, grb_dir, NULL, &grb_perf_fops);
	return 0;
}

static void __exit grb_exit(void)
{
	/* Waits for the file operations still running */
	debugfs_remove_recursive(grb_dir);
	grb_perf_set(0);
}

module_init(grb_init);
module_exit(grb_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("guestrelay benchmark: per-event cost of the probes attached to a tracepoint");
