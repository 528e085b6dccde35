// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel memory per looked-up lower file: with the dentry and inode
 * caches dropped, stat(2) N names that live in the lower layer through
 * the merged root and divide the growth of Slab: in /proc/meminfo by N.
 *
 * A union keeps the lower layer's own dentry and inode plus a negative
 * dentry in each layer above; overlayfs adds its own dentry and inode on
 * top of those.  On tmpfs the lower dentries and inodes are never freed
 * (they are the file system), so only what the lookup adds is counted.
 */
#include "bench.h"

static long slab_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		die("/proc/meminfo: %m");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld kB", &kb) == 1)
			break;
	fclose(f);
	if (kb < 0)
		die("no Slab: in /proc/meminfo");
	return kb;
}

static void run_fs(const char *fs, const char *base)
{
	long n = opt.tiny ? 100 : 10000;
	int reps = pick_reps(5, 2);
	char (*name)[NAME_LEN];
	double v[MAX_REPS];
	struct layers ly;
	struct stat st;

	layers_init(&ly, fs, base, 2);
	make_files(layers_top(&ly), "top.%05ld", 0, 100, 0);
	make_files(ly.plain, "top.%05ld", 0, 100, 0);
	make_files(layers_low(&ly), "low.%05ld", 0, n, 0);
	make_files(ly.plain, "low.%05ld", 0, n, 0);
	name = xcalloc(n, NAME_LEN);
	for (long i = 0; i < n; i++)
		snprintf(name[i], NAME_LEN, "low.%05ld", i);
	sync();

	for (enum setup s = 0; s < NR_SETUPS; s++) {
		int dfd = setup_open_root(&ly, s);

		if (dfd < 0)
			continue;
		for (int r = 0; r < reps; r++) {
			long before, after;

			drop_caches();
			drop_caches();
			before = slab_kb();
			for (long i = 0; i < n; i++)
				if (fstatat(dfd, name[i], &st,
					    AT_SYMLINK_NOFOLLOW))
					die("stat %s: %m", name[i]);
			after = slab_kb();
			v[r] = (after - before) * 1024.0 / n;
		}
		close(dfd);
		report("slab.lookup.lower", fs, s, "cold", "B/file", n, v, reps,
		       NULL);
		setup_leave(&ly, s);
	}
	free(name);
}

int main(int argc, char **argv)
{
	parse_opts(argc, argv, "", "", "(unused)");
	return bench_each_fs(run_fs);
}
