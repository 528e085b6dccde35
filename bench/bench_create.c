// SPDX-License-Identifier: GPL-2.0
/*
 * Creating and removing names in the merged root: create N new empty
 * files (openat O_CREAT | O_EXCL, close), then unlink them, in a root that
 * already merges 1000 names of the top layer and 1000 of the lower.  A
 * union creates every new name in the top layer after checking that no
 * lower layer has it; the check is part of what is measured.
 *
 * Each run starts after a sync(2); the unlinks follow the creates at once.
 * Before timing, the program checks that a name of the lower layer cannot
 * be created again (EEXIST) and that new names land in the top layer.
 */
#include "bench.h"

static void create_all(int dfd, char (*name)[NAME_LEN], long n)
{
	for (long i = 0; i < n; i++) {
		int fd = openat(dfd, name[i], O_CREAT | O_EXCL | O_WRONLY,
				0644);

		if (fd < 0)
			die("create %s: %m", name[i]);
		close(fd);
	}
}

static void unlink_all(int dfd, char (*name)[NAME_LEN], long n)
{
	for (long i = 0; i < n; i++)
		if (unlinkat(dfd, name[i], 0))
			die("unlink %s: %m", name[i]);
}

static void check_semantics(struct layers *ly, enum setup s, int dfd)
{
	char path[PATH_LEN];
	int fd;

	if (s == SETUP_PLAIN)
		return;
	fd = openat(dfd, "low.00000", O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd >= 0 || errno != EEXIST)
		complain("%s: O_EXCL create of a lower name: %s", setup_name[s],
			 fd >= 0 ? "succeeded" : strerror(errno));
	if (fd >= 0)
		close(fd);
	fd = openat(dfd, "probe", O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0)
		die("%s: create probe: %m", setup_name[s]);
	close(fd);
	pathf(path, "%s/probe", layers_top(ly));
	if (access(path, F_OK))
		complain("%s: a new name did not land in the top layer",
			 setup_name[s]);
	if (unlinkat(dfd, "probe", 0))
		die("%s: unlink probe: %m", setup_name[s]);
}

static void run_fs(const char *fs, const char *base)
{
	long n = opt.tiny ? 100 : 10000, lower = opt.tiny ? 20 : 1000;
	double vc[MAX_REPS], vu[MAX_REPS], t0, t1;
	int reps = pick_reps(7, 2);
	char (*name)[NAME_LEN];
	struct layers ly;

	layers_init(&ly, fs, base, 2);
	make_files(layers_top(&ly), "top.%05ld", 0, lower, 0);
	make_files(ly.plain, "top.%05ld", 0, lower, 0);
	make_files(layers_low(&ly), "low.%05ld", 0, lower, 0);
	make_files(ly.plain, "low.%05ld", 0, lower, 0);
	name = xcalloc(n, NAME_LEN);
	for (long i = 0; i < n; i++)
		snprintf(name[i], NAME_LEN, "new.%05ld", i);
	sync();

	for (enum setup s = 0; s < NR_SETUPS; s++) {
		int dfd = setup_open_root(&ly, s);

		if (dfd < 0)
			continue;
		check_semantics(&ly, s, dfd);
		for (int r = -1; r < reps; r++) {
			sync();
			t0 = now_ns();
			create_all(dfd, name, n);
			t1 = now_ns();
			unlink_all(dfd, name, n);
			if (r >= 0) {
				vc[r] = t1 - t0;
				vu[r] = now_ns() - t1;
			}
		}
		close(dfd);
		report("create.10k", fs, s, "warm", "us/op", n,
		       scale_vals(vc, reps, 1e3 * n), reps,
		       opt.tiny ? "tiny" : NULL);
		report("unlink.10k", fs, s, "warm", "us/op", n,
		       scale_vals(vu, reps, 1e3 * n), reps,
		       opt.tiny ? "tiny" : NULL);
		setup_leave(&ly, s);
	}
	free(name);
}

int main(int argc, char **argv)
{
	parse_opts(argc, argv, "", "", "(unused)");
	return bench_each_fs(run_fs);
}
