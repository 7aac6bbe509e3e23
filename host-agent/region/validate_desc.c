// SPDX-License-Identifier: GPL-2.0
/*
 * validate_desc.c - the host's checks of a guest's event descriptors:
 * each field (spec 7.3, 7.4), the variable part (v1.11), the extension of
 * a long descriptor (v1.15, spec 20), the event names and the system call
 * families (7.2, H30), descriptors added at run time (spec 18)
 *
 * As validate.c's: on host-private copies, the guest hostile, every
 * rejection a negative errno with a static reason in *why.
 */
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "common.h"
#include "validate.h"

/*
 * One field as a check reads it: its descriptor and its name (the
 * descriptor's own, or v1.15 a long name of the extension, spec 20.1)
 */
struct field_in {
	const struct gr_field_desc *f;
	const char *name;
	size_t cap;
};

/* the end of field @in (@fv checked so far) in the payload; its name */
static int check_end(const struct field_in *in, struct gr_field_view *fv,
		     uint16_t payload_size, const char **why)
{
	uint32_t end = (uint32_t)fv->offset + fv->size;	/* no overflow */

	if (end > payload_size)
		return bad(why, "field extends beyond payload_size");
	memset(fv->name, 0, sizeof(fv->name));
	memcpy(fv->name, in->name, strlen(in->name));
	return 0;
}

/*
 * The elements of a SEQUENCE (v1.11, @seq) or ARRAY (v1.14) field @in:
 * 1, 2, 4 or 8 bytes, a whole number of them (spec 7.4)
 */
static int check_elems(const struct field_in *in, struct gr_field_view *fv,
		       int seq, uint16_t payload_size, const char **why)
{
	fv->elem_size = in->f->elem_size;
	if (fv->elem_size != 1 && fv->elem_size != 2 &&
	    fv->elem_size != 4 && fv->elem_size != 8)
		return bad(why, seq ? "sequence element size is not 1, 2, 4 or 8" :
			   "array element size is not 1, 2, 4 or 8");
	if (!fv->size || fv->size % fv->elem_size)
		return bad(why, seq ? "sequence size is not a multiple of its element size" :
			   "array size is not a multiple of its element size");
	if (fv->flags & ~(uint8_t)GR_FIELD_KNOWN_FLAGS)
		return bad(why, "unknown bits in field flags");
	return check_end(in, fv, payload_size, why);
}

static int check_field(const struct field_in *in, struct gr_field_view *fv,
		       uint16_t payload_size, int last, int varlen,
		       uint64_t features, const char **why)
{
	const struct gr_field_desc *f = in->f;
	int dynarr = !!(features & GR_F_DYNARR);

	switch (gr_ident_check(in->name, in->cap)) {
	case ID_UNTERMINATED:
		return bad(why, "field name is not NUL-terminated");
	case ID_EMPTY:
		return bad(why, "field name is empty");
	case ID_BAD_CHAR:
		return bad(why, "field name is not an identifier [a-z_][a-z0-9_]*");
	}
	if (!strcmp(in->name, "_"))
		return bad(why, "field name \"_\" is empty once its '_' is stripped");
	if (!strncmp(in->name, "_gr_", 4))
		return bad(why, "field name starts with _gr_ (reserved for the host's padding)");

	fv->offset = le16toh(f->offset);
	fv->size = le16toh(f->size);
	fv->type = f->type;
	fv->flags = f->flags;

	switch (fv->type) {
	case GR_FIELD_INTEGER:
		if (fv->size != 1 && fv->size != 2 && fv->size != 4 &&
		    fv->size != 8)
			return bad(why, "integer field size is not 1, 2, 4 or 8");
		if (fv->flags & ~(uint8_t)GR_FIELD_KNOWN_FLAGS)
			return bad(why, "unknown bits in field flags");
		break;
	case GR_FIELD_CHARS:
		if (!fv->size)
			return bad(why, "chars field has size 0");
		if (fv->flags)
			return bad(why, "flags set on a non-integer field");
		break;
	case GR_FIELD_STRING:
		if (!last && !dynarr)
			return bad(why, "string field is not the last field");
		if (!varlen)
			return bad(why, "string field in an event without VARLEN");
		if (!fv->size)
			return bad(why, "string field has size 0");
		if (fv->flags)
			return bad(why, "flags set on a non-integer field");
		break;
	case GR_FIELD_SEQUENCE:	/* v1.11, spec 7.3 */
		if (!dynarr)
			return bad(why, "sequence field without GR_F_DYNARR");
		if (!varlen)
			return bad(why, "sequence field in an event without VARLEN");
		fv->len_field = f->len_field;
		return check_elems(in, fv, 1, payload_size, why);
	case GR_FIELD_ARRAY:	/* v1.14, spec 7.3, 7.4 */
		if (!(features & GR_F_ARRAYS))
			return bad(why, "array field without GR_F_ARRAYS");
		if (f->len_field)
			return bad(why, "array field with a len_field");
		return check_elems(in, fv, 0, payload_size, why);
	default:
		return bad(why, "unknown field type");
	}

	return check_end(in, fv, payload_size, why);
}

/*
 * v1.11 (spec 7.4): field @i of @ev against the variable part: once a
 * STRING or SEQUENCE came, every field is one, declared right after the
 * previous one's maximum; a sequence's count is an unsigned integer of
 * the fixed part
 */
static int check_var_field(const struct gr_event_view *ev, unsigned int i,
			   unsigned int *first_var, const char **why)
{
	const struct gr_field_view *fv = &ev->fields[i], *prev, *len;

	if (!GR_FIELD_IS_VAR(fv->type)) {
		if (*first_var < i)
			return bad(why, "a fixed field after a variable one");
		return 0;
	}
	if (*first_var > i) {
		*first_var = i;
	} else {
		prev = &ev->fields[i - 1];
		if (fv->offset != prev->offset + prev->size)
			return bad(why, "variable field not right after the previous one");
	}
	if (fv->type != GR_FIELD_SEQUENCE)
		return 0;
	if (fv->len_field >= *first_var)
		return bad(why, "sequence count is not a field of the fixed part");
	len = &ev->fields[fv->len_field];
	if (len->type != GR_FIELD_INTEGER || (len->flags & GR_FIELD_F_SIGNED))
		return bad(why, "sequence count is not an unsigned integer");
	return 0;
}

/* the smallest payload of VARLEN @ev: its fixed part, a NUL per string */
static uint32_t var_min(const struct gr_event_view *ev)
{
	unsigned int i = gr_event_first_var(ev);
	uint32_t n = ev->fields[i].offset;

	for (; i < ev->nr_fields; i++)
		n += ev->fields[i].type == GR_FIELD_STRING;
	return n;
}

/* names equal once one leading '_' (stripped by CTF readers) is ignored */
static int names_clash(const char *a, const char *b)
{
	if (*a == '_')
		a++;
	if (*b == '_')
		b++;
	return !strcmp(a, b);
}

/*
 * v1.2, GR_F_SYSCALLS (spec 7.2, H30): a family belongs to sys_enter or
 * sys_exit, has 1..GR_MAX_FAMILY members and lies in [desc_capacity,
 * GR_MAX_RECORD_IDS) (desc_count without GR_F_ANYEVENT; spec 18.3 M1). Without the feature the fields are reserved bytes,
 * ignored.
 */
static int check_family(const struct gr_view *v,
			const struct gr_event_desc *copy,
			struct gr_event_view *ev, const char **why)
{
	uint32_t base, count;

	if (!(v->features & GR_F_SYSCALLS))
		return 0;
	base = le16toh(copy->family_base);
	count = le16toh(copy->family_count);
	if (!count) {
		if (base)
			return bad(why, "family_base without family_count");
		return 0;
	}
	if (strcmp(ev->system, "raw_syscalls") ||
	    (strcmp(ev->name, "sys_enter") && strcmp(ev->name, "sys_exit")))
		return bad(why, "a family on an event other than raw_syscalls sys_enter or sys_exit");
	if (count > GR_MAX_FAMILY)
		return bad(why, "family_count is above GR_MAX_FAMILY");
	if (base < v->desc_count)
		return bad(why, "family_base is below desc_count");
	if (base < v->desc_capacity)	/* v1.7, spec 18.3 M1 */
		return bad(why, "family_base is below desc_capacity");
	if (base + count > GR_MAX_RECORD_IDS)
		return bad(why, "family ends above GR_MAX_RECORD_IDS");
	ev->family_base = (uint16_t)base;
	ev->family_count = (uint16_t)count;
	return 0;
}

/*
 * The fields of @ev from @in[0 .. @ev->nr_fields) (spec 7.4): each one
 * (check_field()), the variable part, increasing offsets, no overlap,
 * unique names, and a VARLEN event ending where its last field does
 */
static int check_fields(const struct gr_view *v, struct gr_event_view *ev,
			const struct field_in *in, const char **why)
{
	int varlen = !!(ev->flags & GR_EVENT_F_VARLEN);
	unsigned int i, j, n = ev->nr_fields, first_var = n;
	int ret;

	if (varlen && (!n || !GR_FIELD_IS_VAR(in[n - 1].f->type)))
		return bad(why, "VARLEN event does not end with a string field");
	for (i = 0; i < n; i++) {
		struct gr_field_view *fv = &ev->fields[i];

		ret = check_field(&in[i], fv, ev->payload_size, i + 1 == n,
				  varlen, v->features, why);
		if (ret)
			return ret;
		ret = check_var_field(ev, i, &first_var, why);
		if (ret)
			return ret;
		if (i && fv->offset < ev->fields[i - 1].offset)
			return bad(why, "fields are not in increasing offset order");
		for (j = 0; j < i; j++) {
			const struct gr_field_view *o = &ev->fields[j];

			if (names_clash(fv->name, o->name))
				return bad(why, "duplicate field name");
			if (fv->offset < o->offset + o->size &&
			    o->offset < fv->offset + fv->size)
				return bad(why, "fields overlap");
		}
	}
	if (varlen && ev->fields[n - 1].offset + ev->fields[n - 1].size !=
		      ev->payload_size)
		return bad(why, "VARLEN payload_size is not where the string ends");
	return 0;
}

/* an identifier in @cap bytes, or the reason it is not one */
static int check_name(const char *s, size_t cap, const char *what,
		      const char **why)
{
	static const char *const msg[][3] = {
		{ "event name is not NUL-terminated", "event name is empty",
		  "event name is not an identifier [a-z_][a-z0-9_]*" },
		{ "event system is not NUL-terminated", "event system is empty",
		  "event system is not an identifier [a-z_][a-z0-9_]*" },
	};
	unsigned int k = strcmp(what, "name") ? 1 : 0;

	switch (gr_ident_check(s, cap)) {
	case ID_UNTERMINATED:
		return bad(why, msg[k][0]);
	case ID_EMPTY:
		return bad(why, msg[k][1]);
	case ID_BAD_CHAR:
		return bad(why, msg[k][2]);
	}
	return 0;
}

/*
 * v1.15, GR_F_LONG_DESC (spec 20.1, K2): @ev, the view of the 576-byte
 * descriptor @copy (already checked), becomes the event its extension
 * @ext describes: its long name and system, its whole field list (the
 * descriptor's fixed fields, the extension's, the descriptor's variable
 * ones) with the long field names, checked again as one descriptor
 */
static int apply_ext(const struct gr_view *v, const struct gr_event_desc *copy,
		     const struct gr_event_desc_ext *ext,
		     struct gr_event_view *ev, const char **why)
{
	struct field_in in[GR_LONG_MAX_FIELDS];
	unsigned int i, k, n, nd = ev->nr_fields, more, first_var, nl;
	uint16_t flags = le16toh(ext->flags);
	int ret;

	if (flags & ~(uint16_t)GR_DESC_EXT_F_USED)
		return bad(why, "unknown bits in the extension's flags");
	if (!(flags & GR_DESC_EXT_F_USED))
		return 0;
	ret = check_name(ext->name, sizeof(ext->name), "name", why);
	if (!ret)
		ret = check_name(ext->system, sizeof(ext->system), "system",
				 why);
	if (ret)
		return ret;
	n = le16toh(ext->nr_fields);
	if (n < nd || n > GR_LONG_MAX_FIELDS)
		return bad(why, "extension nr_fields is below the descriptor's or above GR_LONG_MAX_FIELDS");
	more = n - nd;
	if (more && nd != GR_MAX_FIELDS)
		return bad(why, "extension fields while the descriptor has room");
	nl = ext->nr_long_names;
	if (nl > GR_LONG_FIELD_NAMES)
		return bad(why, "extension nr_long_names is above GR_LONG_FIELD_NAMES");

	first_var = gr_event_first_var(ev);
	for (i = 0; i < n; i++) {
		const struct gr_field_desc *f;

		if (i < first_var)
			f = &copy->fields[i];
		else if (i < first_var + more)
			f = &ext->fields[i - first_var];
		else
			f = &copy->fields[i - more];
		if (i >= first_var && i < first_var + more &&
		    GR_FIELD_IS_VAR(f->type))
			return bad(why, "a variable field in the extension");
		in[i].f = f;
		in[i].name = f->name;
		in[i].cap = sizeof(f->name);
	}
	for (k = 0; k < nl; k++) {
		const struct gr_field_name_ext *ln = &ext->long_names[k];

		if (ln->field >= n)
			return bad(why, "long field name of no field");
		if (k && ln->field <= ext->long_names[k - 1].field)
			return bad(why, "long field names not in increasing field order");
		in[ln->field].name = ln->name;
		in[ln->field].cap = sizeof(ln->name);
	}
	/* sequences count a fixed field: the same index in both lists */
	ev->nr_fields = (uint16_t)n;
	memset(ev->fields, 0, sizeof(ev->fields));
	ret = check_fields(v, ev, in, why);
	if (ret)
		return ret;
	memset(ev->name, 0, sizeof(ev->name));
	memcpy(ev->name, ext->name, strlen(ext->name));
	memset(ev->system, 0, sizeof(ev->system));
	memcpy(ev->system, ext->system, strlen(ext->system));
	return 0;
}

/**
 * gr_check_event_desc_ext() - validate a private copy of an event
 * descriptor and of its extension
 * @v: view of the region header, from gr_check_region_hdr()
 * @copy: host-private copy of descriptor @index (sizeof(struct
 *	gr_event_desc) bytes read at gr_view_desc_off(@v, @index))
 * @ext: v1.15, host-private copy of the struct gr_event_desc_ext after
 *	it, read with it when GR_F_LONG_DESC is in @v->features; NULL
 *	otherwise (then it is ignored, as bytes up to desc_stride of a
 *	newer minor are)
 * @index: the descriptor's index in the table, below @v->desc_capacity
 * @out: receives the CPU-endian view; written only on success
 * @why: receives a static reason on failure; may be NULL
 *
 * Checks: id == @index; name and system are identifiers (see
 * gr_is_identifier()); flags known; nr_fields <= GR_MAX_FIELDS;
 * 16 + payload_size <= max_event_size; each used field has an identifier
 * name that is unique in the event (also once one leading '_' is ignored,
 * as CTF readers strip it), a known type, an
 * integer size of 1, 2, 4 or 8, a non-zero CHARS or STRING size, flags only
 * on integers, and lies inside payload_size; fields do not overlap; a STRING
 * field is the last one and only in a VARLEN event, and a VARLEN event ends
 * with one; with GR_F_SYSCALLS, family_base and family_count as spec H30
 * says (one descriptor; gr_check_families() checks the table). Entries of
 * @copy->fields past nr_fields and reserved bytes are ignored (spec 2.4).
 * v1.15, with @ext and GR_F_LONG_DESC (spec 20, K2): the descriptor
 * passes all that on its own, and, when the extension is in use, the
 * event it describes with the extension's names and fields passes the
 * same rules with the lengths of GR_LONG_*; @out is that event.
 *
 * No name is checked against TSDL keywords: the CTF writer emits event and
 * system names inside string literals and every field name with a leading
 * '_' (spec 7.5), so "string" or "align" are ordinary field names.
 *
 * Context: any; does not sleep.
 * Return: 0 if @copy is acceptable, -EINVAL otherwise.
 */
int gr_check_event_desc_ext(const struct gr_view *v,
			    const struct gr_event_desc *copy,
			    const struct gr_event_desc_ext *ext,
			    unsigned int index, struct gr_event_view *out,
			    const char **why)
{
	struct field_in in[GR_MAX_FIELDS];
	struct gr_event_view ev;
	unsigned int i;
	int ret;

	if (index >= GR_WIDE_MAX_EVENTS || index >= v->desc_capacity)
		return bad(why, "descriptor index out of range");
	memset(&ev, 0, sizeof(ev));
	ev.id = le16toh(copy->id);
	if (ev.id != index)
		return bad(why, "descriptor id differs from its index");

	ret = check_name(copy->name, sizeof(copy->name), "name", why);
	if (!ret)
		ret = check_name(copy->system, sizeof(copy->system), "system",
				 why);
	if (ret)
		return ret;

	ev.flags = le16toh(copy->flags);
	if (ev.flags & ~(uint16_t)GR_EVENT_KNOWN_FLAGS)
		return bad(why, "unknown bits in event flags");

	ev.payload_size = le16toh(copy->payload_size);
	if ((uint32_t)ev.payload_size + sizeof(struct gr_event_header) >
	    v->max_event_size)
		return bad(why, "payload_size + 16 exceeds max_event_size");

	ev.nr_fields = le16toh(copy->nr_fields);
	if (ev.nr_fields > GR_MAX_FIELDS)
		return bad(why, "nr_fields is above GR_MAX_FIELDS");
	for (i = 0; i < ev.nr_fields; i++) {
		in[i].f = &copy->fields[i];
		in[i].name = copy->fields[i].name;
		in[i].cap = sizeof(copy->fields[i].name);
	}
	ret = check_fields(v, &ev, in, why);
	if (ret)
		return ret;

	memcpy(ev.name, copy->name, strlen(copy->name));
	memcpy(ev.system, copy->system, strlen(copy->system));
	if (ext && (v->features & GR_F_LONG_DESC)) {
		ret = apply_ext(v, copy, ext, &ev, why);
		if (ret)
			return ret;
	}
	ret = check_family(v, copy, &ev, why);
	if (ret)
		return ret;
	ev.max_record = (uint16_t)ALIGN8(sizeof(struct gr_event_header) +
					 ev.payload_size);
	if (ev.flags & GR_EVENT_F_VARLEN)
		ev.min_record = (uint16_t)ALIGN8(sizeof(struct gr_event_header) +
						 var_min(&ev));
	else
		ev.min_record = ev.max_record;
	*out = ev;
	return 0;
}

/**
 * gr_check_event_desc() - validate a private copy of an event descriptor
 * @v: view of the region header, from gr_check_region_hdr()
 * @copy: host-private copy of descriptor @index (sizeof(struct
 *	gr_event_desc) bytes read at gr_view_desc_off(@v, @index); bytes past
 *	that, up to desc_stride, are ignored)
 * @index: the descriptor's index in the table, below @v->desc_capacity
 * @out: receives the CPU-endian view; written only on success
 * @why: receives a static reason on failure; may be NULL
 *
 * gr_check_event_desc_ext() without an extension.
 *
 * Context: any; does not sleep.
 * Return: 0 if @copy is acceptable, -EINVAL otherwise.
 */
int gr_check_event_desc(const struct gr_view *v,
			const struct gr_event_desc *copy, unsigned int index,
			struct gr_event_view *out, const char **why)
{
	return gr_check_event_desc_ext(v, copy, NULL, index, out, why);
}

/**
 * gr_check_desc_slot() - validate a host copy of a whole descriptor slot
 * @v: view of the region header, from gr_check_region_hdr()
 * @slot: host-private copy of slot @index: its struct gr_event_desc and,
 *	v1.15, the extension after it (all 0 when the guest lacks
 *	GR_F_LONG_DESC)
 * @index: the slot's index, below @v->desc_capacity
 * @out: receives the CPU-endian view on success
 * @why: receives a static reason on failure; may be NULL
 *
 * The one entry of the host's copies (vm.c, vm_desc.c, the stored
 * .guestrelay): gr_check_event_desc_ext() with the extension.
 *
 * Context: any; does not sleep.
 * Return: 0 or -EINVAL.
 */
int gr_check_desc_slot(const struct gr_view *v,
		       const struct gr_event_desc_long *slot,
		       unsigned int index, struct gr_event_view *out,
		       const char **why)
{
	return gr_check_event_desc_ext(v, &slot->desc, &slot->ext, index, out,
				       why);
}

/**
 * gr_copy_desc_slot() - copy descriptor slot @index of the region once
 * @v: view of the region header, accepted by gr_check_region_hdr()
 * @region: the mapped region
 * @index: below @v->desc_capacity (its slot lies in the checked area)
 * @slot: receives the copy: the descriptor and, with GR_F_LONG_DESC in
 *	@v->features, its extension; otherwise the extension is zeroed
 *
 * Context: any; does not sleep.
 */
void gr_copy_desc_slot(const struct gr_view *v, const void *region,
		       unsigned int index, struct gr_event_desc_long *slot)
{
	const uint8_t *p = (const uint8_t *)region +
			   gr_view_desc_off(v, index);
	size_t len = sizeof(slot->desc);

	/* H3, K1: the stride holds the extension when the bit is set */
	if ((v->features & GR_F_LONG_DESC) &&
	    v->desc_stride >= sizeof(*slot))
		len = sizeof(*slot);
	memset(slot, 0, sizeof(*slot));
	memcpy(slot, p, len);
}

/**
 * gr_check_event_names() - every event name appears once in the table
 * @events: validated descriptors
 * @nr: their number
 * @why: receives the reason of a rejection
 *
 * Event names become CTF event class names, which must be unique.
 *
 * Context: any; does not sleep.
 * Return: 0 or -EINVAL.
 */
int gr_check_event_names(const struct gr_event_view *events, unsigned int nr,
			 const char **why)
{
	unsigned int i, j;

	for (i = 0; i < nr; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(events[i].name, events[j].name))
				return bad(why, "two events have the same name");
	return 0;
}

/*
 * CTF names of family members (spec 7.5): no descriptor may carry one,
 * or two event classes of the metadata would share it
 */
static int member_prefix(const char *name)
{
	return !strncmp(name, "syscall_entry_", 14) ||
	       !strncmp(name, "syscall_exit_", 13);
}

/**
 * gr_check_families() - check the event families of a descriptor table
 * @v: the region's view; receives the families on success
 * @events: validated descriptors (gr_check_event_desc()), @events[i]
 *	describing event id i
 * @nr: their number, at most @v->desc_capacity
 * @why: receives the reason of a rejection; may be NULL
 *
 * Spec H30: at most GR_MAX_FAMILIES descriptors carry a family (each
 * range already checked by gr_check_event_desc()), the ranges do not
 * overlap, and while there is one no event is named like a member
 * (syscall_entry_*, syscall_exit_*). On success @v->families maps every
 * member id to its descriptor, for gr_check_event_header(); on failure
 * @v has none, so member records are refused.
 *
 * Context: any; does not sleep.
 * Return: 0 or -EINVAL.
 */
int gr_check_families(struct gr_view *v, const struct gr_event_view *events,
		      unsigned int nr, const char **why)
{
	struct gr_family fam[GR_MAX_FAMILIES];
	unsigned int i, k, n = 0;

	v->nr_families = 0;
	if (nr > v->desc_capacity)
		return bad(why, "more descriptors than desc_capacity");
	for (i = 0; i < nr; i++) {
		const struct gr_event_view *ev = &events[i];

		if (!ev->family_count)
			continue;
		if (n == GR_MAX_FAMILIES)
			return bad(why, "more event families than GR_MAX_FAMILIES");
		if (ev->family_base < v->desc_capacity ||
		    ev->family_count > GR_MAX_FAMILY ||
		    (uint32_t)ev->family_base + ev->family_count >
		    GR_MAX_RECORD_IDS)
			return bad(why, "family outside its id range");
		for (k = 0; k < n; k++)
			if (ev->family_base < fam[k].base + fam[k].count &&
			    fam[k].base < ev->family_base + ev->family_count)
				return bad(why, "event families overlap");
		fam[n].base = ev->family_base;
		fam[n].count = ev->family_count;
		fam[n].desc = (uint16_t)i;
		n++;
	}
	for (i = 0; n && i < nr; i++)
		if (member_prefix(events[i].name))
			return bad(why, "an event is named like a family member");
	memcpy(v->families, fam, n * sizeof(fam[0]));
	v->nr_families = n;
	return 0;
}

/**
 * gr_check_added_descs() - check descriptors the guest added at run time
 * @v: the region's view; @v->desc_count descriptors are adopted
 * @events: the adopted ones, @events[i] describing id i, with the families
 *	of @v (gr_check_families())
 * @copies: host-private copies of descriptors @v->desc_count .. @live - 1,
 *	each read once from its slot (@copies[0] is id @v->desc_count)
 * @live: status.desc_live as loaded, in (@v->desc_count, @v->desc_capacity]
 * @out: receives the views of the new descriptors, @out[0] for id
 *	@v->desc_count; meaningful only on success
 * @why: receives the reason of a refusal; may be NULL
 *
 * Spec 18.3 M2: each new descriptor passes 7.4 as a table's does
 * (gr_check_event_desc(), id = its slot), its name is unique across the
 * whole table, old and new, and, while the table has a family, is not
 * named like a member (H30). A family on an added descriptor is refused:
 * families are the table's (the syscall probes), and this host declares
 * their members once, with the table. All or nothing: the caller adopts
 * the batch only on success.
 *
 * Context: any; does not sleep.
 * Return: 0, -ERANGE if @live is not above @v->desc_count or is above
 * @v->desc_capacity, -EINVAL if a descriptor fails.
 */
int gr_check_added_descs(const struct gr_view *v,
			 const struct gr_event_view *events,
			 const struct gr_event_desc_long *copies,
			 unsigned int live, struct gr_event_view *out,
			 const char **why)
{
	unsigned int i, j, n = v->desc_count;
	int ret;

	if (live <= n || live > v->desc_capacity)
		return reject(why, "desc_live outside (adopted, desc_capacity]",
			      -ERANGE);
	for (i = n; i < live; i++) {
		struct gr_event_view *ev = &out[i - n];

		ret = gr_check_desc_slot(v, &copies[i - n], i, ev, why);
		if (ret)
			return ret;
		if (ev->family_count)
			return bad(why, "a family on a descriptor added at run time");
		for (j = 0; j < i; j++)
			if (!strcmp(ev->name, j < n ? events[j].name :
				    out[j - n].name))
				return bad(why, "two events have the same name");
		if (v->nr_families && member_prefix(ev->name))
			return bad(why, "an event is named like a family member");
	}
	return 0;
}
