// SPDX-License-Identifier: GPL-2.0
/*
 * svmtune-policy: attach a programmable policy (a BPF object with a
 * struct_ops map of type svmtune_ops) globally or to one process, and keep
 * it attached until told to stop.
 *
 *   svmtune-policy attach OBJECT MAP [PID]
 *
 * Loads OBJECT, sets the map's pid (0 or absent: global, which needs
 * CAP_SYS_ADMIN; otherwise that process, which needs the right to act on
 * it), attaches it, prints "attached MAP" and waits: the policy stays
 * attached until SIGINT, SIGTERM or end of standard input, then is
 * detached. Built with libbpf from the kernel tree's tools/lib/bpf
 * (selftests/svmtune/Makefile). Exit status: 0, 1 on error, 2 on bad usage.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include <linux/svmtune_bpf.h>

/* Only to interrupt the read() below: no SA_RESTART. */
static void on_signal(int sig)
{
}

static int print_help(void)
{
	fprintf(stderr,
		"Usage: svmtune-policy attach OBJECT MAP [PID]\n"
		"Attach the svmtune_ops struct_ops map MAP of the BPF object OBJECT,\n"
		"globally (PID 0 or none: needs CAP_SYS_ADMIN) or to process PID, until\n"
		"SIGINT, SIGTERM or the end of standard input; then detach it.\n"
		"Exit status: 0 on success, 1 on error, 2 on bad usage.\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct svmtune_ops *ops;
	struct bpf_object *obj;
	struct bpf_link *link;
	struct bpf_map *map;
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned long pid = 0;
	char *end, c;
	size_t sz;

	if (argc == 2 &&
	    (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		print_help();
		return 0;
	}
	if (argc < 4 || argc > 5 || strcmp(argv[1], "attach"))
		return print_help();
	if (argc == 5) {
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
	ops = map ? bpf_map__initial_value(map, &sz) : NULL;
	if (!ops || sz < sizeof(*ops)) {
		fprintf(stderr,
			"svmtune-policy: %s has no svmtune_ops map %s\n",
			argv[2], argv[3]);
		bpf_object__close(obj);
		return 1;
	}
	ops->pid = pid;
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
