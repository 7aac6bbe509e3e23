// SPDX-License-Identifier: GPL-2.0
/*
 * filter.c - ftrace filter expressions compiled to guest filter programs
 *
 * Three steps, each refusing with the position of the offending token:
 * a tokenizer, a recursive-descent parser that checks every predicate
 * against the event's descriptor (field names, operator per type, value
 * per type and width), and a code generator. The generator compiles each
 * node with two labels, where control goes when the node is true and when
 * it is false; a label is always placed after the code that jumps to it,
 * so every jump of the program skips forward (spec 14.3), and the program
 * ends with "return 1" (the accept label) and "return 0" (the reject
 * label).
 */
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"

/* ---------------------------------------------------------------------- */
/* Tokens                                                                 */

enum gr_fx_tok {
	TK_END,
	TK_WORD,	/* identifier, number or bare text */
	TK_STR,		/* quoted text */
	TK_OP,		/* == != < <= > >= & ~ */
	TK_AND,
	TK_OR,
	TK_NOT,
	TK_LPAREN,
	TK_RPAREN,
};

struct gr_fx_token {
	enum gr_fx_tok type;
	enum gr_fx_op op;
	uint32_t pos;
	uint32_t len;
};

struct gr_fx_parser {
	const char *s;
	size_t n;
	uint32_t at;			/* next byte to tokenize */
	struct gr_fx_token tok;		/* current token */
	const struct gr_event_view *ev;
	struct gr_fx_tree *tree;
	struct gr_fx_error *err;
	int depth;
};

/**
 * gr_fx_fail() - fill a refusal
 * @err: receives it
 * @pos: the offending token's offset
 * @len: its length (0 counts as 1)
 * @fmt: printf format of the message
 *
 * Return: -EINVAL, for the caller to return.
 */
int gr_fx_fail(struct gr_fx_error *err, uint32_t pos, uint32_t len,
	       const char *fmt, ...)
{
	va_list ap;

	err->pos = pos;
	err->len = len ? len : 1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A bare value runs to white space, a parenthesis, '&', '|' or the end */
static int gr_fx_is_bare(int c)
{
	return c && !isspace(c) && !strchr("()&|\"'", c);
}

static int gr_fx_next(struct gr_fx_parser *p)
{
	const char *s = p->s;
	struct gr_fx_token *t = &p->tok;
	uint32_t i;
	char q;

	while (p->at < p->n && isspace((unsigned char)s[p->at]))
		p->at++;
	i = p->at;
	t->pos = i;
	t->len = 1;
	if (i >= p->n) {
		t->type = TK_END;
		return 0;
	}
	switch (s[i]) {
	case '(':
		t->type = TK_LPAREN;
		break;
	case ')':
		t->type = TK_RPAREN;
		break;
	case '&':
		if (s[i + 1] == '&') {
			t->type = TK_AND;
			t->len = 2;
		} else {
			t->type = TK_OP;
			t->op = GR_FX_BAND;
		}
		break;
	case '|':
		if (s[i + 1] != '|')
			return gr_fx_fail(p->err, i, 1,
					  "unexpected '|'; did you mean '||'?");
		t->type = TK_OR;
		t->len = 2;
		break;
	case '!':
		if (s[i + 1] == '=') {
			t->type = TK_OP;
			t->op = GR_FX_NE;
			t->len = 2;
		} else if (s[i + 1] == '~') {
			return gr_fx_fail(p->err, i, 2,
					  "'!~' is not an operator; write !(FIELD ~ \"GLOB\")");
		} else {
			t->type = TK_NOT;
		}
		break;
	case '=':
		if (s[i + 1] != '=')
			return gr_fx_fail(p->err, i, 1,
					  "unexpected '='; did you mean '=='?");
		t->type = TK_OP;
		t->op = GR_FX_EQ;
		t->len = 2;
		break;
	case '<':
	case '>':
		t->type = TK_OP;
		if (s[i + 1] == '=') {
			t->op = s[i] == '<' ? GR_FX_LE : GR_FX_GE;
			t->len = 2;
		} else {
			t->op = s[i] == '<' ? GR_FX_LT : GR_FX_GT;
		}
		break;
	case '~':
		t->type = TK_OP;
		t->op = GR_FX_GLOB;
		break;
	case '"':
	case '\'':
		q = s[i];
		for (i++; i < p->n && s[i] != q; i++)
			;
		if (i >= p->n)
			return gr_fx_fail(p->err, t->pos, (uint32_t)(p->n - t->pos),
					  "unterminated string: add a closing %c",
					  q);
		t->type = TK_STR;
		t->len = i + 1 - t->pos;
		break;
	default:
		/* Every other character starts a word: a name, a number or bare text (a glob may hold "[!x]") */
		while (i < p->n && gr_fx_is_bare((unsigned char)s[i]) &&
		       !strchr("=<>~", s[i]) && !(s[i] == '!' && s[i + 1] == '='))
			i++;
		t->type = TK_WORD;
		t->len = i - t->pos;
		break;
	}
	p->at = t->pos + t->len;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Fields                                                                 */

static const char *const gr_fx_common[] = { "common_tid", "common_cpu" };

static unsigned int gr_fx_distance(const char *a, size_t la, const char *b)
{
	unsigned int row[GR_LONG_FIELD_NAME_LEN + 1], prev, cur, i, j;
	size_t lb = strlen(b);

	if (la > GR_LONG_FIELD_NAME_LEN || lb > GR_LONG_FIELD_NAME_LEN)
		return UINT_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			cur = row[j];
			row[j] = prev + (a[i - 1] != b[j - 1]);
			if (row[j] > row[j - 1] + 1)
				row[j] = row[j - 1] + 1;
			if (row[j] > cur + 1)
				row[j] = cur + 1;
			prev = cur;
		}
	}
	return row[lb];
}

/* The closest field name to @name, or NULL if none is close */
static const char *gr_fx_suggest(const struct gr_event_view *ev,
				 const char *name, size_t len)
{
	unsigned int best = UINT_MAX, d, limit, i;
	const char *pick = NULL;

	limit = len / 3 > 2 ? (unsigned int)(len / 3) : 2;
	for (i = 0; i < ev->nr_fields + 2u; i++) {
		const char *cand = i < ev->nr_fields ? ev->fields[i].name :
				   gr_fx_common[i - ev->nr_fields];

		d = gr_fx_distance(name, len, cand);
		if (d < best) {
			best = d;
			pick = cand;
		}
	}
	return best <= limit ? pick : NULL;
}

static int gr_fx_field(struct gr_fx_parser *p, const struct gr_fx_token *t,
		       int *field)
{
	const char *name = p->s + t->pos;
	const char *hint;
	char list[160];
	size_t off = 0;
	unsigned int i;

	for (i = 0; i < p->ev->nr_fields; i++) {
		if (strlen(p->ev->fields[i].name) == t->len &&
		    !memcmp(p->ev->fields[i].name, name, t->len)) {
			*field = (int)i;
			return 0;
		}
	}
	if ((t->len == 10 && !memcmp(name, "common_tid", 10)) ||
	    (t->len == 10 && !memcmp(name, "common_pid", 10))) {
		*field = GR_FX_FIELD_TID;
		return 0;
	}
	if (t->len == 10 && !memcmp(name, "common_cpu", 10)) {
		*field = GR_FX_FIELD_CPU;
		return 0;
	}
	hint = gr_fx_suggest(p->ev, name, t->len);
	if (hint)
		return gr_fx_fail(p->err, t->pos, t->len,
				  "no field '%.*s' in %s; did you mean %s?",
				  (int)t->len, name, p->ev->name, hint);
	for (i = 0; i < p->ev->nr_fields && off < sizeof(list); i++)
		off += snprintf(list + off, sizeof(list) - off, "%s, ",
				p->ev->fields[i].name);
	return gr_fx_fail(p->err, t->pos, t->len,
			  "no field '%.*s' in %s (fields: %scommon_tid, common_cpu)",
			  (int)t->len, name, p->ev->name,
			  off < sizeof(list) ? list : "");
}

static const char *const gr_fx_op_names[] = {
	[GR_FX_EQ] = "==", [GR_FX_NE] = "!=", [GR_FX_LT] = "<",
	[GR_FX_LE] = "<=", [GR_FX_GT] = ">", [GR_FX_GE] = ">=",
	[GR_FX_BAND] = "&", [GR_FX_GLOB] = "~",
};

/* Width, signedness and name of a field or pseudo field */
static void gr_fx_field_type(const struct gr_event_view *ev, int field,
			     unsigned int *size, int *is_signed, int *is_str,
			     const char **name)
{
	const struct gr_field_view *f;

	if (field < 0) {
		*size = 4;
		*is_signed = 0;
		*is_str = 0;
		*name = field == GR_FX_FIELD_TID ? "common_tid" : "common_cpu";
		return;
	}
	f = &ev->fields[field];
	*size = f->size;
	*is_signed = !!(f->flags & GR_FIELD_F_SIGNED);
	*is_str = f->type != GR_FIELD_INTEGER;
	*name = f->name;
}

static int gr_fx_int_value(struct gr_fx_parser *p, const struct gr_fx_token *t,
			   unsigned int size, int is_signed, const char *fname,
			   uint64_t *out)
{
	char buf[64], *end;
	int64_t smin, smax;
	uint64_t umax;
	long long sv;
	unsigned long long uv;
	int neg;

	if (t->type != TK_WORD || t->len >= sizeof(buf))
		goto bad;
	memcpy(buf, p->s + t->pos, t->len);
	buf[t->len] = '\0';
	neg = buf[0] == '-';
	if (!isdigit((unsigned char)buf[neg]))
		goto bad;
	errno = 0;
	if (neg) {
		sv = strtoll(buf, &end, 0);
		uv = (unsigned long long)sv;
	} else {
		uv = strtoull(buf, &end, 0);
		sv = (long long)uv;
	}
	if (*end)
		goto bad;
	umax = size == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * size)) - 1;
	smax = (int64_t)(umax >> 1);
	smin = -smax - 1;
	if (errno == ERANGE)
		goto range;
	if (is_signed) {
		if (!neg && uv > (uint64_t)smax)
			goto range;
		if (neg && sv < smin)
			goto range;
		*out = (uint64_t)(neg ? sv : (int64_t)uv);
	} else {
		if (neg || uv > umax)
			goto range;
		*out = uv;
	}
	return 0;
range:
	if (is_signed)
		return gr_fx_fail(p->err, t->pos, t->len,
				  "value %s is out of range for signed %u-bit field '%s' (%" PRId64 "..%" PRId64 ")",
				  buf, 8 * size, fname, smin, smax);
	return gr_fx_fail(p->err, t->pos, t->len,
			  "value %s is out of range for unsigned %u-bit field '%s' (0..%" PRIu64 ")",
			  buf, 8 * size, fname, umax);
bad:
	return gr_fx_fail(p->err, t->pos, t->len,
			  "expected an integer for '%s', got '%.*s'", fname,
			  (int)t->len, p->s + t->pos);
}

static int gr_fx_new(struct gr_fx_parser *p, enum gr_fx_kind kind,
		     uint32_t pos)
{
	struct gr_fx_tree *tree = p->tree;
	struct gr_fx_node *n;

	if (tree->nr_nodes >= GR_FX_MAX_NODES)
		return gr_fx_fail(p->err, pos, 1,
				  "expression too complex (more than %d terms)",
				  GR_FX_MAX_NODES);
	n = &tree->nodes[tree->nr_nodes];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->pos = pos;
	n->left = -1;
	n->right = -1;
	return tree->nr_nodes++;
}

/*
 * ftrace's rwbs letters (F for a preflush, then W, D, DE, F, R or N, then
 * F, A, S, M in that order) as lttng-modules' flags, GR_RWBS_* (spec 7.5).
 * "FF" is a preflush's flush, as the kernel's flush requests are.
 * Return: 0, or -EINVAL if @s is not such letters.
 */
static int gr_fx_rwbs_parse(const char *s, size_t len, uint64_t *flags)
{
	static const char mods[] = "FASM";
	static const uint64_t mod_bits[] = {
		GR_RWBS_FUA, GR_RWBS_RAHEAD, GR_RWBS_SYNC, GR_RWBS_META,
	};
	const char *m;
	size_t i = 0, next = 0;
	uint64_t f = 0;

	if (len >= 2 && s[0] == 'F' && memchr("WDFRN", s[1], 5)) {
		f = GR_RWBS_PREFLUSH;
		i = 1;
	}
	if (i >= len)
		return -EINVAL;
	switch (s[i++]) {
	case 'W':
		f |= GR_RWBS_WRITE;
		break;
	case 'D':
		f |= GR_RWBS_DISCARD;
		if (i < len && s[i] == 'E') {
			f |= GR_RWBS_SECURE;
			i++;
		}
		break;
	case 'F':
		f |= GR_RWBS_FLUSH;
		break;
	case 'R':
		f |= GR_RWBS_READ;
		break;
	case 'N':
		break;
	default:
		return -EINVAL;
	}
	/* each modifier at most once, in ftrace's order */
	for (; i < len; i++) {
		m = memchr(mods + next, s[i], sizeof(mods) - 1 - next);
		if (!m)
			return -EINVAL;
		next = (size_t)(m - mods);
		f |= mod_bits[next++];
	}
	*flags = f;
	return 0;
}

/*
 * A block event's integer rwbs (spec 7.5) compared with ftrace's letters,
 * == or != only: @out receives the flags. 1 if @t is not letters (an
 * integer follows), 0, or -EINVAL (said).
 */
static int gr_fx_rwbs_value(struct gr_fx_parser *p, int field,
			    const struct gr_fx_token *ot,
			    const struct gr_fx_token *t, uint64_t *out)
{
	const struct gr_field_view *f;
	uint32_t off = t->pos, len = t->len;

	if (field < 0)
		return 1;
	f = &p->ev->fields[field];
	if (!gr_field_is_rwbs_flags(p->ev, f))
		return 1;
	if (t->type == TK_STR) {
		off++;
		len -= 2;
	} else if (!len || !isalpha((unsigned char)p->s[off])) {
		return 1;
	}
	if (ot->op != GR_FX_EQ && ot->op != GR_FX_NE)
		return gr_fx_fail(p->err, ot->pos, ot->len,
				  "rwbs letters take == or != only; test a flag with '& N' (spec 7.5)");
	if (gr_fx_rwbs_parse(p->s + off, len, out))
		return gr_fx_fail(p->err, t->pos, t->len,
				  "'%.*s' is not ftrace's rwbs letters (F, then W, D, DE, F, R or N, then F, A, S, M)",
				  (int)len, p->s + off);
	return 0;
}

/* pred := FIELD OP VALUE; the current token is FIELD */
static int gr_fx_pred(struct gr_fx_parser *p)
{
	struct gr_fx_token ft = p->tok, ot, vt;
	unsigned int size;
	int field, is_signed, is_str, idx, ret;
	const char *fname;
	struct gr_fx_node *n;

	if (ft.type == TK_END)
		return gr_fx_fail(p->err, ft.pos, ft.len,
				  "expected a field name at the end of the expression");
	if (ft.type != TK_WORD || !(isalpha((unsigned char)p->s[ft.pos]) ||
				    p->s[ft.pos] == '_'))
		return gr_fx_fail(p->err, ft.pos, ft.len,
				  "expected a field name, got '%.*s'",
				  (int)ft.len, p->s + ft.pos);
	ret = gr_fx_field(p, &ft, &field);
	if (ret)
		return ret;
	gr_fx_field_type(p->ev, field, &size, &is_signed, &is_str, &fname);
	/* v1.11: only the first variable field is at its offset in a record */
	if (field >= 0 && (p->ev->fields[field].type == GR_FIELD_SEQUENCE ||
			   (unsigned int)field > gr_event_first_var(p->ev)))
		return gr_fx_fail(p->err, ft.pos, ft.len,
				  "field '%s' is a dynamic array or not the event's first string: filters cannot test it",
				  fname);
	/* v1.14 (spec 14.6): nor a fixed array */
	if (field >= 0 && p->ev->fields[field].type == GR_FIELD_ARRAY)
		return gr_fx_fail(p->err, ft.pos, ft.len,
				  "field '%s' is an array: filters cannot test it",
				  fname);

	ret = gr_fx_next(p);
	if (ret)
		return ret;
	ot = p->tok;
	if (ot.type != TK_OP)
		return gr_fx_fail(p->err, ot.pos, ot.len,
				  "expected an operator (== != < <= > >= & ~) after '%s'",
				  fname);
	if (is_str && ot.op != GR_FX_EQ && ot.op != GR_FX_NE &&
	    ot.op != GR_FX_GLOB)
		return gr_fx_fail(p->err, ot.pos, ot.len,
				  "operator '%s' does not apply to text field '%s'; use ==, != or ~",
				  gr_fx_op_names[ot.op], fname);
	if (!is_str && ot.op == GR_FX_GLOB)
		return gr_fx_fail(p->err, ot.pos, ot.len,
				  "operator '~' (glob) applies to text fields only; '%s' is an integer",
				  fname);

	ret = gr_fx_next(p);
	if (ret)
		return ret;
	vt = p->tok;
	if (vt.type != TK_WORD && vt.type != TK_STR)
		return gr_fx_fail(p->err, vt.pos, vt.len,
				  "expected a value after '%s %s'", fname,
				  gr_fx_op_names[ot.op]);

	idx = gr_fx_new(p, GR_FX_PRED, ft.pos);
	if (idx < 0)
		return idx;
	n = &p->tree->nodes[idx];
	n->op = ot.op;
	n->field = field;
	n->is_str = is_str;
	if (!is_str) {
		ret = gr_fx_rwbs_value(p, field, &ot, &vt, &n->ival);
		if (ret > 0)
			ret = gr_fx_int_value(p, &vt, size, is_signed, fname,
					      &n->ival);
		if (ret)
			return ret;
	} else {
		uint32_t off = vt.pos, len = vt.len;

		if (vt.type == TK_STR) {
			off++;
			len -= 2;
		}
		if (len > GR_FX_MAX_STR)
			return gr_fx_fail(p->err, vt.pos, vt.len,
					  "text constant of %u bytes; at most %d",
					  len, GR_FX_MAX_STR);
		if (ot.op != GR_FX_GLOB && len > size)
			return gr_fx_fail(p->err, vt.pos, vt.len,
					  "'%.*s' is longer than field '%s' (%u bytes): it can never match",
					  (int)len, p->s + off, fname, size);
		memcpy(n->str, p->s + off, len);
		n->str_len = len;
	}
	ret = gr_fx_next(p);
	return ret ? ret : idx;
}

static int gr_fx_or(struct gr_fx_parser *p);

static int gr_fx_unary(struct gr_fx_parser *p)
{
	struct gr_fx_token t = p->tok;
	int idx, sub, ret;

	if (++p->depth > GR_FX_MAX_DEPTH)
		return gr_fx_fail(p->err, t.pos, t.len,
				  "nested too deeply (more than %d levels)",
				  GR_FX_MAX_DEPTH);
	if (t.type == TK_NOT) {
		ret = gr_fx_next(p);
		if (ret)
			return ret;
		sub = gr_fx_unary(p);
		if (sub < 0)
			return sub;
		idx = gr_fx_new(p, GR_FX_NOT, t.pos);
		if (idx < 0)
			return idx;
		p->tree->nodes[idx].left = sub;
	} else if (t.type == TK_LPAREN) {
		ret = gr_fx_next(p);
		if (ret)
			return ret;
		idx = gr_fx_or(p);
		if (idx < 0)
			return idx;
		if (p->tok.type != TK_RPAREN)
			return gr_fx_fail(p->err, p->tok.pos, p->tok.len,
					  p->tok.type == TK_END ?
					  "missing ')' for the '(' at offset %u" :
					  "expected ')' for the '(' at offset %u",
					  t.pos);
		ret = gr_fx_next(p);
		if (ret)
			return ret;
	} else {
		idx = gr_fx_pred(p);
	}
	p->depth--;
	return idx;
}

static int gr_fx_binary(struct gr_fx_parser *p, enum gr_fx_tok tok,
			enum gr_fx_kind kind)
{
	int left, right, idx, ret;
	uint32_t pos;

	left = tok == TK_OR ? gr_fx_binary(p, TK_AND, GR_FX_AND) :
			      gr_fx_unary(p);
	while (left >= 0 && p->tok.type == tok) {
		pos = p->tok.pos;
		ret = gr_fx_next(p);
		if (ret)
			return ret;
		right = tok == TK_OR ? gr_fx_binary(p, TK_AND, GR_FX_AND) :
				       gr_fx_unary(p);
		if (right < 0)
			return right;
		idx = gr_fx_new(p, kind, pos);
		if (idx < 0)
			return idx;
		p->tree->nodes[idx].left = left;
		p->tree->nodes[idx].right = right;
		left = idx;
	}
	return left;
}

static int gr_fx_or(struct gr_fx_parser *p)
{
	return gr_fx_binary(p, TK_OR, GR_FX_OR);
}

/**
 * gr_fx_parse() - parse and type-check an expression for one event
 * @expr: the expression, NUL-terminated
 * @ev: the event's validated descriptor
 * @tree: receives the tree
 * @err: receives the offending token and a message
 *
 * Return: 0, or -EINVAL with @err filled.
 */
int gr_fx_parse(const char *expr, const struct gr_event_view *ev,
		struct gr_fx_tree *tree, struct gr_fx_error *err)
{
	struct gr_fx_parser p = {
		.s = expr, .ev = ev, .tree = tree, .err = err,
	};
	int root, ret;

	p.n = strnlen(expr, GR_FX_MAX_LEN + 1);
	if (p.n > GR_FX_MAX_LEN)
		return gr_fx_fail(err, 0, GR_FX_MAX_LEN,
				  "expression longer than %d bytes",
				  GR_FX_MAX_LEN);
	tree->nr_nodes = 0;
	ret = gr_fx_next(&p);
	if (ret)
		return ret;
	if (p.tok.type == TK_END)
		return gr_fx_fail(err, 0, 1,
				  "empty filter; use --clear to remove a filter");
	root = gr_fx_or(&p);
	if (root < 0)
		return root;
	if (p.tok.type == TK_RPAREN)
		return gr_fx_fail(err, p.tok.pos, p.tok.len, "unmatched ')'");
	if (p.tok.type != TK_END)
		return gr_fx_fail(err, p.tok.pos, p.tok.len,
				  "expected '&&', '||' or the end, got '%.*s'",
				  (int)p.tok.len, expr + p.tok.pos);
	tree->root = root;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Code generation                                                        */

/* Instructions the generator may hold before it checks the cap */
#define GR_FX_MAX_CODE		(2 * GR_FX_MAX_NODES + 2)
#define GR_FX_LABELS		(GR_FX_MAX_NODES + 2)
#define GR_FX_ACCEPT		0
#define GR_FX_REJECT		1

struct gr_fx_gen {
	struct gr_filter_insn code[GR_FX_MAX_CODE];
	int jt_label[GR_FX_MAX_CODE];	/* -1: no jump */
	int jf_label[GR_FX_MAX_CODE];
	int label_at[GR_FX_LABELS];	/* -1: not placed yet */
	int nr_code;
	int nr_labels;
	char strtab[GR_FILTER_STRTAB_LEN];
	uint32_t strtab_len;
	uint32_t str_need;		/* strtab bytes wanted, if over */
	const struct gr_fx_tree *tree;
	const struct gr_event_view *ev;
};

static int gr_fx_emit(struct gr_fx_gen *g, uint8_t code, uint8_t width,
		      uint16_t off, uint16_t arg, uint64_t k)
{
	struct gr_filter_insn *in;

	if (g->nr_code >= GR_FX_MAX_CODE)
		return -E2BIG;
	in = &g->code[g->nr_code];
	memset(in, 0, sizeof(*in));
	in->code = code;
	in->width = width;
	in->off = htole16(off);
	in->arg = htole16(arg);
	in->k = htole64(k);
	g->jt_label[g->nr_code] = -1;
	g->jf_label[g->nr_code] = -1;
	return g->nr_code++;
}

static int gr_fx_jump(struct gr_fx_gen *g, uint8_t code, uint16_t off,
		      uint16_t arg, uint64_t k, int t, int f)
{
	int pc = gr_fx_emit(g, code, 0, off, arg, k);

	if (pc < 0)
		return pc;
	g->jt_label[pc] = t;
	g->jf_label[pc] = f;
	return 0;
}

/* The strtab operand of @n: offset | length << 16; reuses equal text */
static uint64_t gr_fx_str(struct gr_fx_gen *g, const struct gr_fx_node *n)
{
	uint32_t off;

	for (off = 0; off + n->str_len <= g->strtab_len; off++) {
		if (!memcmp(g->strtab + off, n->str, n->str_len))
			return off | (uint64_t)n->str_len << 16;
	}
	if (g->strtab_len + n->str_len > sizeof(g->strtab)) {
		g->str_need = g->strtab_len + n->str_len;
		return 0;
	}
	off = g->strtab_len;
	memcpy(g->strtab + off, n->str, n->str_len);
	g->strtab_len += n->str_len;
	return off | (uint64_t)n->str_len << 16;
}

static int gr_fx_gen_pred(struct gr_fx_gen *g, const struct gr_fx_node *n,
			  int t, int f)
{
	const struct gr_field_view *fv = n->field >= 0 ?
		&g->ev->fields[n->field] : NULL;
	int is_signed = fv && (fv->flags & GR_FIELD_F_SIGNED);
	uint8_t gt = is_signed ? GR_FI_JSGT : GR_FI_JGT;
	uint8_t ge = is_signed ? GR_FI_JSGE : GR_FI_JGE;
	int ret;

	if (n->is_str) {
		uint64_t k = gr_fx_str(g, n);
		uint8_t code = n->op == GR_FX_GLOB ? GR_FI_JGLOB : GR_FI_JSTREQ;

		return gr_fx_jump(g, code, fv->offset, fv->size, k,
				  n->op == GR_FX_NE ? f : t,
				  n->op == GR_FX_NE ? t : f);
	}
	if (n->field == GR_FX_FIELD_TID)
		ret = gr_fx_emit(g, GR_FI_LD_TID, 0, 0, 0, 0);
	else if (n->field == GR_FX_FIELD_CPU)
		ret = gr_fx_emit(g, GR_FI_LD_CPU, 0, 0, 0, 0);
	else
		ret = gr_fx_emit(g, is_signed ? GR_FI_LDS : GR_FI_LD,
				 (uint8_t)fv->size, fv->offset, 0, 0);
	if (ret < 0)
		return ret;
	switch (n->op) {
	case GR_FX_EQ:
		return gr_fx_jump(g, GR_FI_JEQ, 0, 0, n->ival, t, f);
	case GR_FX_NE:
		return gr_fx_jump(g, GR_FI_JEQ, 0, 0, n->ival, f, t);
	case GR_FX_GT:
		return gr_fx_jump(g, gt, 0, 0, n->ival, t, f);
	case GR_FX_GE:
		return gr_fx_jump(g, ge, 0, 0, n->ival, t, f);
	case GR_FX_LT:
		return gr_fx_jump(g, ge, 0, 0, n->ival, f, t);
	case GR_FX_LE:
		return gr_fx_jump(g, gt, 0, 0, n->ival, f, t);
	case GR_FX_BAND:
		return gr_fx_jump(g, GR_FI_JSET, 0, 0, n->ival, t, f);
	default:
		return -EINVAL;
	}
}

static int gr_fx_gen_node(struct gr_fx_gen *g, int idx, int t, int f)
{
	const struct gr_fx_node *n = &g->tree->nodes[idx];
	int mid, ret;

	switch (n->kind) {
	case GR_FX_NOT:
		return gr_fx_gen_node(g, n->left, f, t);
	case GR_FX_AND:
	case GR_FX_OR:
		if (g->nr_labels >= GR_FX_LABELS)
			return -E2BIG;
		mid = g->nr_labels++;
		g->label_at[mid] = -1;
		if (n->kind == GR_FX_AND)
			ret = gr_fx_gen_node(g, n->left, mid, f);
		else
			ret = gr_fx_gen_node(g, n->left, t, mid);
		if (ret)
			return ret;
		/* Placed after the left operand's jumps to it: forward */
		g->label_at[mid] = g->nr_code;
		return gr_fx_gen_node(g, n->right, t, f);
	case GR_FX_PRED:
		return gr_fx_gen_pred(g, n, t, f);
	}
	return -EINVAL;
}

/**
 * gr_fx_compile() - compile a parsed expression into a filter slot
 * @tree: from gr_fx_parse() for @ev
 * @ev: the event
 * @expr: the expression text (for error positions)
 * @slot: receives the program, little-endian, event_id set
 * @err: receives the reason if the program exceeds the guest's caps
 *
 * Return: 0, or -EINVAL with @err filled (too many instructions or too
 * many string bytes for one slot).
 */
int gr_fx_compile(const struct gr_fx_tree *tree,
		  const struct gr_event_view *ev, const char *expr,
		  struct gr_filter_slot *slot, struct gr_fx_error *err)
{
	struct gr_fx_gen *g;
	int pc, target, ret;
	uint32_t len = (uint32_t)strnlen(expr, GR_FX_MAX_LEN);

	g = calloc(1, sizeof(*g));
	if (!g)
		return gr_fx_fail(err, 0, len, "out of memory");
	g->tree = tree;
	g->ev = ev;
	g->nr_labels = 2;
	ret = gr_fx_gen_node(g, tree->root, GR_FX_ACCEPT, GR_FX_REJECT);
	if (!ret) {
		g->label_at[GR_FX_ACCEPT] = g->nr_code;
		ret = gr_fx_emit(g, GR_FI_RET, 0, 0, 0, 1);
	}
	if (ret >= 0) {
		g->label_at[GR_FX_REJECT] = g->nr_code;
		ret = gr_fx_emit(g, GR_FI_RET, 0, 0, 0, 0);
	}
	if (ret < 0 || g->nr_code > GR_FILTER_MAX_INSNS) {
		ret = gr_fx_fail(err, 0, len,
				 "filter needs %s%d instructions; a guest runs at most %d: split it or simplify it",
				 ret < 0 ? "more than " : "",
				 ret < 0 ? GR_FX_MAX_CODE : g->nr_code,
				 GR_FILTER_MAX_INSNS);
		goto out;
	}
	if (g->str_need) {
		ret = gr_fx_fail(err, 0, len,
				 "text constants need %u bytes; a guest holds at most %d",
				 g->str_need, GR_FILTER_STRTAB_LEN);
		goto out;
	}
	memset(slot, 0, sizeof(*slot));
	for (pc = 0; pc < g->nr_code; pc++) {
		slot->insns[pc] = g->code[pc];
		if (g->jt_label[pc] < 0)
			continue;
		target = g->label_at[g->jt_label[pc]];
		slot->insns[pc].jt = (uint8_t)(target - pc - 1);
		target = g->label_at[g->jf_label[pc]];
		slot->insns[pc].jf = (uint8_t)(target - pc - 1);
	}
	slot->event_id = htole16(ev->id);
	slot->nr_insns = htole16((uint16_t)g->nr_code);
	slot->strtab_len = htole16((uint16_t)g->strtab_len);
	memcpy(slot->strtab, g->strtab, g->strtab_len);
	ret = 0;
out:
	free(g);
	return ret;
}

/**
 * gr_fx_build() - parse and compile in one
 * @expr: the expression
 * @ev: the event
 * @slot: receives the program
 * @err: receives the reason of a refusal
 *
 * Return: 0, or -EINVAL (@err filled) or -ENOMEM.
 */
int gr_fx_build(const char *expr, const struct gr_event_view *ev,
		struct gr_filter_slot *slot, struct gr_fx_error *err)
{
	struct gr_fx_tree *tree;
	int ret;

	tree = malloc(sizeof(*tree));
	if (!tree)
		return -ENOMEM;
	ret = gr_fx_parse(expr, ev, tree, err);
	if (!ret)
		ret = gr_fx_compile(tree, ev, expr, slot, err);
	free(tree);
	return ret;
}

/**
 * gr_fx_format_error() - the message, the expression and a caret line
 * @buf: receives the text (three lines, no final newline)
 * @size: bytes of @buf
 * @expr: the expression
 * @err: the error
 *
 * Return: what snprintf() returns.
 */
int gr_fx_format_error(char *buf, size_t size, const char *expr,
		       const struct gr_fx_error *err)
{
	char marks[GR_FX_MAX_LEN + 2];
	uint32_t n = (uint32_t)strnlen(expr, GR_FX_MAX_LEN), i, pos, len;

	pos = err->pos > n ? n : err->pos;
	len = err->len ? err->len : 1;
	if (pos + len > n + 1)
		len = n + 1 - pos;
	for (i = 0; i < pos; i++)
		marks[i] = expr[i] == '\t' ? '\t' : ' ';
	marks[pos] = '^';
	for (i = 1; i < len; i++)
		marks[pos + i] = '~';
	marks[pos + len] = '\0';
	return snprintf(buf, size, "%s\n  %.*s\n  %s", err->msg, (int)n, expr,
			marks);
}

/**
 * gr_fx_error_line() - the error as one line that keeps its position
 * @buf: receives "MESSAGE (column A-B)", A and B counted from 1
 * @size: bytes of @buf
 * @err: the error
 *
 * The control socket carries one-line errors; the CLI, which holds the
 * expression, gets the caret back with gr_fx_error_from_line().
 *
 * Return: what snprintf() returns.
 */
int gr_fx_error_line(char *buf, size_t size, const struct gr_fx_error *err)
{
	return snprintf(buf, size, "%s (column %u-%u)", err->msg,
			err->pos + 1, err->pos + (err->len ? err->len : 1));
}

/**
 * gr_fx_error_from_line() - read back what gr_fx_error_line() wrote
 * @line: the text, possibly with a prefix before the message
 * @err: receives the position and the text before " (column"
 *
 * Return: 0, or -EINVAL if @line carries no position.
 */
int gr_fx_error_from_line(const char *line, struct gr_fx_error *err)
{
	const char *tail = NULL, *p = line;
	unsigned int a, b;
	int n = 0;

	while ((p = strstr(p, " (column ")))
		tail = p++;
	if (!tail || sscanf(tail, " (column %u-%u)%n", &a, &b, &n) != 2 ||
	    tail[n] || !a || b < a)
		return -EINVAL;
	err->pos = a - 1;
	err->len = b - a + 1;
	snprintf(err->msg, sizeof(err->msg), "%.*s", (int)(tail - line),
		 line);
	return 0;
}
