// SPDX-License-Identifier: GPL-2.0
/*
 * validate.c - the host's checks of everything a guest publishes: its
 * region header and the layout it places (the descriptors, their fields,
 * extensions and families are validate_desc.c's)
 *
 * Each check works on a host-private copy of a shared structure and sees
 * the guest as hostile: every length, offset and count is bounded before
 * it is used, all arithmetic on guest values is done in uint64_t with
 * overflow checks, and no loop runs longer than an ABI constant. Rejects
 * return a negative errno and set *why (when @why is not NULL) to a static
 * string naming the first rule that failed.
 *
 * Reserved fields are never checked (spec 2.4: a reader MUST NOT reject a
 * region because a reserved byte is non-zero; a later minor may give them
 * meaning behind a feature bit), nor are bits of guest_features this host
 * does not know. Unknown bits in
 * gr_region_hdr.flags, gr_event_desc.flags and gr_field_desc.flags are
 * always rejected: they change how the layout or a record is read.
 */
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "common.h"
#include "validate.h"


/* GR_TS_MAX_NS in ticks of @freq (<= GR_MAX_CLOCK_FREQ: no overflow) */
static uint64_t ts_max_ticks(uint64_t freq)
{
	unsigned __int128 t = (unsigned __int128)GR_TS_MAX_NS * freq /
			      1000000000U;

	return t >= UINT64_MAX ? UINT64_MAX - 1 : (uint64_t)t;
}

static int is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

/* identifiers: [a-z_][a-z0-9_]* (check.h) */
int gr_ident_check(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap), i;

	if (n == cap)
		return ID_UNTERMINATED;
	if (!n)
		return ID_EMPTY;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c == '_' || (c >= 'a' && c <= 'z'))
			continue;
		if (i && c >= '0' && c <= '9')
			continue;
		return ID_BAD_CHAR;
	}
	return ID_OK;
}

/**
 * gr_is_identifier() - is @s a guestrelay identifier?
 * @s: characters to check; only the first @cap are read
 * @cap: size of the array holding @s
 *
 * A guestrelay identifier is non-empty, NUL-terminated within @cap bytes
 * and matches [a-z_][a-z0-9_]*. Such a string cannot end or escape a TSDL
 * token or string literal.
 *
 * Context: any; does not sleep.
 * Return: 1 if it is, 0 otherwise.
 */
int gr_is_identifier(const char *s, unsigned int cap)
{
	return gr_ident_check(s, cap) == ID_OK;
}

/*
 * TSDL keywords of CTF 1.8 that babeltrace2 2.0 refuses as a bare field or
 * clock name (checked one by one with babeltrace2 from Debian 12). The
 * capitalized ones (_Bool, _Complex, _Imaginary) cannot match an
 * identifier, which is lower case. Names of the writer's own typealiases
 * (uint32_t ...) also collide when emitted bare; the CTF writer avoids all
 * of this by emitting every field name with a '_' prefix, which
 * babeltrace2 strips when it reads the trace.
 */
static const char *const tsdl_keywords[] = {
	"align", "callsite", "char", "clock", "const", "double", "enum",
	"env", "event", "float", "floating_point", "int", "integer", "long",
	"short", "signed", "stream", "string", "struct", "trace",
	"typealias", "typedef", "unsigned", "variant", "void",
};

/**
 * gr_is_tsdl_keyword() - is @s a reserved word of CTF 1.8 metadata?
 * @s: NUL-terminated name
 *
 * Context: any; does not sleep.
 * Return: 1 if @s cannot be used as a bare TSDL identifier, 0 otherwise.
 */
int gr_is_tsdl_keyword(const char *s)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tsdl_keywords); i++)
		if (!strcmp(s, tsdl_keywords[i]))
			return 1;
	return 0;
}

/**
 * gr_mode_name() - printable name of a GR_MODE_* value
 * @mode: value of gr_host_ctrl.mode or gr_guest_status.mode
 *
 * Context: any; does not sleep.
 * Return: a static string, "unknown" for values outside the ABI.
 */
const char *gr_mode_name(uint32_t mode)
{
	switch (mode) {
	case GR_MODE_STREAM:
		return "stream";
	case GR_MODE_FLIGHT:
		return "flight";
	default:
		return "unknown";
	}
}

/**
 * gr_state_name() - printable name of a GR_STATE_* value
 * @state: value of gr_guest_status.state
 *
 * Context: any; does not sleep.
 * Return: a static string, "unknown" for values outside the ABI.
 */
const char *gr_state_name(uint32_t state)
{
	switch (state) {
	case GR_STATE_ABSENT:
		return "absent";
	case GR_STATE_IDLE:
		return "idle";
	case GR_STATE_TRACING:
		return "tracing";
	case GR_STATE_STOPPED:
		return "stopped";
	case GR_STATE_PANIC:
		return "panic";
	default:
		return "unknown";
	}
}

/**
 * gr_read_region_hdr() - take a private copy of a published region header
 * @region: start of the host's mapping of the region
 * @region_size: bytes mapped at @region
 * @copy: receives the copy
 *
 * Loads magic with acquire semantics (pairs with the guest's
 * smp_store_release() of magic at publication) and, if the header is
 * published, copies it with one plain memcpy(). The shared bytes may change
 * under the copy; that is harmless because every later decision uses only
 * @copy, and only after gr_check_region_hdr() accepted it. To catch a
 * re-publication racing the copy (magic cleared, layout rewritten, magic
 * set again) magic and instance_id are re-read after an acquire fence, like
 * the read side of a seqlock, and compared with the copy.
 *
 * Context: process; does not sleep.
 * Return: 0 on success, -EAGAIN if no header is published or it changed
 * during the copy (try again later), -EINVAL if @region_size cannot hold a
 * header.
 */
int gr_read_region_hdr(const void *region, uint64_t region_size,
		       struct gr_region_hdr *copy)
{
	const struct gr_region_hdr *shared;
	uint64_t magic;

	if (region_size < GR_HDR_OFFSET + sizeof(*copy))
		return -EINVAL;
	shared = (const void *)((const uint8_t *)region + GR_HDR_OFFSET);
	magic = __atomic_load_n(&shared->magic, __ATOMIC_ACQUIRE);
	if (le64toh(magic) != GR_REGION_MAGIC)
		return -EAGAIN;
	memcpy(copy, shared, sizeof(*copy));
	/* order the copy before the re-reads below */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (copy->magic != magic ||
	    __atomic_load_n(&shared->magic, __ATOMIC_RELAXED) != magic ||
	    __atomic_load_n(&shared->instance_id, __ATOMIC_RELAXED) !=
	    copy->instance_id)
		return -EAGAIN;
	return 0;
}

static int check_geometry(const struct gr_region_hdr *h, struct gr_view *v,
			  const char **why)
{
	uint32_t room;

	v->flags = le32toh(h->flags);
	if (v->flags & ~(uint32_t)GR_HDR_KNOWN_FLAGS)
		return bad(why, "unknown bits in flags");

	v->nr_cpus = le32toh(h->nr_cpus);
	if (!v->nr_cpus)
		return bad(why, "nr_cpus is 0");
	if (v->nr_cpus > GR_MAX_NR_CPUS)
		return bad(why, "nr_cpus is larger than GR_MAX_NR_CPUS");

	v->nr_rings = le32toh(h->nr_rings);
	if (!v->nr_rings)
		return bad(why, "nr_rings is 0");
	if (v->nr_rings > GR_MAX_RINGS)
		return bad(why, "nr_rings is larger than GR_MAX_RINGS");
	if (gr_view_is_global(v) && v->nr_rings != 1)
		return bad(why, "GR_HDR_GLOBAL set but nr_rings is not 1");
	if (!gr_view_is_global(v) && v->nr_rings != v->nr_cpus)
		return bad(why, "per-CPU rings but nr_rings differs from nr_cpus");

	v->subbuf_size = le32toh(h->subbuf_size);
	if (!is_pow2(v->subbuf_size))
		return bad(why, "subbuf_size is not a power of two");
	if (v->subbuf_size < GR_MIN_SUBBUF_SIZE)
		return bad(why, "subbuf_size is below GR_MIN_SUBBUF_SIZE");
	if (v->subbuf_size > GR_MAX_SUBBUF_SIZE)
		return bad(why, "subbuf_size is above GR_MAX_SUBBUF_SIZE");
	v->subbuf_shift = (uint32_t)__builtin_ctz(v->subbuf_size);

	v->n_subbufs = le32toh(h->n_subbufs);
	if (v->n_subbufs < GR_MIN_SUBBUFS)
		return bad(why, "n_subbufs is below GR_MIN_SUBBUFS");
	if (v->n_subbufs > GR_MAX_SUBBUFS)
		return bad(why, "n_subbufs is above GR_MAX_SUBBUFS");

	v->packet_header_size = le32toh(h->packet_header_size);
	if (v->packet_header_size != sizeof(struct gr_packet_header))
		return bad(why, "packet_header_size is not 72");

	/* a record fits in a sub-buffer and its size fits in a u16 */
	room = v->subbuf_size - v->packet_header_size;
	if (room > GR_MAX_RECORD_SIZE)
		room = GR_MAX_RECORD_SIZE;
	v->max_event_size = le32toh(h->max_event_size);
	if (v->max_event_size < sizeof(struct gr_event_header))
		return bad(why, "max_event_size is below 16");
	if (v->max_event_size > room)
		return bad(why, "max_event_size exceeds the sub-buffer room");
	if (v->max_event_size % GR_RECORD_ALIGN)
		return bad(why, "max_event_size is not a multiple of 8");

	v->desc_count = le32toh(h->desc_count);
	if (!v->desc_count)		/* H3: [1, GR_MAX_EVENTS] */
		return bad(why, "desc_count is 0 (no event to describe)");
	if (v->desc_count > GR_MAX_EVENTS)
		return bad(why, "desc_count is above GR_MAX_EVENTS");
	v->desc_table = v->desc_count;
	v->desc_capacity = v->desc_count;
	/* v1.7, GR_F_ANYEVENT (spec 18.3 M1): slots for events added later */
	if (v->features & GR_F_ANYEVENT) {
		v->desc_capacity = le32toh(h->desc_capacity);
		if (v->desc_capacity < v->desc_count)
			return bad(why, "desc_capacity is below desc_count");
		if (v->desc_capacity > GR_MAX_EVENTS)
			return bad(why, "desc_capacity is above GR_MAX_EVENTS");
	}
	/* v1.13, GR_F_WIDE_EVENTS (spec 19.3 X1): every id the area reaches */
	v->wide_capacity = 0;
	if (v->features & GR_F_WIDE_EVENTS) {
		v->wide_capacity = le32toh(h->wide_capacity);
		if (v->wide_capacity < v->desc_capacity)
			return bad(why, "wide_capacity is below desc_capacity");
		if (v->wide_capacity > GR_WIDE_MAX_EVENTS)
			return bad(why, "wide_capacity is above GR_WIDE_MAX_EVENTS");
		v->desc_capacity = v->wide_capacity;
	}
	v->desc_stride = le32toh(h->desc_stride);
	if (v->desc_stride < sizeof(struct gr_event_desc))
		return bad(why, "desc_stride is smaller than gr_event_desc");
	if (v->desc_stride % 8)
		return bad(why, "desc_stride is not a multiple of 8");
	/* v1.15, GR_F_LONG_DESC (spec 20.3 K1): each slot holds its ext */
	if ((v->features & GR_F_LONG_DESC) &&
	    v->desc_stride < GR_LONG_DESC_STRIDE)
		return bad(why, "desc_stride is below GR_LONG_DESC_STRIDE with GR_F_LONG_DESC");

	v->clock_freq = le64toh(h->clock_freq);
	if (!v->clock_freq)
		return bad(why, "clock_freq is 0");
	if (v->clock_freq > GR_MAX_CLOCK_FREQ)
		return bad(why, "clock_freq is above 10 GHz");
	v->ts_max = ts_max_ticks(v->clock_freq);
	return 0;
}

/* One area of the guest's layout: [off, off + count * elem) */
struct area {
	uint64_t off;
	uint64_t count;
	uint64_t elem;
	uint64_t align;
	uint64_t end;			/* computed */
	const char *e_align;
	const char *e_start;
	const char *e_end;
};

static int check_area(struct area *a, uint64_t region_size, const char **why)
{
	uint64_t len;

	if (a->off % a->align)
		return bad(why, a->e_align);
	if (a->off < GR_LAYOUT_START)
		return bad(why, a->e_start);
	if (__builtin_mul_overflow(a->count, a->elem, &len) ||
	    __builtin_add_overflow(a->off, len, &a->end) ||
	    a->end > region_size)
		return bad(why, a->e_end);
	return 0;
}

static int areas_overlap(const struct area *a, const struct area *b)
{
	if (a->end == a->off || b->end == b->off)
		return 0;		/* an empty area overlaps nothing */
	return a->off < b->end && b->off < a->end;
}

enum { A_DESC, A_RING, A_REC, A_DATA, NR_AREAS };

/* overlap_msg[i][j], i < j */
static const char *const overlap_msg[NR_AREAS][NR_AREAS] = {
	[A_DESC][A_RING] = "descriptor table overlaps the rings",
	[A_DESC][A_REC] = "descriptor table overlaps the commit records",
	[A_DESC][A_DATA] = "descriptor table overlaps the sub-buffer data",
	[A_RING][A_REC] = "rings overlap the commit records",
	[A_RING][A_DATA] = "rings overlap the sub-buffer data",
	[A_REC][A_DATA] = "commit records overlap the sub-buffer data",
};

/*
 * The wide area (v1.13, GR_F_WIDE_EVENTS; spec 19.3 X1): one GR_WIDE_SIZE
 * page, page aligned, inside the region, overlapping none of the @nr
 * areas of @a; added to them as @a[@nr], *@nr + 1. Without the feature
 * bit the fields are reserved: ignored, the view's 0.
 */
static int check_wide(const struct gr_region_hdr *h, struct gr_view *v,
		      struct area *a, int *nr, const char **why)
{
	struct area *w = &a[*nr];
	int i;

	v->wide_offset = 0;
	if (!(v->features & GR_F_WIDE_EVENTS))
		return 0;
	w->off = le64toh(h->wide_offset);
	w->count = 1;
	w->elem = GR_WIDE_SIZE;
	w->align = GR_PAGE_SIZE;
	w->e_align = "wide_offset is not GR_PAGE_SIZE aligned";
	w->e_start = "wide_offset is below GR_LAYOUT_START";
	w->e_end = "wide area ends beyond the region";
	if (check_area(w, v->region_size, why))
		return -EINVAL;
	for (i = 0; i < *nr; i++)
		if (areas_overlap(w, &a[i]))
			return bad(why, "wide area overlaps another area of the layout");
	v->wide_offset = w->off;
	(*nr)++;
	return 0;
}

/*
 * The hist area (v1.5, GR_F_HIST; spec 17.1, F1): page aligned, at least
 * GR_HIST_MIN_SIZE, at or after the end of the sub-buffer data, inside the
 * region, overlapping no other area and no client area. Without the
 * feature bit the fields are reserved: ignored, the view's 0.
 */
static int check_hist(const struct gr_region_hdr *h, struct gr_view *v,
		      const struct area *a, int nr, const char **why)
{
	struct area hist = { .align = GR_PAGE_SIZE };
	uint64_t coff, csize;
	int i;

	v->hist_offset = 0;
	v->hist_size = 0;
	if (!(v->features & GR_F_HIST))
		return 0;
	hist.off = le64toh(h->hist_offset);
	hist.count = le64toh(h->hist_size);
	hist.elem = 1;
	if (hist.off % GR_PAGE_SIZE)
		return bad(why, "hist_offset is not GR_PAGE_SIZE aligned");
	if (hist.count % GR_PAGE_SIZE)
		return bad(why, "hist_size is not a multiple of GR_PAGE_SIZE");
	if (hist.count < GR_HIST_MIN_SIZE)
		return bad(why, "hist_size is below GR_HIST_MIN_SIZE");
	if (hist.off < a[A_DATA].end)
		return bad(why, "hist area starts before the end of the sub-buffer data");
	hist.e_align = "hist_offset is not GR_PAGE_SIZE aligned";
	hist.e_start = "hist_offset is below GR_LAYOUT_START";
	hist.e_end = "hist area ends beyond the region";
	if (check_area(&hist, v->region_size, why))
		return -EINVAL;
	for (i = 0; i < nr; i++)
		if (areas_overlap(&hist, &a[i]))
			return bad(why, "hist area overlaps the trace channel's layout");
	v->hist_offset = hist.off;
	v->hist_size = hist.count;
	if (!(v->features & GR_F_CLIENT))
		return 0;
	coff = le64toh(h->client_offset);
	csize = le64toh(h->client_size);
	/* [coff, coff + csize) meets [off, end), without computing coff + csize */
	if (csize && coff < hist.end &&
	    (coff >= hist.off || hist.off - coff < csize))
		return bad(why, "hist area overlaps the client area");
	return 0;
}

static int check_layout(const struct gr_region_hdr *h, struct gr_view *v,
			const char **why)
{
	struct area a[NR_AREAS + 1] = {
		[A_DESC] = {
			.e_align = "desc_offset is not 8-byte aligned",
			.e_start = "desc_offset is below GR_LAYOUT_START",
			.e_end = "descriptor table ends beyond the region",
		},
		[A_RING] = {
			.e_align = "ring_offset is not 64-byte aligned",
			.e_start = "ring_offset is below GR_LAYOUT_START",
			.e_end = "rings end beyond the region",
		},
		[A_REC] = {
			.e_align = "subbuf_rec_offset is not 64-byte aligned",
			.e_start = "subbuf_rec_offset is below GR_LAYOUT_START",
			.e_end = "commit records end beyond the region",
		},
		[A_DATA] = {
			.e_align = "data_offset is not GR_PAGE_SIZE aligned",
			.e_start = "data_offset is below GR_LAYOUT_START",
			.e_end = "sub-buffer data ends beyond the region",
		},
	};
	uint64_t slots = (uint64_t)v->nr_rings * v->n_subbufs;
	int i, j, nr, ret;

	v->desc_offset = le64toh(h->desc_offset);
	v->ring_offset = le64toh(h->ring_offset);
	v->subbuf_rec_offset = le64toh(h->subbuf_rec_offset);
	v->data_offset = le64toh(h->data_offset);

	a[A_DESC].off = v->desc_offset;
	a[A_DESC].count = v->desc_capacity;	/* M1: every slot */
	a[A_DESC].elem = v->desc_stride;
	a[A_DESC].align = 8;
	a[A_RING].off = v->ring_offset;
	a[A_RING].count = v->nr_rings;
	a[A_RING].elem = sizeof(struct gr_ring);
	a[A_RING].align = 64;
	a[A_REC].off = v->subbuf_rec_offset;
	a[A_REC].count = slots;
	a[A_REC].elem = sizeof(struct gr_subbuf_rec);
	a[A_REC].align = 64;	/* spec 3.x layout: 64, as the guest lays out */
	a[A_DATA].off = v->data_offset;
	a[A_DATA].count = slots;
	a[A_DATA].elem = v->subbuf_size;
	a[A_DATA].align = GR_PAGE_SIZE;

	for (i = 0; i < NR_AREAS; i++) {
		ret = check_area(&a[i], v->region_size, why);
		if (ret)
			return ret;
	}
	for (i = 0; i < NR_AREAS; i++)
		for (j = i + 1; j < NR_AREAS; j++)
			if (areas_overlap(&a[i], &a[j]))
				return bad(why, overlap_msg[i][j]);
	nr = NR_AREAS;
	ret = check_wide(h, v, a, &nr, why);
	if (ret)
		return ret;
	return check_hist(h, v, a, nr, why);
}

/* copy a NUL-terminated string, replacing what is unsafe in a literal */
static void sanitize(char *dst, const char *src, size_t cap)
{
	size_t i;

	for (i = 0; i < cap - 1 && src[i]; i++) {
		unsigned char c = (unsigned char)src[i];

		if (c < 0x20 || c > 0x7e || c == '"' || c == '\\')
			c = '?';
		dst[i] = (char)c;
	}
	memset(dst + i, 0, cap - i);
}

static int check_strings(const struct gr_region_hdr *h, struct gr_view *v,
			 const char **why)
{
	switch (gr_ident_check(h->clock_name, sizeof(h->clock_name))) {
	case ID_UNTERMINATED:
		return bad(why, "clock_name is not NUL-terminated");
	case ID_EMPTY:
		return bad(why, "clock_name is empty");
	case ID_BAD_CHAR:
		return bad(why, "clock_name is not an identifier [a-z_][a-z0-9_]*");
	}
	if (gr_is_tsdl_keyword(h->clock_name))
		return bad(why, "clock_name is a TSDL keyword");
	if (strnlen(h->kernel_release, sizeof(h->kernel_release)) ==
	    sizeof(h->kernel_release))
		return bad(why, "kernel_release is not NUL-terminated");
	if (strnlen(h->nodename, sizeof(h->nodename)) == sizeof(h->nodename))
		return bad(why, "nodename is not NUL-terminated");
	/* v1.2: only a guest that sets GR_F_GUEST_INFO defines these bytes */
	if ((v->features & GR_F_GUEST_INFO) &&
	    strnlen(h->kernel_version, sizeof(h->kernel_version)) ==
	    sizeof(h->kernel_version))
		return bad(why, "kernel_version is not NUL-terminated");

	memset(v->clock_name, 0, sizeof(v->clock_name));
	strcpy(v->clock_name, h->clock_name);
	sanitize(v->kernel_release, h->kernel_release,
		 sizeof(v->kernel_release));
	sanitize(v->nodename, h->nodename, sizeof(v->nodename));
	memcpy(v->boot_id, h->boot_id, sizeof(v->boot_id));
	memset(v->kernel_version, 0, sizeof(v->kernel_version));
	memset(v->product_uuid, 0, sizeof(v->product_uuid));
	if (v->features & GR_F_GUEST_INFO) {
		sanitize(v->kernel_version, h->kernel_version,
			 sizeof(v->kernel_version));
		memcpy(v->product_uuid, h->product_uuid,
		       sizeof(v->product_uuid));
	}
	return 0;
}

/**
 * gr_check_region_hdr() - validate a private copy of the region header
 * @copy: host-private copy (see gr_read_region_hdr())
 * @real_region_size: size of the host's mapping, from the shm fd
 * @out: receives the CPU-endian view; written only on success
 * @why: receives a static reason on failure; may be NULL
 *
 * Checks, in this order: magic, abi_major, hdr_size, the real and the
 * published region size, flags, geometry (nr_cpus, nr_rings, subbuf_size,
 * n_subbufs, packet_header_size, max_event_size, desc_count, with
 * GR_F_ANYEVENT desc_capacity, desc_stride, clock_freq), the four areas (each aligned, at or after GR_LAYOUT_START,
 * inside the region, overflow-safe; pairwise disjoint), with GR_F_HIST the
 * hist area (spec 17.1: page aligned, at least GR_HIST_MIN_SIZE, after the
 * sub-buffer data, inside the region, disjoint from the client area), the
 * strings and the reserved fields. hdr_size must lie in [GR_HDR_SIZE_MIN, GR_HDR_SIZE_MAX],
 * i.e. be 512: the header may not reach into the status block.
 *
 * Context: any; does not sleep.
 * Return: 0 if @copy is acceptable, -EAGAIN if magic is 0 (not published
 * yet, or withdrawn), -EPROTONOSUPPORT if abi_major is not GR_ABI_MAJOR,
 * -EINVAL for anything else.
 */
int gr_check_region_hdr(const struct gr_region_hdr *copy,
			uint64_t real_region_size, struct gr_view *out,
			const char **why)
{
	struct gr_view v;
	uint64_t magic = le64toh(copy->magic);
	uint32_t hdr_size;
	int ret;

	if (!magic)
		return reject(why, "region header not published", -EAGAIN);
	if (magic != GR_REGION_MAGIC)
		return bad(why, "bad region magic");
	if (le16toh(copy->abi_major) != GR_ABI_MAJOR)
		return reject(why, "unsupported abi_major", -EPROTONOSUPPORT);

	memset(&v, 0, sizeof(v));
	v.abi_minor = le16toh(copy->abi_minor);
	hdr_size = le32toh(copy->hdr_size);
	if (hdr_size < GR_HDR_SIZE_MIN)
		return bad(why, "hdr_size is smaller than gr_region_hdr");
	if (hdr_size > GR_HDR_SIZE_MAX)
		return bad(why, "hdr_size reaches into the status block");

	if (!is_pow2(real_region_size) ||
	    real_region_size < GR_MIN_REGION_SIZE ||
	    real_region_size > GR_MAX_REGION_SIZE)
		return bad(why, "real region size is not a power of two in range");
	v.region_size = le64toh(copy->region_size);
	if (v.region_size != real_region_size)
		return bad(why, "region_size differs from the real region size");

	v.features = le64toh(copy->guest_features);
	v.instance_id = le64toh(copy->instance_id);

	ret = check_geometry(copy, &v, why);
	if (ret)
		return ret;
	ret = check_layout(copy, &v, why);
	if (ret)
		return ret;
	ret = check_strings(copy, &v, why);
	if (ret)
		return ret;

	*out = v;
	return 0;
}
