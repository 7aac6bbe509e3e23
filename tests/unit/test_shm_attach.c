// SPDX-License-Identifier: GPL-2.0
/*
 * test_shm_attach.c - the shared memory of qemu-device/ (names, sizes,
 * memfds, named /dev/shm files and their owners) and the attach arguments
 * it prints for QEMU and libvirt, on real memfds and real files
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "gr_test.h"

#include "ivshmem_client.h"
#include "ivshmem_proto.h"
#include "ivshmem_server.h"
#include "qemu_args.h"
#include "shm.h"

#define SHM_SIZE	(64u << 10)
#define MANY		64

static char sock_path[128];

/* --- shared memory ------------------------------------------------------ */

static void test_shm_name_validation(void)
{
	char name[IVSH_SHM_NAME_MAX + 2];

	CU_ASSERT_EQUAL(ivsh_shm_check_name("vm1"), 0);
	CU_ASSERT_EQUAL(ivsh_shm_check_name("guestrelay-vm_1.2"), 0);
	CU_ASSERT_EQUAL(ivsh_shm_check_name("a..b"), 0);
	CU_ASSERT_EQUAL(ivsh_shm_check_name(NULL), -EINVAL);
	CU_ASSERT_EQUAL(ivsh_shm_check_name(""), -EINVAL);
	CU_ASSERT_EQUAL(ivsh_shm_check_name("."), -EINVAL);
	CU_ASSERT_EQUAL(ivsh_shm_check_name(".."), -EINVAL);
	CU_ASSERT_EQUAL(ivsh_shm_check_name(".hidden"), -EINVAL);
	CU_ASSERT_EQUAL(ivsh_shm_check_name("../etc/passwd"), -EINVAL);
	CU_ASSERT_EQUAL(ivsh_shm_check_name("a/b"), -EINVAL);
	CU_ASSERT_EQUAL(ivsh_shm_check_name("/abs"), -EINVAL);
	CU_ASSERT_EQUAL(ivsh_shm_check_name("a b"), -EINVAL);
	CU_ASSERT_EQUAL(ivsh_shm_check_name("a\nb"), -EINVAL);
	CU_ASSERT_EQUAL(ivsh_shm_check_name("vm'1"), -EINVAL);
	CU_ASSERT_EQUAL(ivsh_shm_check_name("caf\xc3\xa9"), -EINVAL);
	memset(name, 'x', IVSH_SHM_NAME_MAX);
	name[IVSH_SHM_NAME_MAX] = '\0';
	CU_ASSERT_EQUAL(ivsh_shm_check_name(name), 0);
	name[IVSH_SHM_NAME_MAX] = 'x';
	name[IVSH_SHM_NAME_MAX + 1] = '\0';
	CU_ASSERT_EQUAL(ivsh_shm_check_name(name), -EINVAL);
}

static void test_shm_size_must_be_power_of_two_in_range(void)
{
	struct ivsh_shm shm;

	CU_ASSERT_EQUAL(ivsh_shm_check_size(64 << 10), 0);
	CU_ASSERT_EQUAL(ivsh_shm_check_size(4 << 20), 0);
	CU_ASSERT_EQUAL(ivsh_shm_check_size(1ULL << 40), 0);
	CU_ASSERT_EQUAL(ivsh_shm_check_size(0), -EINVAL);
	CU_ASSERT_EQUAL(ivsh_shm_check_size(4096), -EINVAL);
	CU_ASSERT_EQUAL(ivsh_shm_check_size(32 << 10), -EINVAL);
	CU_ASSERT_EQUAL(ivsh_shm_check_size((64 << 10) + 1), -EINVAL);
	CU_ASSERT_EQUAL(ivsh_shm_check_size(96 << 10), -EINVAL);
	CU_ASSERT_EQUAL(ivsh_shm_check_size(3 << 20), -EINVAL);
	CU_ASSERT_EQUAL(ivsh_shm_check_size(1ULL << 41), -EINVAL);
	CU_ASSERT_EQUAL(ivsh_shm_check_size(~0ULL), -EINVAL);
	CU_ASSERT_EQUAL(ivsh_shm_create_memfd(&shm, "gr-test", 3 << 20),
			-EINVAL);
	CU_ASSERT_EQUAL(shm.fd, -1);
	CU_ASSERT_EQUAL(ivsh_shm_create_memfd(&shm, "../x", 4 << 20),
			-EINVAL);
}

static void test_shm_memfd_is_zeroed_sealed_and_mappable(void)
{
	struct ivsh_shm shm;
	struct stat st;
	unsigned char *p;
	size_t i;
	int seals, bad = 0;

	CU_ASSERT_FATAL(ivsh_shm_create_memfd(&shm, "gr-test", 1 << 20) == 0);
	CU_ASSERT_EQUAL(shm.size, 1 << 20);
	CU_ASSERT_EQUAL(shm.name[0], '\0');
	CU_ASSERT_EQUAL(fstat(shm.fd, &st), 0);
	CU_ASSERT_EQUAL(st.st_size, 1 << 20);
	CU_ASSERT(fcntl(shm.fd, F_GETFD) & FD_CLOEXEC);
	seals = fcntl(shm.fd, F_GET_SEALS);
	CU_ASSERT(seals & F_SEAL_SHRINK);
	CU_ASSERT(seals & F_SEAL_GROW);
	CU_ASSERT(seals & F_SEAL_SEAL);
	CU_ASSERT_EQUAL(ftruncate(shm.fd, 1 << 19), -1);
	CU_ASSERT_EQUAL(ftruncate(shm.fd, 1 << 21), -1);

	CU_ASSERT_FATAL(ivsh_shm_map(&shm) == 0);
	CU_ASSERT_EQUAL(ivsh_shm_map(&shm), -EBUSY);
	p = shm.addr;
	for (i = 0; i < shm.size; i++)
		bad |= p[i];
	CU_ASSERT_EQUAL(bad, 0);
	p[shm.size - 1] = 0x5a;
	ivsh_shm_unmap(&shm);
	CU_ASSERT_PTR_NULL(shm.addr);
	CU_ASSERT_FATAL(ivsh_shm_map(&shm) == 0);
	CU_ASSERT_EQUAL(((unsigned char *)shm.addr)[shm.size - 1], 0x5a);
	ivsh_shm_close(&shm);
	ivsh_shm_close(&shm);
	CU_ASSERT_EQUAL(ivsh_shm_map(&shm), -EBADF);
}

static void test_shm_named_file_create_reuse_open_unlink(void)
{
	struct ivsh_shm_file_opts fo = { .mode = 0640 };
	struct ivsh_shm_file_opts reuse = { .flags = IVSH_SHM_REUSE,
					    .mode = 0600 };
	struct ivsh_shm shm, again;
	char name[64], path[128], other[64];
	struct stat st;
	int fd;

	snprintf(name, sizeof(name), "gr-test-%d", (int)getpid());
	snprintf(path, sizeof(path), IVSH_SHM_DIR "/%s", name);
	ivsh_shm_unlink(name);

	CU_ASSERT_FATAL(ivsh_shm_create_file(&shm, name, 1 << 20, &fo) == 0);
	CU_ASSERT_STRING_EQUAL(shm.name, name);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0640);
	CU_ASSERT_EQUAL(st.st_size, 1 << 20);
	CU_ASSERT_FATAL(ivsh_shm_map(&shm) == 0);
	memcpy(shm.addr, "keep me", 8);

	/* it exists: O_EXCL without reuse, size checked with it */
	CU_ASSERT_EQUAL(ivsh_shm_create_file(&again, name, 1 << 20, &fo),
			-EEXIST);
	CU_ASSERT_EQUAL(ivsh_shm_create_file(&again, name, 1 << 21, &reuse),
			-EMSGSIZE);
	CU_ASSERT_FATAL(ivsh_shm_create_file(&again, name, 1 << 20,
					     &reuse) == 0);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0600);
	CU_ASSERT_FATAL(ivsh_shm_map(&again) == 0);
	CU_ASSERT_STRING_EQUAL((char *)again.addr, "keep me");
	ivsh_shm_close(&again);

	/* libvirt's file: opened with a size check */
	CU_ASSERT_FATAL(ivsh_shm_open_file(&again, name, 0) == 0);
	CU_ASSERT_EQUAL(again.size, 1 << 20);
	ivsh_shm_close(&again);
	CU_ASSERT_FATAL(ivsh_shm_open_file(&again, name, 1 << 20) == 0);
	ivsh_shm_close(&again);
	CU_ASSERT_EQUAL(ivsh_shm_open_file(&again, name, 1 << 21), -EMSGSIZE);
	CU_ASSERT_EQUAL(again.fd, -1);
	CU_ASSERT_EQUAL(ivsh_shm_open_file(&again, "../shm/x", 0), -EINVAL);

	ivsh_shm_close(&shm);
	CU_ASSERT_EQUAL(ivsh_shm_unlink(name), 0);
	CU_ASSERT_EQUAL(access(path, F_OK), -1);
	CU_ASSERT_EQUAL(ivsh_shm_unlink(name), -ENOENT);
	CU_ASSERT_EQUAL(ivsh_shm_open_file(&again, name, 0), -ENOENT);

	/* a planted symbolic link is never followed */
	snprintf(other, sizeof(other), "gr-test-%d-target", (int)getpid());
	CU_ASSERT_FATAL(ivsh_shm_create_file(&shm, other, 1 << 16, NULL) == 0);
	ivsh_shm_close(&shm);
	CU_ASSERT_FATAL(symlink(other, path) == 0);
	CU_ASSERT_EQUAL(ivsh_shm_open_file(&again, name, 0), -EPERM);
	CU_ASSERT_EQUAL(ivsh_shm_create_file(&again, name, 1 << 16, &reuse),
			-EPERM);
	CU_ASSERT_EQUAL(ivsh_shm_unlink(name), -EPERM);
	unlink(path);
	CU_ASSERT_EQUAL(ivsh_shm_unlink(other), 0);

	/* a file of a size QEMU cannot map */
	fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(ftruncate(fd, 100000), 0);
	close(fd);
	CU_ASSERT_EQUAL(ivsh_shm_open_file(&again, name, 0), -EINVAL);
	CU_ASSERT_EQUAL(ivsh_shm_unlink(name), 0);
}

static void test_shm_file_reuse_refuses_foreign_owner(void)
{
	struct ivsh_shm_file_opts reuse = { .flags = IVSH_SHM_REUSE };
	struct ivsh_shm_file_opts chown_opts = {
		.flags = IVSH_SHM_CHOWN, .uid = 65534, .gid = 65534,
		.mode = 0660 };
	struct ivsh_shm shm;
	char name[64], path[128];
	struct stat st;

	snprintf(name, sizeof(name), "gr-test-%d-own", (int)getpid());
	snprintf(path, sizeof(path), IVSH_SHM_DIR "/%s", name);
	ivsh_shm_unlink(name);
	if (geteuid() != 0) {
		printf("(not root: chown part skipped) ");
		return;
	}
	CU_ASSERT_FATAL(ivsh_shm_create_file(&shm, name, 1 << 16,
					     &chown_opts) == 0);
	ivsh_shm_close(&shm);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_uid, 65534);
	CU_ASSERT_EQUAL(st.st_gid, 65534);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0660);
	/* owned by someone else than we expect: not reused */
	CU_ASSERT_EQUAL(ivsh_shm_create_file(&shm, name, 1 << 16, &reuse),
			-EPERM);
	/* unless we say it is ours */
	chown_opts.flags |= IVSH_SHM_REUSE;
	CU_ASSERT_EQUAL(ivsh_shm_create_file(&shm, name, 1 << 16,
					     &chown_opts), 0);
	ivsh_shm_close(&shm);
	CU_ASSERT_EQUAL(ivsh_shm_unlink(name), 0);
}

/* --- QEMU arguments and libvirt XML ------------------------------------- */

static void test_qemu_args_doorbell(void)
{
	struct ivsh_attach a = {
		.model = IVSH_MODEL_DOORBELL,
		.sock_path = "/run/guestrelay/vm1.sock",
		.vectors = 4,
		.ioeventfd = true,
	};
	char **argv = NULL;
	char *line = NULL;

	CU_ASSERT_EQUAL(ivsh_qemu_argv(&a, &argv), 4);
	CU_ASSERT_FATAL(argv != NULL);
	CU_ASSERT_STRING_EQUAL(argv[0], "-chardev");
	CU_ASSERT_STRING_EQUAL(argv[1],
			       "socket,id=guestrelay-chr,path=/run/guestrelay/vm1.sock");
	CU_ASSERT_STRING_EQUAL(argv[2], "-device");
	CU_ASSERT_STRING_EQUAL(argv[3],
			       "ivshmem-doorbell,id=guestrelay,chardev=guestrelay-chr,vectors=4,ioeventfd=on");
	CU_ASSERT_PTR_NULL(argv[4]);
	ivsh_argv_free(argv);

	CU_ASSERT_EQUAL(ivsh_qemu_cmdline(&a, &line), 0);
	CU_ASSERT_STRING_EQUAL(line,
			       "-chardev socket,id=guestrelay-chr,path=/run/guestrelay/vm1.sock -device ivshmem-doorbell,id=guestrelay,chardev=guestrelay-chr,vectors=4,ioeventfd=on");
	free(line);

	/* commas in values are doubled; the shell line is quoted */
	a.id = "gr0";
	a.sock_path = "/tmp/a,b c'd.sock";
	a.ioeventfd = false;
	CU_ASSERT_EQUAL(ivsh_qemu_argv(&a, &argv), 4);
	CU_ASSERT_STRING_EQUAL(argv[1],
			       "socket,id=gr0-chr,path=/tmp/a,,b c'd.sock");
	CU_ASSERT_STRING_EQUAL(argv[3],
			       "ivshmem-doorbell,id=gr0,chardev=gr0-chr,vectors=4,ioeventfd=off");
	ivsh_argv_free(argv);
	CU_ASSERT_EQUAL(ivsh_qemu_cmdline(&a, &line), 0);
	CU_ASSERT_STRING_EQUAL(line,
			       "-chardev 'socket,id=gr0-chr,path=/tmp/a,,b c'\\''d.sock' -device ivshmem-doorbell,id=gr0,chardev=gr0-chr,vectors=4,ioeventfd=off");
	free(line);
}

static void test_qemu_args_plain(void)
{
	struct ivsh_attach a = {
		.model = IVSH_MODEL_PLAIN,
		.name = "guestrelay-vm1",
		.size = 4 << 20,
	};
	char **argv = NULL;

	CU_ASSERT_EQUAL(ivsh_qemu_argv(&a, &argv), 4);
	CU_ASSERT_FATAL(argv != NULL);
	CU_ASSERT_STRING_EQUAL(argv[0], "-object");
	CU_ASSERT_STRING_EQUAL(argv[1],
			       "memory-backend-file,id=guestrelay-mem,share=on,mem-path=/dev/shm/guestrelay-vm1,size=4M");
	CU_ASSERT_STRING_EQUAL(argv[2], "-device");
	CU_ASSERT_STRING_EQUAL(argv[3],
			       "ivshmem-plain,id=guestrelay,memdev=guestrelay-mem");
	ivsh_argv_free(argv);

	a.size = 64 << 10;
	CU_ASSERT_EQUAL(ivsh_qemu_argv(&a, &argv), 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(argv[1], ",size=64K"));
	ivsh_argv_free(argv);
	a.size = 2ULL << 30;
	CU_ASSERT_EQUAL(ivsh_qemu_argv(&a, &argv), 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(argv[1], ",size=2G"));
	ivsh_argv_free(argv);
}

static void test_qemu_args_reject_bad_input(void)
{
	struct ivsh_attach a = {
		.model = IVSH_MODEL_PLAIN,
		.name = "vm1",
		.size = 3 << 20,
	};
	char **argv = (char **)1;
	char *xml = (char *)1;

	CU_ASSERT_EQUAL(ivsh_qemu_argv(&a, &argv), -EINVAL);
	CU_ASSERT_PTR_NULL(argv);
	a.size = 4 << 20;
	a.name = "../../etc/x";
	CU_ASSERT_EQUAL(ivsh_qemu_argv(&a, &argv), -EINVAL);
	CU_ASSERT_EQUAL(ivsh_libvirt_xml(&a, &xml), -EINVAL);
	CU_ASSERT_PTR_NULL(xml);
	a.name = "vm1";
	a.id = "1abc";		/* QEMU ids start with a letter */
	CU_ASSERT_EQUAL(ivsh_qemu_argv(&a, &argv), -EINVAL);
	a.id = "a,b";
	CU_ASSERT_EQUAL(ivsh_qemu_argv(&a, &argv), -EINVAL);

	a.id = NULL;
	a.model = IVSH_MODEL_DOORBELL;
	a.sock_path = "relative.sock";
	a.vectors = 1;
	CU_ASSERT_EQUAL(ivsh_qemu_argv(&a, &argv), -EINVAL);
	a.sock_path = "/tmp/new\nline";
	CU_ASSERT_EQUAL(ivsh_qemu_argv(&a, &argv), -EINVAL);
	a.sock_path = "/tmp/x.sock";
	a.vectors = 0;
	CU_ASSERT_EQUAL(ivsh_qemu_argv(&a, &argv), -EINVAL);
	a.vectors = 1;
	a.name = NULL;		/* QEMU does not need it, libvirt does */
	CU_ASSERT_EQUAL(ivsh_qemu_argv(&a, &argv), 4);
	ivsh_argv_free(argv);
	CU_ASSERT_EQUAL(ivsh_libvirt_xml(&a, &xml), -EINVAL);
}

static void test_libvirt_xml_doorbell_escapes_attributes(void)
{
	struct ivsh_attach a = {
		.model = IVSH_MODEL_DOORBELL,
		.name = "guestrelay-vm1",
		.sock_path = "/run/guestrelay/vm1.sock",
		.vectors = 2,
		.ioeventfd = true,
	};
	char *xml = NULL;

	CU_ASSERT_EQUAL(ivsh_libvirt_xml(&a, &xml), 0);
	CU_ASSERT_STRING_EQUAL(xml,
			       "<shmem name='guestrelay-vm1'>\n"
			       "  <model type='ivshmem-doorbell'/>\n"
			       "  <server path='/run/guestrelay/vm1.sock'/>\n"
			       "  <msi vectors='2' ioeventfd='on'/>\n"
			       "</shmem>\n");
	free(xml);

	a.sock_path = "/tmp/a&b<c>'d\".sock";
	CU_ASSERT_EQUAL(ivsh_libvirt_xml(&a, &xml), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(xml,
		"<server path='/tmp/a&amp;b&lt;c&gt;&apos;d&quot;.sock'/>"));
	CU_ASSERT_PTR_NULL(strstr(xml, "size"));
	free(xml);
}

static void test_libvirt_xml_plain_has_size_in_largest_unit(void)
{
	struct ivsh_attach a = {
		.model = IVSH_MODEL_PLAIN,
		.name = "guestrelay-vm1",
		.size = 16 << 20,
	};
	char *xml = NULL;

	CU_ASSERT_EQUAL(ivsh_libvirt_xml(&a, &xml), 0);
	CU_ASSERT_STRING_EQUAL(xml,
			       "<shmem name='guestrelay-vm1'>\n"
			       "  <model type='ivshmem-plain'/>\n"
			       "  <size unit='M'>16</size>\n"
			       "</shmem>\n");
	free(xml);
	a.size = 256 << 10;
	CU_ASSERT_EQUAL(ivsh_libvirt_xml(&a, &xml), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(xml, "<size unit='K'>256</size>"));
	free(xml);
	a.size = 1ULL << 30;
	CU_ASSERT_EQUAL(ivsh_libvirt_xml(&a, &xml), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(xml, "<size unit='G'>1</size>"));
	free(xml);
}

/* --- main --------------------------------------------------------------- */

static const struct gr_test tests[] = {
	GR_TEST(test_shm_name_validation),
	GR_TEST(test_shm_size_must_be_power_of_two_in_range),
	GR_TEST(test_shm_memfd_is_zeroed_sealed_and_mappable),
	GR_TEST(test_shm_named_file_create_reuse_open_unlink),
	GR_TEST(test_shm_file_reuse_refuses_foreign_owner),
	GR_TEST(test_qemu_args_doorbell),
	GR_TEST(test_qemu_args_plain),
	GR_TEST(test_qemu_args_reject_bad_input),
	GR_TEST(test_libvirt_xml_doorbell_escapes_attributes),
	GR_TEST(test_libvirt_xml_plain_has_size_in_largest_unit),
};

int main(void)
{
	char tmpdir[64];
	int ret;

	if (gr_test_tmpdir(tmpdir, sizeof(tmpdir), "gr-shm")) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(sock_path, sizeof(sock_path), "%s/ivsh.sock", tmpdir);
	ret = gr_test_main("shm_attach", tests, ARRAY_SIZE(tests), NULL, NULL);
	gr_test_rm_tree(tmpdir);
	return ret;
}
