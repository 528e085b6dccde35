// SPDX-License-Identifier: GPL-2.0
/*
 * union(8), the command, driven the way the `make vm` guide uses it.
 *
 * Each test runs /usr/bin/union (fork + exec, stdout and stderr captured)
 * in its own mount namespace on four layers made for it:
 *
 *   system  a tree on the variant's scratch file system (tmpfs, ext4, xfs,
 *           btrfs), bind-mounted read-only, as /srv/system in the demo
 *   rw      an empty-ish tmpfs "ucmd-rw", as /srv/rw in the demo
 *   extra   a tmpfs "ucmd-extra", to add beneath
 *   more    a tmpfs "ucmd-more", to add beneath a second time
 *
 * all under a tmpfs "ucmd-base" mounted on a mkdtemp() directory in /tmp,
 * which also holds u, the empty directory the tests stack layers on.  The
 * tests check exit codes, the exact merged listings, where new files land,
 * that a writable top layer takes the copies of the lower files written
 * through the union and the whiteouts of the names removed (the lower
 * layers stay as they were), that a union whose top layer is read-only is
 * EROFS, the exact `union show` output and its layer order, and the exact
 * messages of failures.
 *
 * The layer file systems are mounted by the test guest at
 * $UNION_SCRATCH/{tmpfs,ext4,xfs,btrfs} (default /mnt/scratch).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/magic.h>
#include <linux/mount.h>

#include "guest_util.h"

/* See tools/testing/selftests/union/union_dir_test.c: setjmp() and -O2. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wclobbered"
#endif

#include "kselftest_harness.h"

#ifndef MOUNT_ATTR_UNION
#define MOUNT_ATTR_UNION	0x00400000
#endif
#ifndef __NR_open_tree
#define __NR_open_tree		428
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr	442
#endif

#define UNION_BIN	"/usr/bin/union"
#define OUT_MAX		8192

/* What one run of union(8) did. */
struct result {
	int status;		/* exit status, 128 + signal if killed */
	char out[OUT_MAX];
	char err[OUT_MAX];
};

/*
 * The environment variables ("NAME=VALUE") the next runs of union(8) get,
 * NULL-terminated: UNION_NO_STATMOUNT=1 (mountinfo instead of statmount) and
 * UNION_TEST_NO_UNION_ATTR=1 (as if the kernel did not report union layers).
 */
static const char *union_env[3];

static int run_union(struct result *r, const char *const *argv)
{
	int ofd, efd, st;
	ssize_t n;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	ofd = memfd_create("union-stdout", MFD_CLOEXEC);
	efd = memfd_create("union-stderr", MFD_CLOEXEC);
	if (ofd < 0 || efd < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		if (dup2(ofd, 1) < 0 || dup2(efd, 2) < 0)
			_exit(126);
		for (st = 0; union_env[st]; st++)
			if (putenv((char *)union_env[st]))
				_exit(126);
		execv(UNION_BIN, (char *const *)argv);
		_exit(127);
	}
	if (pid > 0 && waitpid(pid, &st, 0) == pid)
		r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	n = pread(ofd, r->out, sizeof(r->out) - 1, 0);
	r->out[n > 0 ? n : 0] = 0;
	n = pread(efd, r->err, sizeof(r->err) - 1, 0);
	r->err[n > 0 ? n : 0] = 0;
	close(ofd);
	close(efd);
	return r->status;
}

/* UNION(&r, "add", "-c", a, b): run union(8), return its exit status. */
#define UNION(_r, ...) \
	run_union(_r, (const char *const[]){ "union", __VA_ARGS__, NULL })

/* The exit status must be @_st; log what the command said if not. */
#define EXPECT_RUN(_st, _r, ...) do {					\
	int __st = UNION(_r, __VA_ARGS__);				\
	EXPECT_EQ(_st, __st)						\
		TH_LOG("union %s: exit %d, stdout \"%s\", stderr \"%s\"", \
		       #__VA_ARGS__, __st, (_r)->out, (_r)->err);	\
} while (0)

#define ASSERT_RUN(_st, _r, ...) do {					\
	int __st = UNION(_r, __VA_ARGS__);				\
	ASSERT_EQ(_st, __st)						\
		TH_LOG("union %s: exit %d, stdout \"%s\", stderr \"%s\"", \
		       #__VA_ARGS__, __st, (_r)->out, (_r)->err);	\
} while (0)

/* 1 if @path is a whiteout (character device 0/0), else 0. */
static int is_whiteout(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISCHR(st.st_mode) && st.st_rdev == 0;
}

/* errno of open(@path, @flags), 0 if it opened. */
static int open_errno(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0644);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/*
 * How union show names a directory @name made at the root of the scratch
 * file system mounted on @fsdir: "SOURCE[ROOT]" from /proc/self/mountinfo,
 * as findmnt(8) spells it.
 */
static int show_source(const char *fsdir, const char *name, char *buf,
		       size_t len, char *rbuf, size_t rlen)
{
	char line[4096], root[PATH_MAX], mpoint[PATH_MAX], src[PATH_MAX];
	bool found = false;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char r[PATH_MAX], m[PATH_MAX], s[PATH_MAX];
		char *sep = strstr(line, " - ");

		if (!sep || sscanf(line, "%*d %*d %*s %s %s", r, m) != 2 ||
		    sscanf(sep, " - %*s %s", s) != 1)
			continue;
		if (strcmp(m, fsdir))
			continue;
		/* the topmost mount on @fsdir is listed last */
		strcpy(root, r);
		strcpy(src, s);
		strcpy(mpoint, m);
		found = true;
	}
	fclose(f);
	if (!found)
		return -1;
	if (snprintf(buf, len, "%s[%s/%s]", src, strcmp(root, "/") ? root : "",
		     name) >= (int)len)
		return -1;
	if (snprintf(rbuf, rlen, "%s/%s", strcmp(root, "/") ? root : "",
		     name) >= (int)rlen)
		return -1;
	return 0;
}

/* One line of union show. */
static void show_line(char *buf, int n, const char *role, const char *mode,
		      const char *type, const char *src)
{
	char l[2 * PATH_MAX];

	snprintf(l, sizeof(l), "%3d  %-7s  %-4s  %-8s  %s\n", n, role, mode,
		 type, src);
	strcat(buf, l);
}

static void show_head(char *buf, const char *dir, int layers)
{
	if (layers)
		sprintf(buf, "%s: %d union layer%s, top first\n", dir, layers,
			layers == 1 ? "" : "s");
	else
		sprintf(buf, "%s: no union layers\n", dir);
	strcat(buf, "  #  ROLE     MODE  TYPE      SOURCE\n");
}

FIXTURE(ucmd) {
	char base[PATH_MAX];	/* mkdtemp() in /tmp; tmpfs "ucmd-base" on it */
	char scratch[PATH_MAX];	/* mkdtemp() on the variant's file system */
	char sys_src[PATH_MAX];	/* how union show names the system layer */
	char sys_root[PATH_MAX];	/* its directory in its file system */
	char system[PATH_MAX];	/* scratch, bind-mounted read-only */
	char rw[PATH_MAX];	/* tmpfs "ucmd-rw" */
	char extra[PATH_MAX];	/* tmpfs "ucmd-extra" */
	char more[PATH_MAX];	/* tmpfs "ucmd-more" */
	char u[PATH_MAX];	/* empty directory in base: the union */
	char u_src[PATH_MAX];	/* how union show names u itself */
};

FIXTURE_VARIANT(ucmd) {
	const char *fs;
	long magic;
};

FIXTURE_VARIANT_ADD(ucmd, tmpfs) { .fs = "tmpfs", .magic = TMPFS_MAGIC };
FIXTURE_VARIANT_ADD(ucmd, ext4) { .fs = "ext4", .magic = EXT4_SUPER_MAGIC };
FIXTURE_VARIANT_ADD(ucmd, xfs) { .fs = "xfs", .magic = XFS_SUPER_MAGIC };
FIXTURE_VARIANT_ADD(ucmd, btrfs) { .fs = "btrfs", .magic = BTRFS_SUPER_MAGIC };

FIXTURE_SETUP(ucmd)
{
	static const char *rw_files[] = {
		"shared", "from rw\n", "notes", "rw notes\n", NULL };
	static const char *extra_files[] = {
		"shared", "from extra\n", "README", "extra readme\n",
		"extra-only", "extra\n", NULL };
	static const char *more_files[] = {
		"extra-only", "from more\n", "more-only", "more\n", NULL };
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_UNION };
	const char *sroot = getenv("UNION_SCRATCH");
	char fsdir[PATH_MAX], p[PATH_MAX];
	struct statfs sfs;
	int fd, ret, err;

	self->base[0] = self->scratch[0] = 0;
	ASSERT_EQ(0, access(UNION_BIN, X_OK)) TH_LOG("%s: %m", UNION_BIN);
	ASSERT_EQ(0, unshare(CLONE_NEWNS)) TH_LOG("unshare(CLONE_NEWNS): %m");
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		TH_LOG("making / private: %m");

	pjoin(fsdir, sroot ? sroot : "/mnt/scratch", variant->fs);
	if (statfs(fsdir, &sfs) || sfs.f_type != variant->magic)
		SKIP(return, "no %s scratch file system at %s", variant->fs,
		     fsdir);

	/* the probe union(8) makes: MOUNT_ATTR_UNION on a detached copy */
	fd = syscall(__NR_open_tree, AT_FDCWD, "/", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open_tree(/, OPEN_TREE_CLONE): %m");
	ret = syscall(__NR_mount_setattr, fd, "", AT_EMPTY_PATH, &attr,
		      sizeof(attr));
	err = errno;
	close(fd);
	if (ret && err == EINVAL)
		SKIP(return, "MOUNT_ATTR_UNION: EINVAL, kernel without union mounts");
	ASSERT_EQ(0, ret) TH_LOG("mount_setattr(MOUNT_ATTR_UNION): %s",
				 strerror(err));

	/* the system tree, on the variant's file system */
	pjoin(self->scratch, fsdir, "ucmd.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->scratch)) TH_LOG("mkdtemp in %s: %m", fsdir);
	ASSERT_EQ(0, chmod(self->scratch, 0755));
	ASSERT_EQ(0, make_file(P(self->scratch, "README"), "system readme\n"));
	ASSERT_EQ(0, make_file(P(self->scratch, "shared"), "from system\n"));
	ASSERT_EQ(0, mkdir(P(self->scratch, "bin"), 0755));
	ASSERT_EQ(0, mkdir(P(self->scratch, "etc"), 0755));
	pjoin(p, self->scratch, "etc/motd");
	ASSERT_EQ(0, make_file(p, "system motd\n"));
	ASSERT_EQ(0, show_source(fsdir, strrchr(self->scratch, '/') + 1,
				 self->sys_src, sizeof(self->sys_src),
				 self->sys_root, sizeof(self->sys_root)))
		TH_LOG("no mount on %s in /proc/self/mountinfo", fsdir);

	/* the base tmpfs and the layers in it */
	strcpy(self->base, "/tmp/ucmd.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->base)) TH_LOG("mkdtemp in /tmp: %m");
	ASSERT_EQ(0, mount("ucmd-base", self->base, "tmpfs", 0, "mode=0755"))
		TH_LOG("tmpfs on %s: %m", self->base);
	pjoin(self->system, self->base, "system");
	pjoin(self->rw, self->base, "rw");
	pjoin(self->extra, self->base, "extra");
	pjoin(self->more, self->base, "more");
	pjoin(self->u, self->base, "u");
	strcpy(self->u_src, "ucmd-base[/u]");
	ASSERT_EQ(0, mkdir(self->u, 0755));
	ASSERT_EQ(0, mkdir(self->system, 0755));
	ASSERT_EQ(0, mount(self->scratch, self->system, NULL, MS_BIND, NULL))
		TH_LOG("bind %s on %s: %m", self->scratch, self->system);
	ASSERT_EQ(0, mount(NULL, self->system, NULL,
			   MS_REMOUNT | MS_BIND | MS_RDONLY, NULL))
		TH_LOG("remount %s read-only: %m", self->system);
	ASSERT_EQ(0, layer_tmpfs(self->rw, "ucmd-rw", rw_files))
		TH_LOG("%s: %m", self->rw);
	ASSERT_EQ(0, layer_tmpfs(self->extra, "ucmd-extra", extra_files))
		TH_LOG("%s: %m", self->extra);
	ASSERT_EQ(0, layer_tmpfs(self->more, "ucmd-more", more_files))
		TH_LOG("%s: %m", self->more);
}

/* The mounts go with the test's namespace; the directories stay. */
FIXTURE_TEARDOWN_PARENT(ucmd)
{
	if (self->scratch[0])
		remove_tree(self->scratch);
	if (self->base[0])
		rmdir(self->base);
}

/* Bad usage exits 2 with the synopsis; --help exits 0. */
TEST_F(ucmd, usage)
{
	struct result r;

	EXPECT_RUN(2, &r, NULL);
	EXPECT_STREQ("", r.out);
	EXPECT_NE(NULL, strstr(r.err, "usage: union add"));
	EXPECT_RUN(2, &r, "frob", self->u);
	EXPECT_EQ(0, strncmp(r.err, "union: unknown command: frob\n", 29))
		TH_LOG("stderr: %s", r.err);
	EXPECT_RUN(2, &r, "add", self->rw);
	EXPECT_NE(NULL, strstr(r.err, "usage: union add"));
	EXPECT_RUN(2, &r, "add", self->rw, self->u, self->u);
	EXPECT_RUN(2, &r, "add", "-x", self->rw, self->u);
	EXPECT_EQ(0, strncmp(r.err, "union: unknown option", 21))
		TH_LOG("stderr: %s", r.err);
	EXPECT_RUN(2, &r, "remove");
	EXPECT_RUN(2, &r, "remove", "--bogus", self->u);
	EXPECT_RUN(2, &r, "show");
	EXPECT_RUN(2, &r, "show", self->u, self->u);
	EXPECT_RUN(2, &r, "probe", self->u);

	EXPECT_RUN(0, &r, "--help");
	EXPECT_EQ(0, strncmp(r.out, "usage: union add [-b | -a] [-c | -r] LAYER DIR\n", 47))
		TH_LOG("stdout: %s", r.out);
	EXPECT_STREQ("", r.err);
	EXPECT_RUN(0, &r, "-h");
	EXPECT_RUN(0, &r, "add", "--help");
	EXPECT_RUN(0, &r, "probe");
	EXPECT_STREQ("union mounts: supported\n", r.out);

	/* nothing was mounted by any of it */
	EXPECT_STREQ("", names(self->u));
}

/* Failures name the step, the path and the errno, exit 1, change nothing. */
TEST_F(ucmd, bad_paths)
{
	char want[4 * PATH_MAX];
	struct result r;

	EXPECT_RUN(1, &r, "add", P(self->base, "nope"), self->u);
	snprintf(want, sizeof(want),
		 "union: open_tree %s/nope: No such file or directory\n", self->base);
	EXPECT_STREQ(want, r.err);
	EXPECT_STREQ("", r.out);

	EXPECT_RUN(1, &r, "add", "-c", self->rw, P(self->base, "nope"));
	snprintf(want, sizeof(want),
		 "union: open %s/nope: No such file or directory\n", self->base);
	EXPECT_STREQ(want, r.err);

	EXPECT_RUN(1, &r, "add", P(self->system, "README"), self->u);
	snprintf(want, sizeof(want),
		 "union: open_tree %s/README: Not a directory\n", self->system);
	EXPECT_STREQ(want, r.err);

	EXPECT_RUN(1, &r, "add", "-a", self->rw, P(self->system, "README"));
	snprintf(want, sizeof(want),
		 "union: open %s/README: Not a directory\n", self->system);
	EXPECT_STREQ(want, r.err);

	EXPECT_RUN(1, &r, "show", P(self->base, "nope"));
	snprintf(want, sizeof(want),
		 "union: statx %s/nope: No such file or directory\n", self->base);
	EXPECT_STREQ(want, r.err);

	EXPECT_RUN(1, &r, "remove", self->u);
	snprintf(want, sizeof(want), "union: remove %s: no union layer on %s\n",
		 self->u, self->u);
	EXPECT_STREQ(want, r.err);
	EXPECT_RUN(1, &r, "remove", "-a", self->system);

	EXPECT_STREQ("", names(self->u));
	EXPECT_STREQ("README bin etc shared", names(self->system));
}

/*
 * The demo: the system tree, then a writable layer on top; new files land
 * in the top layer, a system file written through the union is copied up
 * to it, a system file removed leaves a whiteout in it, and the system
 * tree itself never changes; show lists both; remove takes them off one by
 * one, back to the empty directory.
 */
TEST_F(ucmd, top_layers)
{
	char want[4 * PATH_MAX];
	struct result r;

	ASSERT_RUN(0, &r, "add", self->system, self->u);
	EXPECT_STREQ("", r.out);
	EXPECT_STREQ("", r.err);
	EXPECT_STREQ("README bin etc shared", names(self->u));
	/* read-only by default: not even a new name */
	EXPECT_EQ(EROFS, open_errno(P(self->u, "new"), O_WRONLY | O_CREAT));

	ASSERT_RUN(0, &r, "add", "-c", self->rw, self->u);
	EXPECT_STREQ("", r.err);
	EXPECT_STREQ("README bin etc notes shared", names(self->u));
	EXPECT_STREQ("from rw\n", content(P(self->u, "shared")));
	EXPECT_STREQ("system readme\n", content(P(self->u, "README")));
	EXPECT_STREQ("system motd\n", content(P(self->u, "etc/motd")));

	/* a new name goes into the top layer */
	ASSERT_EQ(0, make_file(P(self->u, "new"), "new\n")) TH_LOG("%m");
	EXPECT_STREQ("new notes shared", names(self->rw));
	EXPECT_STREQ("new\n", content(P(self->rw, "new")));
	EXPECT_STREQ("README bin etc new notes shared", names(self->u));

	/* a system file written through the union: copied up to rw */
	ASSERT_EQ(0, append_file(P(self->u, "README"), "rw line\n"))
		TH_LOG("append to README: %m");
	EXPECT_STREQ("system readme\nrw line\n", content(P(self->u, "README")));
	EXPECT_STREQ("system readme\nrw line\n", content(P(self->rw, "README")));
	/* a system file removed: a whiteout in rw's copy of etc */
	ASSERT_EQ(0, unlink(P(self->u, "etc/motd"))) TH_LOG("unlink etc/motd: %m");
	EXPECT_EQ(ENOENT, open_errno(P(self->u, "etc/motd"), O_RDONLY));
	EXPECT_STREQ("", names(P(self->u, "etc")));
	EXPECT_EQ(1, is_whiteout(P(self->rw, "etc/motd")));
	EXPECT_EQ(-1, mkdir(P(self->u, "etc"), 0755));
	EXPECT_EQ(EEXIST, errno);
	EXPECT_STREQ("README bin etc new notes shared", names(self->u));
	EXPECT_STREQ("README etc new notes shared", names(self->rw));
	/* what is below is never modified */
	EXPECT_STREQ("system readme\n", content(P(self->scratch, "README")));
	EXPECT_STREQ("system motd\n", content(P(self->scratch, "etc/motd")));

	ASSERT_RUN(0, &r, "show", self->u);
	show_head(want, self->u, 2);
	show_line(want, 1, "layer", "rw", "tmpfs", "ucmd-rw");
	show_line(want, 2, "layer", "ro", variant->fs, self->sys_src);
	show_line(want, 3, "covered", "rw", "tmpfs", self->u_src);
	EXPECT_STREQ(want, r.out);
	EXPECT_STREQ("", r.err);

	/* remove: the previous view comes back */
	ASSERT_RUN(0, &r, "remove", self->u);
	EXPECT_STREQ("", r.out);
	EXPECT_STREQ("", r.err);
	EXPECT_STREQ("README bin etc shared", names(self->u));
	EXPECT_STREQ("from system\n", content(P(self->u, "shared")));
	EXPECT_STREQ("system readme\n", content(P(self->u, "README")));
	EXPECT_STREQ("system motd\n", content(P(self->u, "etc/motd")));
	EXPECT_EQ(ENOENT, open_errno(P(self->u, "new"), O_RDONLY));
	ASSERT_RUN(0, &r, "show", self->u);
	show_head(want, self->u, 1);
	show_line(want, 1, "layer", "ro", variant->fs, self->sys_src);
	show_line(want, 2, "covered", "rw", "tmpfs", self->u_src);
	EXPECT_STREQ(want, r.out);

	ASSERT_RUN(0, &r, "remove", self->u);
	EXPECT_STREQ("", names(self->u));
	ASSERT_RUN(0, &r, "show", self->u);
	show_head(want, self->u, 0);
	show_line(want, 1, "covered", "rw", "tmpfs", self->u_src);
	EXPECT_STREQ(want, r.out);
	EXPECT_RUN(1, &r, "remove", self->u);

	/* remove -a takes the whole stack off */
	ASSERT_RUN(0, &r, "add", self->system, self->u);
	ASSERT_RUN(0, &r, "add", "--writable", self->rw, self->u);
	ASSERT_RUN(0, &r, "add", self->extra, self->u);
	EXPECT_STREQ("README bin etc extra-only new notes shared", names(self->u));
	EXPECT_STREQ("from extra\n", content(P(self->u, "shared")));
	/* rw, now in the middle, still hides what it whited out */
	EXPECT_EQ(ENOENT, open_errno(P(self->u, "etc/motd"), O_RDONLY));
	/* the top layer is read-only (no -c): so is the union */
	EXPECT_EQ(EROFS, open_errno(P(self->u, "new2"), O_WRONLY | O_CREAT));
	EXPECT_EQ(EROFS, open_errno(P(self->u, "notes"), O_WRONLY));
	EXPECT_EQ(-1, rmdir(P(self->u, "bin")));
	EXPECT_EQ(EROFS, errno);
	ASSERT_RUN(0, &r, "remove", "-a", self->u);
	EXPECT_STREQ("", names(self->u));
	EXPECT_STREQ("README etc new notes shared", names(self->rw));
	EXPECT_STREQ("rw notes\n", content(P(self->rw, "notes")));
}

/* add -a on a directory that is no union: its own names stay on top. */
TEST_F(ucmd, beneath_plain)
{
	char want[4 * PATH_MAX];
	struct result r;

	ASSERT_RUN(0, &r, "add", "-a", self->extra, self->system);
	EXPECT_STREQ("", r.out);
	EXPECT_STREQ("", r.err);
	EXPECT_STREQ("README bin etc extra-only shared", names(self->system));
	EXPECT_STREQ("from system\n", content(P(self->system, "shared")));
	EXPECT_STREQ("system readme\n", content(P(self->system, "README")));
	EXPECT_STREQ("extra\n", content(P(self->system, "extra-only")));
	/* the top layer, the system tree's own copy, is read-only: so is all */
	EXPECT_EQ(EROFS, open_errno(P(self->system, "extra-only"), O_WRONLY));
	EXPECT_EQ(EROFS, open_errno(P(self->system, "new"), O_WRONLY | O_CREAT));

	ASSERT_RUN(0, &r, "show", self->system);
	show_head(want, self->system, 2);
	show_line(want, 1, "layer", "ro", variant->fs, self->sys_src);
	show_line(want, 2, "layer", "ro", "tmpfs", "ucmd-extra");
	show_line(want, 3, "covered", "ro", variant->fs, self->sys_src);
	EXPECT_STREQ(want, r.out);

	/* remove -a: back to the plain directory */
	ASSERT_RUN(0, &r, "remove", "-a", self->system);
	EXPECT_STREQ("README bin etc shared", names(self->system));
	ASSERT_RUN(0, &r, "show", self->system);
	show_head(want, self->system, 0);
	show_line(want, 1, "covered", "ro", variant->fs, self->sys_src);
	EXPECT_STREQ(want, r.out);

	/* on an empty directory: the layer's names, behind the directory's */
	ASSERT_RUN(0, &r, "add", "-a", self->extra, self->u);
	EXPECT_STREQ("README extra-only shared", names(self->u));
	ASSERT_RUN(0, &r, "show", self->u);
	show_head(want, self->u, 2);
	show_line(want, 1, "layer", "rw", "tmpfs", self->u_src);
	show_line(want, 2, "layer", "ro", "tmpfs", "ucmd-extra");
	show_line(want, 3, "covered", "rw", "tmpfs", self->u_src);
	EXPECT_STREQ(want, r.out);
	/* the directory's own copy is on top and writable, as it was */
	ASSERT_EQ(0, make_file(P(self->u, "mine"), "mine\n")) TH_LOG("%m");
	ASSERT_RUN(0, &r, "remove", "-a", self->u);
	EXPECT_STREQ("mine", names(self->u));
}

/*
 * add -a under a union stack rebuilds it: the new layer at the bottom, its
 * names hidden by the same names above, the layers above in their order
 * and with their modes.
 */
TEST_F(ucmd, beneath_stack)
{
	char want[4 * PATH_MAX];
	struct result r;

	ASSERT_RUN(0, &r, "add", self->system, self->u);
	ASSERT_RUN(0, &r, "add", "-c", self->rw, self->u);
	ASSERT_RUN(0, &r, "add", "--after", self->extra, self->u);
	EXPECT_STREQ("", r.out);
	EXPECT_STREQ("", r.err);
	EXPECT_STREQ("README bin etc extra-only notes shared", names(self->u));
	EXPECT_STREQ("from rw\n", content(P(self->u, "shared")));
	EXPECT_STREQ("system readme\n", content(P(self->u, "README")));
	EXPECT_STREQ("extra\n", content(P(self->u, "extra-only")));

	ASSERT_RUN(0, &r, "show", self->u);
	show_head(want, self->u, 4);
	show_line(want, 1, "layer", "rw", "tmpfs", "ucmd-rw");
	show_line(want, 2, "layer", "ro", variant->fs, self->sys_src);
	show_line(want, 3, "layer", "rw", "tmpfs", self->u_src);
	show_line(want, 4, "layer", "ro", "tmpfs", "ucmd-extra");
	show_line(want, 5, "covered", "rw", "tmpfs", self->u_src);
	EXPECT_STREQ(want, r.out);

	/* the top layer is still the writable one: new names and copies */
	ASSERT_EQ(0, make_file(P(self->u, "new"), "new\n")) TH_LOG("%m");
	EXPECT_STREQ("new notes shared", names(self->rw));
	ASSERT_EQ(0, truncate(P(self->u, "extra-only"), 0)) TH_LOG("%m");
	ASSERT_EQ(0, append_file(P(self->u, "extra-only"), "rw extra\n"))
		TH_LOG("%m");
	EXPECT_STREQ("rw extra\n", content(P(self->u, "extra-only")));
	EXPECT_STREQ("rw extra\n", content(P(self->rw, "extra-only")));
	EXPECT_STREQ("extra\n", content(P(self->extra, "extra-only")));
	EXPECT_STREQ("extra-only new notes shared", names(self->rw));

	/* once more beneath: no second copy of u */
	ASSERT_RUN(0, &r, "add", "-a", self->more, self->u);
	EXPECT_STREQ("README bin etc extra-only more-only new notes shared",
		     names(self->u));
	EXPECT_STREQ("rw extra\n", content(P(self->u, "extra-only")));
	EXPECT_STREQ("more\n", content(P(self->u, "more-only")));
	ASSERT_RUN(0, &r, "show", self->u);
	show_head(want, self->u, 5);
	show_line(want, 1, "layer", "rw", "tmpfs", "ucmd-rw");
	show_line(want, 2, "layer", "ro", variant->fs, self->sys_src);
	show_line(want, 3, "layer", "rw", "tmpfs", self->u_src);
	show_line(want, 4, "layer", "ro", "tmpfs", "ucmd-extra");
	show_line(want, 5, "layer", "ro", "tmpfs", "ucmd-more");
	show_line(want, 6, "covered", "rw", "tmpfs", self->u_src);
	EXPECT_STREQ(want, r.out);

	/* remove: the top layer goes, the rest stays in order */
	ASSERT_RUN(0, &r, "remove", self->u);
	EXPECT_STREQ("README bin etc extra-only more-only shared", names(self->u));
	EXPECT_STREQ("from system\n", content(P(self->u, "shared")));
	EXPECT_STREQ("extra\n", content(P(self->u, "extra-only")));
	ASSERT_RUN(0, &r, "remove", "--all", self->u);
	EXPECT_STREQ("", names(self->u));
	ASSERT_RUN(0, &r, "show", self->u);
	show_head(want, self->u, 0);
	show_line(want, 1, "covered", "rw", "tmpfs", self->u_src);
	EXPECT_STREQ(want, r.out);
	EXPECT_STREQ("README bin etc shared", names(self->scratch));
}

/* --- show from statmount(2), its columns and JSON; add's check ---------- */

/* The mountinfo ID of the mount @path is on (statx STATX_MNT_ID), or -1. */
static long mnt_id(const char *path)
{
	struct statx stx;

	if (statx(AT_FDCWD, path, 0, STATX_MNT_ID, &stx) ||
	    !(stx.stx_mask & STATX_MNT_ID))
		return -1;
	return stx.stx_mnt_id;
}

/* Runs of union(8) from here on see only these variables of ours. */
static void set_env(const char *a, const char *b)
{
	union_env[0] = a;
	union_env[1] = a ? b : NULL;
	union_env[2] = NULL;
}

/*
 * "union show ARGS..." exits 0 and prints the same bytes from statmount(2)
 * as from /proc/self/mountinfo (UNION_NO_STATMOUNT=1); stdout in @_r.
 */
#define EXPECT_SAME_SHOW(_r, ...) do {					\
	struct result __m;						\
	int __s1, __s2;							\
									\
	set_env(NULL, NULL);						\
	__s1 = UNION(_r, "show", __VA_ARGS__);				\
	set_env("UNION_NO_STATMOUNT=1", NULL);				\
	__s2 = UNION(&__m, "show", __VA_ARGS__);			\
	set_env(NULL, NULL);						\
	EXPECT_EQ(0, __s1) TH_LOG("show %s (statmount): %s", #__VA_ARGS__, \
				  (_r)->err);				\
	EXPECT_EQ(0, __s2) TH_LOG("show %s (mountinfo): %s", #__VA_ARGS__, \
				  __m.err);				\
	EXPECT_STREQ((_r)->out, __m.out)				\
		TH_LOG("show %s: statmount and mountinfo differ", #__VA_ARGS__); \
	EXPECT_STREQ("", (_r)->err);					\
	EXPECT_STREQ("", __m.err);					\
} while (0)

/*
 * A 2-layer stack: the JSON of the chosen columns, exactly; every output
 * form the same from statmount and from mountinfo.
 */
TEST_F(ucmd, show_json_two_layers)
{
	char want[8 * PATH_MAX];
	struct result r;

	ASSERT_RUN(0, &r, "add", self->system, self->u);
	ASSERT_RUN(0, &r, "add", "-c", self->rw, self->u);

	EXPECT_SAME_SHOW(&r, "--json", "-o",
			 "pos,role,mode,type,source,root,target", self->u);
	snprintf(want, sizeof(want),
		 "{\n"
		 "  \"dir\": \"%s\",\n"
		 "  \"layers\": 2,\n"
		 "  \"stack\": [\n"
		 "    {\"pos\": 1, \"role\": \"layer\", \"mode\": \"rw\", \"type\": \"tmpfs\", \"source\": \"ucmd-rw\", \"root\": \"/\", \"target\": \"%s\"},\n"
		 "    {\"pos\": 2, \"role\": \"layer\", \"mode\": \"ro\", \"type\": \"%s\", \"source\": \"%s\", \"root\": \"%s\", \"target\": \"%s\"},\n"
		 "    {\"pos\": 3, \"role\": \"covered\", \"mode\": \"rw\", \"type\": \"tmpfs\", \"source\": \"ucmd-base[/u]\", \"root\": \"/u\", \"target\": \"%s\"}\n"
		 "  ]\n"
		 "}\n",
		 self->u, self->u, variant->fs, self->sys_src, self->sys_root,
		 self->u, self->base);
	EXPECT_STREQ(want, r.out);

	/* the default columns, the default table: what show always printed */
	EXPECT_SAME_SHOW(&r, self->u);
	show_head(want, self->u, 2);
	show_line(want, 1, "layer", "rw", "tmpfs", "ucmd-rw");
	show_line(want, 2, "layer", "ro", variant->fs, self->sys_src);
	show_line(want, 3, "covered", "rw", "tmpfs", self->u_src);
	EXPECT_STREQ(want, r.out);

	/* all columns (IDs, options) and the other forms: the same both ways */
	EXPECT_SAME_SHOW(&r, "-J", self->u);
	EXPECT_NE(NULL, strstr(r.out, "\"options\": \"rw,relatime,union\"}"))
		TH_LOG("%s", r.out);
	EXPECT_SAME_SHOW(&r, "-r", self->u);
	EXPECT_SAME_SHOW(&r, "-n", self->u);
	EXPECT_SAME_SHOW(&r, "-o", "POS,ID,PARENT,TARGET,ROOT,OPTIONS", self->u);
	EXPECT_SAME_SHOW(&r, "-r", "-n", "-o", "+id,parent,options", self->u);
	EXPECT_SAME_SHOW(&r, "-J", self->base);

	/* a directory in the top layer: no layers, the top layer covered */
	ASSERT_EQ(0, mkdir(P(self->u, "dir"), 0755));
	EXPECT_SAME_SHOW(&r, "-J", "-o", "role,source,target", P(self->u, "dir"));
	snprintf(want, sizeof(want),
		 "{\n  \"dir\": \"%s/dir\",\n  \"layers\": 0,\n  \"stack\": [\n"
		 "    {\"role\": \"covered\", \"source\": \"ucmd-rw[/dir]\", \"target\": \"%s\"}\n"
		 "  ]\n}\n", self->u, self->u);
	EXPECT_STREQ(want, r.out);

	/*
	 * A directory found in a lower layer is on the union's internal view
	 * of that layer, which is in no mount table: the same error both ways.
	 */
	snprintf(want, sizeof(want),
		 "union: %s/etc: on a mount that is not in the mount table (a directory of a union's lower layer?)\n",
		 self->u);
	EXPECT_RUN(1, &r, "show", P(self->u, "etc"));
	EXPECT_STREQ(want, r.err);
	EXPECT_STREQ("", r.out);
	set_env("UNION_NO_STATMOUNT=1", NULL);
	EXPECT_RUN(1, &r, "show", P(self->u, "etc"));
	set_env(NULL, NULL);
	EXPECT_STREQ(want, r.err);
}

/*
 * A 3-layer stack: the table of chosen columns, --raw, --noheadings, the
 * IDs (each layer's PARENT is the mount below it) and the per-mount
 * options, exactly.
 */
TEST_F(ucmd, show_columns_three_layers)
{
	char want[8 * PATH_MAX], line[PATH_MAX];
	long id[4], parent[4], top, base, tmp;
	struct result r;
	char *p;
	int i;

	ASSERT_RUN(0, &r, "add", self->system, self->u);
	ASSERT_RUN(0, &r, "add", "-c", self->rw, self->u);
	ASSERT_RUN(0, &r, "add", self->extra, self->u);

	EXPECT_SAME_SHOW(&r, "-o", "POS,ROLE,MODE,TYPE,TARGET", self->u);
	snprintf(want, sizeof(want),
		 "POS  ROLE     MODE  TYPE   TARGET\n"
		 "  1  layer    ro    tmpfs  %s\n"
		 "  2  layer    rw    tmpfs  %s\n"
		 "  3  layer    ro    %-5s  %s\n"
		 "  4  covered  rw    tmpfs  %s\n",
		 self->u, self->u, variant->fs, self->u, self->base);
	EXPECT_STREQ(want, r.out);

	EXPECT_SAME_SHOW(&r, "--raw", "--output", "pos,role,source,root", self->u);
	snprintf(want, sizeof(want),
		 "POS ROLE SOURCE ROOT\n"
		 "1 layer ucmd-extra /\n"
		 "2 layer ucmd-rw /\n"
		 "3 layer %s %s\n"
		 "4 covered ucmd-base[/u] /u\n",
		 self->sys_src, self->sys_root);
	EXPECT_STREQ(want, r.out);

	EXPECT_SAME_SHOW(&r, "--noheadings", self->u);
	want[0] = 0;
	show_line(want, 1, "layer", "ro", "tmpfs", "ucmd-extra");
	show_line(want, 2, "layer", "rw", "tmpfs", "ucmd-rw");
	show_line(want, 3, "layer", "ro", variant->fs, self->sys_src);
	show_line(want, 4, "covered", "rw", "tmpfs", self->u_src);
	EXPECT_STREQ(want, r.out);

	EXPECT_SAME_SHOW(&r, "-rn", "-o", "OPTIONS", self->u);
	EXPECT_STREQ("ro,relatime,union\nrw,relatime,union\n"
		     "ro,relatime,union\nrw,relatime\n", r.out);

	/* the IDs are mountinfo's, each layer's parent the mount below it */
	EXPECT_SAME_SHOW(&r, "-rn", "-o", "id,parent", self->u);
	p = r.out;
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(2, sscanf(p, "%ld %ld\n", &id[i], &parent[i]))
			TH_LOG("line %d of: %s", i + 1, r.out);
		p = strchr(p, '\n');
		ASSERT_NE(NULL, p);
		p++;
	}
	EXPECT_STREQ("", p);
	top = mnt_id(self->u);
	base = mnt_id(self->base);
	tmp = mnt_id("/tmp");
	EXPECT_EQ(top, id[0]);
	EXPECT_EQ(id[1], parent[0]);
	EXPECT_EQ(id[2], parent[1]);
	EXPECT_EQ(id[3], parent[2]);
	EXPECT_EQ(base, id[3]);
	EXPECT_EQ(tmp, parent[3]);

	/* the JSON of the same, as numbers */
	EXPECT_SAME_SHOW(&r, "-J", "-o", "pos,id,parent", self->u);
	snprintf(want, sizeof(want),
		 "{\n  \"dir\": \"%s\",\n  \"layers\": 3,\n  \"stack\": [\n",
		 self->u);
	for (i = 0; i < 4; i++) {
		snprintf(line, sizeof(line),
			 "    {\"pos\": %d, \"id\": %ld, \"parent\": %ld}%s\n",
			 i + 1, id[i], parent[i], i < 3 ? "," : "");
		strcat(want, line);
	}
	strcat(want, "  ]\n}\n");
	EXPECT_STREQ(want, r.out);
}

/* Blanks, quotes, backslashes in a layer's path: JSON and raw escapes. */
TEST_F(ucmd, show_escapes)
{
	static const char odd[] = "a b\"c\\d\te";
	char want[8 * PATH_MAX], dir[PATH_MAX];
	struct result r;

	pjoin(dir, self->base, odd);
	ASSERT_EQ(0, mkdir(dir, 0755));
	ASSERT_EQ(0, make_file(P(dir, "odd-file"), "odd\n"));
	ASSERT_RUN(0, &r, "add", dir, self->u);
	EXPECT_STREQ("odd-file", names(self->u));

	EXPECT_SAME_SHOW(&r, "-J", "-o", "role,source,root", self->u);
	snprintf(want, sizeof(want),
		 "{\n  \"dir\": \"%s\",\n  \"layers\": 1,\n  \"stack\": [\n"
		 "    {\"role\": \"layer\", \"source\": \"ucmd-base[/a b\\\"c\\\\d\\u0009e]\", \"root\": \"/a b\\\"c\\\\d\\u0009e\"},\n"
		 "    {\"role\": \"covered\", \"source\": \"ucmd-base[/u]\", \"root\": \"/u\"}\n"
		 "  ]\n}\n", self->u);
	EXPECT_STREQ(want, r.out);

	EXPECT_SAME_SHOW(&r, "-r", "-o", "role,root", self->u);
	EXPECT_STREQ("ROLE ROOT\nlayer /a\\x20b\"c\\x5cd\\x09e\ncovered /u\n",
		     r.out);

	/* the default table prints the path as it is */
	EXPECT_SAME_SHOW(&r, "-n", "-o", "root", self->u);
	EXPECT_STREQ("/a b\"c\\d\te\n/u\n", r.out);
}

/*
 * With statmount, show needs no /proc/self/mountinfo, except for the SOURCE
 * column (6.12's statmount has no mount source): /proc covered by an
 * empty tmpfs, the other columns still come; from mountinfo nothing does.
 */
TEST_F(ucmd, show_statmount_reads_no_mountinfo_without_source)
{
	char want[8 * PATH_MAX];
	struct result r;

	ASSERT_RUN(0, &r, "add", self->system, self->u);
	ASSERT_RUN(0, &r, "add", "-c", self->rw, self->u);
	ASSERT_EQ(0, mount("no-proc", "/proc", "tmpfs", 0, NULL))
		TH_LOG("tmpfs on /proc: %m");

	EXPECT_RUN(0, &r, "show", "-o", "pos,role,mode,type,root,options",
		   self->u);
	snprintf(want, sizeof(want),
		 "POS  ROLE     MODE  TYPE   ROOT%*s  OPTIONS\n"
		 "  1  layer    rw    tmpfs  /%*s  rw,relatime,union\n"
		 "  2  layer    ro    %-5s  %s  ro,relatime,union\n"
		 "  3  covered  rw    tmpfs  /u%*s  rw,relatime\n",
		 (int)strlen(self->sys_root) - 4, "",
		 (int)strlen(self->sys_root) - 1, "",
		 variant->fs, self->sys_root,
		 (int)strlen(self->sys_root) - 2, "");
	EXPECT_STREQ(want, r.out);
	EXPECT_STREQ("", r.err);

	/* SOURCE needs mountinfo */
	EXPECT_RUN(1, &r, "show", self->u);
	EXPECT_STREQ("union: open /proc/self/mountinfo: No such file or directory\n",
		     r.err);
	EXPECT_STREQ("", r.out);
	/* and without statmount, everything does */
	set_env("UNION_NO_STATMOUNT=1", NULL);
	EXPECT_RUN(1, &r, "show", "-o", "pos,role", self->u);
	set_env(NULL, NULL);
	EXPECT_STREQ("union: open /proc/self/mountinfo: No such file or directory\n",
		     r.err);
	EXPECT_STREQ("", r.out);
	ASSERT_EQ(0, umount2("/proc", 0)) TH_LOG("umount /proc: %m");
}

/* Unknown columns and --json with --raw are usage errors. */
TEST_F(ucmd, show_usage)
{
	static const char msg[] = "union: unknown column in -o pos,bogus\nusage: ";
	struct result r;

	EXPECT_RUN(2, &r, "show", "-o", "pos,bogus", self->u);
	EXPECT_EQ(0, strncmp(r.err, msg, strlen(msg))) TH_LOG("stderr: %s", r.err);
	EXPECT_STREQ("", r.out);
	EXPECT_RUN(2, &r, "show", "-o", "", self->u);
	EXPECT_RUN(2, &r, "show", "-o", "pos,,role", self->u);
	EXPECT_RUN(2, &r, "show", "-J", "-r", self->u);
	EXPECT_RUN(2, &r, "show", "-J", "-n", self->u);
	EXPECT_RUN(2, &r, "show", "-x", self->u);
	EXPECT_RUN(2, &r, "show", "-o");
}

/*
 * add checks that the kernel made the new mount a union layer and takes
 * it off if not.  No kernel at hand accepts MOUNT_ATTR_UNION without
 * making a union layer (one without the series fails the probe with
 * EINVAL), so UNION_TEST_NO_UNION_ATTR=1 makes union(8) read "not a union
 * layer" from the real statmount / mountinfo answer: this checks the
 * undo, not the detection on such a kernel.
 */
TEST_F(ucmd, add_undone_when_union_not_reported_simulated)
{
	char want[4 * PATH_MAX], before[OUT_MAX];
	struct result r;

	/* on a plain directory: exit 1, nothing stays mounted */
	set_env("UNION_TEST_NO_UNION_ATTR=1", NULL);
	EXPECT_RUN(1, &r, "add", "-c", self->rw, self->u);
	set_env(NULL, NULL);
	snprintf(want, sizeof(want),
		 "union: move_mount onto %s: the new mount is no union layer (statmount reports no MOUNT_ATTR_UNION): the kernel ignored it\n"
		 "union: %s: the new mount was taken off again\n",
		 self->u, self->u);
	EXPECT_STREQ(want, r.err);
	EXPECT_STREQ("", r.out);
	EXPECT_STREQ("", names(self->u));
	ASSERT_RUN(0, &r, "show", self->u);
	show_head(want, self->u, 0);
	show_line(want, 1, "covered", "rw", "tmpfs", self->u_src);
	EXPECT_STREQ(want, r.out);

	/* the same answer from mountinfo */
	set_env("UNION_TEST_NO_UNION_ATTR=1", "UNION_NO_STATMOUNT=1");
	EXPECT_RUN(1, &r, "add", self->system, self->u);
	set_env(NULL, NULL);
	snprintf(want, sizeof(want),
		 "union: move_mount onto %s: the new mount is no union layer (/proc/self/mountinfo shows no \"union\" option): the kernel ignored it\n"
		 "union: %s: the new mount was taken off again\n",
		 self->u, self->u);
	EXPECT_STREQ(want, r.err);
	EXPECT_STREQ("", names(self->u));
	EXPECT_EQ(mnt_id(self->base), mnt_id(self->u));

	/* on a stack, on top and beneath: the stack stays as it was */
	ASSERT_RUN(0, &r, "add", self->system, self->u);
	ASSERT_RUN(0, &r, "add", "-c", self->rw, self->u);
	ASSERT_RUN(0, &r, "show", self->u);
	strcpy(before, r.out);
	set_env("UNION_TEST_NO_UNION_ATTR=1", NULL);
	EXPECT_RUN(1, &r, "add", self->extra, self->u);
	snprintf(want, sizeof(want),
		 "union: move_mount onto %s: the new mount is no union layer (statmount reports no MOUNT_ATTR_UNION): the kernel ignored it\n"
		 "union: %s: the new mount was taken off again\n",
		 self->u, self->u);
	EXPECT_STREQ(want, r.err);
	ASSERT_RUN(0, &r, "show", self->u);
	EXPECT_STREQ(before, r.out);
	set_env("UNION_TEST_NO_UNION_ATTR=1", NULL);
	EXPECT_RUN(1, &r, "add", "-a", self->extra, self->u);
	set_env(NULL, NULL);
	snprintf(want, sizeof(want),
		 "union: move_mount onto %s: the new mount is no union layer (statmount reports no MOUNT_ATTR_UNION): the kernel ignored it\n"
		 "union: %s: the new mount was taken off again\n"
		 "union: %s: the union layers taken off were put back\n",
		 self->u, self->u, self->u);
	EXPECT_STREQ(want, r.err);
	ASSERT_RUN(0, &r, "show", self->u);
	EXPECT_STREQ(before, r.out);
	EXPECT_STREQ("README bin etc notes shared", names(self->u));
	EXPECT_STREQ("from rw\n", content(P(self->u, "shared")));
	/* the top layer is still the writable one */
	ASSERT_EQ(0, make_file(P(self->u, "new"), "new\n")) TH_LOG("%m");
	EXPECT_STREQ("new notes shared", names(self->rw));

	/* the check passes on this kernel, from statmount and from mountinfo */
	set_env("UNION_NO_STATMOUNT=1", NULL);
	EXPECT_RUN(0, &r, "add", self->extra, self->u);
	set_env(NULL, NULL);
	EXPECT_STREQ("", r.err);
	EXPECT_RUN(0, &r, "add", "-a", self->more, self->u);
	EXPECT_STREQ("", r.err);
	EXPECT_STREQ("README bin etc extra-only more-only new notes shared",
		     names(self->u));
	ASSERT_RUN(0, &r, "remove", "-a", self->u);
	EXPECT_STREQ("", names(self->u));
}

/*
 * show --all: every directory with union layers, from listmount(2) and
 * statmount(2) or from mountinfo, sorted by path, the same both ways.
 * Only the lines of this test's directories are checked: the guest may
 * have unions of its own.
 */
TEST_F(ucmd, show_all)
{
	char want[10 * PATH_MAX], got[10 * PATH_MAX], tmp[2 * PATH_MAX];
	char *line, *save = NULL;
	struct result r;

	ASSERT_RUN(0, &r, "add", self->system, self->u);
	ASSERT_RUN(0, &r, "add", "-c", self->rw, self->u);
	ASSERT_RUN(0, &r, "add", "-a", self->extra, self->system);

	EXPECT_SAME_SHOW(&r, "-A", "-r", "-n", "-o", "dir,pos,role,source");
	got[0] = 0;
	for (line = strtok_r(r.out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, self->base, strlen(self->base)))
			continue;
		strcat(got, line);
		strcat(got, "\n");
	}
	snprintf(want, sizeof(want),
		 "%s 1 layer %s\n%s 2 layer ucmd-extra\n%s 3 covered %s\n"
		 "%s 1 layer ucmd-rw\n%s 2 layer %s\n%s 3 covered ucmd-base[/u]\n",
		 self->system, self->sys_src, self->system, self->system,
		 self->sys_src, self->u, self->u, self->sys_src, self->u);
	EXPECT_STREQ(want, got);

	/* the default table: a block per directory, a blank line between */
	EXPECT_SAME_SHOW(&r, "--all");
	show_head(want, self->system, 2);
	show_line(want, 1, "layer", "ro", variant->fs, self->sys_src);
	show_line(want, 2, "layer", "ro", "tmpfs", "ucmd-extra");
	show_line(want, 3, "covered", "ro", variant->fs, self->sys_src);
	strcat(want, "\n");
	show_head(tmp, self->u, 2);
	strcat(want, tmp);
	show_line(want, 1, "layer", "rw", "tmpfs", "ucmd-rw");
	show_line(want, 2, "layer", "ro", variant->fs, self->sys_src);
	show_line(want, 3, "covered", "rw", "tmpfs", self->u_src);
	EXPECT_NE(NULL, strstr(r.out, want)) TH_LOG("%s", r.out);

	/* JSON: an array of the objects show -J DIR prints */
	EXPECT_SAME_SHOW(&r, "-A", "-J", "-o", "pos,role");
	snprintf(want, sizeof(want),
		 "{\n  \"dir\": \"%s\",\n  \"layers\": 2,\n  \"stack\": [\n"
		 "    {\"pos\": 1, \"role\": \"layer\"},\n"
		 "    {\"pos\": 2, \"role\": \"layer\"},\n"
		 "    {\"pos\": 3, \"role\": \"covered\"}\n  ]\n},\n"
		 "{\n  \"dir\": \"%s\",\n  \"layers\": 2,\n  \"stack\": [\n"
		 "    {\"pos\": 1, \"role\": \"layer\"},\n"
		 "    {\"pos\": 2, \"role\": \"layer\"},\n"
		 "    {\"pos\": 3, \"role\": \"covered\"}\n  ]\n}",
		 self->system, self->u);
	EXPECT_NE(NULL, strstr(r.out, want)) TH_LOG("%s", r.out);
	EXPECT_EQ(0, strncmp(r.out, "[\n{\n  \"dir\": ", 13)) TH_LOG("%s", r.out);
	EXPECT_STREQ("}\n]\n", r.out + strlen(r.out) - 4);

	EXPECT_RUN(2, &r, "show", "-A", self->u);
	EXPECT_EQ(0, strncmp(r.err, "union: show --all takes no DIR\n", 31))
		TH_LOG("stderr: %s", r.err);
}

TEST_HARNESS_MAIN
