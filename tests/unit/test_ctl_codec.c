// SPDX-License-Identifier: GPL-2.0
/*
 * test_ctl_codec.c - what the control plane shares with its clients: the
 * wire codec (percent encoding, sizes, VM names), the one VM option
 * parser, the JSON writer and text escaper, and the libvirt metadata
 * element
 *
 * The real server runs on the real io_uring loop over a real UNIX socket
 * in a temporary run directory, with the VM functions doubled
 * (tests/lib/fake_agent.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libxml/parser.h>

#include "gr_test.h"
#include "fake_agent.h"

#include "agent.h"
#include "cli.h"
#include "conn.h"
#include "ctl_proto.h"
#include "filter.h"
#include "libvirt.h"
#include "libvirt_meta.h"
#include "opts.h"
#include "out.h"
#include "server.h"

/* ======================================================================
 * Shared parsing and writers
 * ====================================================================== */

static void test_percent_encoding_round_trips_every_byte(void)
{
	char in[256], enc[1024], dec[1024];
	size_t len;
	FILE *f;
	int c;

	for (c = 1; c < 256; c++)
		in[c - 1] = (char)c;
	in[255] = '\0';
	f = fmemopen(enc, sizeof(enc), "w");
	CU_ASSERT_FATAL(f != NULL);
	ctl_encode_arg(f, in);
	fclose(f);
	/* nothing that could break framing is left raw */
	CU_ASSERT_PTR_NULL(strchr(enc, ' '));
	CU_ASSERT_PTR_NULL(strchr(enc, '\n'));
	CU_ASSERT_PTR_NULL(strchr(enc, '\r'));
	len = strlen(enc);
	for (c = 0; (size_t)c < len; c++)
		CU_ASSERT(enc[c] > 0x20 && enc[c] < 0x7f);
	/* control characters decode, and are refused */
	strcpy(dec, enc);
	CU_ASSERT_EQUAL(ctl_decode_arg(dec), -EINVAL);
	/* without control characters, the round trip is exact */
	memmove(in + 0x7e, in + 0x7f, 256 - 0x7f);	/* drop 0x7f */
	f = fmemopen(enc, sizeof(enc), "w");
	ctl_encode_arg(f, in + 31);
	fclose(f);
	strcpy(dec, enc);
	CU_ASSERT_EQUAL(ctl_decode_arg(dec), 0);
	CU_ASSERT_EQUAL(strlen(dec), 254 - 31);
	CU_ASSERT_STRING_EQUAL(dec, in + 31);
}

static void test_percent_decoding_refuses_malformed_arguments(void)
{
	static const struct {
		const char *in;
		int ret;
		const char *out;
	} cases[] = {
		{ "sched%5Fswitch", 0, "sched_switch" },
		{ "a%20b%25c%e2%82%ac", 0, "a b%c\xe2\x82\xac" },
		{ "", -EINVAL, NULL },
		{ "abc%", -EINVAL, NULL },
		{ "abc%4", -EINVAL, NULL },
		{ "abc%4g", -EINVAL, NULL },
		{ "a%00b", -EINVAL, NULL },
		{ "a%0Ab", -EINVAL, NULL },
		{ "a%7Fb", -EINVAL, NULL },
		{ "a\tb", -EINVAL, NULL },
		{ "caf\xc3\xa9", -EINVAL, NULL },	/* raw UTF-8: encode it */
	};
	char s[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		strcpy(s, cases[i].in);
		CU_ASSERT_EQUAL(ctl_decode_arg(s), cases[i].ret);
		if (cases[i].out)
			CU_ASSERT_STRING_EQUAL(s, cases[i].out);
	}
}

static void test_sizes_parse_with_binary_suffixes(void)
{
	static const struct {
		const char *in;
		int ret;
		uint64_t v;
	} cases[] = {
		{ "4096", 0, 4096 },
		{ "64K", 0, 65536 },
		{ "16M", 0, 16ULL << 20 },
		{ "16m", 0, 16ULL << 20 },
		{ "2G", 0, 2ULL << 30 },
		{ "1GiB", 0, 1ULL << 30 },
		{ "1TB", 0, 1ULL << 40 },
		{ "0", 0, 0 },
		{ "16777215T", 0, 16777215ULL << 40 },
		{ "", -EINVAL, 0 },
		{ "M", -EINVAL, 0 },
		{ "16X", -EINVAL, 0 },
		{ "16MBx", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ " 1", -EINVAL, 0 },
		{ "18446744073709551616", -ERANGE, 0 },
		{ "16777216T", -ERANGE, 0 },
	};
	uint64_t v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		v = 0;
		CU_ASSERT_EQUAL(ctl_parse_size(cases[i].in, &v), cases[i].ret);
		if (!cases[i].ret)
			CU_ASSERT_EQUAL(v, cases[i].v);
	}
}

static void test_vm_names_are_checked(void)
{
	static const struct {
		const char *name;
		int ret;
		const char *why;
	} cases[] = {
		{ "vm-1_a.b", 0, NULL },
		{ "", -EINVAL, "a VM name is needed" },
		{ ".vm", -EINVAL, "bad VM name" },
		{ "../x", -EINVAL, "bad VM name" },
		{ "a b", -EINVAL, "bad VM name" },
		{ "a12345678901234567890123456789012345678901234567890123456789"
		  "0123", -EINVAL, "too long" },
	};
	char why[128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		why[0] = '\0';
		CU_ASSERT_EQUAL(ctl_check_vm_name(cases[i].name, why,
						  sizeof(why)), cases[i].ret);
		if (cases[i].why)
			CU_ASSERT_PTR_NOT_NULL(strstr(why, cases[i].why));
	}
}

/* the options of "vm2" as the option tests give them, owner @uid:@gid */
static void test_vm_add_options_fill_opts_and_round_trip(void)
{
	char *argv[] = {
		"--size", "32M", "vm2", "--plain", "--mode=flight",
		"--events", "sched_*,irq_*", "--subbuf-size", "64K",
		"--subbufs", "8", "--switch-timer-ms", "100", "--quota", "2G",
		"--owner", "root:root", "--io", "fixed",
	};
	struct gr_vm_opts o, o2;
	char err[256], line[2048], *av[64], *p, *save = NULL;
	int ac = 0;
	FILE *f;

	CU_ASSERT_EQUAL_FATAL(ctl_parse_vm_add(&o, 19, argv, CTL_OPTS_NAMES,
					       err, sizeof(err)), 0);
	expect_vm2_opts(&o, 0, 0);
	CU_ASSERT(!o.io_writev);

	/* the canonical wire form parses to the same options, numbers only */
	f = fmemopen(line, sizeof(line), "w");
	ctl_vm_add_args(f, &o);
	fclose(f);
	CU_ASSERT_PTR_NULL(strstr(line, "root"));
	for (p = strtok_r(line, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
		CU_ASSERT_EQUAL(ctl_decode_arg(p), 0);
		av[ac++] = p;
	}
	CU_ASSERT_EQUAL_FATAL(ctl_parse_vm_add(&o2, ac, av, 0, err,
					       sizeof(err)), 0);
	CU_ASSERT_EQUAL(memcmp(&o, &o2, sizeof(o)), 0);
}

static void test_vm_add_option_errors_say_what_is_wrong(void)
{
	static const struct {
		const char *args[4];
		const char *msg;
	} cases[] = {
		{ { "vm1", "--size", "3M" }, "power of two" },
		{ { "vm1", "--size", "32K" }, "power of two" },
		{ { "vm1", "--size" }, "needs a value" },
		{ { "vm1", "--plain=1" }, "takes no value" },
		{ { "vm1", "--mode", "turbo" }, "stream or flight" },
		{ { "vm1", "--subbuf-size", "5000" }, "--subbuf-size" },
		{ { "vm1", "--subbufs", "1" }, "--subbufs" },
		{ { "vm1", "--switch-timer-ms", "10001" }, "0 (off)" },
		{ { "vm1", "--quota", "lots" }, "--quota" },
		{ { "vm1", "--io", "mmap" }, "fixed or writev" },
		{ { "vm1", "--owner", "root" }, "UID[:GID]" },
		{ { "vm1", "--owner", "0:" }, "UID[:GID]" },
		{ { "vm1", "--frobnicate" }, "no option '--frobnicate'" },
		{ { "vm1", "vm2" }, "one VM at a time" },
		{ { "--plain" }, "needs a VM name" },
		{ { ".x" }, "bad VM name" },
	};
	struct gr_vm_opts o;
	char err[256];
	size_t i;
	int n;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		for (n = 0; n < 4 && cases[i].args[n]; n++)
			;
		err[0] = '\0';
		CU_ASSERT_EQUAL(ctl_parse_vm_add(&o, n, (char **)cases[i].args,
						 0, err, sizeof(err)),
				-EINVAL);
		if (!strstr(err, cases[i].msg))
			fprintf(stderr, "\n  case %zu: '%s'\n", i, err);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].msg));
	}
}

static char *json_of(void (*fill)(struct ctl_json *j), int *ret)
{
	char *buf = NULL;
	size_t len;
	struct ctl_json j;
	FILE *f = open_memstream(&buf, &len);

	ctl_json_init(&j, f);
	fill(&j);
	*ret = ctl_json_finish(&j);
	fclose(f);
	return buf;
}

static void fill_hostile(struct ctl_json *j)
{
	ctl_json_begin_object(j, NULL);
	ctl_json_string(j, "s", "q\"b\\s/\b\f\n\r\t\x01\x1b[31m\x7f");
	ctl_json_string(j, "utf8", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	ctl_json_string(j, "bad", "\xc0\xaf|\xed\xa0\x80|\xff|\xe2\x82");
	ctl_json_string(j, "null", NULL);
	ctl_json_u64(j, "u", UINT64_MAX);
	ctl_json_i64(j, "i", INT64_MIN);
	ctl_json_double(j, "d", 0.5);
	ctl_json_double(j, "nan", 0.0 / 0.0);
	ctl_json_bool(j, "t", true);
	ctl_json_begin_array(j, "a");
	ctl_json_end_array(j);
	ctl_json_begin_array(j, "b");
	ctl_json_u64(j, NULL, 1);
	ctl_json_begin_object(j, NULL);
	ctl_json_end_object(j);
	ctl_json_end_array(j);
	ctl_json_end_object(j);
}

static void fill_key_in_array(struct ctl_json *j)
{
	ctl_json_begin_array(j, NULL);
	ctl_json_u64(j, "k", 1);
	ctl_json_end_array(j);
}

static void fill_unbalanced(struct ctl_json *j)
{
	ctl_json_begin_object(j, NULL);
	ctl_json_begin_array(j, "x");
	ctl_json_end_object(j);
}

static void fill_two_values(struct ctl_json *j)
{
	ctl_json_u64(j, NULL, 1);
	ctl_json_u64(j, NULL, 2);
}

/* 0 if python3's json module accepts @text */
static void test_json_writer_escapes_everything_and_checks_nesting(void)
{
	char *s;
	int ret;

	s = json_of(fill_hostile, &ret);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"q\\\"b\\\\s/\\b\\f\\n\\r\\t"
				      "\\u0001\\u001b[31m\\u007f\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"\xc3\xa9\xe2\x82\xac"
				      "\xf0\x9f\x98\x80\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"\\ufffd\\ufffd|\\ufffd\\ufffd"
				      "\\ufffd|\\ufffd|\\ufffd\\ufffd\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"null\": null"));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "18446744073709551615"));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "-9223372036854775808"));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"nan\": null"));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"a\": []"));
	CU_ASSERT_EQUAL(python_json_ok(s), 0);
	free(s);

	s = json_of(fill_key_in_array, &ret);
	CU_ASSERT_EQUAL(ret, -EINVAL);
	free(s);
	s = json_of(fill_unbalanced, &ret);
	CU_ASSERT_EQUAL(ret, -EINVAL);
	free(s);
	s = json_of(fill_two_values, &ret);
	CU_ASSERT_EQUAL(ret, -EINVAL);
	free(s);
}

static void test_text_output_escapes_terminal_controls(void)
{
	char buf[256];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	ctl_put_text(f, "a\x1b[2Jb\\c\n\xc2\x9b\xc3\xa9\xff");
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf, "a\\x1b[2Jb\\x5cc\\x0a\\xc2\\x9b\xc3\xa9"
			       "\\xff");
}

/* ======================================================================
 * The libvirt metadata element
 * ====================================================================== */

/* parse the first <gr:guestrelay> under <metadata> of @xml into @o */
static int meta_of_xml(const char *xml, struct gr_vm_opts *o, bool *req,
		       char *err, size_t errlen)
{
	struct gr_libvirt_meta m = { 0 };
	struct gr_meta_xml mx = { 0 };
	xmlNodePtr root, md, n;
	xmlDocPtr doc;
	int i, ret = -ENOENT;

	doc = xmlReadMemory(xml, (int)strlen(xml), "t.xml", NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	root = xmlDocGetRootElement(doc);
	md = gr_xml_child(root, "metadata");
	for (n = md ? md->children : NULL; n; n = n->next) {
		if (!gr_xml_is_ours(n))
			continue;
		ret = gr_meta_parse(n, &mx, err, errlen);
		if (ret)
			break;
		for (i = 0; i < GR_META_NR; i++)
			m.val[i] = (const char *)mx.val[i];
		for (m.nr_hist = 0; m.nr_hist < mx.nr_hist; m.nr_hist++) {
			m.hist[m.nr_hist] = mx.hist[m.nr_hist];
			m.hist_latency[m.nr_hist] = mx.hist_latency[m.nr_hist];
		}
		*req = mx.required;
		ret = gr_meta_to_opts(&m, "dom", o, err, errlen);
		break;
	}
	gr_meta_xml_free(&mx);
	xmlFreeDoc(doc);
	return ret;
}

static void test_libvirt_metadata_round_trips_through_the_one_parser(void)
{
	char *argv[] = {
		"dom", "--metadata", "--events", "sched_*", "--mode", "flight",
		"--size", "32M", "--subbuf-size=64K", "--subbufs", "8",
		"--switch-timer-ms", "100", "--quota", "2G", "--verify", "off",
		"--required", "--filter", "sched_switch:prev_tid == 7 && "
		"prev_comm ~ \"<b>&'*\"", NULL,
	};
	struct gr_libvirt_meta m;
	char err[256], *md = NULL, *xml;
	struct gr_vm_opts o;
	bool with, req = false;
	int argc = 20;

	CU_ASSERT_EQUAL_FATAL(gr_libvirt_take_opts(&argc, argv, &m, &with,
						   false, NULL, err,
						   sizeof(err)), 0);
	CU_ASSERT(with && m.required);
	CU_ASSERT_EQUAL(argc, 1);	/* only the domain is left */
	CU_ASSERT_EQUAL_FATAL(gr_libvirt_metadata_xml(&m, &md), 0);
	CU_ASSERT_FATAL(asprintf(&xml, "<domain><name>dom</name>%s</domain>",
				 md) > 0);
	CU_ASSERT_EQUAL_FATAL(meta_of_xml(xml, &o, &req, err, sizeof(err)),
			      0);
	CU_ASSERT(req);
	CU_ASSERT_STRING_EQUAL(o.name, "dom");
	CU_ASSERT_STRING_EQUAL(o.events, "sched_*");
	CU_ASSERT_EQUAL(o.mode, GR_MODE_FLIGHT);
	CU_ASSERT_EQUAL(o.shm_size, 32ULL << 20);
	CU_ASSERT_EQUAL(o.subbuf_size, 65536);
	CU_ASSERT_EQUAL(o.n_subbufs, 8);
	CU_ASSERT_EQUAL(o.switch_timer_us, 100000);
	CU_ASSERT_EQUAL(o.quota, 2ULL << 30);
	CU_ASSERT(!o.verify);
	/* spec 14.6: one filter per domain, its text intact through XML */
	CU_ASSERT_STRING_EQUAL(o.filters[0].event, "sched_switch");
	CU_ASSERT_STRING_EQUAL(o.filters[0].expr,
			       "prev_tid == 7 && prev_comm ~ \"<b>&'*\"");
	free(xml);
	free(md);
}

/*
 * spec 17: <gr:hist> children, from libvirt-xml --metadata --hist and
 * --hist-latency to vm-add's requests, and as written by hand
 */
static void test_libvirt_metadata_hist_elements(void)
{
	char *argv[] = {
		"dom", "--metadata", "--hist",
		"sched_switch:keys=prev_tid:name=t if prev_comm ~ \"<a&b>\"",
		"--hist-latency", "runq", "--hist-latency",
		"syscall if common_pid == 7", NULL,
	};
	struct gr_libvirt_meta m;
	char err[256], *md = NULL, *xml;
	struct gr_vm_opts o;
	bool with, req = false;
	int argc = 8;

	CU_ASSERT_EQUAL_FATAL(gr_libvirt_take_opts(&argc, argv, &m, &with,
						   false, NULL, err,
						   sizeof(err)), 0);
	CU_ASSERT_EQUAL(m.nr_hist, 3);
	CU_ASSERT_EQUAL_FATAL(gr_libvirt_metadata_xml(&m, &md), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(md, "latency=\"runq\"/>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(md, "latency=\"syscall\" "
				      "filter=\"common_pid == 7\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(md, "event=\"sched_switch\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(md, ">keys=prev_tid:name=t</"));
	CU_ASSERT_FATAL(asprintf(&xml, "<domain><name>dom</name>%s</domain>",
				 md) > 0);
	CU_ASSERT_EQUAL_FATAL(meta_of_xml(xml, &o, &req, err, sizeof(err)),
			      0);
	CU_ASSERT_STRING_EQUAL(o.hists[0].name, "t");
	CU_ASSERT_STRING_EQUAL(o.hists[0].event, "sched_switch");
	CU_ASSERT_STRING_EQUAL(o.hists[0].text, "keys=prev_tid:name=t");
	CU_ASSERT_STRING_EQUAL(o.hists[0].filter, "prev_comm ~ \"<a&b>\"");
	CU_ASSERT_STRING_EQUAL(o.hists[1].name, "runq");
	CU_ASSERT_STRING_EQUAL(o.hists[1].latency, "runq");
	CU_ASSERT_STRING_EQUAL(o.hists[1].filter, "");
	CU_ASSERT_STRING_EQUAL(o.hists[2].latency, "syscall");
	CU_ASSERT_STRING_EQUAL(o.hists[2].filter, "common_pid == 7");
	free(xml);
	free(md);

	/* by hand; then the errors */
	CU_ASSERT_EQUAL(meta_of_xml("<domain><metadata><gr:guestrelay xmlns:"
		"gr='" GR_XMLNS_URI "'><gr:hist event='sys_enter'>keys=id"
		"</gr:hist></gr:guestrelay></metadata></domain>", &o, &req,
		err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(o.hists[0].name, "sys_enter");
	CU_ASSERT_STRING_EQUAL(o.hists[0].text, "keys=id");
	CU_ASSERT_EQUAL(meta_of_xml("<domain><metadata><gr:guestrelay xmlns:"
		"gr='" GR_XMLNS_URI "'><gr:hist latency='nap'/></gr:guestrelay>"
		"</metadata></domain>", &o, &req, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "runq, syscall, block or irq"));
	CU_ASSERT_EQUAL(meta_of_xml("<domain><metadata><gr:guestrelay xmlns:"
		"gr='" GR_XMLNS_URI "'><gr:hist event='a' latency='runq'/>"
		"</gr:guestrelay></metadata></domain>", &o, &req, err,
		sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "<hist> wants"));
	CU_ASSERT_EQUAL(meta_of_xml("<domain><metadata><gr:guestrelay xmlns:"
		"gr='" GR_XMLNS_URI "'><gr:frob/></gr:guestrelay></metadata>"
		"</domain>", &o, &req, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown element <frob>"));
}

/* vm-add --hist and --hist-latency: parsed, named, and round-tripped */
static void test_vm_add_hist_options(void)
{
	char *argv[] = {
		"vm1", "--hist", "sched_switch:keys=prev_tid if prev_tid > 1",
		"--hist-latency=block", "--hist-latency",
		"runq if next_tid == 42", NULL,
	};
	char *dup[] = { "vm1", "--hist", "a:keys=x", "--hist", "a:keys=y" };
	char *bad[] = { "vm1", "--hist-latency", "run" };
	char *bad2[] = { "vm1", "--hist-latency", "runq if " };
	char err[256], *buf = NULL;
	struct gr_vm_opts o;
	size_t len = 0;
	FILE *f;

	CU_ASSERT_EQUAL_FATAL(ctl_parse_vm_add(&o, 6, argv, 0, err,
					       sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(o.hists[0].name, "sched_switch");
	CU_ASSERT_STRING_EQUAL(o.hists[0].text, "keys=prev_tid");
	CU_ASSERT_STRING_EQUAL(o.hists[0].filter, "prev_tid > 1");
	CU_ASSERT_STRING_EQUAL(o.hists[1].latency, "block");
	CU_ASSERT_STRING_EQUAL(o.hists[2].latency, "runq");
	CU_ASSERT_STRING_EQUAL(o.hists[2].filter, "next_tid == 42");
	f = open_memstream(&buf, &len);
	ctl_vm_add_args(f, &o);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, " --hist sched_switch:keys="));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, " --hist-latency block"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, " --hist-latency "
				      "runq%20if%20next_tid%20==%2042"));
	free(buf);
	CU_ASSERT_EQUAL(ctl_parse_vm_add(&o, 3, bad, 0, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "runq, syscall, block or irq"));
	CU_ASSERT_EQUAL(ctl_parse_vm_add(&o, 3, bad2, 0, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_EQUAL(ctl_parse_vm_add(&o, 5, dup, 0, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "two tables named 'a'"));
}

static void test_libvirt_metadata_errors_say_what_is_wrong(void)
{
	static const struct {
		const char *attrs, *err;
	} cases[] = {
		{ "frob='1'", "unknown attribute 'frob'" },
		{ "required='maybe'", "required must be yes or no" },
		{ "x:events='a' xmlns:x='urn:x'", "unknown attribute x:events" },
		{ "size='3M'", "--size must be a power of two" },
		{ "mode='turbo'", "--mode is stream or flight" },
		{ "events=''", "events is empty" },
	};
	char xml[512], err[256];
	struct gr_vm_opts o;
	bool req = false;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(xml, sizeof(xml), "<domain><metadata><gr:guestrelay "
			 "xmlns:gr='" GR_XMLNS_URI "' %s/></metadata>"
			 "</domain>", cases[i].attrs);
		err[0] = '\0';
		CU_ASSERT_EQUAL(meta_of_xml(xml, &o, &req, err, sizeof(err)),
				-EINVAL);
		if (!strstr(err, cases[i].err))
			fprintf(stderr, "\n  case %zu: '%s'\n", i, err);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].err));
	}
}

static const struct gr_test tests[] = {
	GR_TEST(test_percent_encoding_round_trips_every_byte),
	GR_TEST(test_percent_decoding_refuses_malformed_arguments),
	GR_TEST(test_sizes_parse_with_binary_suffixes),
	GR_TEST(test_vm_names_are_checked),
	GR_TEST(test_vm_add_options_fill_opts_and_round_trip),
	GR_TEST(test_vm_add_option_errors_say_what_is_wrong),
	GR_TEST(test_json_writer_escapes_everything_and_checks_nesting),
	GR_TEST(test_text_output_escapes_terminal_controls),
	GR_TEST(test_libvirt_metadata_round_trips_through_the_one_parser),
	GR_TEST(test_libvirt_metadata_errors_say_what_is_wrong),
	GR_TEST(test_libvirt_metadata_hist_elements),
	GR_TEST(test_vm_add_hist_options),
};

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	return gr_test_main("ctl_codec", tests, ARRAY_SIZE(tests),
			    fake_agent_suite_init, fake_agent_suite_clean);
}
