/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qemu_args.h - how QEMU and libvirt attach a VM's ivshmem device
 *
 * Doorbell (interrupts both ways, shared memory from our server):
 *   -chardev socket,id=ID-chr,path=SOCK
 *   -device ivshmem-doorbell,id=ID,chardev=ID-chr,vectors=N,ioeventfd=on
 *   <shmem name='NAME'>
 *     <model type='ivshmem-doorbell'/>
 *     <server path='SOCK'/>
 *     <msi vectors='N' ioeventfd='on'/>
 *   </shmem>
 * (no size: QEMU takes it from the shared memory the server sends).
 *
 * Plain (shared memory only, the host polls):
 *   -object memory-backend-file,id=ID-mem,share=on,mem-path=/dev/shm/NAME,size=SZ
 *   -device ivshmem-plain,id=ID,memdev=ID-mem
 *   <shmem name='NAME'>
 *     <model type='ivshmem-plain'/>
 *     <size unit='M'>SZ</size>
 *   </shmem>
 * (libvirt creates /dev/shm/NAME itself, as libvirt-qemu, mode 0644).
 *
 * Values are escaped for where they go: commas doubled inside QEMU option
 * values, XML attribute escaping in libvirt XML, single quotes for a shell
 * command line. This file knows nothing about tracing.
 */
#ifndef _GR_QEMU_ARGS_H
#define _GR_QEMU_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#define IVSH_QEMU_ID_DEFAULT	"guestrelay"
#define IVSH_QEMU_ID_MAX	64

enum ivsh_model {
	IVSH_MODEL_DOORBELL,	/* ivshmem-doorbell + our server */
	IVSH_MODEL_PLAIN,	/* ivshmem-plain + /dev/shm file */
};

struct ivsh_attach {
	enum ivsh_model model;
	const char *id;		/* QEMU id stem; NULL: IVSH_QEMU_ID_DEFAULT */
	const char *name;	/* <shmem name>; plain: the /dev/shm name */
	const char *sock_path;	/* doorbell: absolute path of the socket */
	unsigned int vectors;	/* doorbell: 1..IVSH_MAX_VECTORS */
	bool ioeventfd;		/* doorbell: ioeventfd=on (recommended) */
	uint64_t size;		/* plain: bytes, see ivsh_shm_check_size() */
};

/**
 * ivsh_qemu_argv() - QEMU arguments that attach the device
 * @a: what to attach
 * @argvp: receives a NULL-terminated array of allocated strings; free it
 *	with ivsh_argv_free()
 *
 * Doorbell needs sock_path and vectors (name is not used); plain needs
 * name and size.
 *
 * Context: process context.
 * Return: the number of arguments (4), -EINVAL for a missing or bad
 * field (id not [A-Za-z][A-Za-z0-9_.-]*, socket path not absolute or with
 * control characters, bad name or size), or -ENOMEM.
 */
int ivsh_qemu_argv(const struct ivsh_attach *a, char ***argvp);

/**
 * ivsh_argv_free() - free what ivsh_qemu_argv() returned
 * @argv: the array, or NULL
 *
 * Context: any.
 */
void ivsh_argv_free(char **argv);

/**
 * ivsh_qemu_cmdline() - the same arguments as one shell-quoted line
 * @a: what to attach
 * @out: receives an allocated string (no trailing newline); free() it
 *
 * Context: process context.
 * Return: 0, or an error of ivsh_qemu_argv().
 */
int ivsh_qemu_cmdline(const struct ivsh_attach *a, char **out);

/**
 * ivsh_libvirt_xml() - the libvirt <shmem> element
 * @a: what to attach; name is required for both models
 * @out: receives an allocated string, one element ending in a newline,
 *	indented by two spaces per level; free() it
 *
 * Context: process context.
 * Return: 0, -EINVAL for a missing or bad field, or -ENOMEM.
 */
int ivsh_libvirt_xml(const struct ivsh_attach *a, char **out);

#endif /* _GR_QEMU_ARGS_H */
