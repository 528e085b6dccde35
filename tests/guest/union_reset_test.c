// SPDX-License-Identifier: GPL-2.0
/*
 * Union changes cut by a real machine reset, checked by the next boot on
 * the same disks (README "Crash by machine reset"; issue 14, item 4).
 *
 * union_crash_test cuts a copy-up inside one boot with FS_IOC_SHUTDOWN.
 * Here the machine itself goes: scripts/crash-reset-test.sh boots the guest
 * four times on one set of scratch disk images (qemu.sh UNION_KEEP_DISKS=1
 * after the first boot) and runs this program in each boot with
 * UNION_RESET_PHASE and UNION_RESET_FS saying what to do:
 *
 *   boot 1: cut ext4;  boot 2: check ext4, cut xfs;
 *   boot 3: check xfs, cut btrfs;  boot 4: check btrfs.
 *
 * Without UNION_RESET_PHASE (the guest of make check) it skips.
 *
 * Cut (UNION_RESET_PHASE=cut): a union with its top layer on the file
 * system under test and its lower layer on another scratch disk (so that
 * copying a file up copies its data, with splice, where the same file
 * system would share its blocks), the lower layer read-only through a
 * read-only bind mount.  The lower layer has a 32 MiB file and a pool of
 * names prepared for a storm of changes, each change one system call on a
 * name of its own: copy-up of lower directories (chmod, utimes, a create
 * inside, one and three levels deep), rmdir of a merged directory emptied
 * through the union, mkdir and create over whiteouts, unlink and rmdir of
 * lower names.  Everything is synced.  Then the storm runs, with a syncer
 * that calls syncfs() on the top file system now and then and records how
 * many changes were done before each syncfs() began; when it has done a
 * share of the pool, a child copies the big file up by opening it for
 * writing through the union.  When that copy is in the middle of its data
 * (between 2 MiB and half the file read from the lower file, and on ext4
 * and xfs, whose statfs counts delayed allocations, 2 MiB taken in the top
 * file system), the storm is stopped between two changes, a line
 * "@@RESET-CUT fs=... copied=... ops=... durable=..." is printed, and the
 * machine is reset with sysrq-b: no sync, no unmount; QEMU exits
 * (reboot=t, -no-reboot).  The script passes that line to the next boot.
 *
 * Check (UNION_RESET_PHASE=check, the next boot, the disks mounted again by
 * /init, journals replayed): the union mounted again the same way must
 * show the big file as the lower layer has it and the top layer must not
 * have it (a copy cut in the middle leaves nothing); the lower layer must
 * be as it was (modes, times, contents); every name of the pool must be in
 * its state before its change or after it, nothing else, the changes done
 * before the last syncfs() in the new state and those never begun in the
 * old one; no listing may show a name twice or one of the union's
 * temporary names; the changes not done must still work, and the union
 * must unmount.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/magic.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#ifndef MS_UNION
#define MS_UNION	(1 << 9)
#endif

#define FILE_MB		32
#define CHUNK		(1 << 20)
#define FILE_SIZE	((long long)FILE_MB * CHUNK)
#define MID_MIN		(2LL * CHUNK)
#define MID_MAX		(FILE_SIZE / 2)
/* where the cut aims, in the middle of the middle: the storm goes on */
#define CUT_AT		(4LL * CHUNK)

/* Where the union is mounted; tmpfs, it need not survive the reset. */
#define UNION_DIR	"/tmp/reset-union"

/* Lower directory times: before the change, and the change's (+ n). */
#define OLD_TIME	1400000000
#define NEW_TIME	1000000000

/*
 * The storm's changes, one system call each on a name of its own:
 * storm op i is of type i % NTYPES on the name "<type>.<i / NTYPES>".
 */
enum {
	T_CHM,	/* chmod of a lower directory: copy-up */
	T_UTM,	/* utimes of a lower directory: copy-up */
	T_CRT,	/* create in a lower directory: copy-up + create */
	T_NST,	/* create three lower directories deep */
	T_RMD,	/* rmdir of a merged directory emptied through the union */
	T_MKW,	/* mkdir over the whiteout of a lower directory */
	T_CRW,	/* create over the whiteout of a lower file */
	T_UNL,	/* unlink of a lower file: a whiteout */
	T_RML,	/* rmdir of a lower directory: a whiteout */
	NTYPES
};
static const char *const type_name[NTYPES] = {
	"chm", "utm", "crt", "nst", "rmd", "mkw", "crw", "unl", "rml",
};

#define POOL	60			/* names per type */
#define NOPS	(POOL * NTYPES)

struct fs_pair {
	const char *fs;		/* the top layer's, under test */
	const char *lower_fs;	/* the lower layer's: another disk */
	long magic, lower_magic;
	/* statfs counts blocks reserved for data not yet written back */
	bool statfs_delalloc;
};

static const struct fs_pair pair_ext4 = {
	"ext4", "xfs", EXT4_SUPER_MAGIC, XFS_SUPER_MAGIC, true,
};
static const struct fs_pair pair_xfs = {
	"xfs", "btrfs", XFS_SUPER_MAGIC, BTRFS_SUPER_MAGIC, true,
};
/* btrfs's statfs shows data only when its extents are allocated */
static const struct fs_pair pair_btrfs = {
	"btrfs", "ext4", BTRFS_SUPER_MAGIC, EXT4_SUPER_MAGIC, false,
};

struct paths {
	char mnt[64];		/* the top layer's file system */
	char base[128];		/* our directory on it: markers, manifest */
	char top[160];		/* the top layer */
	char lower_mnt[64];
	char lower_base[128];	/* our directory on the other disk */
	char lower[160];	/* the lower layer */
};

static void make_paths(struct paths *p, const struct fs_pair *fp)
{
	snprintf(p->mnt, sizeof(p->mnt), "/mnt/scratch/%s", fp->fs);
	snprintf(p->base, sizeof(p->base), "%s/reset-%s", p->mnt, fp->fs);
	snprintf(p->top, sizeof(p->top), "%s/top", p->base);
	snprintf(p->lower_mnt, sizeof(p->lower_mnt), "/mnt/scratch/%s",
		 fp->lower_fs);
	snprintf(p->lower_base, sizeof(p->lower_base), "%s/reset-%s",
		 p->lower_mnt, fp->fs);
	snprintf(p->lower, sizeof(p->lower), "%s/lower", p->lower_base);
}

/* The marker file's contents, written and synced before the cut. */
static const char *marker_text(const struct fs_pair *fp)
{
	static char buf[128];

	snprintf(buf, sizeof(buf), "cut %s, lower layer on %s, %d names\n",
		 fp->fs, fp->lower_fs, NOPS);
	return buf;
}

static bool is_fs(const char *path, long magic)
{
	struct statfs sfs;

	return !statfs(path, &sfs) && (long)sfs.f_type == magic;
}

static const char *op_name(int i)
{
	static char bufs[4][32];
	static unsigned int next;
	char *b = bufs[next++ % 4];

	snprintf(b, 32, "%s.%03d", type_name[i % NTYPES], i / NTYPES);
	return b;
}

static const char *pathf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static const char *pathf(const char *fmt, ...)
{
	static char bufs[8][512];
	static unsigned int next;
	char *b = bufs[next++ % 8];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, 512, fmt, ap);
	va_end(ap);
	return b;
}

static int put_at(int dfd, const char *path, const char *s, mode_t mode)
{
	int fd = openat(dfd, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			mode);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* The contents of @path under @dfd (at most 255 bytes), "(errno)" if none. */
static const char *get_at(int dfd, const char *path)
{
	static char bufs[4][256];
	static unsigned int next;
	char *b = bufs[next++ % 4];
	int fd = openat(dfd, path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		snprintf(b, 256, "(%s)", strerrorname_np(errno));
		return b;
	}
	n = read(fd, b, 255);
	b[n > 0 ? n : 0] = 0;
	close(fd);
	return b;
}

#define LS_MAX	32768

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The names of the directory @path under @dfd, read with getdents64 into a
 * small buffer (several calls for any but the smallest directory), sorted,
 * space separated, "." and ".." left out; "(errno)" if it cannot be read.
 * *@dups counts names listed more than once, *@tmps the union's temporary
 * names (".union-..."); either may be NULL.
 */
static const char *list_at(int dfd, const char *path, int *dups, int *tmps)
{
	static char bufs[4][LS_MAX];
	static unsigned int next;
	char *out = bufs[next++ % 4], dbuf[600], **v = NULL;
	int fd, n = 0, cap = 0, i;
	long r;

	out[0] = 0;
	fd = openat(dfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(out, LS_MAX, "(%s)", strerrorname_np(errno));
		return out;
	}
	while ((r = syscall(SYS_getdents64, fd, dbuf, sizeof(dbuf))) > 0) {
		for (long off = 0; off < r; ) {
			struct linux_dirent64 *d = (void *)(dbuf + off);

			off += d->d_reclen;
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				v = realloc(v, cap * sizeof(*v));
			}
			v[n++] = strdup(d->d_name);
		}
	}
	if (r < 0)
		snprintf(out, LS_MAX, "(getdents: %s)", strerrorname_np(errno));
	close(fd);
	qsort(v, n, sizeof(*v), cmp_str);
	for (i = 0; i < n; i++) {
		if (dups && i && !strcmp(v[i], v[i - 1]))
			(*dups)++;
		if (tmps && !strncmp(v[i], ".union-", 7))
			(*tmps)++;
		if (r < 0 || out[0] == '(') {
			/* an error, or too long: said so in @out */
		} else if (strlen(out) + strlen(v[i]) + 2 < LS_MAX) {
			if (out[0])
				strcat(out, " ");
			strcat(out, v[i]);
		} else {
			snprintf(out, LS_MAX, "(more than %d bytes of names)",
				 LS_MAX);
		}
		free(v[i]);
	}
	free(v);
	return out;
}

/*
 * The storm names' lower files: @sub under the directory @nm holds
 * "<nm> <last part of sub>\n", so that each file's contents are its own.
 */
static const char *own_text(const char *nm, const char *sub)
{
	const char *leaf = strrchr(sub, '/');

	return pathf("%s %s\n", nm, leaf ? leaf + 1 : sub);
}

static int put_own(int dfd, const char *nm, const char *sub, mode_t mode)
{
	return put_at(dfd, pathf("%s/%s", nm, sub), own_text(nm, sub), mode);
}

/* --- The big file ------------------------------------------------------ */

static void fill(char *buf, int chunk)
{
	for (int i = 0; i < CHUNK; i++)
		buf[i] = (char)(chunk * 7 + i * 13 + (i >> 12));
}

/* Is @path byte for byte the pattern file?  1, 0, or -1 on error. */
static int is_pattern(const char *path)
{
	static char want[CHUNK], got[CHUNK];
	struct stat st;
	int fd, ret = 1;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		return -1;
	if (st.st_size != FILE_SIZE)
		ret = 0;
	for (int c = 0; ret == 1 && c < FILE_MB; c++) {
		fill(want, c);
		if (read(fd, got, CHUNK) != CHUNK || memcmp(want, got, CHUNK))
			ret = 0;
	}
	close(fd);
	return ret;
}

/* Blocks of @mnt in use, in bytes; -1 on error. */
static long long used_bytes(const char *mnt)
{
	struct statvfs sv;

	if (statvfs(mnt, &sv))
		return -1;
	return (long long)(sv.f_blocks - sv.f_bfree) * sv.f_frsize;
}

/* Bytes of the mapping @map (@len bytes) in the page cache; -1 on error. */
static long long resident(void *map, size_t len)
{
	static unsigned char vec[FILE_SIZE / 4096 + 1];
	long page = sysconf(_SC_PAGESIZE);
	size_t pages = (len + page - 1) / page;
	long long n = 0;

	if (pages > sizeof(vec) || mincore(map, len, vec))
		return -1;
	for (size_t i = 0; i < pages; i++)
		n += vec[i] & 1;
	return n * page;
}

/* --- The lower layer's fingerprint --------------------------------------- */

static char *manifest;
static size_t manifest_len, manifest_cap;
static size_t manifest_skip;

static uint64_t hash_file(const char *path)
{
	static char buf[CHUNK];
	uint64_t h = 1469598103934665603ULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++)
			h = (h ^ (unsigned char)buf[i]) * 1099511628211ULL;
	}
	close(fd);
	return n < 0 ? 0 : h;
}

static int manifest_add(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	char line[700];
	int n;

	n = snprintf(line, sizeof(line), "%s %o %u:%u %lld %lld.%09ld %016llx\n",
		     path + manifest_skip, st->st_mode, st->st_uid, st->st_gid,
		     (long long)st->st_size, (long long)st->st_mtim.tv_sec,
		     st->st_mtim.tv_nsec,
		     S_ISREG(st->st_mode) ?
		     (unsigned long long)hash_file(path) : 0ULL);
	if (manifest_len + n + 1 > manifest_cap) {
		manifest_cap = 2 * (manifest_cap + n + 1);
		manifest = realloc(manifest, manifest_cap);
	}
	memcpy(manifest + manifest_len, line, n + 1);
	manifest_len += n;
	return 0;
}

/*
 * The fingerprint of the tree @dir: a line per object (path, mode, owner,
 * size, mtime, hash of the contents), sorted; malloc()ed, or NULL.
 */
static char *fingerprint(const char *dir)
{
	char **lines = NULL, *p, *out;
	size_t n = 0, cap = 0, len = 0;

	free(manifest);
	manifest = NULL;
	manifest_len = manifest_cap = 0;
	manifest_skip = strlen(dir);
	if (nftw(dir, manifest_add, 32, FTW_PHYS) || !manifest)
		return NULL;
	for (p = strtok(manifest, "\n"); p; p = strtok(NULL, "\n")) {
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			lines = realloc(lines, cap * sizeof(*lines));
		}
		lines[n++] = p;
		len += strlen(p) + 1;
	}
	qsort(lines, n, sizeof(*lines), cmp_str);
	out = malloc(len + 1);
	out[0] = 0;
	for (size_t i = 0, o = 0; i < n; i++) {
		size_t l = strlen(lines[i]);

		memcpy(out + o, lines[i], l);
		out[o + l] = '\n';
		o += l + 1;
		out[o] = 0;
	}
	free(lines);
	return out;
}

static char *read_all(const char *path)
{
	struct stat st;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st))
		return NULL;
	buf = malloc(st.st_size + 1);
	if (read(fd, buf, st.st_size) != st.st_size) {
		free(buf);
		buf = NULL;
	} else {
		buf[st.st_size] = 0;
	}
	close(fd);
	return buf;
}

static int write_synced(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	if (fsync(fd))
		n = -1;
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* --- The union ------------------------------------------------------------ */

/*
 * In a private mount namespace: @lower read-only at UNION_DIR, @top on it
 * as a writable union layer.  0 or -1 with errno set.
 */
static int mount_union(const char *lower, const char *top)
{
	mkdir(UNION_DIR, 0755);
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount(lower, UNION_DIR, NULL, MS_BIND, NULL) ||
	    mount(NULL, UNION_DIR, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY,
		  NULL))
		return -1;
	return mount(top, UNION_DIR, NULL, MS_BIND | MS_UNION, NULL);
}

/* --- The storm's names ----------------------------------------------------- */

/* The lower layer's objects for storm name @i, under @lfd. */
static int prep_lower(int lfd, int i)
{
	const char *nm = op_name(i);
	struct timespec ts[2] = { { OLD_TIME, 0 }, { OLD_TIME, 0 } };
	int r = 0;

	switch (i % NTYPES) {
	case T_CHM:
		r |= mkdirat(lfd, nm, 0755);
		r |= put_own(lfd, nm, "f1", 0644);
		r |= put_own(lfd, nm, "f2", 0600);
		r |= mkdirat(lfd, pathf("%s/s", nm), 0711);
		r |= put_own(lfd, nm, "s/f3", 0644);
		break;
	case T_UTM:
		r |= mkdirat(lfd, nm, 0755);
		r |= put_own(lfd, nm, "f1", 0644);
		r |= utimensat(lfd, nm, ts, 0);
		break;
	case T_CRT:
		r |= mkdirat(lfd, nm, 0755);
		r |= put_own(lfd, nm, "f1", 0644);
		break;
	case T_NST:
		r |= mkdirat(lfd, nm, 0755);
		r |= mkdirat(lfd, pathf("%s/a", nm), 0751);
		r |= mkdirat(lfd, pathf("%s/a/b", nm), 0750);
		r |= put_own(lfd, nm, "a/b/f1", 0644);
		break;
	case T_RMD:
		r |= mkdirat(lfd, nm, 0755);
		r |= put_at(lfd, pathf("%s/l1", nm), "l1\n", 0644);
		r |= put_at(lfd, pathf("%s/l2", nm), "l2\n", 0644);
		break;
	case T_MKW:
		r |= mkdirat(lfd, nm, 0755);
		r |= put_at(lfd, pathf("%s/x", nm), "x\n", 0644);
		r |= put_at(lfd, pathf("%s/y", nm), "y\n", 0644);
		break;
	case T_CRW:
	case T_UNL:
		r |= put_at(lfd, nm, pathf("%s lower\n", nm), 0644);
		break;
	case T_RML:
		r |= mkdirat(lfd, nm, 0755);
		break;
	}
	return r ? -1 : 0;
}

/* The top layer's part of a merged directory, made in the top layer. */
static int prep_top(int tfd, int i)
{
	const char *nm = op_name(i);

	if (i % NTYPES != T_RMD)
		return 0;
	if (mkdirat(tfd, nm, 0755) ||
	    put_at(tfd, pathf("%s/u1", nm), "u1\n", 0644))
		return -1;
	return 0;
}

/* What is done through the union before the set-up is synced. */
static int prep_union(int ufd, int i)
{
	const char *nm = op_name(i);

	switch (i % NTYPES) {
	case T_RMD:
		/* empty the merged directory: u1 unlinked, l1 l2 whiteouts */
		if (unlinkat(ufd, pathf("%s/u1", nm), 0) ||
		    unlinkat(ufd, pathf("%s/l1", nm), 0) ||
		    unlinkat(ufd, pathf("%s/l2", nm), 0))
			return -1;
		break;
	case T_MKW:
		if (unlinkat(ufd, pathf("%s/x", nm), 0) ||
		    unlinkat(ufd, pathf("%s/y", nm), 0) ||
		    unlinkat(ufd, nm, AT_REMOVEDIR))
			return -1;
		break;
	case T_CRW:
		if (unlinkat(ufd, nm, 0))
			return -1;
		break;
	}
	return 0;
}

/* Storm op @i: one system call through the union.  0 or -errno. */
static int storm_op(int ufd, int i)
{
	int type = i % NTYPES, n = i / NTYPES, fd, r = 0;
	const char *nm = op_name(i);
	struct timespec ts[2] = { { NEW_TIME + n, 0 }, { NEW_TIME + n, 0 } };

	switch (type) {
	case T_CHM:
		r = fchmodat(ufd, nm, 0700, 0);
		break;
	case T_UTM:
		r = utimensat(ufd, nm, ts, AT_SYMLINK_NOFOLLOW);
		break;
	case T_CRT:
	case T_NST:
	case T_CRW:
		fd = openat(ufd, type == T_CRT ? pathf("%s/new", nm) :
			    type == T_NST ? pathf("%s/a/b/new", nm) : nm,
			    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			    type == T_CRW ? 0600 : 0640);
		r = fd < 0 ? -1 : close(fd);
		break;
	case T_RMD:
	case T_RML:
		r = unlinkat(ufd, nm, AT_REMOVEDIR);
		break;
	case T_MKW:
		r = mkdirat(ufd, nm, 0750);
		break;
	case T_UNL:
		r = unlinkat(ufd, nm, 0);
		break;
	}
	return r ? -errno : 0;
}

enum { ST_BAD = -1, ST_OLD = 0, ST_NEW = 1 };

#define BAD(...) do {					\
	snprintf(why, len, __VA_ARGS__);		\
	return ST_BAD;					\
} while (0)

/* A regular file @path under @dfd, root's, @mode, holding @content. */
static const char *file_problem(int dfd, const char *path, mode_t mode,
				const char *content)
{
	static char buf[512];
	struct stat st;

	if (fstatat(dfd, path, &st, AT_SYMLINK_NOFOLLOW))
		snprintf(buf, sizeof(buf), "%s: %s", path, strerrorname_np(errno));
	else if (!S_ISREG(st.st_mode) || (st.st_mode & 07777) != mode ||
		 st.st_uid || st.st_gid)
		snprintf(buf, sizeof(buf), "%s: mode %o owner %u:%u, not a root file %o",
			 path, st.st_mode, st.st_uid, st.st_gid, mode);
	else if (strcmp(get_at(dfd, path), content))
		snprintf(buf, sizeof(buf), "%s: contents \"%s\", not \"%s\"",
			 path, get_at(dfd, path), content);
	else
		return NULL;
	return buf;
}

/* file_problem() for a lower file of put_own(), seen under @dfd. */
static const char *own_problem(int dfd, const char *nm, const char *sub,
			       mode_t mode)
{
	return file_problem(dfd, pathf("%s/%s", nm, sub), mode,
			    own_text(nm, sub));
}

/*
 * Does the directory @path under @dfd list exactly the names @want, with
 * no name twice and none of the union's temporary names?  The listing in
 * *@ls.
 */
static bool lists(int dfd, const char *path, const char *want, const char **ls)
{
	int dups = 0, tmps = 0;

	*ls = list_at(dfd, path, &dups, &tmps);
	return !strcmp(*ls, want) && !dups && !tmps;
}

/* The mode of the directory @path under @dfd, or -errno / -1000 if no dir. */
static int dir_mode(int dfd, const char *path, struct stat *st)
{
	if (fstatat(dfd, path, st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	if (!S_ISDIR(st->st_mode) || st->st_uid || st->st_gid)
		return -1000;
	return st->st_mode & 07777;
}

/* Is @path under @dfd a root directory of @mode that lists nothing? */
static const char *empty_dir_problem(int dfd, const char *path, mode_t mode)
{
	static char buf[LS_MAX + 128];
	const char *ls;
	struct stat st;
	int m = dir_mode(dfd, path, &st);

	if (m != (int)mode)
		snprintf(buf, sizeof(buf), "mode %o (%d), not a directory %o",
			 st.st_mode, m, mode);
	else if (!lists(dfd, path, "", &ls))
		snprintf(buf, sizeof(buf), "lists \"%s\", not nothing", ls);
	else
		return NULL;
	return buf;
}

/* Can @nm/@sub be looked up under @dfd? */
static bool found(int dfd, const char *nm, const char *sub)
{
	return !faccessat(dfd, pathf("%s/%s", nm, sub), F_OK,
			  AT_SYMLINK_NOFOLLOW);
}

/*
 * The state the union shows for storm name @i: ST_OLD (before its change),
 * ST_NEW (after it), or ST_BAD with the reason in @why.  Whatever the
 * state, what came from the lower layer must be shown as it is there, and
 * nothing that was removed through the union may show again.
 */
static int name_state(int ufd, int i, char *why, size_t len)
{
	int type = i % NTYPES, n = i / NTYPES, m;
	const char *nm = op_name(i), *ls, *prob;
	struct stat st;
	bool gone;

	/* gone from the union: before or after the change, by its type */
	if (!fstatat(ufd, nm, &st, AT_SYMLINK_NOFOLLOW))
		gone = false;
	else if (errno == ENOENT)
		gone = true;
	else
		BAD("%s: %s", nm, strerrorname_np(errno));

	switch (type) {
	case T_CHM:
		m = dir_mode(ufd, nm, &st);
		if (m != 0755 && m != 0700)
			BAD("%s: mode %o (%d), not 755 or 700", nm, st.st_mode, m);
		if (!lists(ufd, nm, "f1 f2 s", &ls))
			BAD("%s (mode %o) lists \"%s\", not \"f1 f2 s\"", nm, m, ls);
		if ((prob = own_problem(ufd, nm, "f1", 0644)) ||
		    (prob = own_problem(ufd, nm, "f2", 0600)) ||
		    (prob = own_problem(ufd, nm, "s/f3", 0644)))
			BAD("%s (mode %o): %s", nm, m, prob);
		if (dir_mode(ufd, pathf("%s/s", nm), &st) != 0711)
			BAD("%s/s: mode %o, not 711", nm, st.st_mode);
		return m == 0700 ? ST_NEW : ST_OLD;
	case T_UTM:
		m = dir_mode(ufd, nm, &st);
		if (m != 0755)
			BAD("%s: mode %o (%d), not 755", nm, st.st_mode, m);
		if (!lists(ufd, nm, "f1", &ls))
			BAD("%s lists \"%s\", not \"f1\"", nm, ls);
		if ((prob = own_problem(ufd, nm, "f1", 0644)))
			BAD("%s: %s", nm, prob);
		if (st.st_mtim.tv_sec == OLD_TIME && !st.st_mtim.tv_nsec)
			return ST_OLD;
		if (st.st_mtim.tv_sec == NEW_TIME + n && !st.st_mtim.tv_nsec)
			return ST_NEW;
		BAD("%s: mtime %lld.%09ld, neither %d nor %d", nm,
		    (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, OLD_TIME,
		    NEW_TIME + n);
	case T_CRT:
	case T_NST: {
		char d[48];

		snprintf(d, sizeof(d), type == T_CRT ? "%s" : "%s/a/b", nm);

		if (type == T_NST &&
		    (dir_mode(ufd, nm, &st) != 0755 ||
		     dir_mode(ufd, pathf("%s/a", nm), &st) != 0751 ||
		     strcmp(list_at(ufd, nm, NULL, NULL), "a") ||
		     strcmp(list_at(ufd, pathf("%s/a", nm), NULL, NULL), "b")))
			BAD("%s: the directories above a/b are not the lower ones: "
			    "%s lists \"%s\", %s/a lists \"%s\"", nm, nm,
			    list_at(ufd, nm, NULL, NULL), nm,
			    list_at(ufd, pathf("%s/a", nm), NULL, NULL));
		m = dir_mode(ufd, d, &st);
		if (m != (type == T_CRT ? 0755 : 0750))
			BAD("%s: mode %o (%d)", d, st.st_mode, m);
		if ((prob = own_problem(ufd, nm,
					type == T_CRT ? "f1" : "a/b/f1", 0644)))
			BAD("%s", prob);
		if (lists(ufd, d, "f1", &ls))
			return ST_OLD;
		if (!lists(ufd, d, "f1 new", &ls))
			BAD("%s lists \"%s\", neither \"f1\" nor \"f1 new\"", d, ls);
		if ((prob = file_problem(ufd, pathf("%s/new", d), 0640, "")))
			BAD("%s", prob);
		return ST_NEW;
	}
	case T_RMD:
	case T_RML:
		if (gone)
			return ST_NEW;
		/* emptied before the cut: no lower entry may show again */
		if ((prob = empty_dir_problem(ufd, nm, 0755)))
			BAD("%s is there: %s", nm, prob);
		if (type == T_RMD && (found(ufd, nm, "l1") || found(ufd, nm, "u1")))
			BAD("%s: l1 or u1, removed before the cut, can be looked up", nm);
		return ST_OLD;
	case T_MKW:
		if (gone)
			return ST_OLD;
		if ((prob = empty_dir_problem(ufd, nm, 0750)))
			BAD("%s, made over a whiteout: %s", nm, prob);
		if (found(ufd, nm, "x"))
			BAD("%s/x of the lower directory can be looked up", nm);
		return ST_NEW;
	case T_CRW:
		if (gone)
			return ST_OLD;
		if ((prob = file_problem(ufd, nm, 0600, "")))
			BAD("%s", prob);
		return ST_NEW;
	case T_UNL:
		if (gone)
			return ST_NEW;
		if ((prob = file_problem(ufd, nm, 0644, pathf("%s lower\n", nm))))
			BAD("%s", prob);
		return ST_OLD;
	}
	BAD("type %d?", type);
}

/* --- The cut -------------------------------------------------------------- */

static double secs(const struct timespec *a, const struct timespec *b)
{
	return b->tv_sec - a->tv_sec + (b->tv_nsec - a->tv_nsec) / 1e9;
}

/* Shared between the test and its storm and syncer */
struct storm {
	volatile int done;	/* ops done: 0 .. done - 1 */
	volatile int durable;	/* ops done before the last syncfs() began */
	volatile int syncs;
	volatile int err, err_op;	/* the first op that failed */
	volatile int stop;
};

#define STORM_ERR(s)							\
	TH_LOG("storm: %s: %s", op_name((s)->err_op),			\
	       strerrorname_np((s)->err))

static void storm_run(int ufd, struct storm *s)
{
	for (int i = 0; i < NOPS; i++) {
		int err = storm_op(ufd, i);

		if (err) {
			s->err_op = i;
			s->err = -err;
			break;
		}
		s->done = i + 1;
	}
	/* the pool is used up: wait for the reset */
	for (;;)
		pause();
}

static void syncer_run(int tfd, struct storm *s)
{
	/*
	 * Not too often: the changes after the last syncfs() are the ones
	 * whose fate is up to the file system's journal at the reset.
	 */
	struct timespec ts = { 0, 600 * 1000 * 1000 };

	for (;;) {
		int done = s->done;

		if (syncfs(tfd))
			_exit(1);
		s->durable = done;
		s->syncs++;
		nanosleep(&ts, NULL);
	}
}

/* Both phases' fixtures: a variant per file system under test. */
#define FS_VARIANTS(fixture)						\
	FIXTURE_VARIANT(fixture) {					\
		const struct fs_pair *fp;				\
	};								\
	FIXTURE_VARIANT_ADD(fixture, ext4) { .fp = &pair_ext4 };	\
	FIXTURE_VARIANT_ADD(fixture, xfs) { .fp = &pair_xfs };		\
	FIXTURE_VARIANT_ADD(fixture, btrfs) { .fp = &pair_btrfs }

/* The paths of @fp's layers in @p, and both scratch disks mounted. */
static void layers_setup(struct __test_metadata *_metadata, struct paths *p,
			 const struct fs_pair *fp, const char *when)
{
	make_paths(p, fp);
	ASSERT_TRUE(is_fs(p->mnt, fp->magic))
		TH_LOG("%s is not mounted at %s%s", fp->fs, p->mnt, when);
	ASSERT_TRUE(is_fs(p->lower_mnt, fp->lower_magic))
		TH_LOG("%s is not mounted at %s%s", fp->lower_fs, p->lower_mnt,
		       when);
}

FIXTURE(cut) {
	struct paths p;
};

FS_VARIANTS(cut);

FIXTURE_SETUP(cut)
{
	layers_setup(_metadata, &self->p, variant->fp, "");
}

FIXTURE_TEARDOWN(cut)
{
}

/* Set up, start the storm and the copy-up, and reset the machine. */
TEST_F_TIMEOUT(cut, reset, 900)
{
	const struct paths *p = &self->p;
	const struct fs_pair *fp = variant->fp;
	static char buf[CHUNK];
	long long before, copied = 0, written = 0;
	int lfd, tfd, ufd, fd, sysrq, status, i;
	pid_t storm_pid, sync_pid, copy_pid;
	struct timespec t0, t1, t2, t3;
	struct sched_param prio;
	struct storm *s;
	char *fpr;
	void *map;

	umask(0);
	ASSERT_EQ(0, system(pathf("rm -rf %s %s", p->base, p->lower_base)));
	ASSERT_EQ(0, mkdir(p->base, 0755));
	ASSERT_EQ(0, mkdir(p->top, 0755));
	ASSERT_EQ(0, mkdir(p->lower_base, 0755));
	ASSERT_EQ(0, mkdir(p->lower, 0755));
	clock_gettime(CLOCK_MONOTONIC, &t0);

	/* the lower layer: the big file and the storm's names */
	fd = open(pathf("%s/big", p->lower), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		  0644);
	ASSERT_LE(0, fd) TH_LOG("create big: %m");
	for (int c = 0; c < FILE_MB; c++) {
		fill(buf, c);
		ASSERT_EQ(CHUNK, write(fd, buf, CHUNK));
	}
	ASSERT_EQ(0, fsync(fd));
	close(fd);
	lfd = open(p->lower, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	tfd = open(p->top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, lfd);
	ASSERT_LE(0, tfd);
	for (i = 0; i < NOPS; i++) {
		ASSERT_EQ(0, prep_lower(lfd, i))
			TH_LOG("lower %s: %m", op_name(i));
		ASSERT_EQ(0, prep_top(tfd, i))
			TH_LOG("top %s: %m", op_name(i));
	}

	ASSERT_EQ(0, mount_union(p->lower, p->top)) TH_LOG("union: %m");
	ufd = open(UNION_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, ufd);
	for (i = 0; i < NOPS; i++)
		ASSERT_EQ(0, prep_union(ufd, i))
			TH_LOG("through the union, %s: %m", op_name(i));
	/* every name in its old state, before anything is on disk */
	for (i = 0; i < NOPS; i++) {
		char why[600] = "";

		ASSERT_EQ(ST_OLD, name_state(ufd, i, why, sizeof(why)))
			TH_LOG("before the storm: %s", why);
	}

	/* on disk: the layers, the lower layer's fingerprint, the marker */
	fpr = fingerprint(p->lower);
	ASSERT_NE(NULL, fpr);
	ASSERT_EQ(0, write_synced(pathf("%s/lower.manifest", p->base), fpr));
	ASSERT_EQ(0, write_synced(pathf("%s/cut", p->base), marker_text(fp)));
	sync();
	clock_gettime(CLOCK_MONOTONIC, &t1);

	/* the copy-up reads the big file from the disk, page by page */
	fd = open(pathf("%s/big", p->lower), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED));
	map = mmap(NULL, FILE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	close(fd);
	copied = resident(map, FILE_SIZE);
	ASSERT_LE(0, copied) TH_LOG("mincore: %m");
	ASSERT_GT(CHUNK, copied) TH_LOG("the big file is still in the page cache");

	sysrq = open("/proc/sysrq-trigger", O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, sysrq) TH_LOG("/proc/sysrq-trigger: %m");
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, s);
	memset(s, 0, sizeof(*s));

	storm_pid = fork();
	ASSERT_LE(0, storm_pid);
	if (!storm_pid)
		storm_run(ufd, s);
	sync_pid = fork();
	ASSERT_LE(0, sync_pid);
	if (!sync_pid)
		syncer_run(tfd, s);

	/* a share of the storm done, some of it synced: start the copy-up */
	for (i = 0; i < 300000 && !s->err; i++) {
		if (s->done >= NOPS / 4 && s->durable > 0)
			break;
		usleep(1000);
	}
	ASSERT_EQ(0, s->err) STORM_ERR(s);
	ASSERT_LE(NOPS / 4, s->done) TH_LOG("the storm did not get going");
	before = used_bytes(p->mnt);
	clock_gettime(CLOCK_MONOTONIC, &t2);
	copy_pid = fork();
	ASSERT_LE(0, copy_pid);
	if (!copy_pid) {
		fd = open(UNION_DIR "/big", O_WRONLY | O_CLOEXEC);
		_exit(fd < 0 ? 1 : 0);
	}
	/*
	 * The watcher runs as soon as it wakes: with the storm, the syncer
	 * and the copy on two vCPUs it would else see the copy late, past
	 * the middle of its data.
	 */
	prio.sched_priority = 10;
	ASSERT_EQ(0, sched_setscheduler(0, SCHED_FIFO, &prio)) TH_LOG("%m");

	/*
	 * The copy in the middle of its data: the copy-up reads the lower
	 * file in 1 MiB splices, each written to the top layer's file before
	 * the next is read, so what it has read is at most 1 MiB (and the
	 * readahead) ahead of what it wrote; where statfs counts delayed
	 * allocations, the data must also have taken room in the top file
	 * system.  Past half the file, the cut would not be in the middle.
	 */
	for (i = 0; i < 600000; i++) {
		copied = resident(map, FILE_SIZE);
		written = used_bytes(p->mnt) - before;
		if (copied > MID_MAX || copied < 0)
			break;
		if (copied >= CUT_AT &&
		    (!fp->statfs_delalloc || written >= MID_MIN))
			break;
		usleep(200);
	}
	clock_gettime(CLOCK_MONOTONIC, &t3);
	ASSERT_LE(MID_MIN, copied);
	ASSERT_GE(MID_MAX, copied)
		TH_LOG("the copy-up got past half the file (%lld bytes read, %lld written) before it was seen in the middle",
		       copied, written);

	/* the storm stopped between two ops: which ones are done is exact */
	ASSERT_EQ(0, kill(storm_pid, SIGSTOP));
	ASSERT_EQ(storm_pid, waitpid(storm_pid, &status, WUNTRACED));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(0, s->err) STORM_ERR(s);
	ASSERT_EQ(0, waitpid(copy_pid, &status, WNOHANG))
		TH_LOG("the copy-up ended (status %#x) before the cut", status);

	ksft_print_msg("cut %s: set-up %.1f s, storm %.1f s, %d of %d ops done, %d synced (%d syncfs); copy-up for %.2f s, read %lld of %lld bytes, the top file system grew by %lld\n",
		       fp->fs, secs(&t0, &t1), secs(&t1, &t3), s->done, NOPS,
		       s->durable, s->syncs, secs(&t2, &t3), copied, FILE_SIZE,
		       written);
	printf("@@RESET-CUT fs=%s copied=%lld written=%lld ops=%d durable=%d pool=%d copyms=%.0f\n",
	       fp->fs, copied, written, s->done, s->durable, NOPS,
	       secs(&t2, &t3) * 1000);
	fflush(stdout);
	fflush(stderr);
	/* out of the serial port before the machine goes */
	tcdrain(STDOUT_FILENO);

	/* emergency restart: no sync, no unmount */
	ASSERT_EQ(1, write(sysrq, "b", 1)) TH_LOG("sysrq-b: %m");
	sleep(30);

	/* still here: the next boot must not take this for a crash */
	kill(storm_pid, SIGKILL);
	kill(sync_pid, SIGKILL);
	write_synced(pathf("%s/finished", p->base), "not reset\n");
	sync();
	ASSERT_TRUE(false) TH_LOG("sysrq-b did not reset the machine");
}

/* --- The check -------------------------------------------------------------- */

struct cut_record {
	long long copied, written;
	int ops, durable, pool;
	bool ok;
};

static long long rec_field(const char *rec, const char *key)
{
	char k[32];
	const char *p;

	snprintf(k, sizeof(k), " %s=", key);
	p = strstr(rec, k);
	return p ? atoll(p + strlen(k)) : -1;
}

/*
 * The line the cut boot printed before the reset, passed on by
 * scripts/crash-reset-test.sh in UNION_RESET_CUT.
 */
static struct cut_record cut_record(const char *fs)
{
	const char *env = getenv("UNION_RESET_CUT");
	struct cut_record r = { 0 };
	char rec[512];

	if (!env)
		return r;
	snprintf(rec, sizeof(rec), " %s", env);
	r.ok = !!strstr(rec, pathf(" fs=%s ", fs));
	r.copied = rec_field(rec, "copied");
	r.written = rec_field(rec, "written");
	r.ops = rec_field(rec, "ops");
	r.durable = rec_field(rec, "durable");
	r.pool = rec_field(rec, "pool");
	return r;
}

FIXTURE(check) {
	struct paths p;
	int ufd;
};

FS_VARIANTS(check);

/* The disks mounted again by /init (journal replay), the union as before. */
FIXTURE_SETUP(check)
{
	self->ufd = -1;
	layers_setup(_metadata, &self->p, variant->fp, " after the reset");
	ASSERT_EQ(0, mount_union(self->p.lower, self->p.top))
		TH_LOG("the union again after the reset: %m");
	self->ufd = open(UNION_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, self->ufd);
	umask(0);
}

FIXTURE_TEARDOWN(check)
{
	if (self->ufd >= 0)
		close(self->ufd);
}

/* The cut boot set up, cut in the middle of the copy-up, and was reset. */
TEST_F_TIMEOUT(check, cut_happened, 600)
{
	struct cut_record r = cut_record(variant->fp->fs);
	const char *marker = get_at(AT_FDCWD, pathf("%s/cut", self->p.base));

	EXPECT_STREQ(marker_text(variant->fp), marker)
		TH_LOG("the marker of the cut boot, synced before the cut");
	EXPECT_NE(0, faccessat(AT_FDCWD, pathf("%s/finished", self->p.base),
			       F_OK, 0))
		TH_LOG("the cut boot went on after sysrq-b: no reset");
	ASSERT_TRUE(r.ok) TH_LOG("no record of the cut of %s in UNION_RESET_CUT=\"%s\"",
				 variant->fp->fs, getenv("UNION_RESET_CUT") ?: "");
	EXPECT_LE(MID_MIN, r.copied);
	EXPECT_GE(MID_MAX, r.copied);
	EXPECT_EQ(NOPS, r.pool);
	/* the storm did some work, and some of it was synced */
	EXPECT_LT(0, r.durable);
	EXPECT_LE(r.durable, r.ops);
	ksft_print_msg("%s was cut with %lld of %lld bytes read for the copy-up (%lld written), %d of %d storm ops done, %d synced\n",
		       variant->fp->fs, r.copied, FILE_SIZE, r.written, r.ops,
		       r.pool, r.durable);
}

/* A copy-up cut in the middle of its data leaves no copy. */
TEST_F_TIMEOUT(check, big_file, 600)
{
	struct stat st, lst;

	EXPECT_NE(0, fstatat(AT_FDCWD, pathf("%s/big", self->p.top), &st,
			     AT_SYMLINK_NOFOLLOW))
		TH_LOG("the top layer has big (%lld bytes): the copy-up was not cut in the middle",
		       (long long)st.st_size);
	EXPECT_EQ(ENOENT, errno);
	ASSERT_EQ(0, fstatat(self->ufd, "big", &st, 0));
	ASSERT_EQ(0, stat(pathf("%s/big", self->p.lower), &lst));
	/* the lower file itself */
	EXPECT_EQ(lst.st_dev, st.st_dev);
	EXPECT_EQ(lst.st_ino, st.st_ino);
	EXPECT_EQ(0100644U, st.st_mode);
	EXPECT_EQ(1, is_pattern(UNION_DIR "/big"));
}

TEST_F_TIMEOUT(check, lower_unchanged, 600)
{
	char *want = read_all(pathf("%s/lower.manifest", self->p.base));
	char *got = fingerprint(self->p.lower);

	ASSERT_NE(NULL, want);
	ASSERT_NE(NULL, got);
	if (strcmp(want, got)) {
		char *sa = NULL, *sb = NULL;
		/* the first line that differs */
		char *a = strtok_r(want, "\n", &sa), *b = strtok_r(got, "\n", &sb);

		while (a && b && !strcmp(a, b)) {
			a = strtok_r(NULL, "\n", &sa);
			b = strtok_r(NULL, "\n", &sb);
		}
		EXPECT_STREQ(a ?: "(end)", b ?: "(end)")
			TH_LOG("the lower layer changed");
	}
	free(want);
	free(got);
}

/* Every name of the storm in its old or its new state. */
TEST_F_TIMEOUT(check, storm_names, 600)
{
	struct cut_record r = cut_record(variant->fp->fs);
	int counts[NTYPES][2] = { { 0 } };
	int bad = 0, unsynced_new = 0;

	ASSERT_TRUE(r.ok) TH_LOG("no record of the cut");
	for (int i = 0; i < NOPS; i++) {
		char why[600] = "";
		int st = name_state(self->ufd, i, why, sizeof(why));

		if (st == ST_BAD) {
			if (bad++ < 20)
				TH_LOG("%s: %s", op_name(i), why);
			continue;
		}
		counts[i % NTYPES][st]++;
		/* synced before the cut: syncfs() made it durable */
		if (i < r.durable && st != ST_NEW && bad++ < 20)
			TH_LOG("%s: op %d was done before a syncfs(), but is in its old state",
			       op_name(i), i);
		/* never begun: the storm was stopped before it */
		if (i > r.ops && st != ST_OLD && bad++ < 20)
			TH_LOG("%s: op %d was never begun, but is in its new state",
			       op_name(i), i);
		if (i >= r.durable && i <= r.ops && st == ST_NEW)
			unsynced_new++;
	}
	for (int t = 0; t < NTYPES; t++)
		ksft_print_msg("%s: %s.*: %d old, %d new\n", variant->fp->fs,
			       type_name[t], counts[t][ST_OLD], counts[t][ST_NEW]);
	ksft_print_msg("%s: of %d ops done before the cut, %d synced, %d done after the last syncfs() in the new state\n",
		       variant->fp->fs, r.ops, r.durable, unsynced_new);
	EXPECT_EQ(0, bad);
}

/*
 * Walk the union: in no directory a name twice or a temporary name of the
 * union's; each storm name listed exactly when it can be looked up.  Names
 * the crash left under a temporary name in the top layer are reported.
 */
static void walk(struct __test_metadata *_metadata, int dfd, const char *path,
		 int *dirs, int *dups, int *tmps)
{
	char *ls = strdup(list_at(dfd, path, dups, tmps)), *tok, *save = NULL;

	(*dirs)++;
	EXPECT_NE('(', ls[0]) TH_LOG("%s: %s", path, ls);
	for (tok = strtok_r(ls, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		const char *sub = pathf("%s/%s", path, tok);
		struct stat st;

		EXPECT_EQ(0, fstatat(dfd, sub, &st, AT_SYMLINK_NOFOLLOW))
			TH_LOG("%s is listed, but: %s", sub, strerrorname_np(errno));
		if (!strncmp(tok, ".union-", 7))
			TH_LOG("%s: a temporary name is listed", sub);
		else if (S_ISDIR(st.st_mode))
			walk(_metadata, dfd, strdup(sub), dirs, dups, tmps);
	}
	free(ls);
}

static void top_leftovers(int dfd, const char *path, char *out, size_t len)
{
	char *ls = strdup(list_at(dfd, path, NULL, NULL)), *tok, *save = NULL;

	for (tok = strtok_r(ls, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		const char *sub = pathf("%s/%s", path, tok);
		struct stat st;

		if (fstatat(dfd, sub, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (!strncmp(tok, ".union-", 7)) {
			char what[600];

			/* what it is: the kernel side wants to know */
			snprintf(what, sizeof(what), " %s (%s, mode %o%s%s)", sub,
				 S_ISDIR(st.st_mode) ? "directory" :
				 S_ISCHR(st.st_mode) && !st.st_rdev ? "whiteout" :
				 S_ISREG(st.st_mode) ? "file" : "other",
				 st.st_mode & 07777,
				 S_ISDIR(st.st_mode) ? ", lists: " : "",
				 S_ISDIR(st.st_mode) ?
				 list_at(dfd, sub, NULL, NULL) : "");
			if (strlen(out) + strlen(what) + 1 < len)
				strcat(out, what);
		}
		if (S_ISDIR(st.st_mode))
			top_leftovers(dfd, strdup(sub), out, len);
	}
	free(ls);
}

TEST_F_TIMEOUT(check, listings, 600)
{
	int dirs = 0, dups = 0, tmps = 0, listed_bad = 0;
	const char *ls = list_at(self->ufd, ".", NULL, NULL);
	char *root = malloc(strlen(ls) + 3);
	char left[2048] = "";

	/* " name1 name2 ... ": each name between spaces */
	sprintf(root, " %s ", ls);
	ASSERT_NE('(', ls[0]) TH_LOG("the union's root: %s", ls);
	walk(_metadata, self->ufd, ".", &dirs, &dups, &tmps);
	EXPECT_EQ(0, dups) TH_LOG("names listed twice");
	EXPECT_EQ(0, tmps) TH_LOG("temporary names listed");
	for (int i = 0; i < NOPS; i++) {
		char want[40];
		bool listed, there;

		snprintf(want, sizeof(want), " %s ", op_name(i));
		listed = strstr(root, want);
		there = !faccessat(self->ufd, op_name(i), F_OK, AT_SYMLINK_NOFOLLOW);
		if (listed != there && listed_bad++ < 10)
			TH_LOG("%s: %s but %s", op_name(i),
			       listed ? "listed" : "not listed",
			       there ? "there" : "not there");
	}
	EXPECT_EQ(0, listed_bad);
	top_leftovers(AT_FDCWD, self->p.top, left, sizeof(left));
	ksft_print_msg("%s: %d directories of the union walked; temporary names the crash left in the top layer:%s\n",
		       variant->fp->fs, dirs, left[0] ? left : " none");
	free(root);
}

/* After the crash the union works: the changes not done can be made. */
TEST_F_TIMEOUT(check, redo_ops, 600)
{
	int redone = 0;

	for (int i = 0; i < NOPS; i++) {
		char why[600] = "";

		if (name_state(self->ufd, i, why, sizeof(why)) != ST_OLD)
			continue;
		EXPECT_EQ(0, storm_op(self->ufd, i))
			TH_LOG("%s again: %m", op_name(i));
		redone++;
		EXPECT_EQ(ST_NEW, name_state(self->ufd, i, why, sizeof(why)))
			TH_LOG("%s made again: %s", op_name(i), why);
	}
	ksft_print_msg("%s: %d changes made after the crash\n", variant->fp->fs,
		       redone);
	/* and the copy-up, completely this time */
	EXPECT_EQ(0, truncate(UNION_DIR "/big", FILE_SIZE));
	EXPECT_EQ(1, is_pattern(pathf("%s/big", self->p.top)));
}

TEST_F_TIMEOUT(check, union_unmounts, 600)
{
	close(self->ufd);
	self->ufd = -1;
	EXPECT_EQ(0, umount2(UNION_DIR, 0)) TH_LOG("the union layer: %m");
	EXPECT_EQ(0, umount2(UNION_DIR, 0)) TH_LOG("the lower layer: %m");
}

int main(int argc, char **argv)
{
	const char *phase = getenv("UNION_RESET_PHASE");
	const char *fs = getenv("UNION_RESET_FS");
	static const char *const all[] = { "ext4", "xfs", "btrfs" };
	char *args[16];
	int n = 0;

	if (!phase || !*phase) {
		printf("1..0 # SKIP not booted for a crash by reset (scripts/crash-reset-test.sh)\n");
		return KSFT_SKIP;
	}
	if (!fs || (strcmp(phase, "cut") && strcmp(phase, "check"))) {
		printf("1..0 # UNION_RESET_PHASE=cut|check and UNION_RESET_FS=ext4|xfs|btrfs\n");
		return KSFT_FAIL;
	}
	/* the phase's fixture, the variant of the file system: -V the others */
	args[n++] = argv[0];
	for (int i = 0; i < 3; i++) {
		if (strcmp(all[i], fs)) {
			args[n++] = "-V";
			args[n++] = (char *)all[i];
		}
	}
	args[n++] = "-f";
	args[n++] = (char *)phase;
	args[n] = NULL;
	return test_harness_run(n, args);
}
