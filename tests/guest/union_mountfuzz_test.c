// SPDX-License-Identifier: GPL-2.0
/*
 * Bounded, seeded fuzzing of the mount API with union layers (issue 14,
 * item 5).  In a mount namespace of its own, on a tmpfs of its own, random
 * sequences of
 *   mount(2) with MS_BIND | MS_UNION and random other flags (MS_RDONLY,
 *     MS_REC, MS_REMOUNT, MS_MOVE, propagation flags, nosuid/nodev/noexec,
 *     noatime), also of a directory on itself and of a parent on a child;
 *   open_tree(2) (OPEN_TREE_CLONE, AT_RECURSIVE), fsopen/fsconfig/fsmount
 *     of tmpfs with MOUNT_ATTR_UNION, mount_setattr(2) setting and clearing
 *     random attributes (MOUNT_ATTR_UNION among them) on paths and on
 *     detached trees, move_mount(2) with and without MOVE_MOUNT_BENEATH;
 *   umount2(2) with 0, MNT_DETACH and UMOUNT_NOFOLLOW;
 *   use of whatever that made: create, write (copy-up), mkdir, unlink,
 *     rmdir, rename, symlink, readdir, stat, chdir into a directory,
 * on twelve directories (nested, populated) and a pool of detached trees.
 * Every call must succeed or fail with an errno a caller can act on
 * (EINVAL, EBUSY, EPERM, EXDEV, ELOOP, ...); never EFAULT, EIO, ENOSYS,
 * ESTALE or a kernel-internal errno, and the run must leave no splat in
 * the kernel log (the harness fails the run on one) and not hang (the
 * harness's timeout).  Then 500 union layers stacked on one directory
 * (until the kernel says no, with a clear errno), a walk and a listing
 * through them, and the same fuzzing as uid 1000 in a user namespace of
 * its own (which mounts its own tmpfs), where no union layer may come to
 * be: they need CAP_SYS_ADMIN in the initial user namespace (EPERM).
 *
 *   union_mountfuzz_test [SEED [OPS [WORKERS]]]
 *                        (default: seed 1, 4000 calls, 2 workers)
 *
 * While the fuzzer changes the mount tree, WORKERS processes (0-8) use the
 * directories (the "use" calls) with sequences of their own, so that walks,
 * copy-ups and listings race the mount changes; their calls must answer as
 * clearly.  The fuzzer's own calls stay those of the seed; what the
 * workers meet depends on timing.
 *
 * make check runs seed 1, so that a run is reproducible; other seeds explore
 * more (the seed is printed first; single-threaded, a seed gives the same
 * calls on the same kernel).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/mount.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MS_UNION
#define MS_UNION	512
#endif
#ifndef MOUNT_ATTR_UNION
#define MOUNT_ATTR_UNION	0x00400000
#endif
#ifndef MNT_DETACH
#define MNT_DETACH	2
#endif
#ifndef UMOUNT_NOFOLLOW
#define UMOUNT_NOFOLLOW	8
#endif
#ifndef MOVE_MOUNT_BENEATH
#define MOVE_MOUNT_BENEATH	0x00000200
#endif

/* mount(2) without glibc's <sys/mount.h>, which clashes with linux/mount.h */
static int sys_mount(const char *src, const char *tgt, const char *type,
		     unsigned long flags, const void *data)
{
	return syscall(__NR_mount, src, tgt, type, flags, data);
}

static int sys_umount2(const char *tgt, int flags)
{
	return syscall(__NR_umount2, tgt, flags);
}

static int sys_open_tree(int dfd, const char *path, unsigned int flags)
{
	return syscall(__NR_open_tree, dfd, path, flags);
}

static int sys_move_mount(int fdfd, const char *fpath, int tdfd,
			  const char *tpath, unsigned int flags)
{
	return syscall(__NR_move_mount, fdfd, fpath, tdfd, tpath, flags);
}

static int sys_mount_setattr(int dfd, const char *path, unsigned int flags,
			     struct mount_attr *attr)
{
	return syscall(__NR_mount_setattr, dfd, path, flags, attr,
		       sizeof(*attr));
}

static int sys_fsopen(const char *fs, unsigned int flags)
{
	return syscall(__NR_fsopen, fs, flags);
}

static int sys_fsconfig(int fd, unsigned int cmd, const char *key,
			const void *val, int aux)
{
	return syscall(__NR_fsconfig, fd, cmd, key, val, aux);
}

static int sys_fsmount(int fd, unsigned int flags, unsigned int attr)
{
	return syscall(__NR_fsmount, fd, flags, attr);
}

static unsigned long long rs;
static int workers;	/* processes using the directories meanwhile */

static unsigned int rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return (unsigned int)(rs >> 11);
}

#define NDIR	12
#define NFD	16

static char base[256];
static char dirs[NDIR][300];
static int pool[NFD];

enum {
	O_MOUNT, O_SELF, O_PARENT, O_OPEN_TREE, O_FSMOUNT, O_SETATTR,
	O_MOVE, O_UMOUNT, O_PROPAGATION, O_CLOSE, O_USE, O_NR
};

static const char *const op_names[O_NR] = {
	"mount", "mount-on-itself", "mount-parent-on-child", "open_tree",
	"fsmount", "mount_setattr", "move_mount", "umount", "propagation",
	"close", "use",
};

struct stats {
	unsigned long ok[O_NR], fail[O_NR], bad;
	char first_bad[256];
};

/* An errno that a caller of the mount API can act on. */
static bool clear_errno(int e)
{
	switch (e) {
	case EPERM: case ENOENT: case EBADF: case EACCES: case EBUSY:
	case EEXIST: case EXDEV: case ENOTDIR: case EISDIR: case EINVAL:
	case ENOSPC: case EROFS: case EMLINK: case ENAMETOOLONG: case ELOOP:
	case ENOTEMPTY: case ENOMEM: case EOPNOTSUPP: case EMFILE:
	case ENFILE: case ENODEV: case ENXIO: case E2BIG: case EAGAIN:
	case EOVERFLOW:
		return true;
	default:
		return false;
	}
}

static void note(struct stats *st, int op, int r, const char *what)
{
	if (r >= 0) {
		st->ok[op]++;
		return;
	}
	st->fail[op]++;
	if (clear_errno(errno))
		return;
	if (!st->bad++)
		snprintf(st->first_bad, sizeof(st->first_bad),
			 "%s: %s: errno %d (%s)", op_names[op], what, errno,
			 strerror(errno));
}

static const char *rdir(void)
{
	return dirs[rnd() % NDIR];
}

static unsigned long rand_ms_flags(void)
{
	static const unsigned long extra[] = {
		MS_RDONLY, MS_REC, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_NOATIME,
		MS_REMOUNT, MS_SHARED, MS_PRIVATE, MS_SLAVE, MS_UNBINDABLE,
		MS_MOVE, MS_DIRSYNC, MS_NOSYMFOLLOW,
	};
	unsigned long f = MS_BIND;
	unsigned int n = rnd() % 3;

	if (rnd() % 8)
		f |= MS_UNION;
	while (n--)
		f |= extra[rnd() % (sizeof(extra) / sizeof(extra[0]))];
	return f;
}

static unsigned int rand_attr(void)
{
	static const unsigned int attrs[] = {
		MOUNT_ATTR_RDONLY, MOUNT_ATTR_NOSUID, MOUNT_ATTR_NODEV,
		MOUNT_ATTR_NOEXEC, MOUNT_ATTR_NOATIME, MOUNT_ATTR_NODIRATIME,
		MOUNT_ATTR_NOSYMFOLLOW, MOUNT_ATTR_UNION, MOUNT_ATTR_UNION,
	};
	unsigned int a = 0, n = rnd() % 3;

	while (n--)
		a |= attrs[rnd() % (sizeof(attrs) / sizeof(attrs[0]))];
	return a;
}

static int pool_put(int fd)
{
	int i = rnd() % NFD;

	if (fd < 0)
		return fd;
	if (pool[i] >= 0)
		close(pool[i]);
	pool[i] = fd;
	return 0;
}

/* What a user of the union does: the answers are checked only for clarity. */
static void use(struct stats *st)
{
	char a[400], b[400];
	const char *d = rdir();
	int k = rnd() % 8, r = 0, fd;

	snprintf(a, sizeof(a), "%s/n%u", d, rnd() % 6);
	snprintf(b, sizeof(b), "%s/n%u", rdir(), rnd() % 6);
	switch (k) {
	case 0:
		fd = open(a, O_CREAT | O_WRONLY | O_APPEND | O_CLOEXEC, 0644);
		r = fd;
		if (fd >= 0) {
			if (write(fd, "x\n", 2) != 2)
				r = -1;
			close(fd);
		}
		break;
	case 1:
		r = mkdir(a, 0755);
		break;
	case 2:
		r = unlink(a);
		if (r && (errno == EISDIR || errno == EPERM))
			r = rmdir(a);
		break;
	case 3:
		r = rename(a, b);
		break;
	case 4:
		r = symlink("n0", a);
		break;
	case 5: {
		DIR *dp = opendir(d);

		if (!dp) {
			r = -1;
			break;
		}
		errno = 0;
		while (readdir(dp))
			;
		r = errno ? -1 : 0;
		closedir(dp);
		break;
	}
	case 6: {
		struct stat sb;

		r = lstat(a, &sb);
		break;
	}
	case 7:
		r = chdir(d);
		if (chdir("/") && !r)
			r = -1;
		break;
	}
	note(st, O_USE, r, a);
}

static void one_op(struct stats *st)
{
	struct mount_attr attr = { 0 };
	char what[700];
	const char *a = rdir(), *b = rdir();
	int op = rnd() % O_NR, r = 0, fd, i;

	snprintf(what, sizeof(what), "%s %s", a, b);
	switch (op) {
	case O_MOUNT:
		r = sys_mount(a, b, NULL, rand_ms_flags(), NULL);
		break;
	case O_SELF:
		r = sys_mount(a, a, NULL, MS_BIND | MS_UNION |
			      (rnd() % 2 ? MS_REC : 0), NULL);
		break;
	case O_PARENT:
		/* "a" and "b" hold a/x, a/x/p and b/y, b/y/q */
		i = rnd() % 2;
		a = dirs[i];
		b = dirs[i + 2 + 2 * (rnd() % 2)];
		snprintf(what, sizeof(what), "%s %s", a, b);
		r = sys_mount(a, b, NULL, MS_BIND | MS_UNION | MS_REC, NULL);
		break;
	case O_OPEN_TREE:
		fd = sys_open_tree(AT_FDCWD, a, OPEN_TREE_CLOEXEC |
				   (rnd() % 4 ? OPEN_TREE_CLONE : 0) |
				   (rnd() % 2 ? AT_RECURSIVE : 0));
		r = pool_put(fd);
		break;
	case O_FSMOUNT:
		fd = sys_fsopen("tmpfs", FSOPEN_CLOEXEC);
		r = fd;
		if (fd >= 0) {
			int mfd = -1;

			if (!sys_fsconfig(fd, FSCONFIG_CMD_CREATE, NULL, NULL,
					  0))
				mfd = sys_fsmount(fd, FSMOUNT_CLOEXEC,
						  rand_attr());
			r = mfd < 0 ? -1 : pool_put(mfd);
			i = errno;
			close(fd);
			errno = i;
		}
		break;
	case O_SETATTR:
		attr.attr_set = rand_attr();
		attr.attr_clr = rnd() % 3 ? 0 : rand_attr() & ~attr.attr_set;
		i = rnd() % NFD;
		if (rnd() % 2 && pool[i] >= 0)
			r = sys_mount_setattr(pool[i], "", AT_EMPTY_PATH |
					      (rnd() % 2 ? AT_RECURSIVE : 0),
					      &attr);
		else
			r = sys_mount_setattr(AT_FDCWD, a, rnd() % 2 ?
					      AT_RECURSIVE : 0, &attr);
		snprintf(what, sizeof(what), "%s set 0x%x clr 0x%x", a,
			 (unsigned int)attr.attr_set,
			 (unsigned int)attr.attr_clr);
		break;
	case O_MOVE:
		i = rnd() % NFD;
		if (rnd() % 2 && pool[i] >= 0)
			r = sys_move_mount(pool[i], "", AT_FDCWD, b,
					   MOVE_MOUNT_F_EMPTY_PATH |
					   (rnd() % 3 ? 0 : MOVE_MOUNT_BENEATH));
		else
			r = sys_move_mount(AT_FDCWD, a, AT_FDCWD, b,
					   rnd() % 3 ? 0 : MOVE_MOUNT_BENEATH);
		break;
	case O_UMOUNT: {
		static const int fl[] = { 0, MNT_DETACH, UMOUNT_NOFOLLOW,
					  MNT_DETACH | UMOUNT_NOFOLLOW };

		r = sys_umount2(a, fl[rnd() % 4]);
		break;
	}
	case O_PROPAGATION: {
		static const unsigned long fl[] = { MS_SHARED, MS_PRIVATE,
						    MS_SLAVE, MS_UNBINDABLE };

		r = sys_mount(NULL, a, NULL, fl[rnd() % 4] |
			      (rnd() % 2 ? MS_REC : 0), NULL);
		break;
	}
	case O_CLOSE:
		i = rnd() % NFD;
		if (pool[i] >= 0) {
			r = close(pool[i]);
			pool[i] = -1;
		}
		break;
	default:
		use(st);
		return;
	}
	note(st, op, r, what);
}

static int mkdirs(const char *top)
{
	static const char *const rel[NDIR] = {
		"a", "b", "a/x", "b/y", "a/x/p", "b/y/q", "c", "d", "e",
		"c/m", "d/n", "e/o",
	};
	char p[sizeof(dirs[0]) + 16];

	for (int i = 0; i < NDIR; i++) {
		snprintf(dirs[i], sizeof(dirs[i]), "%s/%s", top, rel[i]);
		if (mkdir(dirs[i], 0755) && errno != EEXIST)
			return -1;
		for (int k = 0; k < 3; k++) {
			snprintf(p, sizeof(p), "%.299s/n%d", dirs[i], k);
			close(open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
		}
	}
	return 0;
}

/* Take every mount off the directories, innermost first. */
static void unmount_all(void)
{
	for (int round = 0; round < 64; round++) {
		bool any = false;

		for (int i = NDIR - 1; i >= 0; i--)
			if (!sys_umount2(dirs[i], MNT_DETACH))
				any = true;
		if (!any)
			break;
	}
}

/* The union layers in this mount namespace ("union" in mountinfo). */
static int count_union_layers(void)
{
	char line[4096];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *opts = line, *tok, *save;

		/* the sixth field: per-mount options */
		for (int i = 0; i < 5 && opts; i++) {
			opts = strchr(opts, ' ');
			if (opts)
				opts++;
		}
		if (!opts)
			continue;
		opts[strcspn(opts, " ")] = 0;
		for (tok = strtok_r(opts, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save))
			n += !strcmp(tok, "union");
	}
	fclose(f);
	return n;
}

/*
 * The fuzzing itself, in the caller's (new) mount namespace.  With
 * @no_union (a user namespace: union layers need CAP_SYS_ADMIN in the
 * initial one), no union layer may exist at the end.
 */
static int fuzz(const char *label, unsigned long long seed, long ops,
		int secs, bool no_union)
{
	struct stats st = { 0 };
	time_t end = time(NULL) + secs;
	pid_t wpid[8] = { 0 }, parent = getpid();
	int layers, wbad = 0;
	long n;

	rs = seed * 2654435761ULL + 1;
	for (int i = 0; i < NFD; i++)
		pool[i] = -1;
	if (mkdirs(base)) {
		printf("# %s: cannot make the directories in %s: %m\n", label,
		       base);
		return 1;
	}
	for (int w = 0; w < workers; w++) {
		pid_t pid = fork();

		if (pid == 0) {
			struct stats ws = { 0 };

			/* their own sequence; the fuzzer's stays the seed's */
			rs = (seed + 1000 * (w + 1)) * 2654435761ULL + 1;
			while (getppid() == parent && time(NULL) < end + 1) {
				use(&ws);
				if (ws.bad) {
					printf("# %s: worker %d: an unclear errno: %s\n",
					       label, w, ws.first_bad);
					_exit(1);
				}
			}
			_exit(0);
		}
		wpid[w] = pid;
	}
	for (n = 0; n < ops && time(NULL) < end; n++)
		one_op(&st);
	for (int w = 0; w < workers; w++) {
		int status = 0;

		if (wpid[w] <= 0)
			continue;
		kill(wpid[w], SIGTERM);
		waitpid(wpid[w], &status, 0);
		if (WIFEXITED(status) && WEXITSTATUS(status))
			wbad++;
	}
	layers = count_union_layers();
	for (int i = 0; i < NFD; i++)
		if (pool[i] >= 0)
			close(pool[i]);
	unmount_all();
	printf("# %s: %d union layers mounted at the end\n", label, layers);
	if (layers < 0 || (no_union && layers)) {
		printf("# %s: %s\n", label, layers < 0 ?
		       "cannot read /proc/self/mountinfo" :
		       "union layers were made without CAP_SYS_ADMIN");
		return 1;
	}
	printf("# %s: seed %llu, %ld calls:", label, seed, n);
	for (int i = 0; i < O_NR; i++)
		printf(" %s=%lu/%lu", op_names[i], st.ok[i],
		       st.ok[i] + st.fail[i]);
	printf(" (succeeded/tried)\n");
	if (st.bad) {
		printf("# %s: %lu calls failed with an unclear errno, first: %s\n",
		       label, st.bad, st.first_bad);
		return 1;
	}
	if (workers)
		printf("# %s: %d workers used the directories meanwhile, %d failed\n",
		       label, workers, wbad);
	return wbad ? 1 : 0;
}

/* A mount namespace and a tmpfs of our own at @dir. */
static int own_tmpfs(const char *dir)
{
	if (unshare(CLONE_NEWNS) ||
	    sys_mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -1;
	mkdir(dir, 0755);
	return sys_mount("mfz", dir, "tmpfs", 0, "mode=0755");
}

/* 500 union layers on one directory: each succeeds or fails clearly. */
static int many_layers(void)
{
	char tgt[300], src[300], p[400];
	int made = 0, err = 0, fd;
	struct stat sb;
	DIR *dp;

	snprintf(tgt, sizeof(tgt), "%s/many", base);
	mkdir(tgt, 0755);
	snprintf(p, sizeof(p), "%s/bottom-only", tgt);
	close(open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
	for (int i = 0; i < 500; i++) {
		snprintf(src, sizeof(src), "%s/l%03d", base, i);
		if (mkdir(src, 0755))
			break;
		snprintf(p, sizeof(p), "%s/f%03d", src, i);
		close(open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
		if (sys_mount(src, tgt, NULL, MS_BIND | MS_UNION |
			      (i % 2 ? MS_RDONLY : 0), NULL)) {
			err = errno;
			break;
		}
		made++;
	}
	if (err && !clear_errno(err)) {
		printf("# layer %d: mount failed with errno %d (%s)\n",
		       made + 1, err, strerror(err));
		return 1;
	}
	/* a name of the bottom directory, and one of each layer */
	snprintf(p, sizeof(p), "%s/bottom-only", tgt);
	if (stat(p, &sb) && !clear_errno(errno)) {
		printf("# stat through %d layers: errno %d\n", made, errno);
		return 1;
	}
	int listed = 0;

	dp = opendir(tgt);
	if (dp) {
		errno = 0;
		while (readdir(dp))
			listed++;
		if (errno && !clear_errno(errno)) {
			printf("# readdir through %d layers: errno %d\n", made,
			       errno);
			closedir(dp);
			return 1;
		}
		closedir(dp);
	}
	snprintf(p, sizeof(p), "%s/new", tgt);
	fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	else if (!clear_errno(errno)) {
		printf("# create through %d layers: errno %d\n", made, errno);
		return 1;
	}
	printf("# %d union layers stacked on one directory%s%s; the listing has %d entries\n",
	       made, err ? ", then " : "", err ? strerror(err) : "", listed);
	for (int i = 0; i < made + 1; i++)
		if (sys_umount2(tgt, MNT_DETACH))
			break;
	return 0;
}

/* As uid 1000 in a user and mount namespace of its own. */
static int userns_child(unsigned long long seed, long ops, int secs)
{
	char map[64];
	int fd;

	if (setgroups(0, NULL) || setresgid(1000, 1000, 1000) ||
	    setresuid(1000, 1000, 1000)) {
		printf("# cannot become uid 1000: %m\n");
		return 2;
	}
	/* setresuid() made us undumpable: /proc/self/uid_map root's */
	prctl(PR_SET_DUMPABLE, 1);
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS)) {
		printf("# unshare(CLONE_NEWUSER | CLONE_NEWNS): %m\n");
		return 3;
	}
	fd = open("/proc/self/setgroups", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "deny", 4) != 4)
			return 4;
		close(fd);
	}
	snprintf(map, sizeof(map), "0 1000 1");
	fd = open("/proc/self/uid_map", O_WRONLY);
	if (fd < 0 || write(fd, map, strlen(map)) != (ssize_t)strlen(map)) {
		printf("# uid_map: %m\n");
		return 5;
	}
	close(fd);
	fd = open("/proc/self/gid_map", O_WRONLY);
	if (fd < 0 || write(fd, map, strlen(map)) != (ssize_t)strlen(map)) {
		printf("# gid_map: %m\n");
		return 6;
	}
	close(fd);
	if (sys_mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    sys_mount("mfz", base, "tmpfs", 0, "mode=0755")) {
		printf("# tmpfs in the user namespace: %m\n");
		return 7;
	}
	return fuzz("uid 1000 in a user namespace", seed, ops, secs, true);
}

/* One TAP line for the child @pid, test @n: 1 if it failed. */
static int report(int n, pid_t pid, const char *what)
{
	int status = 0;

	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		printf("not ok %d - %s (fork or wait: %m)\n", n, what);
		return 1;
	}
	if (WIFEXITED(status) && !WEXITSTATUS(status)) {
		printf("ok %d - %s\n", n, what);
		return 0;
	}
	printf("not ok %d - %s (status 0x%x)\n", n, what, status);
	return 1;
}

int main(int argc, char **argv)
{
	unsigned long long seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
	long ops = argc > 2 ? atol(argv[2]) : 4000;
	int n = 0, failed = 0;
	pid_t pid;

	workers = argc > 3 ? atoi(argv[3]) : 2;
	if (workers < 0 || workers > 8)
		workers = 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# seed %llu, at most %ld calls per run, %d workers (union_mountfuzz_test %llu %ld %d repeats the calls)\n",
	       seed, ops, workers, seed, ops, workers);
	snprintf(base, sizeof(base), "/tmp/mountfuzz");
	printf("1..3\n");

	/* each part in a child, so that its mount namespace dies with it */
	pid = fork();
	if (pid == 0) {
		if (own_tmpfs(base)) {
			printf("# a mount namespace and tmpfs of our own: %m\n");
			_exit(1);
		}
		_exit(fuzz("root", seed, ops, 60, false));
	}
	failed += report(++n, pid, "mount API fuzzing with union layers as root");

	pid = fork();
	if (pid == 0) {
		if (own_tmpfs(base))
			_exit(1);
		_exit(many_layers());
	}
	failed += report(++n, pid,
			 "500 union layers on one directory: each mount, the walk, the listing and a create succeed or fail clearly");

	snprintf(base, sizeof(base), "/tmp/mountfuzz-user");
	mkdir(base, 0755);
	if (chown(base, 1000, 1000))
		printf("# chown %s: %m\n", base);
	pid = fork();
	if (pid == 0)
		_exit(userns_child(seed + 1, ops, 60));
	failed += report(++n, pid,
			 "mount API fuzzing with union layers as uid 1000 in a user namespace");
	rmdir(base);
	return failed ? 1 : 0;
}
