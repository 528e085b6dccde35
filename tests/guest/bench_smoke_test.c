// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmarks keep working: run every program of /bench (bench/bench_*)
 * once at its tiny size and check that it exits 0 and prints well-formed
 * RESULT lines (see bench/bench.h), with a measured value for each of the
 * plain, union and overlay setups, or n/a with a reason where the union
 * lacks the feature.  No timing is judged here.
 */
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define OUT_MAX		(1 << 20)

static const char *const result_re =
	"^RESULT workload=[A-Za-z0-9._-]+ fs=(tmpfs|ext4|xfs|btrfs) "
	"setup=(plain|union|overlay) cache=(warm|cold) unit=[A-Za-z/]+ "
	"reps=[0-9]+ ops=[0-9]+ "
	"median=(n/a note=[^ ]+|"
	"(-?[0-9.e+-]+) min=(-?[0-9.e+-]+) max=(-?[0-9.e+-]+) "
	"q1=-?[0-9.e+-]+ q3=-?[0-9.e+-]+( note=[^ ]+)?)$";

struct run {
	char out[OUT_MAX];
	int status;
	int lines;		/* RESULT lines */
	int measured[3];	/* numeric results per setup */
	int na[3];		/* n/a results per setup */
	char bad[256];		/* the first malformed RESULT line */
};

static const char *const setups[] = { "plain", "union", "overlay" };

/* Run /bench/@prog --tiny --fs @fs, its stdout and stderr into @r->out. */
static int run_prog(struct run *r, const char *prog, const char *fs)
{
	char path[256];
	size_t len = 0;
	ssize_t n;
	int p[2];
	pid_t pid;

	snprintf(path, sizeof(path), "/bench/%s", prog);
	if (access(path, X_OK))
		return -errno;
	if (pipe(p))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		execl(path, prog, "--tiny", "--fs", fs, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while (len < OUT_MAX - 1 &&
	       (n = read(p[0], r->out + len, OUT_MAX - 1 - len)) > 0)
		len += n;
	r->out[len] = 0;
	close(p[0]);
	if (waitpid(pid, &r->status, 0) < 0)
		return -errno;
	return 0;
}

/* Count and check the RESULT lines; returns the number of bad ones. */
static int parse(struct run *r)
{
	char *line, *save = NULL;
	regmatch_t m[8];
	regex_t re;
	int bad = 0;

	if (regcomp(&re, result_re, REG_EXTENDED))
		return -1;
	for (line = strtok_r(r->out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		double med, min, max;
		const char *s;
		int i;

		if (strncmp(line, "RESULT ", 7))
			continue;
		r->lines++;
		if (regexec(&re, line, 8, m, 0)) {
			if (!bad++)
				snprintf(r->bad, sizeof(r->bad), "%s", line);
			continue;
		}
		s = strstr(line, " setup=") + 7;
		for (i = 0; i < 3; i++)
			if (!strncmp(s, setups[i], strlen(setups[i])))
				break;
		if (strstr(line, " median=n/a ")) {
			r->na[i]++;
			continue;
		}
		med = strtod(strstr(line, " median=") + 8, NULL);
		min = strtod(strstr(line, " min=") + 5, NULL);
		max = strtod(strstr(line, " max=") + 5, NULL);
		if (!(min <= med && med <= max)) {
			if (!bad++)
				snprintf(r->bad, sizeof(r->bad),
					 "min <= median <= max fails: %s", line);
			continue;
		}
		r->measured[i]++;
	}
	regfree(&re);
	return bad;
}

FIXTURE(bench) {
	struct run *r;
};

FIXTURE_SETUP(bench)
{
	self->r = calloc(1, sizeof(*self->r));
	ASSERT_NE(NULL, self->r);
}

FIXTURE_TEARDOWN(bench)
{
	free(self->r);
}

/*
 * Run @prog and check its output: every setup measured at least once,
 * except the union where @union_na says it is n/a (with a reason).
 */
static void smoke(struct __test_metadata *_metadata, struct run *r,
		  const char *prog, const char *fs, bool union_na)
{
	int ret;

	ret = run_prog(r, prog, fs);
	ASSERT_EQ(0, ret) TH_LOG("running /bench/%s: %s", prog, strerror(-ret));
	if (!WIFEXITED(r->status) || WEXITSTATUS(r->status))
		TH_LOG("/bench/%s output:\n%s", prog, r->out);
	ASSERT_TRUE(WIFEXITED(r->status));
	ASSERT_EQ(0, WEXITSTATUS(r->status));
	ASSERT_EQ(0, parse(r)) TH_LOG("malformed: %s", r->bad);
	ASSERT_GT(r->lines, 0) TH_LOG("/bench/%s printed no RESULT line", prog);
	EXPECT_GT(r->measured[0], 0) TH_LOG("no plain result");
	EXPECT_GT(r->measured[2], 0) TH_LOG("no overlay result");
	if (union_na) {
		EXPECT_GT(r->na[1], 0) TH_LOG("union not reported as n/a");
	} else {
		EXPECT_GT(r->measured[1], 0) TH_LOG("no union result");
	}
}

TEST_F_TIMEOUT(bench, lookup, 600)
{
	smoke(_metadata, self->r, "bench_lookup", "tmpfs,ext4", false);
}

TEST_F_TIMEOUT(bench, readdir, 600)
{
	smoke(_metadata, self->r, "bench_readdir", "tmpfs,ext4", false);
}

TEST_F_TIMEOUT(bench, create, 600)
{
	smoke(_metadata, self->r, "bench_create", "tmpfs,ext4", false);
}

TEST_F_TIMEOUT(bench, untar, 600)
{
	smoke(_metadata, self->r, "bench_untar", "tmpfs,ext4", false);
}

TEST_F_TIMEOUT(bench, slab, 600)
{
	smoke(_metadata, self->r, "bench_slab", "tmpfs,ext4", false);
}

/* xfs: the reflink row is measured there */
TEST_F_TIMEOUT(bench, copyup, 600)
{
	smoke(_metadata, self->r, "bench_copyup", "tmpfs,xfs", true);
}

TEST_HARNESS_MAIN
