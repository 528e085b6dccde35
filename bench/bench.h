/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared code of the union-mount benchmarks (bench/bench_*.c).
 *
 * Every benchmark builds the same layer contents three ways on one
 * scratch file system (/mnt/scratch/<fs>/bench-<prog>/) and runs the same
 * fixed amount of work on each:
 *
 *   plain    one directory (plain/) that holds every name of the merged
 *            view: the file system alone, the limit a union can reach;
 *   union    l0 is the lowest layer; l1 .. l<n-1> are stacked on it with
 *            mount(li, l0, NULL, MS_BIND | MS_UNION, NULL), so n layers
 *            are n directories and n - 1 union mounts;
 *   overlay  overlayfs on ovl/ with lowerdir=l<n-2>:...:l0,
 *            upperdir=l<n-1>, workdir=work: the same n directories.
 *
 * Each measurement is repeated (after warm-up passes, unless it is cold)
 * and reported as one line:
 *
 *   RESULT workload=W fs=F setup=S cache=C unit=U reps=R ops=N
 *          median=M min=A max=B q1=Q q3=Q3 [note=free text]
 *
 * or, for what cannot be measured, "median=n/a note=why".  The program
 * runs in a private mount namespace, so a crash leaves no mounts behind.
 */
#ifndef _BENCH_H
#define _BENCH_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#ifndef MS_UNION
#define MS_UNION	512	/* include/uapi/linux/mount.h of the series */
#endif

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_LAYERS	8
#define MAX_REPS	64
#define NAME_LEN	32
#define PATH_LEN	512

#define TMPFS_MAGIC_	0x01021994
#define EXT4_MAGIC_	0xEF53
#define XFS_MAGIC_	0x58465342
#define BTRFS_MAGIC_	0x9123683E

enum setup { SETUP_PLAIN, SETUP_UNION, SETUP_OVERLAY, NR_SETUPS };

static const char *const setup_name[NR_SETUPS] = {
	"plain", "union", "overlay",
};

struct bench_opts {
	const char *prog;	/* bench_lookup -> "lookup" */
	bool tiny;		/* smallest sizes: keeps the code working */
	int reps;		/* measured repetitions (0: the program's) */
	char fs_list[128];	/* comma separated */
	char sizes[128];	/* comma separated sizes, program specific */
};

static struct bench_opts opt;
static int bench_failed;	/* a setup or check went wrong: exit 1 */

static inline void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: error: ", opt.prog ? opt.prog : "bench");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* A problem worth the exit status but not worth stopping the run. */
static inline void complain(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", opt.prog ? opt.prog : "bench");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	bench_failed = 1;
}

static inline void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p)
		die("out of memory");
	return p;
}

/* Format a path into @buf (PATH_LEN bytes); too long a path is fatal. */
static inline void pathf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_LEN, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= PATH_LEN)
		die("path too long: %s", fmt);
}

static inline double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ---- statistics and reporting ------------------------------------------ */

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The p-quantile (0..1) of sorted v[0..n-1], linear interpolation. */
static inline double quantile(const double *v, int n, double p)
{
	double pos = p * (n - 1);
	int i = (int)pos;

	if (i >= n - 1)
		return v[n - 1];
	return v[i] + (pos - i) * (v[i + 1] - v[i]);
}

static inline void report(const char *wl, const char *fs, enum setup s,
			  const char *cache, const char *unit, long ops,
			  const double *vals, int n, const char *note)
{
	double v[MAX_REPS];

	if (n <= 0 || n > MAX_REPS)
		die("report %s: %d values", wl, n);
	memcpy(v, vals, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_double);
	printf("RESULT workload=%s fs=%s setup=%s cache=%s unit=%s reps=%d ops=%ld median=%.6g min=%.6g max=%.6g q1=%.6g q3=%.6g",
	       wl, fs, setup_name[s], cache, unit, n, ops,
	       quantile(v, n, 0.5), v[0], v[n - 1],
	       quantile(v, n, 0.25), quantile(v, n, 0.75));
	if (note)
		printf(" note=%s", note);
	putchar('\n');
	fflush(stdout);
}

static inline void report_na(const char *wl, const char *fs, enum setup s,
			     const char *cache, const char *unit,
			     const char *note)
{
	printf("RESULT workload=%s fs=%s setup=%s cache=%s unit=%s reps=0 ops=0 median=n/a note=%s\n",
	       wl, fs, setup_name[s], cache, unit, note);
	fflush(stdout);
}

/* ---- file system helpers ------------------------------------------------ */

static inline void drop_caches(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd < 0 || write(fd, "3", 1) != 1)
		die("drop_caches: %m");
	close(fd);
}

/*
 * Time @reps runs of @fn(@arg) after @warm untimed ones, each in ns into
 * @out.  Every run starts after a sync(2), so that writeback of earlier
 * work does not land in it; cold runs also drop the page, dentry and
 * inode caches first (neither is timed).
 */
static inline void measure(void (*fn)(void *), void *arg, int warm, int reps,
			   bool cold, double *out)
{
	double t0;

	if (reps > MAX_REPS)
		die("too many repetitions");
	for (int r = -warm; r < reps; r++) {
		if (cold)
			drop_caches();
		else
			sync();
		t0 = now_ns();
		fn(arg);
		if (r >= 0)
			out[r] = now_ns() - t0;
	}
}

/* Divide each of @n values by @div (ns per rep -> unit per op). */
static inline double *scale_vals(double *v, int n, double div)
{
	for (int i = 0; i < n; i++)
		v[i] /= div;
	return v;
}

static inline bool is_disk_fs(const char *fs)
{
	return strcmp(fs, "tmpfs") != 0;
}

static inline void xmkdir(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		die("mkdir %s: %m", path);
}

static inline int xopen_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		die("open %s: %m", path);
	return fd;
}

/* Make @name in @dfd with @size bytes of a repeating pattern. */
static inline void make_file(int dfd, const char *name, size_t size)
{
	static char buf[1 << 16];
	size_t done = 0;
	int fd;

	if (!buf[0])
		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = 'a' + i % 23;
	fd = openat(dfd, name, O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0)
		die("create %s: %m", name);
	while (done < size) {
		size_t n = size - done < sizeof(buf) ? size - done : sizeof(buf);

		if (write(fd, buf, n) != (ssize_t)n)
			die("write %s: %m", name);
		done += n;
	}
	close(fd);
}

/* Make @n empty files in @path named by @fmt with indexes @from.. */
static inline void make_files(const char *path, const char *fmt, long from,
			      long n, size_t size)
{
	char name[NAME_LEN];
	int dfd = xopen_dir(path);

	for (long i = from; i < from + n; i++) {
		snprintf(name, sizeof(name), fmt, i);
		make_file(dfd, name, size);
	}
	close(dfd);
}

/* Remove @name in @dfd and everything below it.  Returns entries removed. */
static inline long rm_at(int dfd, const char *name)
{
	struct dirent *d;
	long n = 0;
	DIR *dir;
	int fd;

	if (!unlinkat(dfd, name, 0))
		return 1;
	if (errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		die("unlink %s: %m", name);
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	if (fd < 0)
		die("open %s: %m", name);
	dir = fdopendir(fd);
	if (!dir)
		die("fdopendir %s: %m", name);
	/* removing while reading may skip entries: read until none is left */
	for (long pass = 1; pass; ) {
		pass = 0;
		rewinddir(dir);
		while ((d = readdir(dir))) {
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			pass += rm_at(fd, d->d_name);
		}
		n += pass;
	}
	closedir(dir);
	if (unlinkat(dfd, name, AT_REMOVEDIR))
		die("rmdir %s: %m", name);
	return n + 1;
}

static inline void rm_tree(const char *path)
{
	rm_at(AT_FDCWD, path);
}

/* ---- the three setups --------------------------------------------------- */

struct layers {
	const char *fs;
	char base[PATH_LEN];
	char dir[MAX_LAYERS][PATH_LEN];	/* l0 (lowest) .. l<n-1> (top) */
	char plain[PATH_LEN];
	char work[PATH_LEN];
	char ovl[PATH_LEN];
	int n;
	int mounted;			/* union mounts made */
};

/* Make the directories of an @n layer setup under @base. */
static inline void layers_init(struct layers *ly, const char *fs,
			       const char *base, int n)
{
	if (n < 2 || n > MAX_LAYERS)
		die("bad layer count %d", n);
	memset(ly, 0, sizeof(*ly));
	ly->fs = fs;
	ly->n = n;
	pathf(ly->base, "%s", base);
	xmkdir(base);
	for (int i = 0; i < n; i++) {
		pathf(ly->dir[i], "%s/l%d", base, i);
		xmkdir(ly->dir[i]);
	}
	pathf(ly->plain, "%s/plain", base);
	pathf(ly->work, "%s/work", base);
	pathf(ly->ovl, "%s/ovl", base);
	xmkdir(ly->plain);
	xmkdir(ly->work);
	xmkdir(ly->ovl);
}

static inline const char *layers_top(struct layers *ly)
{
	return ly->dir[ly->n - 1];
}

static inline const char *layers_low(struct layers *ly)
{
	return ly->dir[0];
}

static inline void union_umount(struct layers *ly)
{
	while (ly->mounted > 0) {
		if (umount2(ly->dir[0], 0))
			die("umount %s: %m", ly->dir[0]);
		ly->mounted--;
	}
}

/* Stack l1 .. l<n-1> on l0. */
static inline int union_mount(struct layers *ly)
{
	for (int i = 1; i < ly->n; i++) {
		if (mount(ly->dir[i], ly->dir[0], NULL, MS_BIND | MS_UNION,
			  NULL)) {
			complain("union mount of %s on %s: %m", ly->dir[i],
				 ly->dir[0]);
			union_umount(ly);
			return -1;
		}
		ly->mounted++;
	}
	return 0;
}

static inline int overlay_mount(struct layers *ly)
{
	char opts[4096];
	int len;

	len = snprintf(opts, sizeof(opts), "lowerdir=");
	for (int i = ly->n - 2; i >= 0; i--)
		len += snprintf(opts + len, sizeof(opts) - len, "%s%s",
				ly->dir[i], i ? ":" : "");
	snprintf(opts + len, sizeof(opts) - len,
		 ",upperdir=%s,workdir=%s,index=off,metacopy=off,redirect_dir=off",
		 layers_top(ly), ly->work);
	if (mount("overlay", ly->ovl, "overlay", 0, opts)) {
		complain("overlay mount on %s (%s): %m", ly->ovl, opts);
		return -1;
	}
	return 0;
}

static inline void overlay_umount(struct layers *ly)
{
	if (umount2(ly->ovl, 0))
		die("umount %s: %m", ly->ovl);
}

/*
 * Build setup @s and return the directory to work in (the merged root),
 * or NULL if it could not be built (reported, the run goes on).
 */
static inline const char *setup_enter(struct layers *ly, enum setup s)
{
	switch (s) {
	case SETUP_PLAIN:
		return ly->plain;
	case SETUP_UNION:
		return union_mount(ly) ? NULL : ly->dir[0];
	case SETUP_OVERLAY:
		return overlay_mount(ly) ? NULL : ly->ovl;
	default:
		die("bad setup");
	}
	return NULL;
}

/* setup_enter() and open its merged root: the directory fd, or -1 to skip */
static inline int setup_open_root(struct layers *ly, enum setup s)
{
	const char *root = setup_enter(ly, s);

	return root ? xopen_dir(root) : -1;
}

static inline void setup_leave(struct layers *ly, enum setup s)
{
	if (s == SETUP_UNION)
		union_umount(ly);
	else if (s == SETUP_OVERLAY)
		overlay_umount(ly);
}

/* ---- options and the per file system loop -------------------------------- */

static inline const char *fs_magic_ok(const char *fs, const char *path)
{
	static const struct { const char *name; long magic; } known[] = {
		{ "tmpfs", TMPFS_MAGIC_ }, { "ext4", EXT4_MAGIC_ },
		{ "xfs", XFS_MAGIC_ }, { "btrfs", BTRFS_MAGIC_ },
	};
	struct statfs sfs;

	if (statfs(path, &sfs))
		return "not mounted";
	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (!strcmp(fs, known[i].name))
			return (long)sfs.f_type == known[i].magic ?
				NULL : "wrong file system type";
	return "unknown file system";
}

static inline void usage(const char *argv0, const char *sizes_help)
{
	fprintf(stderr,
		"usage: %s [--tiny] [--reps N] [--fs tmpfs,ext4,xfs,btrfs] [--sizes LIST]\n"
		"  --tiny    smallest sizes, for the smoke test\n"
		"  --reps N  measured repetitions (after warm-up)\n"
		"  --fs      scratch file systems to run on (/mnt/scratch/<fs>)\n"
		"  --sizes   %s\n", argv0, sizes_help);
	exit(2);
}

static inline void parse_opts(int argc, char **argv, const char *def_sizes,
			      const char *tiny_sizes, const char *sizes_help)
{
	static const struct option lo[] = {
		{ "tiny", no_argument, NULL, 't' },
		{ "reps", required_argument, NULL, 'r' },
		{ "fs", required_argument, NULL, 'f' },
		{ "sizes", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *p = strrchr(argv[0], '/');
	bool sizes_set = false;
	int c;

	p = p ? p + 1 : argv[0];
	opt.prog = strncmp(p, "bench_", 6) ? p : p + 6;
	snprintf(opt.fs_list, sizeof(opt.fs_list), "tmpfs,ext4,xfs,btrfs");
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			opt.tiny = true;
			break;
		case 'r':
			opt.reps = atoi(optarg);
			if (opt.reps < 1 || opt.reps > MAX_REPS - 1)
				usage(argv[0], sizes_help);
			break;
		case 'f':
			snprintf(opt.fs_list, sizeof(opt.fs_list), "%s", optarg);
			break;
		case 's':
			snprintf(opt.sizes, sizeof(opt.sizes), "%s", optarg);
			sizes_set = true;
			break;
		default:
			usage(argv[0], sizes_help);
		}
	}
	if (optind != argc)
		usage(argv[0], sizes_help);
	if (!sizes_set)
		snprintf(opt.sizes, sizeof(opt.sizes), "%s",
			 opt.tiny ? tiny_sizes : def_sizes);
	/* a private mount namespace: every mount goes away with us */
	if (unshare(CLONE_NEWNS))
		die("unshare(CLONE_NEWNS): %m");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		die("making / private: %m");
	setvbuf(stdout, NULL, _IOLBF, 0);
}

/* Parse the next number of a comma separated list; false at the end. */
static inline bool next_size(const char **p, long *v)
{
	char *end;

	if (!**p)
		return false;
	*v = strtol(*p, &end, 10);
	if (end == *p || *v <= 0)
		die("bad size list '%s'", opt.sizes);
	*p = *end == ',' ? end + 1 : end;
	return true;
}

static inline int pick_reps(int full, int tiny)
{
	if (opt.reps)
		return opt.reps;
	return opt.tiny ? tiny : full;
}

/*
 * Run @fn once per file system of --fs, in a fresh directory
 * /mnt/scratch/<fs>/bench-<prog> that is removed afterwards.
 */
typedef void (*fs_fn)(const char *fs, const char *base);

static inline int bench_each_fs(fs_fn fn)
{
	const char *scratch = getenv("UNION_SCRATCH");
	char list[sizeof(opt.fs_list)], *save, *fs;
	char root[PATH_LEN], base[PATH_LEN];

	if (!scratch)
		scratch = "/mnt/scratch";
	snprintf(list, sizeof(list), "%s", opt.fs_list);
	for (fs = strtok_r(list, ",", &save); fs;
	     fs = strtok_r(NULL, ",", &save)) {
		const char *why;
		double t0 = now_ns();

		pathf(root, "%s/%s", scratch, fs);
		why = fs_magic_ok(fs, root);
		if (why) {
			complain("%s: %s, skipped", root, why);
			continue;
		}
		pathf(base, "%s/bench-%s", root, opt.prog);
		rm_tree(base);
		fn(fs, base);
		rm_tree(base);
		printf("# %s on %s: %.1f s\n", opt.prog, fs,
		       (now_ns() - t0) / 1e9);
	}
	return bench_failed;
}

#endif /* _BENCH_H */
