/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel primitives of the relay core, in userspace
 *
 * Lets gr_relay.c, unchanged, run in unit tests and in the fake guest. Each
 * test thread plays one CPU: it calls gr_user_set_cpu() once, and
 * smp_processor_id() then answers that number. Threads are never
 * interrupted by the core's own code, so "disabling interrupts" and
 * "disabling preemption" have nothing to do here; writers of one ring must
 * stay on one thread, exactly as kernel writers of a per-CPU ring stay on
 * one CPU. Barriers and atomics are real (GCC __atomic builtins), so the
 * concurrency of the core is exercised as in the kernel.
 */
#ifndef _GR_USER_ENV_H
#define _GR_USER_ENV_H

#include <linux/types.h>
#include <endian.h>
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;

#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
/* The kernel's own spellings of these attributes (checkpatch: justified) */
#define __aligned(x)		__attribute__((__aligned__(x)))
#define __weak			__attribute__((__weak__))
#define __always_unused		__attribute__((__unused__))
#define ____cacheline_aligned_in_smp	__aligned(64)

#define ALIGN(x, a)							\
	({								\
		__typeof__(x) __mask = (__typeof__(x))(a) - 1;		\
									\
		((x) + __mask) & ~__mask;				\
	})

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define min_t(type, a, b)						\
	({								\
		type __a = (a);						\
		type __b = (b);						\
									\
		__a < __b ? __a : __b;					\
	})

static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = (u32)(dividend % divisor);
	return dividend / divisor;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

/* Little-endian shared fields, converted for real on any host. */
#define cpu_to_le16(x)		((__le16)htole16(x))
#define cpu_to_le32(x)		((__le32)htole32(x))
#define cpu_to_le64(x)		((__le64)htole64(x))
#define le16_to_cpu(x)		le16toh(x)
#define le32_to_cpu(x)		le32toh(x)
#define le64_to_cpu(x)		le64toh(x)

/* Single-copy atomic accesses of scalars: relaxed atomics. */
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, val)	__atomic_store_n(&(x), (val), __ATOMIC_RELAXED)

/*
 * Barriers: C11 fences and orderings at least as strong as the kernel's.
 * Each pairs with whatever its kernel namesake pairs with at the call site.
 */
#define barrier()		__atomic_signal_fence(__ATOMIC_SEQ_CST)
#define smp_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST) /* full */
#define smp_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE) /* loads */
#define smp_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE) /* stores */
#define smp_store_release(p, v) \
	__atomic_store_n((p), (v), __ATOMIC_RELEASE) /* release store */
#define smp_load_acquire(p) \
	__atomic_load_n((p), __ATOMIC_ACQUIRE) /* acquire load */

/* The kernel's own typedef of this type (checkpatch: justified) */
typedef struct {
	s64 counter;
} atomic64_t;

static inline s64 atomic64_read(const atomic64_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

static inline void atomic64_set(atomic64_t *v, s64 i)
{
	__atomic_store_n(&v->counter, i, __ATOMIC_RELAXED);
}

static inline void atomic64_inc(atomic64_t *v)
{
	__atomic_fetch_add(&v->counter, 1, __ATOMIC_RELAXED);
}

/* The kernel's own typedef of this type (checkpatch: justified) */
typedef struct {
	int counter;
} atomic_t;

static inline int atomic_read(const atomic_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

static inline void atomic_inc(atomic_t *v)
{
	__atomic_fetch_add(&v->counter, 1, __ATOMIC_RELAXED);
}

static inline void atomic_dec(atomic_t *v)
{
	__atomic_fetch_sub(&v->counter, 1, __ATOMIC_RELAXED);
}

/* Atomic bit operations on unsigned long bitmaps (the follow filter's) */
#define BITS_PER_LONG		(8 * (int)sizeof(long))

static inline bool test_and_set_bit(unsigned long nr, unsigned long *addr)
{
	unsigned long m = 1UL << (nr % BITS_PER_LONG);

	return __atomic_fetch_or(&addr[nr / BITS_PER_LONG], m,
				 __ATOMIC_SEQ_CST) & m;
}

static inline bool test_and_clear_bit(unsigned long nr, unsigned long *addr)
{
	unsigned long m = 1UL << (nr % BITS_PER_LONG);

	return __atomic_fetch_and(&addr[nr / BITS_PER_LONG], ~m,
				  __ATOMIC_SEQ_CST) & m;
}

/*
 * RCU, as far as the relay core's record API uses it: the pointer is
 * published with release and read with acquire (what rcu_assign_pointer()
 * and rcu_dereference_sched() promise). Grace periods (synchronize_rcu())
 * are the kernel module's business and have no userspace counterpart here.
 */
#define __rcu
#define rcu_assign_pointer(p, v)	smp_store_release(&(p), (v))
#define RCU_INIT_POINTER(p, v)		WRITE_ONCE(p, v)
#define rcu_dereference_sched(p)	smp_load_acquire(&(p))
#define rcu_dereference_protected(p, c)	(p)
/*
 * The hist control (gr_hist.c) waits for a grace period after it swapped
 * the set the probes run; the unit tests swap with no probe running.
 */
#define synchronize_rcu()		smp_mb()

/* Static keys (gr_record.c's gr_rec_hist_on): a plain flag */
struct static_key_false {
	int enabled;
};
#define DEFINE_STATIC_KEY_FALSE(name)	struct static_key_false name = { 0 }
#define DECLARE_STATIC_KEY_FALSE(name)	extern struct static_key_false name
#define static_branch_unlikely(k)	unlikely(READ_ONCE((k)->enabled))
#define static_branch_enable(k)		WRITE_ONCE((k)->enabled, 1)
#define static_branch_disable(k)	WRITE_ONCE((k)->enabled, 0)

#define U32_MAX			((u32)~0U)
#define U64_MAX			((u64)~0ULL)

/* The last set bit, 1-based; 0 for 0 */
static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

static inline u64 mul_u64_u32_shr(u64 a, u32 mul, unsigned int shift)
{
	return (u64)(((unsigned __int128)a * mul) >> shift);
}

/* No function tracer in userspace */
#define notrace

/* A thread is a CPU: nothing interrupts it or migrates it. */
#define local_irq_save(flags)		((flags) = 0)
#define local_irq_restore(flags)	((void)(flags))
#define preempt_disable()		barrier()
#define preempt_enable()		barrier()
#define lockdep_assert_preemption_disabled()	do { } while (0)

/* The "CPU" of this thread; one definition shared by every object file. */
__thread unsigned int gr_user_cpu __weak;

static inline unsigned int smp_processor_id(void)
{
	return gr_user_cpu;
}

static inline void gr_user_set_cpu(unsigned int cpu)
{
	gr_user_cpu = cpu;
}

/*
 * A mutex, not a spin: test threads outnumber the machine's CPUs and a
 * preempted holder must not make the others burn their time slices.
 */
#define raw_spinlock_t			pthread_mutex_t
#define raw_spin_lock_init(l)		pthread_mutex_init((l), NULL)
#define raw_spin_lock_irqsave(l, flags)				\
	do {							\
		(flags) = 0;					\
		pthread_mutex_lock(l);				\
	} while (0)
#define raw_spin_unlock_irqrestore(l, flags)			\
	do {							\
		(void)(flags);					\
		pthread_mutex_unlock(l);			\
	} while (0)

/* The client API's sleeping lock (gr_relay_api.c) */
struct mutex {
	pthread_mutex_t m;
};
#define DEFINE_MUTEX(name)	struct mutex name = { PTHREAD_MUTEX_INITIALIZER }
#define mutex_init(l)		pthread_mutex_init(&(l)->m, NULL)
#define mutex_destroy(l)	pthread_mutex_destroy(&(l)->m)
#define mutex_lock(l)		pthread_mutex_lock(&(l)->m)
#define mutex_unlock(l)		pthread_mutex_unlock(&(l)->m)

/* Possible CPUs of the client API's per-CPU channels; tests may set it */
unsigned int gr_user_nr_cpu_ids __weak = 4;
#define nr_cpu_ids		gr_user_nr_cpu_ids

#define EXPORT_SYMBOL_GPL(sym)

/* Cache-line aligned like the kernel's slab caches for these sizes. */
#define GFP_KERNEL		0

static inline void *kvzalloc(size_t size, int gfp)
{
	size_t rounded = ALIGN(size, (size_t)64);
	void *p;

	(void)gfp;
	if (rounded < size || posix_memalign(&p, 64, rounded ? rounded : 64))
		return NULL;
	memset(p, 0, rounded);
	return p;
}

static inline void *kvcalloc(size_t n, size_t size, int gfp)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return kvzalloc(n * size, gfp);
}

#define kzalloc(size, gfp)	kvzalloc((size), (gfp))
/* Zeroed like the kernel's; page alignment is only for its mmap() */
#define vmalloc_user(size)	kvzalloc((size), 0)
#define vfree(p)		free(p)
#define kfree(p)		free(p)
#define kvfree(p)		free(p)

#define WARN_ON_ONCE(cond)						\
	({								\
		static bool __warned;					\
		bool __c = !!(cond);					\
									\
		if (unlikely(__c) && !__warned) {			\
			__warned = true;				\
			fprintf(stderr, "WARNING: %s:%d: %s\n",		\
				__FILE__, __LINE__, #cond);		\
		}							\
		unlikely(__c);						\
	})

/* The event clock: CLOCK_MONOTONIC, like the guest's mono_fast. */
static inline u64 gr_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

/* gettid(2) is a system call; each thread asks once. */
static inline u32 gr_current_tid(void)
{
	static __thread u32 tid;

	if (!tid)
		tid = (u32)syscall(SYS_gettid);
	return tid;
}

/*
 * lib/glob.c's glob_match(): '*', '?' and '[...]' (with '!' or '^' and
 * ranges), no escapes and no special '/' or leading '.': fnmatch() with
 * FNM_NOESCAPE is the same language.
 */
static inline bool glob_match(const char *pat, const char *str)
{
	return !fnmatch(pat, str, FNM_NOESCAPE);
}

#endif /* _GR_USER_ENV_H */
