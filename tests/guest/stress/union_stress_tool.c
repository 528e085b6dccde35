// SPDX-License-Identifier: GPL-2.0
/*
 * union_stress_tool - helpers of the stress driver (tests/guest/stress/run.sh)
 *
 *   populate DIR SEED        a lower layer: tree/ (files with data, modes,
 *                            owners, xattrs, symlinks, FIFOs, subdirectories),
 *                            work/ (stress-ng's temp path), fsx/ (files for
 *                            union_fsx), race/ (names for storm), live/
 *                            (changed directly during storm)
 *   manifest DIR [SKIP]      one sorted line per object: path, type, mode,
 *                            owner, size, mtime, link target, a hash of the
 *                            contents and of the xattrs; SKIP (a top-level
 *                            name) is left out
 *   verify UNION UPPER LOWER the union shows exactly what its two layers
 *                            make: every name once, the top layer's object
 *                            where it has one (st_dev/st_ino -- of a merged
 *                            directory, the lower one's --, contents, link
 *                            target), the lower one's elsewhere, no whiteout,
 *                            nothing from below an opaque directory or a
 *                            non-directory, a renamed directory's lower
 *                            part at its redirect; prints "verify: N names"
 *   storm [-r READY] [-d DETACHED] DIR SECONDS PROCS SEED [LOWER_LIVE]
 *                            PROCS workers do random first writes, truncates,
 *                            chmod/chown/utimes/xattrs, link, rename,
 *                            unlink, mkdir, rmdir, symlink (a target relative to
 *                            the link's directory) on names of
 *                            DIR/race (most of them found in the lower layer),
 *                            while listers read the merged directories (every
 *                            name once, never a whiteout) and, with
 *                            LOWER_LIVE, a changer creates and removes names
 *                            directly in the lower layer's live/ that the
 *                            workers use through DIR/live.  An errno that a
 *                            file system gives for such races is counted;
 *                            any other fails.  Prints operation counts.
 *                            Every process does at least one round of 32
 *                            operations, however slow the machine.
 *                            -r: create the file READY once the workers
 *                            are forked (their cwd is fixed by then).
 *                            -d: the driver creates the file DETACHED just
 *                            before it lazily unmounts the union layers the
 *                            workers are in.  From then on (never before)
 *                            EROFS is an expected answer to a change of a
 *                            name: the lower views of the workers' paths
 *                            are no longer part of a union, and a copy-up
 *                            there fails with EROFS (union_copy_up(),
 *                            "not part of one any more").  The workers go
 *                            on until DETACHED has been there for 2 s as
 *                            well as for SECONDS (at most 120 s longer),
 *                            and the storm fails if no change was tried
 *                            after it: the phase must really have run.
 *                            Each worker writes the changes it tried after
 *                            it to DETACHED.trace.PID (time, worker, op,
 *                            names, result), for a post-mortem.
 *
 * Exit status 0 when all is well, 1 on a finding (described on stdout).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static void die(const char *what)
{
	printf("FAIL: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* --- populate -------------------------------------------------------- */

static void mkfile(const char *path, size_t len, mode_t mode, uid_t uid)
{
	static unsigned char data[65536];
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);

	if (fd < 0)
		die(path);
	while (len) {
		size_t n = len < sizeof(data) ? len : sizeof(data);

		for (size_t i = 0; i < n; i++)
			data[i] = (unsigned char)(rnd() >> 32);
		if (write(fd, data, n) != (ssize_t)n)
			die(path);
		len -= n;
	}
	if (fchmod(fd, mode) || (uid && fchown(fd, uid, uid)))
		die(path);
	if (rnd() % 4 == 0 && fsetxattr(fd, "user.stress", "lower", 5, 0) && errno != ENOTSUP)
		die(path);
	close(fd);
}

static void mkdirp(const char *path, mode_t mode)
{
	if (mkdir(path, mode) && errno != EEXIST)
		die(path);
	chmod(path, mode);
}

static size_t rsize(void)
{
	switch (rnd() % 6) {
	case 0: return 0;
	case 1: return 1 + rnd() % 100;
	case 2: return 4096;
	case 3: return rnd() % 65536;
	default: return rnd() % 8192;
	}
}

static int populate(const char *dir)
{
	char p[4096];
	int files = 0, dirs = 0, other = 0;

	mkdirp(dir, 0755);
	/* tree/: 8 directories of 20 files, 2 subdirectories of 6, links */
	snprintf(p, sizeof(p), "%s/tree", dir);
	mkdirp(p, 0755), dirs++;
	for (int d = 0; d < 8; d++) {
		snprintf(p, sizeof(p), "%s/tree/d%d", dir, d);
		mkdirp(p, d == 3 ? 0700 : 0755), dirs++;
		for (int f = 0; f < 20; f++) {
			snprintf(p, sizeof(p), "%s/tree/d%d/f%02d", dir, d, f);
			mkfile(p, rsize(), f % 5 == 0 ? 0600 : f % 7 == 0 ? 0755 : 0644,
			       f % 9 == 0 ? 1000 : 0), files++;
		}
		for (int s = 0; s < 2; s++) {
			snprintf(p, sizeof(p), "%s/tree/d%d/s%d", dir, d, s);
			mkdirp(p, 0755), dirs++;
			for (int f = 0; f < 6; f++) {
				snprintf(p, sizeof(p), "%s/tree/d%d/s%d/g%d", dir, d, s, f);
				mkfile(p, rsize(), 0644, 0), files++;
			}
		}
		snprintf(p, sizeof(p), "%s/tree/d%d/link", dir, d);
		if (symlink("f01", p))
			die(p);
		snprintf(p, sizeof(p), "%s/tree/d%d/fifo", dir, d);
		if (mkfifo(p, 0644))
			die(p);
		other += 2;
	}
	/* work/: stress-ng's temp path, with names of its own */
	snprintf(p, sizeof(p), "%s/work", dir);
	mkdirp(p, 0755), dirs++;
	for (int f = 0; f < 60; f++) {
		snprintf(p, sizeof(p), "%s/work/w%02d", dir, f);
		mkfile(p, rsize(), 0644, 0), files++;
	}
	for (int d = 0; d < 6; d++) {
		snprintf(p, sizeof(p), "%s/work/wd%d", dir, d);
		mkdirp(p, 0755), dirs++;
		for (int f = 0; f < 4; f++) {
			snprintf(p, sizeof(p), "%s/work/wd%d/x%d", dir, d, f);
			mkfile(p, rsize(), 0644, 0), files++;
		}
	}
	/* fsx/: four files for union_fsx */
	snprintf(p, sizeof(p), "%s/fsx", dir);
	mkdirp(p, 0755), dirs++;
	for (int f = 0; f < 4; f++) {
		snprintf(p, sizeof(p), "%s/fsx/f%d", dir, f);
		mkfile(p, 40000 + f * 20000, 0644, 0), files++;
	}
	/* race/: 6 directories of 24 names and 2 subdirectories of 4 */
	snprintf(p, sizeof(p), "%s/race", dir);
	mkdirp(p, 0755), dirs++;
	for (int d = 0; d < 6; d++) {
		snprintf(p, sizeof(p), "%s/race/r%d", dir, d);
		mkdirp(p, 0755), dirs++;
		for (int f = 0; f < 24; f++) {
			snprintf(p, sizeof(p), "%s/race/r%d/n%02d", dir, d, f);
			mkfile(p, rsize(), 0644, 0), files++;
		}
		for (int s = 0; s < 2; s++) {
			snprintf(p, sizeof(p), "%s/race/r%d/s%d", dir, d, s);
			mkdirp(p, 0755), dirs++;
			for (int f = 0; f < 4; f++) {
				snprintf(p, sizeof(p), "%s/race/r%d/s%d/n%02d", dir, d, s, f);
				mkfile(p, rsize(), 0644, 0), files++;
			}
		}
	}
	/* live/: changed directly in the lower layer during storm */
	snprintf(p, sizeof(p), "%s/live", dir);
	mkdirp(p, 0755), dirs++;
	for (int d = 0; d < 4; d++) {
		snprintf(p, sizeof(p), "%s/live/l%d", dir, d);
		mkdirp(p, 0755), dirs++;
		for (int f = 0; f < 8; f++) {
			snprintf(p, sizeof(p), "%s/live/l%d/n%02d", dir, d, f);
			mkfile(p, rsize(), 0644, 0), files++;
		}
	}
	sync();
	printf("populate: %s: %d files, %d directories, %d symlinks and FIFOs\n",
	       dir, files, dirs, other);
	return 0;
}

/* --- manifest -------------------------------------------------------- */

static uint64_t fnv(uint64_t h, const void *p, size_t len)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < len; i++)
		h = (h ^ c[i]) * 0x100000001b3ULL;
	return h;
}

/* hash of a file's contents through @path; 0 and errno on failure */
static uint64_t hash_file(const char *path, int *err)
{
	static unsigned char b[65536];
	uint64_t h = 0xcbf29ce484222325ULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	ssize_t n;

	*err = 0;
	if (fd < 0) {
		*err = errno;
		return 0;
	}
	while ((n = read(fd, b, sizeof(b))) > 0)
		h = fnv(h, b, n);
	if (n < 0)
		*err = errno;
	close(fd);
	return h;
}

static uint64_t hash_xattrs(const char *path)
{
	char names[4096], val[4096];
	uint64_t h = 0xcbf29ce484222325ULL;
	ssize_t n = llistxattr(path, names, sizeof(names));

	if (n <= 0)
		return h;
	/* names come in the file system's order: sum per-name hashes */
	uint64_t sum = 0;

	for (char *x = names; x < names + n; x += strlen(x) + 1) {
		ssize_t v = lgetxattr(path, x, val, sizeof(val));
		uint64_t one = fnv(0xcbf29ce484222325ULL, x, strlen(x) + 1);

		if (v > 0)
			one = fnv(one, val, v);
		sum += one;
	}
	return h ^ sum;
}

struct line { char *s; };
static char **lines;
static size_t nlines, caplines;

static void add_line(char *s)
{
	if (nlines == caplines) {
		caplines = caplines ? caplines * 2 : 1024;
		lines = realloc(lines, caplines * sizeof(*lines));
		if (!lines)
			die("realloc");
	}
	lines[nlines++] = s;
}

static void walk(const char *root, const char *rel, const char *skip)
{
	char path[4096], sub[4096];
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof(path), "%s%s%s", root, *rel ? "/" : "", rel);
	d = opendir(path);
	if (!d)
		die(path);
	while ((e = readdir(d))) {
		struct stat st;
		char full[4096], tgt[4096] = "", *l;
		uint64_t h = 0;
		int err = 0;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!*rel && skip && !strcmp(e->d_name, skip))
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		snprintf(full, sizeof(full), "%s/%s", root, sub);
		if (lstat(full, &st))
			die(full);
		if (S_ISREG(st.st_mode))
			h = hash_file(full, &err);
		if (S_ISLNK(st.st_mode)) {
			ssize_t n = readlink(full, tgt, sizeof(tgt) - 1);

			tgt[n > 0 ? n : 0] = '\0';
		}
		if (asprintf(&l, "%s %o %u:%u %lld %lld.%09ld %u:%u -> %s data=%016llx%s xattr=%016llx",
			     sub, st.st_mode, st.st_uid, st.st_gid,
			     S_ISDIR(st.st_mode) ? 0LL : (long long)st.st_size,
			     (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			     major(st.st_rdev), minor(st.st_rdev), tgt,
			     (unsigned long long)h, err ? "(unreadable)" : "",
			     (unsigned long long)hash_xattrs(full)) < 0)
			die("asprintf");
		add_line(l);
		if (S_ISDIR(st.st_mode))
			walk(root, sub, skip);
	}
	closedir(d);
}

static int cmpline(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int manifest(const char *dir, const char *skip)
{
	walk(dir, "", skip);
	qsort(lines, nlines, sizeof(*lines), cmpline);
	for (size_t i = 0; i < nlines; i++)
		printf("%s\n", lines[i]);
	return 0;
}

/* --- verify ---------------------------------------------------------- */

static long vnames, vproblems;

static void problem(const char *fmt, const char *a, const char *b)
{
	vproblems++;
	if (vproblems <= 30)
		printf("verify: FAIL %s: %s\n", a, fmt), (void)b;
}

static bool is_whiteout(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && st->st_rdev == makedev(0, 0);
}

static bool is_opaque(const char *dir)
{
	char v[8];
	ssize_t n = lgetxattr(dir, "trusted.overlay.opaque", v, sizeof(v));

	if (n == 1 && v[0] == 'y')
		return true;
	n = lgetxattr(dir, "user.overlay.opaque", v, sizeof(v));
	return n == 1 && v[0] == 'y';
}

/* verify's LOWER: the root a redirect's path starts from */
static const char *lower_root;

/*
 * The lower directory merged with @top, the top layer's directory @name:
 * at its redirect (trusted.overlay.redirect, a directory renamed through
 * the union) from the lower layer's root if it has one, else @name in the
 * lower directory @lo.  In @buf; NULL if that is not a directory.
 */
static const char *lower_part(const char *top, const char *lo,
			      const char *name, char *buf, size_t len)
{
	char r[4096];
	ssize_t n = lgetxattr(top, "trusted.overlay.redirect", r,
			      sizeof(r) - 1);
	struct stat st;

	if (n > 0) {
		r[n] = 0;
		snprintf(buf, len, "%s%s", lower_root, r);
	} else if (lo) {
		snprintf(buf, len, "%s/%s", lo, name);
	} else {
		return NULL;
	}
	if (lstat(buf, &st) || !S_ISDIR(st.st_mode))
		return NULL;
	return buf;
}

/* for a post-mortem: the top layer's directories renamed through the union */
static int dumped;

static void dump_redirects(const char *dir)
{
	char r[4096], p[4096];
	struct dirent *de;
	struct stat st;
	ssize_t n;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (lstat(p, &st) || !S_ISDIR(st.st_mode))
			continue;
		n = lgetxattr(p, "trusted.overlay.redirect", r, sizeof(r) - 1);
		if (n > 0 && ++dumped <= 20) {
			r[n] = 0;
			printf("verify:   (top layer %s: redirect %s)\n", p, r);
		}
		dump_redirects(p);
	}
	closedir(d);
}

/* names of @dir (no . and ..), sorted; NULL if @dir is NULL or missing */
static char **list(const char *dir, size_t *n)
{
	char **v = NULL;
	size_t cap = 0;
	DIR *d;
	struct dirent *e;

	*n = 0;
	if (!dir || !(d = opendir(dir)))
		return NULL;
	v = malloc(sizeof(*v));		/* not NULL for an empty directory */
	cap = 1;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			v = realloc(v, cap * sizeof(*v));
		}
		v[(*n)++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(v, *n, sizeof(*v), cmpline);
	return v;
}

static bool has(char **v, size_t n, const char *name)
{
	return v && bsearch(&name, v, n, sizeof(*v), cmpline);
}

static void verify_dir(const char *u, const char *up, const char *lo)
{
	size_t nu, nup, nlo;
	char **lu = list(u, &nu), **lup = list(up, &nup), **llo;
	char a[4096], b[4096], c[4096];

	if (up && is_opaque(up))
		lo = NULL;
	llo = list(lo, &nlo);
	if (!lu) {
		problem("cannot list the union's directory", u, NULL);
		return;
	}
	for (size_t i = 1; i < nu; i++)
		if (!strcmp(lu[i - 1], lu[i])) {
			snprintf(a, sizeof(a), "%s/%s", u, lu[i]);
			problem("listed twice", a, NULL);
		}
	/* what the layers make, name by name */
	for (int layer = 0; layer < 2; layer++) {
		char **v = layer ? llo : lup;
		size_t n = layer ? nlo : nup;

		for (size_t i = 0; i < n; i++) {
			struct stat su, sl, sx;
			const char *name = v[i];
			bool in_union = has(lu, nu, name);

			if (layer == 1 && has(lup, nup, name))
				continue;	/* the top layer decides */
			snprintf(a, sizeof(a), "%s/%s", u, name);
			snprintf(b, sizeof(b), "%s/%s", layer ? lo : up, name);
			if (lstat(b, &sl))
				continue;
			vnames++;
			if (is_whiteout(&sl)) {
				if (in_union || !lstat(a, &sx))
					problem("whited out in the top layer, yet shown", a, NULL);
				continue;
			}
			if (!in_union) {
				problem("in a layer, not listed by the union", a, NULL);
				continue;
			}
			if (lstat(a, &su)) {
				problem("listed, but lstat fails", a, NULL);
				continue;
			}
			if (is_whiteout(&su))
				problem("a whiteout is visible", a, NULL);
			/* a merged directory: its bottom-most part's st_ino (same st_dev) */
			if (layer == 0 && S_ISDIR(sl.st_mode) && !is_opaque(b) &&
			    lower_part(b, lo, name, c, sizeof(c)) &&
			    !lstat(c, &sx) && sx.st_dev == sl.st_dev) {
				if (su.st_ino != sx.st_ino || su.st_dev != sx.st_dev)
					problem("a merged directory without the lower one's dev/ino", a, NULL);
			} else if (su.st_ino != sl.st_ino || su.st_dev != sl.st_dev) {
				problem("not the topmost layer's object (dev/ino)", a, NULL);
			}
			if (su.st_mode != sl.st_mode)
				problem("not the topmost layer's object (mode)", a, NULL);
			if (S_ISREG(sl.st_mode)) {
				int e1, e2;

				if (su.st_size != sl.st_size ||
				    hash_file(a, &e1) != hash_file(b, &e2) || e1 || e2)
					problem("contents differ from the layer's", a, NULL);
			} else if (S_ISLNK(sl.st_mode)) {
				char t1[4096] = "", t2[4096] = "";

				if (readlink(a, t1, sizeof(t1)) < 0 ||
				    readlink(b, t2, sizeof(t2)) < 0 || strcmp(t1, t2))
					problem("symlink target differs", a, NULL);
			} else if (S_ISDIR(sl.st_mode)) {
				/* merged with the lower directory, if any */
				const char *lower = NULL;

				if (layer == 0)
					lower = lower_part(b, lo, name, c,
							   sizeof(c));
				verify_dir(a, layer ? NULL : b, layer ? b : lower);
			}
		}
	}
	for (size_t i = 0; i < nu; i++) {
		if (!has(lup, nup, lu[i]) && !has(llo, nlo, lu[i])) {
			snprintf(a, sizeof(a), "%s/%s", u, lu[i]);
			problem("listed by the union, in no layer", a, NULL);
			if (vproblems <= 30) {
				struct stat x, y;
				char r[256] = "";

				printf("verify:   (its layers: top %s, lower %s)\n",
				       up ? up : "-", lo ? lo : "-");
				if (!lstat(a, &x) && !lstat(u, &y))
					printf("verify:   (%s: %lx:%lu mode %o; %s: %lx:%lu)\n",
					       a, (long)x.st_dev, (long)x.st_ino,
					       x.st_mode, u, (long)y.st_dev,
					       (long)y.st_ino);
				if (lgetxattr(u, "trusted.overlay.redirect", r,
					      sizeof(r) - 1) > 0)
					printf("verify:   (redirect of %s through the union: %s)\n", u, r);
			}
		}
	}
	for (size_t i = 0; i < nu; i++)
		free(lu[i]);
	for (size_t i = 0; i < nup; i++)
		free(lup[i]);
	for (size_t i = 0; i < nlo; i++)
		free(llo[i]);
	free(lu), free(lup), free(llo);
}

/* --- storm ----------------------------------------------------------- */

enum { S_WRITE, S_TRUNC, S_CHMOD, S_CHOWN, S_UTIME, S_XATTR, S_LINK,
	S_RENAME, S_UNLINK, S_MKDIR, S_RMDIR, S_SYMLINK, S_CREATE, S_READ,
	S_STAT, S_LIST, S_LOWER, S_NR };
static const char *sname[S_NR] = {
	"write", "truncate", "chmod", "chown", "utimes", "setxattr", "link",
	"rename", "unlink", "mkdir", "rmdir", "symlink", "create", "read",
	"stat", "list", "lower-change",
};

struct stats {
	unsigned long ok[S_NR], err[S_NR], bad;
	unsigned long detached, erofs;	/* tries after DETACHED, EROFS among them */
	char first_bad[256];
};

static const char *detach_flag;	/* storm -d */

static bool detached(void)
{
	return detach_flag && !access(detach_flag, F_OK);
}

static bool expected(int op, int e, bool live)
{
	switch (e) {
	case EROFS:	/* a change in a lower view of a union that is gone */
		return op != S_READ && op != S_STAT && detached();
	case ENOENT: case EEXIST: case ENOTEMPTY: case EISDIR: case ENOTDIR:
	case ELOOP: case ENOSPC: case EMLINK:
		return true;
	case EXDEV:	/* link(2) to a name on another mount; a rename in a
			 * layer that another was put on, whose copy-ups go
			 * to the new top layer */
		return op == S_RENAME || op == S_LINK;
	case EINVAL:	/* rename of a directory into itself */
		return op == S_RENAME;
	case ESTALE:	/* the lower object went away under us */
		return live;
	case EPERM:	/* link(2) of a directory */
		return op == S_LINK;
	default:
		return false;
	}
}

static void rand_name(char *p, size_t len, const char *dir, bool live)
{
	int d = rnd() % (live ? 4 : 6), k = rnd() % 8;

	if (live) {
		snprintf(p, len, "%s/live/l%d/n%02d", dir, d, (int)(rnd() % 12));
		return;
	}
	if (k == 0)
		snprintf(p, len, "%s/race/r%d/s%d", dir, d, (int)(rnd() % 3));
	else if (k == 1)
		snprintf(p, len, "%s/race/r%d/s%d/n%02d", dir, d, (int)(rnd() % 3),
			 (int)(rnd() % 6));
	else
		snprintf(p, len, "%s/race/r%d/n%02d", dir, d, (int)(rnd() % 28));
}

static void lister(const char *dir, struct stats *st)
{
	char p[4096], q[4096 + 256];
	size_t n;
	char **v;

	if (rnd() % 5 == 0)
		snprintf(p, sizeof(p), "%s/live/l%d", dir, (int)(rnd() % 4));
	else
		snprintf(p, sizeof(p), "%s/race/r%d", dir, (int)(rnd() % 6));
	v = list(p, &n);
	if (!v) {
		st->ok[S_LIST]++;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct stat sb;

		if (i && !strcmp(v[i - 1], v[i])) {
			st->bad++;
			snprintf(st->first_bad, sizeof(st->first_bad),
				 "list %s: '%s' listed twice", p, v[i]);
		}
		snprintf(q, sizeof(q), "%s/%s", p, v[i]);
		if (!lstat(q, &sb) && is_whiteout(&sb)) {
			st->bad++;
			snprintf(st->first_bad, sizeof(st->first_bad),
				 "a whiteout is visible: %s", q);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
	st->ok[S_LIST]++;
}

/*
 * The target of a symlink @a to @b (both under @dir), relative to the
 * directory of @a: "../../race/r5/n20".  An absolute target, or one from
 * the storm's cwd, would lead elsewhere when the union it was made in is
 * gone: after the lazy unmounts of the detached storm, the absolute path
 * of the union's directory is the plain bind mount of the lower layer, and
 * a chmod or write through such a link changes that layer -- as it would
 * on any file system, but not what the storm means to test.
 */
static const char *link_target(const char *dir, const char *a, const char *b)
{
	static char t[4096];
	size_t n = strlen(dir) + 1, len = 0;
	const char *p;

	for (p = a + n; (p = strchr(p, '/')); p++)
		len += snprintf(t + len, sizeof(t) - len, "../");
	snprintf(t + len, sizeof(t) - len, "%s", b + n);
	return t;
}

/* @op on the random names @a (and @b), made here */
static int one_op(const char *dir, int op, bool live, char *a, char *b)
{
	int fd, r = 0;

	rand_name(a, 4096, dir, live);
	rand_name(b, 4096, dir, live);
	switch (op) {
	case S_WRITE:
		fd = open(a, O_WRONLY | O_APPEND | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			return -1;
		r = write(fd, "stress\n", 7) == 7 ? 0 : -1;
		close(fd);
		return r;
	case S_TRUNC:
		return truncate(a, rnd() % 5000);
	case S_CHMOD:
		return chmod(a, rnd() % 2 ? 0644 : 0755);
	case S_CHOWN:
		return lchown(a, rnd() % 2 ? 1000 : 0, 0);
	case S_UTIME:
		return utimensat(AT_FDCWD, a, NULL, AT_SYMLINK_NOFOLLOW);
	case S_XATTR:
		r = lsetxattr(a, "user.storm", "v", 1, 0);
		return r && errno == EPERM ? 0 : r;	/* user.* on symlinks */
	case S_LINK:
		return link(a, b);
	case S_RENAME:
		return rename(a, b);
	case S_UNLINK:
		return unlink(a);
	case S_MKDIR:
		return mkdir(a, 0755);
	case S_RMDIR:
		return rmdir(a);
	case S_SYMLINK:
		return symlink(link_target(dir, a, b), a);
	case S_CREATE:
		fd = open(a, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0)
			return -1;
		close(fd);
		return 0;
	case S_READ: {
		char buf[4096];

		fd = open(a, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			return -1;
		while ((r = read(fd, buf, sizeof(buf))) > 0)
			;
		close(fd);
		return r < 0 && errno == EISDIR ? 0 : r;
	}
	case S_STAT: {
		struct stat sb;

		r = lstat(a, &sb);
		if (!r && is_whiteout(&sb)) {
			errno = EUCLEAN;	/* reported as unexpected */
			return -1;
		}
		return r;
	}
	}
	return 0;
}

/* direct changes of the lower layer's live/ while the union is used */
static void lower_change(const char *lower, struct stats *st)
{
	char a[4096], b[4096];
	int r, d = rnd() % 4, f = rnd() % 12;

	snprintf(a, sizeof(a), "%s/l%d/n%02d", lower, d, f);
	snprintf(b, sizeof(b), "%s/l%d/n%02d", lower, d, (int)(rnd() % 12));
	switch (rnd() % 5) {
	case 0: {
		int fd = open(a, O_CREAT | O_WRONLY | O_CLOEXEC | O_NONBLOCK, 0644);

		r = fd < 0 ? -1 : 0;
		if (fd >= 0) {
			if (write(fd, "lower\n", 6) != 6)
				r = -1;
			close(fd);
		}
		break;
	}
	case 1: r = unlink(a); break;
	case 2: r = rename(a, b); break;
	case 3: r = mkdir(a, 0755); break;
	default: r = rmdir(a); break;
	}
	if (r)
		st->err[S_LOWER]++;
	else
		st->ok[S_LOWER]++;
}

static int storm(const char *dir, int secs, int procs, unsigned long long seed,
		 const char *lower_live, const char *ready)
{
	struct stats *st;
	int nchild = procs + 1 + (lower_live ? 1 : 0), bad = 0;
	time_t end = time(NULL) + secs, seen = 0;
	unsigned long tried_after = 0, erofs = 0;

	st = mmap(NULL, sizeof(*st) * nchild, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED)
		die("mmap");
	memset(st, 0, sizeof(*st) * nchild);
	for (int c = 0; c < nchild; c++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid)
			continue;
		FILE *trace = NULL;

		rng = (seed + 1) * 0x9e3779b97f4a7c15ULL + c * 7919 + 1;
		if (detach_flag && c < procs) {
			/* each change tried after the detach, for a post-mortem */
			char t[4200];

			snprintf(t, sizeof(t), "%s.trace.%d", detach_flag, (int)getpid());
			trace = fopen(t, "w");
		}
		for (int round = 0; ; round++) {
			/* a worker that sees DETACHED counts what it tries after */
			bool after = detached();
			time_t now = time(NULL);

			if (after && !seen)
				seen = now;
			if (round && now >= end && (!detach_flag ||
					   (seen && now >= seen + 2) || now >= end + 120))
				break;
			for (int i = 0; i < 32; i++) {
				if (c == procs) {
					lister(dir, &st[c]);
				} else if (c == procs + 1) {
					lower_change(lower_live, &st[c]);
				} else {
					/* same names in every worker: first writes race */
					bool live = lower_live && rnd() % 5 == 0;
					int op = rnd() % S_LIST;
					char a[4096], b[4096];
					int r = one_op(dir, op, live, a, b), e = errno;

					if (after && op != S_READ && op != S_STAT) {
						st[c].detached++;
						if (trace)
							fprintf(trace, "%ld %d %s %s %s: %s\n",
								(long)time(NULL), c, sname[op], a, b,
								r ? strerror(e) : "ok");
					}
					if (r == 0) {
						st[c].ok[op]++;
					} else if (expected(op, e, live)) {
						st[c].err[op]++;
						st[c].erofs += e == EROFS;
					} else {
						errno = e;
						st[c].bad++;
						snprintf(st[c].first_bad, sizeof(st[c].first_bad),
							 "%s: unexpected error %d (%s)%s",
							 sname[op], errno, strerror(errno),
							 live ? " in live/" : "");
					}
				}
			}
		}
		if (trace)
			fclose(trace);
		_exit(0);
	}
	if (ready) {
		int fd = open(ready, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

		if (fd < 0)
			die(ready);
		close(fd);
	}
	for (int c = 0; c < nchild; c++) {
		int status;

		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
			printf("storm: FAIL a worker died (status 0x%x)\n", status);
			bad++;
		}
	}
	printf("storm: seed=%llu %d workers, %ds:", seed, procs, secs);
	for (int op = 0; op < S_NR; op++) {
		unsigned long ok = 0, err = 0;

		for (int c = 0; c < nchild; c++)
			ok += st[c].ok[op], err += st[c].err[op];
		if (ok + err)
			printf(" %s=%lu/%lu", sname[op], ok, ok + err);
	}
	printf(" (succeeded/tried)\n");
	for (int c = 0; c < nchild; c++)
		tried_after += st[c].detached, erofs += st[c].erofs;
	if (detach_flag) {
		printf("storm: after the lazy unmount: %lu changes tried, %lu EROFS\n",
		       tried_after, erofs);
		if (!tried_after) {
			printf("storm: FAIL no change was tried after the lazy unmount\n");
			bad++;
		}
	}
	for (int c = 0; c < nchild; c++) {
		if (st[c].bad) {
			printf("storm: FAIL process %d: %lu unexpected results, first: %s\n",
			       c, st[c].bad, st[c].first_bad);
			bad++;
		}
	}
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 4 && !strcmp(argv[1], "populate")) {
		rng = strtoull(argv[3], NULL, 0) * 0x9e3779b97f4a7c15ULL + 1;
		return populate(argv[2]);
	}
	if (argc >= 3 && !strcmp(argv[1], "manifest"))
		return manifest(argv[2], argc > 3 ? argv[3] : NULL);
	if (argc == 5 && !strcmp(argv[1], "verify")) {
		lower_root = argv[4];
		verify_dir(argv[2], argv[3], argv[4]);
		printf("verify: %ld names, %ld problems\n", vnames, vproblems);
		if (vproblems)
			dump_redirects(argv[3]);
		return vproblems ? 1 : 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "storm")) {
		const char *ready = NULL;
		int i = 2;

		for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
			if (!strcmp(argv[i], "-r"))
				ready = argv[i + 1];
			else if (!strcmp(argv[i], "-d"))
				detach_flag = argv[i + 1];
			else
				break;
		}
		if (argc - i >= 4 && argv[i][0] != '-')
			return storm(argv[i], atoi(argv[i + 1]), atoi(argv[i + 2]),
				     strtoull(argv[i + 3], NULL, 0),
				     argc - i > 4 ? argv[i + 4] : NULL, ready);
	}
	fprintf(stderr, "usage: union_stress_tool populate DIR SEED | manifest DIR [SKIP] |\n"
		"       verify UNION UPPER LOWER |\n"
		"       storm [-r READY] [-d DETACHED] DIR SECONDS PROCS SEED [LOWER_LIVE]\n");
	return 2;
}
