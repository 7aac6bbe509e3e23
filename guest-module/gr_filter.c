// SPDX-License-Identifier: GPL-2.0
/*
 * gr_filter.c - event filter programs: copy, verify, run (spec 14)
 *
 * A program is a list of at most GR_FILTER_MAX_INSNS instructions over
 * one 64-bit accumulator A (0 at entry): loads of payload bytes (or of
 * the record's thread id and CPU) into A, jumps that compare A (or a
 * string of the payload) with a constant and skip forward, and returns.
 * Every jump skips forward, and the last instruction returns, so a
 * program runs at most nr_insns instructions; every load is checked
 * against the event's payload before the program is installed, and cut
 * at the record's own length when it runs.
 */
#include "gr_filter.h"

static int gr_filter_fail(struct gr_filter_err *err, u8 reason,
			  unsigned int slot, unsigned int insn)
{
	err->reason = reason;
	err->slot = slot;
	err->insn = insn;
	return -EINVAL;
}

/**
 * gr_filter_read() - copy one slot of the filter area, once
 * @shared: the slot in the region (host-written, hostile)
 * @slot: its index
 * @prog: receives the program, host byte order
 * @err: receives the reason of a failure
 *
 * Every byte of the slot is loaded at most once; what is checked and run
 * later is @prog only (spec G29).
 *
 * Context: any.
 * Return: 1 if the slot holds a program, 0 if it is unused, -EINVAL (with
 * @err) if its length or reserved fields are wrong.
 */
int gr_filter_read(const struct gr_filter_slot *shared, unsigned int slot,
		   struct gr_filter_prog *prog, struct gr_filter_err *err)
{
	const struct gr_filter_insn *in;
	struct gr_filter_op *op;
	u16 nr, strtab_len;
	unsigned int i;

	nr = le16_to_cpu(READ_ONCE(shared->nr_insns));
	if (!nr)
		return 0;
	if (nr > GR_FILTER_MAX_INSNS)
		return gr_filter_fail(err, GR_FILTER_E_LENGTH, slot,
				      GR_FILTER_NO_INSN);
	strtab_len = le16_to_cpu(READ_ONCE(shared->strtab_len));
	if (strtab_len > GR_FILTER_STRTAB_LEN)
		return gr_filter_fail(err, GR_FILTER_E_LENGTH, slot,
				      GR_FILTER_NO_INSN);
	if (READ_ONCE(shared->reserved0) || READ_ONCE(shared->reserved1))
		return gr_filter_fail(err, GR_FILTER_E_RESERVED, slot,
				      GR_FILTER_NO_INSN);

	memset(prog, 0, sizeof(*prog));
	prog->event_id = le16_to_cpu(READ_ONCE(shared->event_id));
	prog->slot = slot;
	prog->nr_insns = nr;
	prog->strtab_len = strtab_len;
	for (i = 0; i < nr; i++) {
		in = &shared->insns[i];
		op = &prog->ops[i];
		op->code = READ_ONCE(in->code);
		op->width = READ_ONCE(in->width);
		op->jt = READ_ONCE(in->jt);
		op->jf = READ_ONCE(in->jf);
		op->off = le16_to_cpu(READ_ONCE(in->off));
		op->arg = le16_to_cpu(READ_ONCE(in->arg));
		op->k = le64_to_cpu(READ_ONCE(in->k));
	}
	for (i = 0; i < strtab_len; i++)
		prog->strtab[i] = READ_ONCE(shared->strtab[i]);
	return 1;
}

/* A jump at @pc: both targets forward and inside the program */
static bool gr_filter_jump_ok(const struct gr_filter_op *op, unsigned int pc,
			      unsigned int nr)
{
	return pc + 1 + op->jt < nr && pc + 1 + op->jf < nr;
}

static u8 gr_filter_check_op(const struct gr_filter_op *op, unsigned int pc,
			     unsigned int nr, const struct gr_filter_bounds *b,
			     u16 strtab_len)
{
	u32 pat_off, pat_len;

	switch (op->code) {
	case GR_FI_RET:
		if (op->width || op->jt || op->jf || op->off || op->arg)
			return GR_FILTER_E_RESERVED;
		return op->k > 1 ? GR_FILTER_E_RET : 0;
	case GR_FI_LD:
	case GR_FI_LDS:
		if (op->jt || op->jf || op->arg || op->k)
			return GR_FILTER_E_RESERVED;
		if (op->width != 1 && op->width != 2 && op->width != 4 &&
		    op->width != 8)
			return GR_FILTER_E_LOAD;
		/* u32 sum: no wrap-around */
		if ((u32)op->off + op->width > b->fixed)
			return GR_FILTER_E_LOAD;
		return 0;
	case GR_FI_LD_TID:
	case GR_FI_LD_CPU:
		if (op->width || op->jt || op->jf || op->off || op->arg ||
		    op->k)
			return GR_FILTER_E_RESERVED;
		return 0;
	case GR_FI_JEQ:
	case GR_FI_JGT:
	case GR_FI_JGE:
	case GR_FI_JSGT:
	case GR_FI_JSGE:
	case GR_FI_JSET:
		if (op->width || op->off || op->arg)
			return GR_FILTER_E_RESERVED;
		return gr_filter_jump_ok(op, pc, nr) ? 0 : GR_FILTER_E_JUMP;
	case GR_FI_JSTREQ:
	case GR_FI_JGLOB:
		if (op->width || op->k >> 32)
			return GR_FILTER_E_RESERVED;
		if (!op->arg || (u32)op->off + op->arg > b->max)
			return GR_FILTER_E_STRING;
		pat_off = op->k & 0xffff;
		pat_len = (op->k >> 16) & 0xffff;
		if (pat_off + pat_len > strtab_len)
			return GR_FILTER_E_STRING;
		return gr_filter_jump_ok(op, pc, nr) ? 0 : GR_FILTER_E_JUMP;
	default:
		return GR_FILTER_E_OPCODE;
	}
}

/**
 * gr_filter_verify() - may this program run on records of its event?
 * @prog: a copy made by gr_filter_read()
 * @b: payload bounds of the program's event
 * @err: receives the reason of a refusal
 *
 * One pass over the instructions: known code, reserved fields 0, loads
 * inside @b->fixed, string operands inside @b->max and the strtab, both
 * targets of every jump forward and inside the program, the last
 * instruction a return. Together these make gr_filter_match() stop
 * within nr_insns steps and read nothing outside the payload.
 *
 * Context: any.
 * Return: 0, or -EINVAL with @err naming the reason and instruction.
 */
int gr_filter_verify(const struct gr_filter_prog *prog,
		     const struct gr_filter_bounds *b,
		     struct gr_filter_err *err)
{
	unsigned int pc, nr = prog->nr_insns;
	u8 reason;

	if (!nr || nr > GR_FILTER_MAX_INSNS ||
	    prog->strtab_len > GR_FILTER_STRTAB_LEN)
		return gr_filter_fail(err, GR_FILTER_E_LENGTH, prog->slot,
				      GR_FILTER_NO_INSN);
	for (pc = 0; pc < nr; pc++) {
		reason = gr_filter_check_op(&prog->ops[pc], pc, nr, b,
					    prog->strtab_len);
		if (reason)
			return gr_filter_fail(err, reason, prog->slot, pc);
	}
	if (prog->ops[nr - 1].code != GR_FI_RET)
		return gr_filter_fail(err, GR_FILTER_E_NORET, prog->slot,
				      nr - 1);
	return 0;
}

/**
 * gr_filter_read_area() - copy and verify the whole filter area
 * @region: the shared region
 * @nr_events: events this guest describes
 * @bounds: payload bounds, one per event id
 * @set: receives the programs
 * @err: receives the reason of a refusal
 *
 * The caller has checked that GR_F_FILTER is in use and that ctrl_size
 * covers the area. All slots are checked before any is used (spec G18):
 * one bad slot refuses the area.
 *
 * Context: any.
 * Return: 0, or -EINVAL with @err filled.
 */
int gr_filter_read_area(const void *region, unsigned int nr_events,
			const struct gr_filter_bounds *bounds,
			struct gr_filter_set *set, struct gr_filter_err *err)
{
	const struct gr_filter_slot *area = (const void *)
		((const u8 *)region + GR_FILTER_OFFSET);
	struct gr_filter_prog *prog;
	unsigned int i;
	int ret;

	memset(set->slot_of, GR_FILTER_NONE, sizeof(set->slot_of));
	set->nr_progs = 0;
	for (i = 0; i < GR_FILTER_SLOTS; i++) {
		prog = &set->progs[set->nr_progs];
		ret = gr_filter_read(&area[i], i, prog, err);
		if (ret < 0)
			return ret;
		if (!ret)
			continue;
		if (prog->event_id >= nr_events)
			return gr_filter_fail(err, GR_FILTER_E_EVENT, i,
					      GR_FILTER_NO_INSN);
		if (set->slot_of[prog->event_id] != GR_FILTER_NONE)
			return gr_filter_fail(err, GR_FILTER_E_DUP, i,
					      GR_FILTER_NO_INSN);
		ret = gr_filter_verify(prog, &bounds[prog->event_id], err);
		if (ret)
			return ret;
		set->slot_of[prog->event_id] = set->nr_progs++;
	}
	return 0;
}

/* One character class "[...]" at @pat[@p] ('[' already seen), or 0 */
static u32 gr_glob_class(const char *pat, u32 p, u32 plen, u8 c,
			 bool *matched)
{
	bool neg = false, hit = false;
	u32 i = p + 1;
	u8 lo, hi;

	if (i < plen && pat[i] == '!') {
		neg = true;
		i++;
	}
	/* A ']' right after '[' or '[!' is a member, not the end */
	if (i < plen && pat[i] == ']') {
		hit |= c == ']';
		i++;
	}
	while (i < plen && pat[i] != ']') {
		lo = pat[i];
		if (i + 2 < plen && pat[i + 1] == '-' && pat[i + 2] != ']') {
			hi = pat[i + 2];
			hit |= c >= lo && c <= hi;
			i += 3;
		} else {
			hit |= c == lo;
			i++;
		}
	}
	if (i >= plen)
		return 0;	/* no closing ']': the '[' is a plain character */
	*matched = hit != neg;
	return i + 1;
}

/**
 * gr_glob_match() - does text @s match the glob @pat?
 * @pat: pattern: '*' any run, '?' any one character, "[a-z]" and "[!x]"
 *	classes, every other character itself (as ftrace's '~')
 * @plen: pattern bytes
 * @s: text
 * @slen: text bytes
 *
 * Iterative, with one backtracking point (the last '*'): at most
 * (@slen + 1) * (@plen + 1) steps, no recursion.
 *
 * Return: true on a match of the whole text.
 */
bool gr_glob_match(const char *pat, u32 plen, const u8 *s, u32 slen)
{
	u32 p = 0, i = 0, star_p = 0, star_i = 0, next;
	bool star = false, matched;

	while (i < slen) {
		if (p < plen) {
			if (pat[p] == '*') {
				star = true;
				star_p = ++p;
				star_i = i;
				continue;
			}
			if (pat[p] == '?') {
				p++;
				i++;
				continue;
			}
			matched = false;
			next = pat[p] == '[' ?
			       gr_glob_class(pat, p, plen, s[i], &matched) : 0;
			if (next) {
				if (matched) {
					p = next;
					i++;
					continue;
				}
			} else if ((u8)pat[p] == s[i]) {
				p++;
				i++;
				continue;
			}
		}
		if (!star)
			return false;
		/* Let the last '*' take one more character */
		p = star_p;
		i = ++star_i;
	}
	while (p < plen && pat[p] == '*')
		p++;
	return p == plen;
}

/*
 * The text of a string operand: up to its NUL, its size or the record's
 * end, whichever comes first. The bounds are private; the bytes are the
 * record this CPU just wrote, which only the host could change meanwhile,
 * and that can change the answer, never where it is read.
 */
static bool gr_filter_str(const struct gr_filter_prog *prog,
			  const struct gr_filter_op *op, const u8 *payload,
			  u32 len)
{
	u32 pat_off = op->k & 0xffff, pat_len = (op->k >> 16) & 0xffff;
	const char *pat = prog->strtab + pat_off;
	const u8 *text = payload + op->off;
	u32 avail, n = 0;

	avail = op->off < len ? min_t(u32, op->arg, len - op->off) : 0;
	while (n < avail && READ_ONCE(text[n]))
		n++;
	if (op->code == GR_FI_JSTREQ)
		return n == pat_len && !memcmp(text, pat, n);
	return gr_glob_match(pat, pat_len, text, n);
}

/**
 * gr_filter_match() - run a verified program on one record
 * @prog: a program gr_filter_verify() accepted
 * @payload: the record's payload
 * @len: its length in bytes (private: what the probe reserved)
 * @tid: the record's thread id (common_tid)
 * @cpu: the CPU recording it (common_cpu)
 *
 * Context: any, including NMI; no locks, no allocation, at most
 * @prog->nr_insns steps.
 * Return: true to keep the record, false to drop it.
 */
bool gr_filter_match(const struct gr_filter_prog *prog, const u8 *payload,
		     u32 len, u32 tid, u32 cpu)
{
	const struct gr_filter_op *op;
	unsigned int pc = 0;
	bool cond;
	u64 a = 0;

	while (pc < prog->nr_insns) {
		op = &prog->ops[pc];
		cond = false;
		switch (op->code) {
		case GR_FI_RET:
			return op->k;
		case GR_FI_LD:
		case GR_FI_LDS:
			/* Verified against the event; this record is shorter */
			if (unlikely((u32)op->off + op->width > len))
				return true;
			a = gr_filter_load(payload + op->off, op->width);
			if (op->code == GR_FI_LDS)
				a = gr_filter_sext(a, op->width);
			pc++;
			continue;
		case GR_FI_LD_TID:
			a = tid;
			pc++;
			continue;
		case GR_FI_LD_CPU:
			a = cpu;
			pc++;
			continue;
		case GR_FI_JEQ:
			cond = a == op->k;
			break;
		case GR_FI_JGT:
			cond = a > op->k;
			break;
		case GR_FI_JGE:
			cond = a >= op->k;
			break;
		case GR_FI_JSGT:
			cond = (s64)a > (s64)op->k;
			break;
		case GR_FI_JSGE:
			cond = (s64)a >= (s64)op->k;
			break;
		case GR_FI_JSET:
			cond = a & op->k;
			break;
		case GR_FI_JSTREQ:
		case GR_FI_JGLOB:
			cond = gr_filter_str(prog, op, payload, len);
			break;
		default:
			/* Not verified: keep the record */
			return true;
		}
		pc += 1 + (cond ? op->jt : op->jf);
	}
	return true;
}

/**
 * gr_follow_read() - copy and check the host's follow block, once
 * @ctrl: the control block in the region (host-written, hostile)
 * @spec: receives the block, host byte order; all 0 for "no follow"
 * @err: receives the reason of a refusal (slot GR_FILTER_NO_SLOT; insn
 *	the index of a bad pid, else GR_FILTER_NO_INSN)
 *
 * Spec 15.2: flags 0 means no follow filter and the rest of the block is
 * ignored; otherwise GR_FOLLOW_F_ON is set, no unknown flag, at most
 * GR_FOLLOW_MAX_PIDS pids each in 1..GR_FOLLOW_PID_LIMIT-1, a comm glob of
 * at most GR_FOLLOW_COMM_LEN bytes, at least one of the two, and the
 * reserved byte 0.
 *
 * Context: any.
 * Return: 0, or -EINVAL with @err filled.
 */
int gr_follow_read(const struct gr_host_ctrl *ctrl,
		   struct gr_follow_spec *spec, struct gr_filter_err *err)
{
	unsigned int i;
	u32 flags, pid;

	memset(spec, 0, sizeof(*spec));
	flags = le32_to_cpu(READ_ONCE(ctrl->follow_flags));
	if (!flags)
		return 0;
	if ((flags & ~GR_FOLLOW_F_KNOWN) || !(flags & GR_FOLLOW_F_ON))
		return gr_filter_fail(err, GR_FILTER_E_FOLLOW,
				      GR_FILTER_NO_SLOT, GR_FILTER_NO_INSN);
	if (READ_ONCE(ctrl->follow_reserved))
		return gr_filter_fail(err, GR_FILTER_E_RESERVED,
				      GR_FILTER_NO_SLOT, GR_FILTER_NO_INSN);
	spec->nr_pids = le16_to_cpu(READ_ONCE(ctrl->follow_nr_pids));
	spec->comm_len = READ_ONCE(ctrl->follow_comm_len);
	if (spec->nr_pids > GR_FOLLOW_MAX_PIDS ||
	    spec->comm_len > GR_FOLLOW_COMM_LEN ||
	    (!spec->nr_pids && !spec->comm_len)) {
		memset(spec, 0, sizeof(*spec));
		return gr_filter_fail(err, GR_FILTER_E_FOLLOW,
				      GR_FILTER_NO_SLOT, GR_FILTER_NO_INSN);
	}
	for (i = 0; i < spec->nr_pids; i++) {
		pid = le32_to_cpu(READ_ONCE(ctrl->follow_pids[i]));
		if (!pid || pid >= GR_FOLLOW_PID_LIMIT) {
			memset(spec, 0, sizeof(*spec));
			return gr_filter_fail(err, GR_FILTER_E_FOLLOW,
					      GR_FILTER_NO_SLOT, i);
		}
		spec->pids[i] = pid;
	}
	for (i = 0; i < spec->comm_len; i++)
		spec->comm[i] = READ_ONCE(ctrl->follow_comm[i]);
	spec->flags = flags;
	return 0;
}

/**
 * gr_follow_add() - follow @pid
 * @f: the set
 * @pid: a thread id; one at or above @f->nr_bits is ignored (none is:
 *	the set covers every pid the kernel hands out)
 *
 * Context: any; atomic, lock-free.
 * Return: true if @pid was not followed before.
 */
bool gr_follow_add(struct gr_follow *f, u32 pid)
{
	if (pid >= f->nr_bits || test_and_set_bit(pid, f->bits))
		return false;
	atomic_inc(&f->tasks);
	return true;
}

/**
 * gr_follow_del() - stop following @pid (its task is gone)
 * @f: the set
 * @pid: a thread id
 *
 * Context: any; atomic, lock-free.
 */
void gr_follow_del(struct gr_follow *f, u32 pid)
{
	if (pid < f->nr_bits && test_and_clear_bit(pid, f->bits))
		atomic_dec(&f->tasks);
}

/**
 * gr_follow_comm() - does a task's comm match the spec's glob?
 * @spec: the follow spec
 * @comm: the task's comm, up to TASK_COMM_LEN (16) bytes
 *
 * Return: false when the spec has no glob.
 */
bool gr_follow_comm(const struct gr_follow_spec *spec, const char *comm)
{
	return spec->comm_len &&
	       gr_glob_match(spec->comm, spec->comm_len, (const u8 *)comm,
			     strnlen(comm, 16));
}

/**
 * gr_follow_keep() - is a record about a followed task?
 * @f: the set
 * @id: the record's event id, < GR_WIDE_MAX_EVENTS
 * @payload: its payload
 * @len: its length (private: what the probe reserved)
 * @tid: the thread that records it
 *
 * As ftrace's set_event_pid: the recording thread is followed, or, for
 * an event that names a second task (sched_switch's next, a wakeup's
 * woken task), that task is.
 *
 * Context: any, including NMI; no locks.
 * Return: true to keep the record.
 */
bool gr_follow_keep(const struct gr_follow *f, unsigned int id,
		    const u8 *payload, u32 len, u32 tid)
{
	u32 off;

	if (gr_follow_has(f, tid))
		return true;
	off = f->other_off[id];
	if (off == GR_FOLLOW_NO_OFF || off + 4 > len)
		return false;
	return gr_follow_has(f, (u32)gr_filter_load(payload + off, 4));
}
