/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcg_plugin_api.h - the part of QEMU's TCG plugin API that tcgcount uses
 *
 * Debian 12 ships QEMU 7.2 with plugin support (-plugin) but without the
 * header that declares the API (include/qemu/qemu-plugin.h of the QEMU
 * sources). These declarations are written from QEMU 7.2's documentation
 * of that API (docs/devel/tcg-plugins.rst and the kernel-doc comments of
 * the header), for the functions tcgcount calls and nothing else. QEMU
 * resolves them in its own executable when it loads the plugin, and
 * refuses a plugin whose qemu_plugin_version is outside the range it
 * supports: 7.2 supports exactly version 1.
 */
#ifndef TCG_PLUGIN_API_H
#define TCG_PLUGIN_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The API version this plugin is written against (QEMU 7.2: 1) */
#define QEMU_PLUGIN_VERSION 1

#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))

/* The plugin's handle, given at install, passed back to registrations */
typedef uint64_t qemu_plugin_id_t;

/* What QEMU tells the plugin at install; valid during that call only */
typedef struct qemu_info_t {
	const char *target_name;	/* "x86_64" */
	struct {
		int min;		/* oldest API version QEMU accepts */
		int cur;		/* its current API version */
	} version;
	bool system_emulation;		/* softmmu (true) or user mode */
	union {
		struct {
			int smp_vcpus;	/* vCPUs at start */
			int max_vcpus;	/* vCPUs at most */
		} system;		/* system_emulation only */
	};
} qemu_info_t;

/* Opaque handles, valid during the translation callback only */
struct qemu_plugin_tb;
struct qemu_plugin_insn;

/* Whether a callback reads or writes guest registers (we never do) */
enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

/* Which memory accesses an instrumentation applies to */
enum qemu_plugin_mem_rw {
	QEMU_PLUGIN_MEM_R = 1,
	QEMU_PLUGIN_MEM_W,
	QEMU_PLUGIN_MEM_RW,
};

/* Inline operations: the only one is *ptr += imm (not atomic) */
enum qemu_plugin_op {
	QEMU_PLUGIN_INLINE_ADD_U64,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);

/* Exported by the plugin */
extern QEMU_PLUGIN_EXPORT int qemu_plugin_version;
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv);

/* Provided by QEMU */
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
						enum qemu_plugin_op op,
						void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_mem_inline(struct qemu_plugin_insn *insn,
					  enum qemu_plugin_mem_rw rw,
					  enum qemu_plugin_op op, void *ptr,
					  uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);

#endif /* TCG_PLUGIN_API_H */
