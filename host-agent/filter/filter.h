/* SPDX-License-Identifier: GPL-2.0 */
/*
 * filter.h - ftrace filter expressions compiled to guest filter programs
 *
 * The operator writes an event filter in ftrace's language
 * (events/<sys>/<event>/filter):
 *
 *	expr  := and ( '||' and )*
 *	and   := unary ( '&&' unary )*
 *	unary := '!' unary | '(' expr ')' | pred
 *	pred  := FIELD OP VALUE
 *
 * with OP one of == != < <= > >= & on integer fields and == != ~ (glob)
 * on text fields, FIELD a field of the event's descriptor or common_tid
 * (alias common_pid) or common_cpu, VALUE an integer (decimal, 0x hex or
 * 0 octal, optionally negative) or a string ("..", '..' or a bare word).
 *
 * gr_fx_parse() checks the expression against the event's descriptor and
 * builds a tree; gr_fx_compile() turns the tree into a program for the
 * guest (spec 14), in wire format, ready for a gr_filter_slot. Every
 * refusal says where: struct gr_fx_error holds the offending token's
 * position and a message, gr_fx_format_error() prints both with a caret.
 */
#ifndef _GR_FILTER_HOST_H
#define _GR_FILTER_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "guestrelay_abi.h"
#include "validate.h"

/* Longest expression accepted, in bytes */
#define GR_FX_MAX_LEN		1024
/* Deepest nesting of parentheses and '!' */
#define GR_FX_MAX_DEPTH		32
/* Most nodes in one tree (predicates and operators) */
#define GR_FX_MAX_NODES		128
/* Longest string constant */
#define GR_FX_MAX_STR		GR_FILTER_STRTAB_LEN

/* Node kinds */
enum gr_fx_kind {
	GR_FX_AND,
	GR_FX_OR,
	GR_FX_NOT,
	GR_FX_PRED,
};

/* Comparison operators of a predicate */
enum gr_fx_op {
	GR_FX_EQ,
	GR_FX_NE,
	GR_FX_LT,
	GR_FX_LE,
	GR_FX_GT,
	GR_FX_GE,
	GR_FX_BAND,
	GR_FX_GLOB,
};

/* Pseudo field indexes of a predicate */
#define GR_FX_FIELD_TID		(-1)	/* common_tid, common_pid */
#define GR_FX_FIELD_CPU		(-2)	/* common_cpu */

/**
 * struct gr_fx_node - one node of a parsed expression
 * @kind: GR_FX_*
 * @op: predicate operator
 * @field: index in the event's fields, or GR_FX_FIELD_*
 * @is_str: the predicate compares text
 * @left: first operand of AND/OR, the operand of NOT
 * @right: second operand of AND/OR
 * @ival: integer constant, as the field's type reads it
 * @str: text constant (not NUL-terminated)
 * @str_len: bytes of @str
 * @pos: offset of the node's first token in the expression
 */
struct gr_fx_node {
	enum gr_fx_kind kind;
	enum gr_fx_op op;
	int field;
	int is_str;
	int left;
	int right;
	uint64_t ival;
	char str[GR_FX_MAX_STR];
	uint32_t str_len;
	uint32_t pos;
};

/**
 * struct gr_fx_tree - a parsed expression
 * @root: index of the root in @nodes
 * @nr_nodes: nodes used
 * @nodes: the nodes
 */
struct gr_fx_tree {
	int root;
	int nr_nodes;
	struct gr_fx_node nodes[GR_FX_MAX_NODES];
};

/**
 * struct gr_fx_error - why an expression was refused
 * @pos: byte offset of the offending token in the expression
 * @len: its length in bytes (at least 1)
 * @msg: what is wrong, and a suggestion where one is known
 */
struct gr_fx_error {
	uint32_t pos;
	uint32_t len;
	char msg[256];
};

int gr_fx_fail(struct gr_fx_error *err, uint32_t pos, uint32_t len,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int gr_fx_parse(const char *expr, const struct gr_event_view *ev,
		struct gr_fx_tree *tree, struct gr_fx_error *err);
int gr_fx_compile(const struct gr_fx_tree *tree,
		  const struct gr_event_view *ev, const char *expr,
		  struct gr_filter_slot *slot, struct gr_fx_error *err);
int gr_fx_build(const char *expr, const struct gr_event_view *ev,
		struct gr_filter_slot *slot, struct gr_fx_error *err);
int gr_fx_format_error(char *buf, size_t size, const char *expr,
		       const struct gr_fx_error *err);
int gr_fx_error_line(char *buf, size_t size, const struct gr_fx_error *err);
int gr_fx_error_from_line(const char *line, struct gr_fx_error *err);

/* the follow filter (spec 15) */
#include "follow.h"

#endif /* _GR_FILTER_HOST_H */
