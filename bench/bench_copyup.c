// SPDX-License-Identifier: GPL-2.0
/*
 * Copy-up of a 64 MiB file of the lower layer, against the ways of copying
 * it without a union:
 *
 *   plain    cp: read(2)/write(2) in 1 MiB blocks + fsync, lower file to
 *            plain/ on the same file system (what copy-up must beat);
 *            reflink: ioctl(FICLONE) + fsync, where the file system can
 *            (xfs, btrfs);
 *   overlay  open(O_WRONLY) + close of the lower file through overlayfs,
 *            which copies it up (cloning where it can, and syncing);
 *   union    open(O_WRONLY) + close of the lower file through the union,
 *            which copies it up into an O_TMPFILE of the top layer
 *            (cloning where it can; no fsync) and links it in.
 *
 * The source is in the page cache (warm); the copy is removed after each
 * repetition.
 */
#include <sys/ioctl.h>

#include "bench.h"

#ifndef FICLONE
#define FICLONE		_IOW(0x94, 9, int)	/* <linux/fs.h> */
#endif

static size_t fsize;
static char src[PATH_LEN], dst[PATH_LEN];

static void cp_file(void *arg)
{
	static char buf[1 << 20];
	int in = open(src, O_RDONLY), out;
	ssize_t n;

	out = open(dst, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (in < 0 || out < 0)
		die("cp %s %s: %m", src, dst);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			die("write %s: %m", dst);
	if (n < 0 || fsync(out))
		die("cp %s: %m", dst);
	close(in);
	close(out);
}

static int clone_file(void)
{
	int in = open(src, O_RDONLY), out, err = 0;

	out = open(dst, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (in < 0 || out < 0)
		die("clone %s %s: %m", src, dst);
	if (ioctl(out, FICLONE, in) || fsync(out))
		err = errno;
	close(in);
	close(out);
	return err;
}

static void read_all(const char *path)
{
	static char buf[1 << 20];
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		die("open %s: %m", path);
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

static void run_plain(const char *fs, struct layers *ly, int reps,
		      const char *size)
{
	char wl[64], note[128];
	double v[MAX_REPS], t0;
	int err = 0;

	pathf(src, "%s/big", layers_low(ly));
	pathf(dst, "%s/big.copy", ly->plain);
	read_all(src);
	snprintf(wl, sizeof(wl), "copyup.%s", size);
	for (int r = -1; r < reps; r++) {
		t0 = now_ns();
		cp_file(NULL);
		if (r >= 0)
			v[r] = now_ns() - t0;
		unlink(dst);
		sync();
	}
	report(wl, fs, SETUP_PLAIN, "warm", "ms", 1, scale_vals(v, reps, 1e6),
	       reps, "cp(read/write+fsync)");

	snprintf(wl, sizeof(wl), "reflink.%s", size);
	for (int r = -1; r < reps && !err; r++) {
		t0 = now_ns();
		err = clone_file();
		if (r >= 0)
			v[r] = now_ns() - t0;
		unlink(dst);
		sync();
	}
	if (err) {
		snprintf(note, sizeof(note), "FICLONE-not-supported-by-%s(%s)",
			 fs, strerrorname_np(err) ?: "?");
		report_na(wl, fs, SETUP_PLAIN, "warm", "ms", note);
	} else {
		report(wl, fs, SETUP_PLAIN, "warm", "ms", 1,
		       scale_vals(v, reps, 1e6), reps, "FICLONE+fsync");
	}
	report_na(wl, fs, SETUP_UNION, "warm", "ms",
		  "union-copy-up-clones-by-itself:see-copyup-row");
	report_na(wl, fs, SETUP_OVERLAY, "warm", "ms",
		  "overlay-copy-up-clones-by-itself:see-copyup-row");
}

/*
 * Copy-up through setup @s (union or overlay): open(O_WRONLY) + close of
 * the lower file through the merged root; the copy must then be in the
 * top layer, and is removed for the next repetition.
 */
static void run_copyup(const char *fs, struct layers *ly, enum setup s,
		       int reps, const char *size)
{
	char wl[64], path[PATH_LEN], upper[PATH_LEN];
	double v[MAX_REPS], t0;
	const char *root;
	struct stat st;
	int fd;

	snprintf(wl, sizeof(wl), "copyup.%s", size);
	pathf(upper, "%s/big", layers_top(ly));
	for (int r = -1; r < reps; r++) {
		root = setup_enter(ly, s);
		if (!root)
			return;
		pathf(path, "%s/big", root);
		read_all(path);
		t0 = now_ns();
		fd = open(path, O_WRONLY);
		if (fd < 0)
			die("%s: open %s for writing: %m", setup_name[s], path);
		close(fd);
		if (r >= 0)
			v[r] = now_ns() - t0;
		setup_leave(ly, s);
		if (stat(upper, &st) || (size_t)st.st_size != fsize)
			die("%s copy-up did not make %s", setup_name[s], upper);
		unlink(upper);
		sync();
	}
	report(wl, fs, s, "warm", "ms", 1, scale_vals(v, reps, 1e6), reps,
	       "open(O_WRONLY)+close");
}

static void run_fs(const char *fs, const char *base)
{
	int reps = pick_reps(5, 2);
	const char *size = opt.tiny ? "1M" : "64M";
	struct layers ly;
	int dfd;

	layers_init(&ly, fs, base, 2);
	dfd = xopen_dir(layers_low(&ly));
	make_file(dfd, "big", fsize);
	close(dfd);
	sync();
	run_plain(fs, &ly, reps, size);
	run_copyup(fs, &ly, SETUP_UNION, reps, size);
	run_copyup(fs, &ly, SETUP_OVERLAY, reps, size);
}

int main(int argc, char **argv)
{
	parse_opts(argc, argv, "", "", "(unused)");
	fsize = (opt.tiny ? 1 : 64) << 20;
	return bench_each_fs(run_fs);
}
