// SPDX-License-Identifier: GPL-2.0
/*
 * svmtunectl: command-line front end of /dev/svmtune.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/svmtune.h>

#define SVMTUNE_DEV "/dev/svmtune"
#define KFD_STATS "/sys/kernel/svmtune/kfd/stats"
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define WATCH_MAX_PIDS 64

/* --json: every read command prints one JSON object (watch: one a line). */
static bool json;

static void print_help(FILE *out)
{
	fprintf(out,
		"Usage: svmtunectl [--json] COMMAND [ARGS]\n"
		"\n"
		"  --json                print what a read command shows as JSON: one\n"
		"                        object (watch: one object a line, per interval)\n"
		"\n"
		"Commands:\n"
		"  version               module version and feature bits\n"
		"  devices               the devices backends registered\n"
		"  stats device ID       counters of one device\n"
		"  stats process PID     counters of one process (0: svmtunectl itself)\n"
		"  stats range PID ADDR  counters of the policy range holding ADDR\n"
		"  get PID ADDR SIZE     the policy set and in effect at ADDR\n"
		"  set PID ADDR SIZE FIELD=VALUE...\n"
		"                        set policy on [ADDR, ADDR + SIZE) of process PID:\n"
		"                          granularity=4K..1G|unset\n"
		"                          location=system|unset|DEVICE_ID\n"
		"                          access=migrate|remote|read-mostly|unset\n"
		"                          thrashing=opt-out|track|unset\n"
		"                          fragment=4K..2M|unset\n"
		"  defaults PID [FIELD=VALUE...]\n"
		"                        show, or set, the process defaults of PID\n"
		"  watch [-i SECONDS] [-n COUNT] [-p PID]...\n"
		"                        per-second rates every SECONDS (default 1),\n"
		"                        COUNT times (default: until interrupted), per\n"
		"                        device and per process PID (up to 64): faults,\n"
		"                        pages each way, thrashing throttles and pins,\n"
		"                        evictions; with svmtune_kfd, the duplicate GPU\n"
		"                        faults its retry filter dropped\n"
		"  help                  this text\n"
		"\n"
		"Numbers may be decimal or 0x-hex; SIZE, granularity and fragment take\n"
		"K, M, G.\n"
		"Another process than the caller's: only one of the same user, or with\n"
		"CAP_SYS_PTRACE (the access ptrace would need).\n"
		"Exit status: 0 on success, 1 on error, 2 on bad usage.\n");
}

static int open_dev(void)
{
	int fd = open(SVMTUNE_DEV, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		fprintf(stderr, "svmtunectl: %s: %s%s\n", SVMTUNE_DEV,
			strerror(errno),
			errno == ENOENT ? " (is svmtune.ko loaded?)" : "");
	return fd;
}

/* ioctl on a fresh fd; print the failure as NAME: strerror. */
static int svm_ioctl(unsigned long cmd, void *arg, const char *name)
{
	int fd = open_dev(), ret;

	if (fd < 0)
		return 1;
	ret = ioctl(fd, cmd, arg);
	if (ret)
		fprintf(stderr, "svmtunectl: %s: %s\n", name, strerror(errno));
	close(fd);
	return ret ? 1 : 0;
}

/* A number with an optional K/M/G suffix; 0 on success. */
static int parse_num(const char *s, __u64 *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		return -1;
	switch (*end) {
	case 'K':
	case 'k':
		v <<= 10, end++;
		break;
	case 'M':
	case 'm':
		v <<= 20, end++;
		break;
	case 'G':
	case 'g':
		v <<= 30, end++;
		break;
	}
	if (*end)
		return -1;
	*out = v;
	return 0;
}

/*
 * A size that is a power of two, as log2 bytes. 1 byte (log2 0) is
 * refused: 0 is the uapi's "unset", which only "unset" may ask for.
 */
static int parse_log2(const char *s, __u64 *log2)
{
	__u64 v;

	if (parse_num(s, &v) || v < 2 || (v & (v - 1)))
		return -1;
	*log2 = __builtin_ctzll(v);
	return 0;
}

static int parse_u32(const char *s, uint32_t *out)
{
	__u64 v;

	if (parse_num(s, &v) || v > UINT32_MAX)
		return -1;
	*out = v;
	return 0;
}

static const char *const access_names[] = {
	[SVMTUNE_ACCESS_UNSET] = "unset",
	[SVMTUNE_ACCESS_MIGRATE] = "migrate",
	[SVMTUNE_ACCESS_REMOTE] = "remote",
	[SVMTUNE_ACCESS_READ_MOSTLY] = "read-mostly",
};

static const char *const thrashing_names[] = {
	[SVMTUNE_THRASH_UNSET] = "unset",
	[SVMTUNE_THRASH_OPT_OUT] = "opt-out",
	[SVMTUNE_THRASH_TRACK] = "track",
};

/* The index of @val in @names (@n of them), or -1. */
static int name_index(const char *const *names, unsigned int n, const char *val)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(val, names[i]))
			return i;
	return -1;
}

/* The name of @v in @names (@n of them), or "?". */
static const char *name_of(const char *const *names, unsigned int n, uint32_t v)
{
	return v < n ? names[v] : "?";
}

/* Parse FIELD=VALUE arguments into set bits and values. */
static int parse_fields(int argc, char **argv, uint32_t *set, uint32_t *gran,
			uint32_t *loc, uint32_t *access, uint32_t *thrashing,
			uint32_t *fragment)
{
	int i;

	for (i = 0; i < argc; i++) {
		char *val = strchr(argv[i], '=');
		__u64 v;

		if (!val)
			goto bad;
		*val++ = '\0';
		if (!strcmp(argv[i], "granularity")) {
			*set |= SVMTUNE_POLICY_GRANULARITY;
			if (!strcmp(val, "unset")) {
				*gran = SVMTUNE_GRANULARITY_UNSET;
				continue;
			}
			if (parse_log2(val, &v))
				goto bad;
			*gran = v;
		} else if (!strcmp(argv[i], "location")) {
			*set |= SVMTUNE_POLICY_PREFERRED_LOC;
			if (!strcmp(val, "system"))
				*loc = SVMTUNE_LOC_SYSTEM;
			else if (!strcmp(val, "unset"))
				*loc = SVMTUNE_LOC_UNSET;
			else if (parse_u32(val, loc))
				goto bad;
		} else if (!strcmp(argv[i], "access")) {
			int a = name_index(access_names,
					   ARRAY_SIZE(access_names), val);

			*set |= SVMTUNE_POLICY_ACCESS;
			if (a < 0)
				goto bad;
			*access = a;
		} else if (!strcmp(argv[i], "thrashing")) {
			int t = name_index(thrashing_names,
					   ARRAY_SIZE(thrashing_names), val);

			*set |= SVMTUNE_POLICY_THRASHING;
			if (t < 0)
				goto bad;
			*thrashing = t;
		} else if (!strcmp(argv[i], "fragment")) {
			*set |= SVMTUNE_POLICY_FRAGMENT;
			if (!strcmp(val, "unset")) {
				*fragment = SVMTUNE_FRAGMENT_UNSET;
				continue;
			}
			if (parse_log2(val, &v))
				goto bad;
			*fragment = v;
		} else {
			goto bad;
		}
	}
	return 0;
bad:
	fprintf(stderr, "svmtunectl: bad field '%s'\n", argv[i]);
	return -1;
}

/* ---- Output: "key value" lines, or one JSON object ---- */

static bool out_first;

static void out_begin(void)
{
	out_first = true;
	if (json)
		putchar('{');
}

static void out_end(void)
{
	if (json)
		puts("}");
}

static void out_key(const char *key)
{
	if (json)
		printf("%s\"%s\":", out_first ? "" : ",", key);
	else
		printf("%s ", key);
	out_first = false;
}

/* @s as a JSON string: quotes, backslashes and control bytes escaped. */
static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void out_u64(const char *key, unsigned long long v)
{
	out_key(key);
	printf(json ? "%llu" : "%llu\n", v);
}

/* A word: a JSON string, or the bare word. */
static void out_word(const char *key, const char *word)
{
	out_key(key);
	if (json)
		json_string(word);
	else
		printf("%s\n", word);
}

/*
 * The policy fields, in JSON as the word set takes for them (so a value
 * read can be given back), in text as before.
 */
static void out_thrashing(const char *key, uint32_t t)
{
	out_word(key, name_of(thrashing_names, ARRAY_SIZE(thrashing_names), t));
}

static void out_granularity(const char *key, uint32_t g)
{
	static const char suffix[] = "KMG";
	char word[16];

	if (g == SVMTUNE_GRANULARITY_UNSET || g < 10 || g >= 40)
		snprintf(word, sizeof(word), "%s",
			 g == SVMTUNE_GRANULARITY_UNSET ? "unset" : "?");
	else
		snprintf(word, sizeof(word), "%lu%c", 1UL << (g % 10),
			 suffix[g / 10 - 1]);
	out_word(key, word);
}

static void out_location(const char *key, uint32_t loc)
{
	char word[24];

	if (loc == SVMTUNE_LOC_UNSET)
		snprintf(word, sizeof(word), "unset");
	else if (loc == SVMTUNE_LOC_SYSTEM)
		snprintf(word, sizeof(word), "system");
	else
		snprintf(word, sizeof(word), json ? "%u" : "device %u", loc);
	out_word(key, word);
}

static void out_access(const char *key, uint32_t access)
{
	out_word(key, name_of(access_names, ARRAY_SIZE(access_names), access));
}

static int cmd_version(void)
{
	struct svmtune_version ver;
	char v[48], features[24];

	memset(&ver, 0, sizeof(ver));
	if (svm_ioctl(SVMTUNE_IOC_VERSION, &ver, "SVMTUNE_IOC_VERSION"))
		return 1;
	if (!json) {
		printf("svmtune %u.%u.%u\n", ver.major, ver.minor, ver.patch);
		printf("features 0x%016llx\n",
		       (unsigned long long)ver.features);
		return 0;
	}
	/* The bits as a hex string: JSON numbers above 2^53 lose bits. */
	snprintf(v, sizeof(v), "%u.%u.%u", ver.major, ver.minor, ver.patch);
	snprintf(features, sizeof(features), "0x%016llx",
		 (unsigned long long)ver.features);
	out_begin();
	out_word("version", v);
	out_word("features", features);
	out_end();
	return 0;
}

/* The device @id's information into @di; false if there is none. */
static bool get_device(int fd, uint32_t id, struct svmtune_device_info *di)
{
	memset(di, 0, sizeof(*di));
	di->id = id;
	if (ioctl(fd, SVMTUNE_IOC_GET_DEVICE, di))
		return false;
	di->name[sizeof(di->name) - 1] = '\0';
	return true;
}

static int cmd_devices(void)
{
	struct svmtune_device_info di;
	int fd = open_dev();
	bool first = true;
	uint32_t id;

	if (fd < 0)
		return 1;
	if (json)
		printf("{\"devices\":[");
	else
		printf("%-4s %-16s %12s %12s\n", "id", "name", "memory",
		       "free");
	for (id = 1; id <= SVMTUNE_LOC_MAX_DEVICE; id++) {
		if (!get_device(fd, id, &di))
			continue;
		if (!json) {
			printf("%-4u %-16s %11lluM %11lluM\n", id, di.name,
			       (unsigned long long)(di.mem_bytes >> 20),
			       (unsigned long long)(di.mem_free_bytes >> 20));
			continue;
		}
		if (!first)
			putchar(',');
		first = false;
		out_begin();
		out_u64("id", id);
		out_key("name");
		json_string(di.name);
		out_u64("memory_bytes", di.mem_bytes);
		out_u64("free_bytes", di.mem_free_bytes);
		putchar('}');
	}
	if (json)
		puts("]}");
	close(fd);
	return 0;
}

/* The counters of struct svmtune_stats, by name. */
struct counter {
	const char *name;
	size_t offset; /* in struct svmtune_stats */
};

#define COUNTER(f) { #f, offsetof(struct svmtune_stats, counters.f) }
#define MITIGATION(f) { #f, offsetof(struct svmtune_stats, mitigations.f) }

static const struct counter counters[] = {
	COUNTER(gpu_faults),
	COUNTER(cpu_faults),
	COUNTER(pages_to_device),
	COUNTER(pages_to_system),
	COUNTER(bytes_to_device),
	COUNTER(bytes_to_system),
	COUNTER(remote_pages),
	COUNTER(waste_pages),
	COUNTER(fallback_pages),
	COUNTER(window_pages),
	COUNTER(thrashing_events),
	COUNTER(thrashing_detected),
	COUNTER(prefetch_pages),
	COUNTER(prefetch_used),
	COUNTER(tlb_hits),
	COUNTER(tlb_misses),
	MITIGATION(thrashing_throttles),
	MITIGATION(thrashing_pins),
	MITIGATION(thrashing_unpins),
	MITIGATION(evicted_pages),
};

static unsigned long long counter_of(const struct svmtune_stats *st,
				     const struct counter *c)
{
	return *(const __u64 *)((const char *)st + c->offset);
}

static int cmd_stats(int argc, char **argv)
{
	struct svmtune_stats st;
	unsigned int i;

	memset(&st, 0, sizeof(st));
	if (argc == 2 && !strcmp(argv[0], "device"))
		st.scope = SVMTUNE_STATS_DEVICE;
	else if (argc == 2 && !strcmp(argv[0], "process"))
		st.scope = SVMTUNE_STATS_PROCESS;
	else if (argc == 3 && !strcmp(argv[0], "range"))
		st.scope = SVMTUNE_STATS_RANGE;
	else
		return 2;
	if (parse_u32(argv[1], &st.id) ||
	    (argc == 3 && parse_num(argv[2], &st.addr)))
		return 2;
	if (svm_ioctl(SVMTUNE_IOC_GET_STATS, &st, "SVMTUNE_IOC_GET_STATS"))
		return 1;
	out_begin();
	if (st.scope == SVMTUNE_STATS_RANGE) {
		if (json) {
			out_u64("range_start", st.range_start);
			out_u64("range_end", st.range_end);
		} else {
			printf("range 0x%llx-0x%llx\n",
			       (unsigned long long)st.range_start,
			       (unsigned long long)st.range_end);
		}
	}
	for (i = 0; i < ARRAY_SIZE(counters); i++)
		out_u64(counters[i].name, counter_of(&st, &counters[i]));
	out_end();
	return 0;
}

/* PID ADDR SIZE into a range policy argument. */
static int parse_span(char **argv, struct svmtune_range_policy *p)
{
	memset(p, 0, sizeof(*p));
	return parse_u32(argv[0], &p->pid) || parse_num(argv[1], &p->start) ||
			       parse_num(argv[2], &p->size) ?
		       -1 :
		       0;
}

static int cmd_get(int argc, char **argv)
{
	struct svmtune_range_policy p;

	if (argc != 3 || parse_span(argv, &p))
		return 2;
	if (svm_ioctl(SVMTUNE_IOC_GET_POLICY, &p, "SVMTUNE_IOC_GET_POLICY"))
		return 1;
	out_begin();
	if (json) {
		out_u64("extent_start", p.start);
		out_u64("extent_end", p.extent_end);
	} else {
		printf("extent 0x%llx-0x%llx\n", (unsigned long long)p.start,
		       (unsigned long long)p.extent_end);
	}
	out_granularity("granularity", p.granularity);
	out_location("location", p.preferred_loc);
	out_access("access", p.access);
	out_granularity("effective_granularity", p.eff_granularity);
	out_location("effective_location", p.eff_preferred_loc);
	out_access("effective_access", p.eff_access);
	out_thrashing("thrashing", p.thrashing);
	out_thrashing("effective_thrashing", p.eff_thrashing);
	out_granularity("fragment", p.fragment);
	out_granularity("effective_fragment", p.eff_fragment);
	out_end();
	return 0;
}

static int cmd_set(int argc, char **argv)
{
	struct svmtune_range_policy p;

	if (argc < 4 || parse_span(argv, &p))
		return 2;
	if (parse_fields(argc - 3, argv + 3, &p.set, &p.granularity,
			 &p.preferred_loc, &p.access, &p.thrashing,
			 &p.fragment))
		return 2;
	return svm_ioctl(SVMTUNE_IOC_SET_POLICY, &p, "SVMTUNE_IOC_SET_POLICY");
}

static int cmd_defaults(int argc, char **argv)
{
	struct svmtune_process_policy pp;

	memset(&pp, 0, sizeof(pp));
	if (argc < 1 || parse_u32(argv[0], &pp.pid))
		return 2;
	if (argc > 1) {
		if (parse_fields(argc - 1, argv + 1, &pp.set, &pp.granularity,
				 &pp.preferred_loc, &pp.access, &pp.thrashing,
				 &pp.fragment))
			return 2;
		return svm_ioctl(SVMTUNE_IOC_SET_PROCESS_POLICY, &pp,
				 "SVMTUNE_IOC_SET_PROCESS_POLICY");
	}
	if (svm_ioctl(SVMTUNE_IOC_GET_PROCESS_POLICY, &pp,
		      "SVMTUNE_IOC_GET_PROCESS_POLICY"))
		return 1;
	out_begin();
	out_granularity("granularity", pp.granularity);
	out_location("location", pp.preferred_loc);
	out_access("access", pp.access);
	out_thrashing("thrashing", pp.thrashing);
	out_granularity("fragment", pp.fragment);
	out_end();
	return 0;
}

/* ---- watch: rates per second, like vmstat ---- */

/* What watch shows of the counters, as rates. */
static const struct counter watched[] = {
	COUNTER(gpu_faults),
	COUNTER(cpu_faults),
	COUNTER(pages_to_device),
	COUNTER(pages_to_system),
	MITIGATION(thrashing_throttles),
	MITIGATION(thrashing_pins),
	MITIGATION(evicted_pages),
};

/* The text header's short names of @watched. */
static const char *const watched_short[] = {
	"gpu_flt/s",  "cpu_flt/s", "to_dev/s", "to_sys/s",
	"throttle/s", "pins/s",	   "evict/s",
};

/* svmtune_kfd's counters watch shows, when it is loaded. */
static const char *const kfd_watched[] = {
	"gpu_faults",
	"retry_filter_duplicates",
	"retry_filter_early_drops",
};

/* One sample of everything watch follows. */
struct sample {
	struct timespec when;
	bool dev_ok[SVMTUNE_LOC_MAX_DEVICE + 1];
	char dev_name[SVMTUNE_LOC_MAX_DEVICE + 1][32];
	struct svmtune_stats dev[SVMTUNE_LOC_MAX_DEVICE + 1];
	bool pid_ok[WATCH_MAX_PIDS];
	int pid_err[WATCH_MAX_PIDS];
	struct svmtune_stats pid[WATCH_MAX_PIDS];
	bool kfd_ok;
	unsigned long long kfd[ARRAY_SIZE(kfd_watched)];
};

/* @name's value in svmtune_kfd's stats file; false if it has none. */
static bool kfd_stat(FILE *f, const char *name, unsigned long long *v)
{
	char key[64];
	unsigned long long val;

	rewind(f);
	while (fscanf(f, "%63s %llu", key, &val) == 2)
		if (!strcmp(key, name)) {
			*v = val;
			return true;
		}
	return false;
}

static void take_sample(int fd, const uint32_t *pids, unsigned int npids,
			struct sample *s)
{
	struct svmtune_device_info di;
	unsigned int i;
	FILE *f;

	memset(s, 0, sizeof(*s));
	clock_gettime(CLOCK_MONOTONIC, &s->when);
	for (i = 1; i <= SVMTUNE_LOC_MAX_DEVICE; i++) {
		if (!get_device(fd, i, &di))
			continue;
		s->dev[i].scope = SVMTUNE_STATS_DEVICE;
		s->dev[i].id = i;
		if (ioctl(fd, SVMTUNE_IOC_GET_STATS, &s->dev[i]))
			continue;
		s->dev_ok[i] = true;
		memcpy(s->dev_name[i], di.name, sizeof(di.name));
	}
	for (i = 0; i < npids; i++) {
		s->pid[i].scope = SVMTUNE_STATS_PROCESS;
		s->pid[i].id = pids[i];
		s->pid_ok[i] = !ioctl(fd, SVMTUNE_IOC_GET_STATS, &s->pid[i]);
		s->pid_err[i] = s->pid_ok[i] ? 0 : errno;
	}
	f = fopen(KFD_STATS, "r");
	if (!f)
		return;
	s->kfd_ok = true;
	for (i = 0; i < ARRAY_SIZE(kfd_watched); i++)
		s->kfd_ok &= kfd_stat(f, kfd_watched[i], &s->kfd[i]);
	fclose(f);
}

/* A counter's rate between two samples (a counter that went back: 0). */
static double rate(unsigned long long was, unsigned long long now, double secs)
{
	return now >= was ? (now - was) / secs : 0;
}

/* One row: a device's or a process's rates. */
static void watch_row(const char *what, unsigned long long id, const char *name,
		      const struct svmtune_stats *was,
		      const struct svmtune_stats *now, double secs, bool *first)
{
	unsigned int i;

	if (!json) {
		char label[48];

		snprintf(label, sizeof(label), "%s %llu%s%s", what, id,
			 name ? " " : "", name ? name : "");
		printf("%-24s", label);
		for (i = 0; i < ARRAY_SIZE(watched); i++)
			printf(" %10.1f",
			       rate(counter_of(was, &watched[i]),
				    counter_of(now, &watched[i]), secs));
		putchar('\n');
		return;
	}
	if (!*first)
		putchar(',');
	*first = false;
	out_begin();
	out_u64(!strcmp(what, "process") ? "pid" : "id", id);
	if (name) {
		out_key("name");
		json_string(name);
	}
	for (i = 0; i < ARRAY_SIZE(watched); i++) {
		out_key(watched[i].name);
		printf("%.1f", rate(counter_of(was, &watched[i]),
				    counter_of(now, &watched[i]), secs));
	}
	putchar('}');
}

static void watch_print(const struct sample *was, const struct sample *now,
			const uint32_t *pids, unsigned int npids,
			unsigned long round)
{
	double secs = (now->when.tv_sec - was->when.tv_sec) +
		      (now->when.tv_nsec - was->when.tv_nsec) / 1e9;
	bool first = true;
	unsigned int i;

	if (secs <= 0)
		secs = 1e-9;
	if (!json && round % 20 == 0) {
		printf("%-24s", "");
		for (i = 0; i < ARRAY_SIZE(watched_short); i++)
			printf(" %10s", watched_short[i]);
		putchar('\n');
	}
	if (json)
		printf("{\"interval_s\":%.3f,\"devices\":[", secs);
	for (i = 1; i <= SVMTUNE_LOC_MAX_DEVICE; i++)
		if (was->dev_ok[i] && now->dev_ok[i] &&
		    !strcmp(was->dev_name[i], now->dev_name[i]))
			watch_row("device", i, now->dev_name[i], &was->dev[i],
				  &now->dev[i], secs, &first);
	if (json)
		printf("],\"processes\":[");
	first = true;
	for (i = 0; i < npids; i++)
		if (was->pid_ok[i] && now->pid_ok[i])
			watch_row("process", pids[i], NULL, &was->pid[i],
				  &now->pid[i], secs, &first);
	if (json)
		putchar(']');
	if (was->kfd_ok && now->kfd_ok) {
		if (json) {
			printf(",\"kfd\":");
			out_begin();
			for (i = 0; i < ARRAY_SIZE(kfd_watched); i++) {
				out_key(kfd_watched[i]);
				printf("%.1f",
				       rate(was->kfd[i], now->kfd[i], secs));
			}
			putchar('}');
		} else {
			printf("%-24s gpu_faults/s %.1f, duplicates dropped/s %.1f (before KFD's locks %.1f)\n",
			       "svmtune_kfd",
			       rate(was->kfd[0], now->kfd[0], secs),
			       rate(was->kfd[1], now->kfd[1], secs),
			       rate(was->kfd[2], now->kfd[2], secs));
		}
	}
	if (json)
		puts("}");
	fflush(stdout);
}

static int cmd_watch(int argc, char **argv)
{
	struct sample *s = calloc(2, sizeof(*s));
	uint32_t pids[WATCH_MAX_PIDS] = { 0 };
	unsigned long count = 0, round;
	unsigned int npids = 0, i;
	double interval = 1;
	int a, fd;

	if (!s)
		return 1;
	for (a = 0; a < argc; a++) {
		__u64 v;
		char *end;

		if (a + 1 >= argc)
			goto bad;
		if (!strcmp(argv[a], "-i")) {
			errno = 0;
			interval = strtod(argv[++a], &end);
			if (errno || *end || end == argv[a] ||
			    !(interval >= 0.1 && interval <= 3600))
				goto bad;
		} else if (!strcmp(argv[a], "-n")) {
			if (parse_num(argv[++a], &v) || !v || v > 1000000)
				goto bad;
			count = v;
		} else if (!strcmp(argv[a], "-p")) {
			if (npids == WATCH_MAX_PIDS ||
			    parse_u32(argv[++a], &pids[npids]) || !pids[npids])
				goto bad;
			npids++;
		} else {
			goto bad;
		}
	}
	fd = open_dev();
	if (fd < 0) {
		free(s);
		return 1;
	}
	take_sample(fd, pids, npids, &s[0]);
	for (i = 0; i < npids; i++)
		if (!s[0].pid_ok[i])
			fprintf(stderr, "svmtunectl: process %u: %s\n", pids[i],
				strerror(s[0].pid_err[i]));
	for (round = 0; !count || round < count; round++) {
		struct timespec ts = {
			.tv_sec = (time_t)interval,
			.tv_nsec = (long)((interval - (time_t)interval) * 1e9),
		};

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		take_sample(fd, pids, npids, &s[(round + 1) % 2]);
		watch_print(&s[round % 2], &s[(round + 1) % 2], pids, npids,
			    round);
	}
	close(fd);
	free(s);
	return 0;
bad:
	free(s);
	return 2;
}

int main(int argc, char **argv)
{
	const char *cmd;
	int ret = 2;

	if (argc > 1 && !strcmp(argv[1], "--json")) {
		json = true;
		argc--;
		argv++;
	}
	cmd = argc > 1 ? argv[1] : "";
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") ||
	    !strcmp(cmd, "-h")) {
		print_help(stdout);
		return 0;
	}
	if (!strcmp(cmd, "version") && argc == 2)
		ret = cmd_version();
	else if (!strcmp(cmd, "devices") && argc == 2)
		ret = cmd_devices();
	else if (!strcmp(cmd, "stats"))
		ret = cmd_stats(argc - 2, argv + 2);
	else if (!strcmp(cmd, "get"))
		ret = cmd_get(argc - 2, argv + 2);
	else if (!strcmp(cmd, "set"))
		ret = cmd_set(argc - 2, argv + 2);
	else if (!strcmp(cmd, "defaults"))
		ret = cmd_defaults(argc - 2, argv + 2);
	else if (!strcmp(cmd, "watch"))
		ret = cmd_watch(argc - 2, argv + 2);

	if (ret == 2) {
		fprintf(stderr, "svmtunectl: bad usage\n");
		print_help(stderr);
	}
	return ret;
}
