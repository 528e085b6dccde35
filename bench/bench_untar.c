// SPDX-License-Identifier: GPL-2.0
/*
 * A macro workload at the union root: unpack a tarball (busybox tar -x),
 * walk the tree (every directory read, every entry stat'ed, like
 * find -exec stat), then delete it, in a root that merges 100 names of the
 * top layer and 1000 of the lower.  Only the root is merged: the
 * tarball's top directory is created in the top layer and everything
 * below it is an ordinary top-layer directory, so a union should cost
 * what the plain file system costs.
 *
 * The warm walk is timed over 5 walks, and the time of one is reported.
 * The tarball is $BENCH_TAR (default /bench/data/tree.tar, shipped by
 * scripts/bench.sh); with --tiny, or when it is missing, a small tree is
 * generated and packed in the guest.
 */
#include <sys/wait.h>

#include "bench.h"

#define WALKS	5	/* warm walks per timed run: one is short */

static char tarball[PATH_LEN];
static const char *tar_note;

/* Run tar with @argv (NULL terminated), its output discarded. */
static void run_tar(char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		die("fork: %m");
	if (!pid) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0)
			dup2(fd, 1);
		execvp("tar", argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid: %m");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		die("tar %s %s failed (status %#x)", argv[1], argv[2], status);
}

static void untar(const char *file, const char *dir)
{
	run_tar((char *const []){ "tar", "-xf", (char *)file, "-C",
				  (char *)dir, NULL });
}

/* A generated tree, packed as one top directory "tree". */
static void make_tarball(const char *base, int dirs, int files, size_t size)
{
	char path[PATH_LEN], src[PATH_LEN];

	pathf(src, "%s/src", base);
	xmkdir(src);
	pathf(path, "%s/tree", src);
	xmkdir(path);
	for (int d = 0; d < dirs; d++) {
		pathf(path, "%s/tree/d%03d", src, d);
		xmkdir(path);
		make_files(path, "f%04ld.c", 0, files, size);
	}
	pathf(tarball, "%s/tree.tar", base);
	run_tar((char *const []){ "tar", "-cf", tarball, "-C", src, "tree",
				  NULL });
	rm_tree(src);
}

/* Read every directory and stat every entry; returns the entry count. */
static long walk(int dfd)
{
	struct dirent *d;
	struct stat st;
	long n = 0;
	DIR *dir = fdopendir(dfd);

	if (!dir)
		die("fdopendir: %m");
	while ((d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (fstatat(dfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW))
			die("stat %s: %m", d->d_name);
		n++;
		if (S_ISDIR(st.st_mode)) {
			int fd = openat(dfd, d->d_name, O_RDONLY | O_DIRECTORY);

			if (fd < 0)
				die("open %s: %m", d->d_name);
			n += walk(fd);
		}
	}
	closedir(dir);
	return n;
}

static bool layer_name(const char *name)
{
	return !strncmp(name, "top.", 4) || !strncmp(name, "low.", 4) ||
	       !strcmp(name, ".") || !strcmp(name, "..");
}

/* Walk (or remove) what the tarball made in @root. */
static long tree_op(const char *root, bool remove)
{
	int rfd = xopen_dir(root), fd;
	struct dirent *d;
	struct stat st;
	long n = 0;
	DIR *dir;

	dir = fdopendir(dup(rfd));
	if (!dir)
		die("fdopendir %s: %m", root);
	while ((d = readdir(dir))) {
		if (layer_name(d->d_name))
			continue;
		if (remove) {
			n += rm_at(rfd, d->d_name);
			continue;
		}
		if (fstatat(rfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW))
			die("stat %s: %m", d->d_name);
		n++;
		if (!S_ISDIR(st.st_mode))
			continue;
		fd = openat(rfd, d->d_name, O_RDONLY | O_DIRECTORY);
		if (fd < 0)
			die("open %s: %m", d->d_name);
		n += walk(fd);
	}
	closedir(dir);
	close(rfd);
	return n;
}

static void run_fs(const char *fs, const char *base)
{
	double vx[MAX_REPS], vw[MAX_REPS], vc[MAX_REPS], vr[MAX_REPS], t0;
	int reps = pick_reps(5, 2);
	bool cold = is_disk_fs(fs);
	struct layers ly;
	long entries = 0;

	layers_init(&ly, fs, base, 2);
	make_files(layers_top(&ly), "top.%05ld", 0, 100, 0);
	make_files(ly.plain, "top.%05ld", 0, 100, 0);
	make_files(layers_low(&ly), "low.%05ld", 0, opt.tiny ? 20 : 1000, 0);
	make_files(ly.plain, "low.%05ld", 0, opt.tiny ? 20 : 1000, 0);
	if (!tarball[0])
		make_tarball(base, opt.tiny ? 3 : 40, opt.tiny ? 10 : 25, 8192);

	for (enum setup s = 0; s < NR_SETUPS; s++) {
		const char *root = setup_enter(&ly, s);
		long n, m;

		if (!root)
			continue;
		for (int r = -1; r < reps; r++) {
			sync();
			t0 = now_ns();
			untar(tarball, root);
			if (r >= 0)
				vx[r] = now_ns() - t0;
			n = tree_op(root, false);	/* warm-up */
			sync();
			t0 = now_ns();
			for (int i = 0; i < WALKS; i++)
				m = tree_op(root, false);
			if (r >= 0)
				vw[r] = (now_ns() - t0) / WALKS;
			if (cold) {
				drop_caches();
				t0 = now_ns();
				m = tree_op(root, false);
				if (r >= 0)
					vc[r] = now_ns() - t0;
			}
			if (m != n || (entries && n != entries))
				die("%s: walked %ld then %ld entries, before %ld",
				    setup_name[s], n, m, entries);
			entries = n;
			sync();
			t0 = now_ns();
			m = tree_op(root, true);
			if (r >= 0)
				vr[r] = now_ns() - t0;
			if (m != n)
				die("%s: removed %ld of %ld entries",
				    setup_name[s], m, n);
		}
		report("macro.untar", fs, s, "warm", "ms", entries,
		       scale_vals(vx, reps, 1e6), reps, tar_note);
		report("macro.walk", fs, s, "warm", "ms", entries,
		       scale_vals(vw, reps, 1e6), reps, tar_note);
		if (cold)
			report("macro.walk", fs, s, "cold", "ms", entries,
			       scale_vals(vc, reps, 1e6), reps, tar_note);
		report("macro.rm", fs, s, "warm", "ms", entries,
		       scale_vals(vr, reps, 1e6), reps, tar_note);
		setup_leave(&ly, s);
	}
	/* a generated tarball lives in base: make it again on the next fs */
	if (tar_note)
		tarball[0] = 0;
}

int main(int argc, char **argv)
{
	const char *t = getenv("BENCH_TAR");

	parse_opts(argc, argv, "", "", "(unused)");
	if (!t)
		t = "/bench/data/tree.tar";
	if (!opt.tiny && !access(t, R_OK))
		pathf(tarball, "%s", t);
	else
		tar_note = opt.tiny ? "tiny-generated-tree" : "generated-tree";
	return bench_each_fs(run_fs);
}
