// SPDX-License-Identifier: GPL-2.0
/*
 * Listing the merged root: open + getdents64 until the end + close of a
 * root directory of N entries split across 2 layers (the top layer has
 * names 0 .. 0.55N, the lower 0.45N .. N: 10% of the names are in both),
 * with a 32 KiB buffer, and with a buffer that holds one entry (every
 * getdents64 returns one name) to show that the cost grows linearly.
 * Warm, small listings are repeated (up to 20000 entries a timed run) and
 * the time of one listing is reported; cold ones drop the caches first.
 *
 * The entries are hard links to a few seed files: a listing reads names,
 * not inodes, and the 1 GiB ext4 scratch image has only 64k inodes.  Each
 * listing is checked to hold exactly N + 2 names.
 */
#include "bench.h"

#define SEED_LINKS	50000	/* below ext4's and btrfs's link limits */

static long nlinks;

static void link_names(const char *base, const char *dir, long from, long to)
{
	char seed[PATH_LEN], name[NAME_LEN];
	int dfd = xopen_dir(dir);

	for (long i = from; i < to; i++, nlinks++) {
		pathf(seed, "%s/seeds/s%ld", base,
			 nlinks / SEED_LINKS);
		if (nlinks % SEED_LINKS == 0) {
			int fd = open(seed, O_CREAT | O_WRONLY, 0644);

			if (fd < 0)
				die("create %s: %m", seed);
			close(fd);
		}
		snprintf(name, sizeof(name), "e%07d", (int)i);
		if (linkat(AT_FDCWD, seed, dfd, name, 0))
			die("link %s/%s: %m", dir, name);
	}
	close(dfd);
}

struct listing {
	const char *path;
	size_t bufsize;
	long want;
	int loops;		/* listings per timed run */
};

static void list_once(struct listing *l)
{
	static char buf[32768];
	long n = 0, r;
	int fd = xopen_dir(l->path);

	while ((r = syscall(SYS_getdents64, fd, buf, l->bufsize)) > 0) {
		for (long off = 0; off < r; n++)
			off += ((struct dirent64 *)(buf + off))->d_reclen;
	}
	if (r < 0)
		die("getdents64 %s: %m", l->path);
	close(fd);
	if (n != l->want)
		die("%s: listed %ld entries, want %ld", l->path, n, l->want);
}

static void list_dir(void *arg)
{
	struct listing *l = arg;

	for (int i = 0; i < l->loops; i++)
		list_once(l);
}

static const char *size_name(long n)
{
	static char s[32];

	if (n >= 1000 && n % 1000 == 0)
		snprintf(s, sizeof(s), "%ldk", n / 1000);
	else
		snprintf(s, sizeof(s), "%ld", n);
	return s;
}

static void one(const char *wl, const char *fs, enum setup s,
		struct listing *l, bool cold)
{
	double v[MAX_REPS];
	int reps = pick_reps(cold ? 7 : 5, 2);

	/* small listings are repeated, up to 20000 entries per timed run */
	l->loops = cold ? 1 : (20000 + l->want - 1) / l->want;
	measure(list_dir, l, cold ? 0 : 1, reps, cold, v);
	report(wl, fs, s, cold ? "cold" : "warm", "ms", l->want - 2,
	       scale_vals(v, reps, 1e6 * l->loops), reps, NULL);
}

static void run_size(const char *fs, const char *base, long n, bool cold)
{
	struct listing l = { .want = n + 2 };
	char wl[64], seeds[PATH_LEN];
	struct layers ly;

	layers_init(&ly, fs, base, 2);
	pathf(seeds, "%s/seeds", base);
	xmkdir(seeds);
	nlinks = 0;
	link_names(base, layers_top(&ly), 0, n * 55 / 100);
	link_names(base, layers_low(&ly), n * 45 / 100, n);
	link_names(base, ly.plain, 0, n);
	sync();

	for (enum setup s = 0; s < NR_SETUPS; s++) {
		l.path = setup_enter(&ly, s);
		if (!l.path)
			continue;
		l.bufsize = 32768;
		snprintf(wl, sizeof(wl), "readdir.%s", size_name(n));
		one(wl, fs, s, &l, false);
		if (cold && is_disk_fs(fs))
			one(wl, fs, s, &l, true);
		if (n <= 10000) {
			/* room for one 8-character name, not for two */
			l.bufsize = 40;
			snprintf(wl, sizeof(wl), "readdir-1ent.%s",
				 size_name(n));
			one(wl, fs, s, &l, false);
		}
		setup_leave(&ly, s);
	}
	rm_tree(base);
}

static void run_fs(const char *fs, const char *base)
{
	const char *p = opt.sizes;
	char dir[PATH_LEN];
	long n;

	xmkdir(base);
	while (next_size(&p, &n)) {
		if (n > 9999999)
			die("at most 9999999 entries");
		pathf(dir, "%s/%ld", base, n);
		run_size(fs, dir, n, opt.tiny || n == 10000);
	}
}

int main(int argc, char **argv)
{
	parse_opts(argc, argv, "1000,10000,100000", "64,256",
		   "directory sizes, default 1000,10000,100000");
	return bench_each_fs(run_fs);
}
