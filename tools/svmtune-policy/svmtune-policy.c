// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune-policy: attach a programmable policy (a BPF object with a
 * struct_ops map of type svmtune_ops) globally, to one process or to one
 * cgroup, and keep it attached until told to stop; list what is attached.
 *
 *   svmtune-policy attach OBJECT MAP [PID | --cgroup DIR]
 *   svmtune-policy list
 *
 * attach loads OBJECT, sets the map's pid or cgroup (neither: global,
 * which needs CAP_SYS_ADMIN; a pid: that process, which needs the right to
 * act on it; --cgroup: the processes of the cgroup v2 directory DIR and
 * below, which needs CAP_SYS_ADMIN), attaches it, prints "attached MAP"
 * and waits: the policy stays attached until SIGINT, SIGTERM or end of
 * standard input, then is detached. list prints
 * /sys/kernel/svmtune/bpf/attached. Built with libbpf from the kernel
 * tree's tools/lib/bpf (selftests/svmtune/Makefile). Exit status: 0, 1 on
 * error, 2 on bad usage.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#define ATTACHED "/sys/kernel/svmtune/bpf/attached"

#include <linux/svmtune_bpf.h>

/* Only to interrupt the read() below: no SA_RESTART. */
static void on_signal(int sig)
{
}

static int print_help(void)
{
	fprintf(stderr,
		"Usage: svmtune-policy attach OBJECT MAP [PID | --cgroup DIR]\n"
		"       svmtune-policy list\n"
		"attach: attach the svmtune_ops struct_ops map MAP of the BPF object\n"
		"OBJECT globally (PID 0 or none: needs CAP_SYS_ADMIN), to process PID,\n"
		"or to the processes of the cgroup v2 directory DIR and below (needs\n"
		"CAP_SYS_ADMIN), until SIGINT, SIGTERM or the end of standard input;\n"
		"then detach it.\n"
		"list: print the attached policies, one per line: global NAME,\n"
		"cgroup ID NAME or pid PID NAME.\n"
		"Exit status: 0 on success, 1 on error, 2 on bad usage.\n");
	return 2;
}

static int list(void)
{
	char buf[4096];
	ssize_t n;
	int fd = open(ATTACHED, O_RDONLY);

	if (fd < 0) {
		fprintf(stderr, "svmtune-policy: cannot read %s: %s\n",
			ATTACHED, strerror(errno));
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, n, stdout);
	close(fd);
	return n < 0;
}

/*
 * The id of the cgroup v2 directory @dir, or 0: its inode number (kernfs
 * numbers a node by its id on 64-bit machines), checked to be on cgroup2.
 */
static __u64 cgroup_id(const char *dir)
{
	struct statfs fs;
	struct stat st;

	if (statfs(dir, &fs) || stat(dir, &st))
		return 0;
	if (fs.f_type != CGROUP2_SUPER_MAGIC || !S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return 0;
	}
	return st.st_ino;
}

int main(int argc, char **argv)
{
	struct svmtune_ops *ops;
	struct bpf_object *obj;
	struct bpf_link *link;
	struct bpf_map *map;
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned long pid = 0;
	__u64 cgroup = 0;
	char *end, c;
	size_t sz;

	if (argc == 2 &&
	    (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		print_help();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "list"))
		return list();
	if (argc < 4 || argc > 6 || strcmp(argv[1], "attach"))
		return print_help();
	if (argc == 6) {
		if (strcmp(argv[4], "--cgroup"))
			return print_help();
		cgroup = cgroup_id(argv[5]);
		if (!cgroup) {
			fprintf(stderr, "svmtune-policy: %s is no cgroup: %s\n",
				argv[5], strerror(errno));
			return 1;
		}
	} else if (argc == 5) {
		errno = 0;
		pid = strtoul(argv[4], &end, 10);
		if (errno || *end || end == argv[4] || pid > 0x7fffffff)
			return print_help();
	}

	obj = bpf_object__open_file(argv[2], NULL);
	if (!obj) {
		fprintf(stderr, "svmtune-policy: cannot open %s: %s\n", argv[2],
			strerror(errno));
		return 1;
	}
	map = bpf_object__find_map_by_name(obj, argv[3]);
	/* Writable until load; 6.1's libbpf declares it const. */
	ops = map ? (void *)bpf_map__initial_value(map, &sz) : NULL;
	if (!ops || sz < sizeof(*ops)) {
		fprintf(stderr,
			"svmtune-policy: %s has no svmtune_ops map %s\n",
			argv[2], argv[3]);
		bpf_object__close(obj);
		return 1;
	}
	ops->pid = pid;
	ops->cgroup = cgroup;
	if (bpf_object__load(obj)) {
		fprintf(stderr, "svmtune-policy: cannot load %s: %s\n", argv[2],
			strerror(errno));
		bpf_object__close(obj);
		return 1;
	}
	link = bpf_map__attach_struct_ops(map);
	if (!link) {
		fprintf(stderr, "svmtune-policy: cannot attach %s: %s\n",
			argv[3], strerror(errno));
		bpf_object__close(obj);
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	printf("attached %s\n", argv[3]);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	bpf_link__destroy(link);
	bpf_object__close(obj);
	return 0;
}
