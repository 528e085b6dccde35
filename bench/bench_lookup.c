// SPDX-License-Identifier: GPL-2.0
/*
 * Lookup at the root of a union: stat(2) of a name in the top layer, of a
 * name in the lowest layer and of a missing name, through 2 and 8 layers,
 * and open+read+close of small files that live in the lowest layer, also
 * in a Landlock sandbox.  The 2-layer stats of lower and missing names run
 * in two threads at once as well (".par2"): each thread makes as many as
 * the one-thread row, and the time per stat is of the wall clock over
 * both, so a lookup that scales costs half as much there.  The 2-layer
 * stat of lower names runs once more while another thread mounts and
 * unmounts an unrelated union over and over (".mounts"): a change of
 * one union's mounts should leave the others' cached layer stacks alone.
 *
 * Each layer holds F files (top.N in the top layer, low.N and small.N in
 * the lowest, mI.N in each layer between); plain/ holds all of them.
 * Lookups are relative to an open descriptor of the merged root
 * (fstatat/openat), so only the last component is resolved.
 *
 *   warm  F names, cycled until OPS operations, after one warm-up run;
 *   cold  (disk file systems) caches dropped, then every name once.
 */
#include <linux/landlock.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "bench.h"

static long nfiles;		/* F, files per layer and set */
static long wops;		/* operations of one warm run */

struct set {
	char (*name)[NAME_LEN];
	long n;
	long passes;
	int dfd;
	int want;		/* 0: must exist, else the errno */
	bool read;		/* open+read+close instead of stat */
};

static void fill_names(struct set *s, const char *fmt, long n)
{
	s->name = xcalloc(n, NAME_LEN);
	s->n = n;
	for (long i = 0; i < n; i++)
		snprintf(s->name[i], NAME_LEN, fmt, i);
}

static void run_set(void *arg)
{
	struct set *s = arg;
	static char buf[4096];
	struct stat st;

	for (long p = 0; p < s->passes; p++) {
		for (long i = 0; i < s->n; i++) {
			if (s->read) {
				int fd = openat(s->dfd, s->name[i], O_RDONLY);

				if (fd < 0 || read(fd, buf, sizeof(buf)) != 1024)
					die("open+read %s: %m", s->name[i]);
				close(fd);
				continue;
			}
			if (fstatat(s->dfd, s->name[i], &st,
				    AT_SYMLINK_NOFOLLOW)) {
				if (errno == s->want)
					continue;
				die("stat %s: %m", s->name[i]);
			} else if (s->want) {
				die("stat %s: found, should be missing",
				    s->name[i]);
			}
		}
	}
}

static void *run_set_thread(void *arg)
{
	run_set(arg);
	return NULL;
}

/* run_set() in this thread and in a second one at the same time. */
static void run_set_par2(void *arg)
{
	pthread_t t;

	if (pthread_create(&t, NULL, run_set_thread, arg))
		die("pthread_create failed");
	run_set(arg);
	pthread_join(t, NULL);
}

/* How one() runs a set: each name looked up before (warm) or not (cold). */
enum run { WARM, COLD, WARM_PAR2 /* warm, in two threads at once */ };

/* The set @s, reported per lookup: wall time over all threads. */
static void one(const char *wl, const char *fs, enum setup setup,
		struct set *s, enum run run)
{
	int reps = pick_reps(7, 2), threads = run == WARM_PAR2 ? 2 : 1;
	bool cold = run == COLD;
	double v[MAX_REPS];

	s->passes = cold ? 1 : (wops + s->n - 1) / s->n;
	measure(threads == 2 ? run_set_par2 : run_set, s, cold ? 0 : 1, reps,
		cold, v);
	report(wl, fs, setup, cold ? "cold" : "warm", "us/op",
	       threads * s->n * s->passes,
	       scale_vals(v, reps, threads * 1e3 * s->n * s->passes), reps,
	       NULL);
}

/* A union mounted and unmounted elsewhere, over and over (run_churn()). */
struct churn {
	char top[PATH_LEN], cov[PATH_LEN];
	bool stop;
	long rounds;
};

static void *run_churn(void *arg)
{
	struct churn *c = arg;

	while (!__atomic_load_n(&c->stop, __ATOMIC_RELAXED)) {
		if (mount(c->top, c->cov, NULL, MS_BIND | MS_UNION, NULL))
			die("union on %s: %m", c->cov);
		if (umount2(c->cov, 0))
			die("umount %s: %m", c->cov);
		c->rounds++;
	}
	return NULL;
}

/* one() warm while run_churn() mounts and unmounts a union in @base. */
static void one_churn(const char *wl, const char *fs, enum setup setup,
		      struct set *s, const char *base)
{
	struct churn c = { 0 };
	pthread_t t;

	pathf(c.top, "%s/churn-top", base);
	pathf(c.cov, "%s/churn-cov", base);
	xmkdir(c.top);
	xmkdir(c.cov);
	if (pthread_create(&t, NULL, run_churn, &c))
		die("pthread_create failed");
	one(wl, fs, setup, s, WARM);
	__atomic_store_n(&c.stop, true, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	if (!c.rounds)
		die("%s: no union was mounted meanwhile", wl);
	rmdir(c.top);
	rmdir(c.cov);
}

#define LL_ACCESS	(LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE)

/*
 * The open+read set @s in a child that a Landlock ruleset restricts:
 * reading and writing files are handled, and allowed beneath @base only
 * (the directory of every setup's root), so every open is checked by a
 * walk from the file up to @base.  The child first checks that a file
 * outside @base is refused.
 */
static void one_landlock(const char *wl, const char *fs, enum setup setup,
			 struct set *s, const char *base)
{
	struct landlock_ruleset_attr ra = { .handled_access_fs = LL_ACCESS };
	struct landlock_path_beneath_attr pb = { .allowed_access = LL_ACCESS };
	int status, rs;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork: %m");
	if (!pid) {
		rs = syscall(__NR_landlock_create_ruleset, &ra, sizeof(ra), 0);
		pb.parent_fd = open(base, O_PATH | O_CLOEXEC);
		if (rs < 0 || pb.parent_fd < 0 ||
		    syscall(__NR_landlock_add_rule, rs,
			    LANDLOCK_RULE_PATH_BENEATH, &pb, 0) ||
		    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    syscall(__NR_landlock_restrict_self, rs, 0))
			die("%s: Landlock: %m", wl);
		if (open("/etc/passwd", O_RDONLY | O_CLOEXEC) >= 0 ||
		    errno != EACCES)
			die("%s: /etc/passwd outside the sandbox: %m", wl);
		one(wl, fs, setup, s, WARM);
		fflush(stdout);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("%s: the sandboxed run failed", wl);
}

static void run_layers(const char *fs, const char *base, int n)
{
	struct set top, low, miss, small;
	struct layers ly;
	char wl[64], fmt[32];

	layers_init(&ly, fs, base, n);
	make_files(layers_top(&ly), "top.%05ld", 0, nfiles, 0);
	make_files(ly.plain, "top.%05ld", 0, nfiles, 0);
	for (int i = 1; i < n - 1; i++) {
		snprintf(fmt, sizeof(fmt), "m%d.%%05ld", i);
		make_files(ly.dir[i], fmt, 0, nfiles, 0);
		make_files(ly.plain, fmt, 0, nfiles, 0);
	}
	make_files(layers_low(&ly), "low.%05ld", 0, nfiles, 0);
	make_files(ly.plain, "low.%05ld", 0, nfiles, 0);
	if (n == 2) {
		make_files(layers_low(&ly), "small.%05ld", 0, nfiles, 1024);
		make_files(ly.plain, "small.%05ld", 0, nfiles, 1024);
	}
	fill_names(&top, "top.%05ld", nfiles);
	fill_names(&low, "low.%05ld", nfiles);
	fill_names(&miss, "miss.%05ld", nfiles);
	fill_names(&small, "small.%05ld", nfiles);
	miss.want = ENOENT;
	small.read = true;
	sync();

	for (enum setup s = 0; s < NR_SETUPS; s++) {
		int dfd = setup_open_root(&ly, s);

		if (dfd < 0)
			continue;
		top.dfd = low.dfd = miss.dfd = small.dfd = dfd;
		snprintf(wl, sizeof(wl), "stat.top.%dL", n);
		one(wl, fs, s, &top, WARM);
		snprintf(wl, sizeof(wl), "stat.lower.%dL", n);
		one(wl, fs, s, &low, WARM);
		snprintf(wl, sizeof(wl), "stat.missing.%dL", n);
		one(wl, fs, s, &miss, WARM);
		if (n == 2 && is_disk_fs(fs))
			one("stat.lower.2L", fs, s, &low, COLD);
		if (n == 2) {
			one("stat.lower.2L.par2", fs, s, &low, WARM_PAR2);
			one("stat.missing.2L.par2", fs, s, &miss, WARM_PAR2);
			one_churn("stat.lower.2L.mounts", fs, s, &low, base);
			one("open-read.lower.2L", fs, s, &small, WARM);
			one_landlock("open-read.lower.2L.landlock", fs, s,
				     &small, base);
			if (is_disk_fs(fs))
				one("open-read.lower.2L", fs, s, &small, COLD);
		}
		close(dfd);
		setup_leave(&ly, s);
	}
	free(top.name);
	free(low.name);
	free(miss.name);
	free(small.name);
	rm_tree(base);
}

static void run_fs(const char *fs, const char *base)
{
	const char *p = opt.sizes;
	char dir[PATH_LEN];
	long n;

	xmkdir(base);
	while (next_size(&p, &n)) {
		pathf(dir, "%s/%ldL", base, n);
		run_layers(fs, dir, n);
	}
}

int main(int argc, char **argv)
{
	parse_opts(argc, argv, "2,8", "2,8", "layer counts (2..8), default 2,8");
	nfiles = opt.tiny ? 16 : 1000;
	wops = opt.tiny ? 64 : 20000;
	return bench_each_fs(run_fs);
}
