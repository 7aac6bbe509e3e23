// SPDX-License-Identifier: GPL-2.0
/*
 * qemu_args.c - QEMU arguments and libvirt XML for the ivshmem device
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "ivshmem_proto.h"
#include "qemu_args.h"
#include "shm.h"

#define NR_ARGS	4

/* QEMU's rule for ids: a letter, then letters, digits, '-', '.', '_' */
static int check_id(const char *id)
{
	size_t i;

	if (!((id[0] >= 'a' && id[0] <= 'z') || (id[0] >= 'A' && id[0] <= 'Z')))
		return -EINVAL;
	for (i = 1; id[i]; i++) {
		char c = id[i];

		if (i >= IVSH_QEMU_ID_MAX)
			return -EINVAL;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_')
			continue;
		return -EINVAL;
	}
	return 0;
}

static int check_sock_path(const char *path)
{
	size_t i;

	if (!path || path[0] != '/')
		return -EINVAL;
	if (strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return -EINVAL;
	for (i = 0; path[i]; i++)
		if ((unsigned char)path[i] < 0x20 || path[i] == 0x7f)
			return -EINVAL;
	return 0;
}

static int check_attach(const struct ivsh_attach *a, bool need_name)
{
	int ret;

	if (a->id && check_id(a->id))
		return -EINVAL;
	if (need_name || a->model == IVSH_MODEL_PLAIN) {
		ret = ivsh_shm_check_name(a->name);
		if (ret)
			return ret;
	}
	switch (a->model) {
	case IVSH_MODEL_DOORBELL:
		if (check_sock_path(a->sock_path))
			return -EINVAL;
		if (a->vectors < 1 || a->vectors > IVSH_MAX_VECTORS)
			return -EINVAL;
		return 0;
	case IVSH_MODEL_PLAIN:
		return ivsh_shm_check_size(a->size);
	}
	return -EINVAL;
}

/* largest of K, M, G, T that divides @size exactly */
static void size_unit(uint64_t size, uint64_t *value, char *unit)
{
	static const char units[] = "KMGT";
	int i;

	*value = size >> 10;
	*unit = 'K';
	for (i = 1; i < 4; i++) {
		if (size & ((1ULL << (10 * (i + 1))) - 1))
			break;
		*value = size >> (10 * (i + 1));
		*unit = units[i];
	}
}

/* a QEMU option value: a comma is written twice */
static void put_qemu_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == ',')
			fputc(',', f);
		fputc(*s, f);
	}
}

static void put_xml_attr(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

/* run @fill on a memory stream; *@out gets the text */
static int build(char **out, const struct ivsh_attach *a,
		 void (*fill)(FILE *f, const struct ivsh_attach *a))
{
	size_t len;
	FILE *f;

	*out = NULL;
	f = open_memstream(out, &len);
	if (!f)
		return -ENOMEM;
	fill(f, a);
	if (fclose(f)) {
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}

static const char *qemu_id(const struct ivsh_attach *a)
{
	return a->id ? a->id : IVSH_QEMU_ID_DEFAULT;
}

static void fill_backend(FILE *f, const struct ivsh_attach *a)
{
	uint64_t value;
	char unit;

	if (a->model == IVSH_MODEL_DOORBELL) {
		fprintf(f, "socket,id=%s-chr,path=", qemu_id(a));
		put_qemu_value(f, a->sock_path);
		return;
	}
	size_unit(a->size, &value, &unit);
	fprintf(f, "memory-backend-file,id=%s-mem,share=on,mem-path=",
		qemu_id(a));
	put_qemu_value(f, IVSH_SHM_DIR "/");
	put_qemu_value(f, a->name);
	fprintf(f, ",size=%llu%c", (unsigned long long)value, unit);
}

static void fill_device(FILE *f, const struct ivsh_attach *a)
{
	if (a->model == IVSH_MODEL_DOORBELL)
		fprintf(f, "ivshmem-doorbell,id=%s,chardev=%s-chr,vectors=%u,ioeventfd=%s",
			qemu_id(a), qemu_id(a), a->vectors,
			a->ioeventfd ? "on" : "off");
	else
		fprintf(f, "ivshmem-plain,id=%s,memdev=%s-mem", qemu_id(a),
			qemu_id(a));
}

void ivsh_argv_free(char **argv)
{
	char **p;

	if (!argv)
		return;
	for (p = argv; *p; p++)
		free(*p);
	free(argv);
}

int ivsh_qemu_argv(const struct ivsh_attach *a, char ***argvp)
{
	char **argv;
	int ret;

	*argvp = NULL;
	ret = check_attach(a, false);
	if (ret)
		return ret;
	argv = calloc(NR_ARGS + 1, sizeof(*argv));
	if (!argv)
		return -ENOMEM;
	argv[0] = strdup(a->model == IVSH_MODEL_DOORBELL ? "-chardev" :
			 "-object");
	argv[2] = strdup("-device");
	if (!argv[0] || !argv[2])
		goto out_nomem;
	if (build(&argv[1], a, fill_backend))
		goto out_nomem;
	if (build(&argv[3], a, fill_device))
		goto out_nomem;
	*argvp = argv;
	return NR_ARGS;

out_nomem:
	/* argv is NULL-terminated at the first hole; free all four slots */
	for (ret = 0; ret < NR_ARGS; ret++)
		free(argv[ret]);
	free(argv);
	return -ENOMEM;
}

static bool shell_safe(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		char c = *s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("_./,=:@%+-", c))
			continue;
		return false;
	}
	return true;
}

static void put_shell_word(FILE *f, const char *s)
{
	if (shell_safe(s)) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

int ivsh_qemu_cmdline(const struct ivsh_attach *a, char **out)
{
	char **argv;
	size_t len;
	FILE *f;
	int i, ret;

	*out = NULL;
	ret = ivsh_qemu_argv(a, &argv);
	if (ret < 0)
		return ret;
	f = open_memstream(out, &len);
	if (!f) {
		ivsh_argv_free(argv);
		return -ENOMEM;
	}
	for (i = 0; argv[i]; i++) {
		if (i)
			fputc(' ', f);
		put_shell_word(f, argv[i]);
	}
	ivsh_argv_free(argv);
	if (fclose(f)) {
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void fill_xml(FILE *f, const struct ivsh_attach *a)
{
	uint64_t value;
	char unit;

	fputs("<shmem name='", f);
	put_xml_attr(f, a->name);
	fputs("'>\n", f);
	if (a->model == IVSH_MODEL_DOORBELL) {
		fputs("  <model type='ivshmem-doorbell'/>\n", f);
		fputs("  <server path='", f);
		put_xml_attr(f, a->sock_path);
		fputs("'/>\n", f);
		fprintf(f, "  <msi vectors='%u' ioeventfd='%s'/>\n",
			a->vectors, a->ioeventfd ? "on" : "off");
	} else {
		size_unit(a->size, &value, &unit);
		fputs("  <model type='ivshmem-plain'/>\n", f);
		fprintf(f, "  <size unit='%c'>%llu</size>\n", unit,
			(unsigned long long)value);
	}
	fputs("</shmem>\n", f);
}

int ivsh_libvirt_xml(const struct ivsh_attach *a, char **out)
{
	int ret;

	*out = NULL;
	ret = check_attach(a, true);
	if (ret)
		return ret;
	return build(out, a, fill_xml);
}
