// SPDX-License-Identifier: GPL-2.0
/*
 * svmtunectl: command-line front end of /dev/svmtune and
 * /sys/kernel/svmtune.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/svmtune.h>

#define SVMTUNE_DEV	"/dev/svmtune"

static void print_help(FILE *out)
{
	fprintf(out,
		"Usage: svmtunectl COMMAND\n"
		"\n"
		"Commands:\n"
		"  version     print the svmtune module version and feature bits\n"
		"              (SVMTUNE_IOC_VERSION on " SVMTUNE_DEV ")\n"
		"  help        this text\n"
		"\n"
		"Exit status: 0 on success, 1 on error, 2 on bad usage.\n");
}

static int open_dev(void)
{
	int fd = open(SVMTUNE_DEV, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		fprintf(stderr, "svmtunectl: %s: %s%s\n", SVMTUNE_DEV, strerror(errno),
			errno == ENOENT ? " (is svmtune.ko loaded?)" : "");
	return fd;
}

static int cmd_version(void)
{
	struct svmtune_version ver;
	int fd = open_dev();

	if (fd < 0)
		return 1;
	memset(&ver, 0, sizeof(ver));
	if (ioctl(fd, SVMTUNE_IOC_VERSION, &ver)) {
		fprintf(stderr, "svmtunectl: SVMTUNE_IOC_VERSION: %s\n", strerror(errno));
		close(fd);
		return 1;
	}
	close(fd);
	printf("svmtune %u.%u.%u\n", ver.major, ver.minor, ver.patch);
	printf("features 0x%016llx\n", (unsigned long long)ver.features);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		print_help(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_help(stdout);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "svmtunectl: '%s' takes no arguments\n", argv[1]);
		return 2;
	}
	if (!strcmp(argv[1], "version"))
		return cmd_version();

	fprintf(stderr, "svmtunectl: unknown command '%s'\n", argv[1]);
	print_help(stderr);
	return 2;
}
