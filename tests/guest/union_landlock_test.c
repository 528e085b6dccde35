// SPDX-License-Identifier: GPL-2.0
/*
 * Landlock through a union.
 *
 * An unprivileged sandbox (Landlock) that denies removing files or
 * directories must deny it through a union exactly as on one file system,
 * also for names whose topmost instance is in a lower layer, where the
 * union removes by making a whiteout in the top layer instead of calling
 * vfs_unlink()/vfs_rmdir().  A denied removal leaves no whiteout and the
 * name stays visible; a ruleset that allows removal beneath the union
 * directory lets it happen (the rule, not a blanket refusal, decides).
 *
 * The same for what a union does ahead of an operation: a create over a
 * whiteout that the sandbox refuses leaves the name removed.  A rule on
 * the union directory, or on one of its directories that the top layer
 * has, covers what its lower layers hold beneath it.
 *
 * Every test makes a two-layer writable union on the scratch tmpfs in its
 * own mount namespace and sandboxes a forked child, which reports its
 * errno to the parent through its exit status.  Each runs twice: the
 * child stays root (with no_new_privs), and the child is uid 1000, who
 * owns the layers' files (Landlock is for unprivileged users; the
 * permission bits let the user do everything, the rules decide).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/landlock.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#ifndef MS_UNION
#define MS_UNION	(1 << 9)
#endif

#define RM_ACCESS	(LANDLOCK_ACCESS_FS_REMOVE_FILE | \
			 LANDLOCK_ACCESS_FS_REMOVE_DIR)

FIXTURE(ll) {
	char base[256];
	char lower[300];	/* the covered directory, then the union */
	char upper[300];	/* the top layer */
	int upper_fd;
};

FIXTURE_VARIANT(ll) {
	uid_t uid;	/* of the sandboxed child, and owner of the layers */
};

FIXTURE_VARIANT_ADD(ll, root) {
	.uid = 0,
};

FIXTURE_VARIANT_ADD(ll, user) {
	.uid = 1000,
};

/* The variant's uid, for the sandboxed children */
static uid_t sandbox_uid;

/* Give the layers' objects below @dir to @uid (and group). */
static int own_tree(const char *dir, uid_t uid)
{
	char p[600];
	struct dirent *d;
	DIR *dp;
	int ret = lchown(dir, uid, uid);

	dp = opendir(dir);
	if (!dp)
		return -1;
	while (!ret && (d = readdir(dp))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, d->d_name);
		ret = d->d_type == DT_DIR ? own_tree(p, uid) :
					    lchown(p, uid, uid);
	}
	closedir(dp);
	return ret;
}

FIXTURE_SETUP(ll)
{
	const char *s = getenv("UNION_SCRATCH");
	char p[400];
	int fd;

	self->upper_fd = -1;
	ASSERT_EQ(0, unshare(CLONE_NEWNS));
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	snprintf(self->base, sizeof(self->base), "%s/tmpfs/llXXXXXX",
		 s ? s : "/mnt/scratch");
	ASSERT_NE(NULL, mkdtemp(self->base));
	snprintf(self->lower, sizeof(self->lower), "%s/L", self->base);
	snprintf(self->upper, sizeof(self->upper), "%s/U", self->base);
	ASSERT_EQ(0, mkdir(self->lower, 0755));
	ASSERT_EQ(0, mkdir(self->upper, 0755));
	snprintf(p, sizeof(p), "%s/victim", self->lower);
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(6, write(fd, "lower\n", 6));
	close(fd);
	snprintf(p, sizeof(p), "%s/edir", self->lower);
	ASSERT_EQ(0, mkdir(p, 0755));
	snprintf(p, sizeof(p), "%s/sub", self->lower);
	ASSERT_EQ(0, mkdir(p, 0755));
	snprintf(p, sizeof(p), "%s/sub/f", self->lower);
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	close(fd);
	snprintf(p, sizeof(p), "%s/sub/deep", self->lower);
	ASSERT_EQ(0, mkdir(p, 0755));
	snprintf(p, sizeof(p), "%s/sub/deep/g", self->lower);
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	close(fd);
	sandbox_uid = variant->uid;
	ASSERT_EQ(0, chmod(self->base, 0755));
	ASSERT_EQ(0, own_tree(self->lower, variant->uid));
	ASSERT_EQ(0, own_tree(self->upper, variant->uid));
	self->upper_fd = open(self->upper, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, self->upper_fd);
	ASSERT_EQ(0, mount(self->upper, self->lower, NULL,
			   MS_BIND | MS_UNION, NULL))
		TH_LOG("union mount: %m");
}

FIXTURE_TEARDOWN(ll)
{
	if (self->upper_fd >= 0)
		close(self->upper_fd);
	umount2(self->lower, MNT_DETACH);
}

enum ll_op { LL_UNLINK, LL_RMDIR, LL_CREAT, LL_MKDIR, LL_SYMLINK, LL_MKFIFO,
	     LL_OPEN_WRITE, LL_TRUNCATE, LL_OPEN_READ, LL_OPEN_TRUNC,
	     LL_CREATE_READ, LL_BIND, LL_RENAME };

/* Where LL_RENAME moves its path to */
static char ll_rename_to[400];

/* The rights sandboxed_op() grants beneath its path: all it handles if 0 */
static __u64 ll_granted;

static int ll_do(enum ll_op op, const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	switch (op) {
	case LL_UNLINK:
		return unlink(path);
	case LL_RMDIR:
		return rmdir(path);
	case LL_CREAT:
		fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		return fd < 0 ? -1 : close(fd);
	case LL_MKDIR:
		return mkdir(path, 0755);
	case LL_SYMLINK:
		return symlink("target", path);
	case LL_MKFIFO:
		return mknod(path, S_IFIFO | 0644, 0);
	case LL_OPEN_WRITE:
		fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
		return fd < 0 ? -1 : close(fd);
	case LL_TRUNCATE:
		return truncate(path, 0);
	case LL_OPEN_READ:
		fd = open(path, O_RDONLY | O_CLOEXEC);
		return fd < 0 ? -1 : close(fd);
	case LL_OPEN_TRUNC:
		fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		return fd < 0 ? -1 : close(fd);
	case LL_CREATE_READ:
		fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0 || close(fd))
			return 100;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		return fd < 0 ? -1 : close(fd);
	case LL_BIND:
		if (strlen(path) >= sizeof(sun.sun_path)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return 100;
		if (bind(fd, (struct sockaddr *)&sun, sizeof(sun))) {
			close(fd);
			return -1;
		}
		return close(fd);
	case LL_RENAME:
		return rename(path, ll_rename_to);
	}
	errno = EINVAL;
	return -1;
}

/*
 * Sandbox a child that handles the rights @handled and is granted them
 * only beneath @allow (none if NULL), run @op on @path in it, and return
 * its errno (0 on success).
 */
static int sandboxed_op(__u64 handled, const char *allow, enum ll_op op,
			const char *path)
{
	struct landlock_ruleset_attr ra = { .handled_access_fs = handled };
	struct landlock_path_beneath_attr pb = {
		.allowed_access = ll_granted ? ll_granted : handled,
	};
	int status, rs, ret;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (sandbox_uid &&
		    (setgroups(0, NULL) ||
		     setresgid(sandbox_uid, sandbox_uid, sandbox_uid) ||
		     setresuid(sandbox_uid, sandbox_uid, sandbox_uid)))
			_exit(203);
		rs = syscall(__NR_landlock_create_ruleset, &ra, sizeof(ra), 0);
		if (rs < 0)
			_exit(200);
		if (allow) {
			pb.parent_fd = open(allow, O_PATH | O_CLOEXEC);
			if (pb.parent_fd < 0 ||
			    syscall(__NR_landlock_add_rule, rs,
				    LANDLOCK_RULE_PATH_BENEATH, &pb, 0))
				_exit(201);
		}
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    syscall(__NR_landlock_restrict_self, rs, 0))
			_exit(202);
		ret = ll_do(op, path);
		_exit(ret ? errno : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * Sandbox a child that may remove only beneath @allow (none if NULL),
 * remove @path in it (rmdir if @isdir), and return its errno (0 on success).
 */
static int sandboxed(const char *allow, const char *path, int isdir)
{
	return sandboxed_op(RM_ACCESS, allow, isdir ? LL_RMDIR : LL_UNLINK,
			    path);
}

static int on_top(int upper_fd, const char *name)
{
	struct stat st;

	return !fstatat(upper_fd, name, &st, AT_SYMLINK_NOFOLLOW);
}

/* Landlock is there: its ABI answers. */
TEST_F(ll, landlock_available)
{
	int abi = syscall(__NR_landlock_create_ruleset, NULL, 0,
			  LANDLOCK_CREATE_RULESET_VERSION);

	ASSERT_LE(1, abi) TH_LOG("no Landlock: %m");
}

/* A denied removal of a lower name: EACCES, no whiteout, still there. */
TEST_F(ll, unlink_lower_denied)
{
	char p[400];
	struct stat st;

	snprintf(p, sizeof(p), "%s/victim", self->lower);
	ASSERT_EQ(0, stat(p, &st));
	ASSERT_FALSE(on_top(self->upper_fd, "victim"));
	EXPECT_EQ(EACCES, sandboxed(NULL, p, 0));
	EXPECT_EQ(0, stat(p, &st)) TH_LOG("the name went: %m");
	EXPECT_FALSE(on_top(self->upper_fd, "victim"))
		TH_LOG("a whiteout was made for a denied unlink");
	/* allowed beneath the union directory: the whiteout is made */
	EXPECT_EQ(0, sandboxed(self->lower, p, 0));
	EXPECT_EQ(-1, stat(p, &st));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_TRUE(on_top(self->upper_fd, "victim"));
}

/* The same for rmdir of an empty lower directory. */
TEST_F(ll, rmdir_lower_denied)
{
	char p[400];
	struct stat st;

	snprintf(p, sizeof(p), "%s/edir", self->lower);
	ASSERT_EQ(0, stat(p, &st));
	EXPECT_EQ(EACCES, sandboxed(NULL, p, 1));
	EXPECT_EQ(0, stat(p, &st)) TH_LOG("the directory went: %m");
	EXPECT_FALSE(on_top(self->upper_fd, "edir"));
	EXPECT_EQ(0, sandboxed(self->lower, p, 1));
	EXPECT_EQ(-1, stat(p, &st));
	EXPECT_EQ(ENOENT, errno);
}

/* A name in a lower-only subdirectory: the rule beneath the union root. */
TEST_F(ll, unlink_nested_lower)
{
	char p[400], other[400];
	struct stat st;

	snprintf(p, sizeof(p), "%s/sub/f", self->lower);
	snprintf(other, sizeof(other), "%s/edir", self->lower);
	EXPECT_EQ(EACCES, sandboxed(NULL, p, 0));
	EXPECT_EQ(0, stat(p, &st));
	/* a rule for another directory does not allow it */
	EXPECT_EQ(EACCES, sandboxed(other, p, 0));
	EXPECT_EQ(0, stat(p, &st));
	EXPECT_EQ(0, sandboxed(self->lower, p, 0));
	EXPECT_EQ(-1, stat(p, &st));
	EXPECT_EQ(ENOENT, errno);
}

#define MAKE_ACCESS	(LANDLOCK_ACCESS_FS_MAKE_REG | \
			 LANDLOCK_ACCESS_FS_MAKE_DIR | \
			 LANDLOCK_ACCESS_FS_MAKE_SYM | \
			 LANDLOCK_ACCESS_FS_MAKE_FIFO | \
			 LANDLOCK_ACCESS_FS_MAKE_SOCK)

static int is_whiteout(int dfd, const char *name)
{
	struct stat st;

	return !fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) &&
	       S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0);
}

static int listed(const char *dir, const char *name)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int found = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		found |= !strcmp(de->d_name, name);
	closedir(d);
	return found;
}

/*
 * Root removed the lower "victim" (a whiteout in the top layer).  A
 * sandbox that may not make files, directories, symlinks or FIFOs tries
 * each under that name: EACCES, and the name stays removed (the whiteout
 * is there, stat and getdents do not find the lower file).  Before, the
 * whiteout was removed ahead of the create the sandbox then refused, and
 * the deleted lower file came back.  Allowed beneath the union, the
 * create makes a new, empty file.
 */
TEST_F(ll, create_over_whiteout_denied)
{
	static const enum ll_op ops[] = { LL_CREAT, LL_MKDIR, LL_SYMLINK,
					  LL_MKFIFO };
	char p[400];
	struct stat st;

	snprintf(p, sizeof(p), "%s/victim", self->lower);
	ASSERT_EQ(0, unlink(p));
	ASSERT_TRUE(is_whiteout(self->upper_fd, "victim"));
	for (unsigned int i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		EXPECT_EQ(EACCES, sandboxed_op(MAKE_ACCESS, NULL, ops[i], p))
			TH_LOG("op %u", ops[i]);
		EXPECT_EQ(-1, lstat(p, &st))
			TH_LOG("op %u: the removed lower file is back", ops[i]);
		EXPECT_EQ(ENOENT, errno);
		EXPECT_TRUE(is_whiteout(self->upper_fd, "victim"))
			TH_LOG("op %u: the whiteout is gone", ops[i]);
		EXPECT_EQ(0, listed(self->lower, "victim"));
	}
	/* the attempt is real: allowed beneath the union, it makes a file */
	EXPECT_EQ(0, sandboxed_op(MAKE_ACCESS, self->lower, LL_CREAT, p));
	ASSERT_EQ(0, stat(p, &st));
	EXPECT_TRUE(S_ISREG(st.st_mode));
	EXPECT_EQ(0, st.st_size) TH_LOG("the new file has the lower content");
	EXPECT_EQ(1, listed(self->lower, "victim"));
}

/*
 * A create in "sub" (also bind(2) of a unix socket), a directory only the
 * lower layer has, that the sandbox refuses: EACCES, and "sub" is not copied up to the top layer
 * for it (the union asks the security modules before it copies the parent
 * up; the system call asks them again on the copy).  A rule for another
 * directory does not allow it either.  Allowed beneath the union, each
 * create is made in the copy of "sub".
 */
TEST_F(ll, create_in_lower_dir_denied)
{
	static const enum ll_op ops[] = { LL_CREAT, LL_MKDIR, LL_SYMLINK,
					  LL_MKFIFO, LL_BIND };
	char p[400], other[400];
	unsigned int i;

	snprintf(p, sizeof(p), "%s/sub/new", self->lower);
	snprintf(other, sizeof(other), "%s/edir", self->lower);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		EXPECT_EQ(EACCES, sandboxed_op(MAKE_ACCESS, NULL, ops[i], p))
			TH_LOG("op %u", ops[i]);
		EXPECT_EQ(EACCES, sandboxed_op(MAKE_ACCESS, other, ops[i], p))
			TH_LOG("op %u, allowed beneath edir", ops[i]);
		EXPECT_FALSE(on_top(self->upper_fd, "sub"))
			TH_LOG("op %u: sub was copied up for a refused create",
			       ops[i]);
	}
	snprintf(other, sizeof(other), "%s/sub", self->lower);
	EXPECT_EQ(0, listed(other, "new"));
	EXPECT_EQ(1, listed(other, "f"));
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		EXPECT_EQ(0, sandboxed_op(MAKE_ACCESS, self->lower, ops[i], p))
			TH_LOG("op %u, allowed beneath the union", ops[i]);
		EXPECT_TRUE(on_top(self->upper_fd, "sub/new"))
			TH_LOG("op %u: not made in the copy of sub", ops[i]);
		EXPECT_EQ(0, ops[i] == LL_MKDIR ? rmdir(p) : unlink(p));
	}
}

/*
 * A sandbox without the truncate right truncates the lower "victim", by
 * truncate(2) or by an open with O_TRUNC (which it may open for writing):
 * EACCES, and nothing is copied up (the union asks the truncate hook on
 * the lower file before its copy-up).  One without the right to write
 * files opens it for writing: EACCES, the file keeps its content, and
 * nothing is copied up either (the union asks the security modules about
 * the open on the lower file before its copy-up).  Allowed beneath the
 * union, the open works on the copy.
 */
TEST_F(ll, write_lower_denied)
{
	char p[400], buf[16] = "";
	int fd;

	snprintf(p, sizeof(p), "%s/victim", self->lower);
	EXPECT_EQ(EACCES, sandboxed_op(LANDLOCK_ACCESS_FS_TRUNCATE, NULL,
				       LL_TRUNCATE, p));
	EXPECT_EQ(EACCES, sandboxed_op(LANDLOCK_ACCESS_FS_TRUNCATE, NULL,
				       LL_OPEN_TRUNC, p));
	EXPECT_FALSE(on_top(self->upper_fd, "victim"))
		TH_LOG("a refused truncate copied victim up");
	EXPECT_EQ(EACCES, sandboxed_op(LANDLOCK_ACCESS_FS_WRITE_FILE, NULL,
				       LL_OPEN_WRITE, p));
	EXPECT_FALSE(on_top(self->upper_fd, "victim"))
		TH_LOG("a refused open for writing copied victim up");
	fd = open(p, O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(6, read(fd, buf, sizeof(buf)));
	close(fd);
	EXPECT_STREQ("lower\n", buf);

	EXPECT_EQ(0, sandboxed_op(LANDLOCK_ACCESS_FS_WRITE_FILE, self->lower,
				  LL_OPEN_WRITE, p));
	EXPECT_TRUE(on_top(self->upper_fd, "victim"));
}

/*
 * A sandbox that may make, remove and reparent files nowhere moves the
 * lower "sub/f" to "edir", a directory of the lower layer too: EACCES, and
 * nothing is copied up (the union asks the security modules' rename hook
 * of the lower file and directories before it copies them up; the system
 * call asks it again of the copies).  Allowed beneath the union, the file
 * moves: "edir" gets it, in the top layer, and "sub" no longer shows it.
 */
TEST_F(ll, rename_lower_denied)
{
	const __u64 handled = LANDLOCK_ACCESS_FS_REFER |
			      LANDLOCK_ACCESS_FS_MAKE_REG |
			      LANDLOCK_ACCESS_FS_REMOVE_FILE;
	char p[400], sub[400], edir[400];

	snprintf(p, sizeof(p), "%s/sub/f", self->lower);
	snprintf(sub, sizeof(sub), "%s/sub", self->lower);
	snprintf(edir, sizeof(edir), "%s/edir", self->lower);
	snprintf(ll_rename_to, sizeof(ll_rename_to), "%s/edir/f", self->lower);
	EXPECT_EQ(EACCES, sandboxed_op(handled, NULL, LL_RENAME, p));
	EXPECT_EQ(EACCES, sandboxed_op(handled, edir, LL_RENAME, p));
	EXPECT_FALSE(on_top(self->upper_fd, "sub"))
		TH_LOG("a refused rename copied sub up");
	EXPECT_FALSE(on_top(self->upper_fd, "edir"))
		TH_LOG("a refused rename copied edir up");
	EXPECT_EQ(1, listed(sub, "f"));
	EXPECT_EQ(0, listed(edir, "f"));

	EXPECT_EQ(0, sandboxed_op(handled, self->lower, LL_RENAME, p));
	EXPECT_TRUE(on_top(self->upper_fd, "edir/f"));
	EXPECT_EQ(0, listed(sub, "f"));
	EXPECT_EQ(1, listed(edir, "f"));
}

/*
 * The whiteout that a rename of a lower directory leaves is the union's,
 * not the caller's: a sandbox that may make and remove directories beneath
 * the union, but not regular files (Landlock guards whiteouts with that
 * right), renames the lower "sub/deep" to "sub/deep2", which leaves the
 * whiteout under the old name, as it would rename a directory on one file
 * system.
 */
TEST_F(ll, rename_lower_dir_no_make_reg)
{
	const __u64 handled = LANDLOCK_ACCESS_FS_REFER |
			      LANDLOCK_ACCESS_FS_MAKE_DIR |
			      LANDLOCK_ACCESS_FS_REMOVE_DIR |
			      LANDLOCK_ACCESS_FS_MAKE_REG;
	char p[400], sub[400];
	int ret;

	snprintf(p, sizeof(p), "%s/sub/deep", self->lower);
	snprintf(sub, sizeof(sub), "%s/sub", self->lower);
	snprintf(ll_rename_to, sizeof(ll_rename_to), "%s/sub/deep2",
		 self->lower);
	ll_granted = handled & ~LANDLOCK_ACCESS_FS_MAKE_REG;
	ret = sandboxed_op(handled, self->lower, LL_RENAME, p);
	ll_granted = 0;
	EXPECT_EQ(0, ret);
	EXPECT_EQ(0, listed(sub, "deep"));
	EXPECT_EQ(1, listed(sub, "deep2"));
	EXPECT_TRUE(is_whiteout(self->upper_fd, "sub/deep"));
}

/*
 * Reading: a sandbox that may read files only beneath the union directory
 * reads the lower "victim" and "sub/f" (found in the lower layer, below the
 * union's root); one that may read only beneath "edir", or nowhere, may
 * not.  The same with a third layer on top, where the lower layer's view
 * hangs below the middle layer.
 */
TEST_F(ll, read_lower_by_union_rule)
{
	char p[400], f[400], other[400], top[400];

	snprintf(p, sizeof(p), "%s/victim", self->lower);
	snprintf(f, sizeof(f), "%s/sub/f", self->lower);
	snprintf(other, sizeof(other), "%s/edir", self->lower);
	EXPECT_EQ(EACCES, sandboxed_op(LANDLOCK_ACCESS_FS_READ_FILE, NULL,
				       LL_OPEN_READ, p));
	EXPECT_EQ(EACCES, sandboxed_op(LANDLOCK_ACCESS_FS_READ_FILE, other,
				       LL_OPEN_READ, p));
	EXPECT_EQ(0, sandboxed_op(LANDLOCK_ACCESS_FS_READ_FILE, self->lower,
				  LL_OPEN_READ, p));
	EXPECT_EQ(0, sandboxed_op(LANDLOCK_ACCESS_FS_READ_FILE, self->lower,
				  LL_OPEN_READ, f));
	EXPECT_FALSE(on_top(self->upper_fd, "victim"));

	/* a third layer on top: the rule on the union is on its root now */
	snprintf(top, sizeof(top), "%s/U2", self->base);
	ASSERT_EQ(0, mkdir(top, 0755));
	ASSERT_EQ(0, mount(top, self->lower, NULL, MS_BIND | MS_UNION, NULL))
		TH_LOG("third layer: %m");
	EXPECT_EQ(EACCES, sandboxed_op(LANDLOCK_ACCESS_FS_READ_FILE, NULL,
				       LL_OPEN_READ, p));
	EXPECT_EQ(0, sandboxed_op(LANDLOCK_ACCESS_FS_READ_FILE, self->lower,
				  LL_OPEN_READ, p));
	EXPECT_EQ(0, sandboxed_op(LANDLOCK_ACCESS_FS_READ_FILE, self->lower,
				  LL_OPEN_READ, f));
	EXPECT_EQ(EACCES, sandboxed_op(LANDLOCK_ACCESS_FS_READ_FILE, other,
				       LL_OPEN_READ, f));
	umount2(self->lower, MNT_DETACH);
}

/*
 * A rule on a directory below the union's root that the top layer has too
 * ("sub", merged once a create in it copied it up; a rule added on it
 * through the union is on the top layer's directory) covers the lower
 * objects beneath it: the lower "sub/f", and "sub/deep/g" in "deep", a
 * directory only the lower layer has, are read under a rule on "sub" and
 * not under one on "edir"; a create in "sub/deep" is allowed by the rule
 * on "sub" (and made in the copy of "deep"), refused by the one on "edir"
 * without copying "deep" up.  Renamed to "moved" through the union (a
 * redirect to the lower "sub"), the directory's rule covers the lower
 * objects at their new place.  Before, a lower object's rule walk went
 * from the lower layer's directories straight to the union's root.
 */
TEST_F(ll, merged_dir_rule_covers_lower)
{
	char sub[400], f[400], g[400], n[400], other[400], moved[400];
	int fd;

	snprintf(sub, sizeof(sub), "%s/sub", self->lower);
	snprintf(f, sizeof(f), "%s/sub/f", self->lower);
	snprintf(g, sizeof(g), "%s/sub/deep/g", self->lower);
	snprintf(n, sizeof(n), "%s/sub/deep/new", self->lower);
	snprintf(other, sizeof(other), "%s/edir", self->lower);
	snprintf(moved, sizeof(moved), "%s/top", sub);
	fd = open(moved, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_TRUE(on_top(self->upper_fd, "sub"));
	ASSERT_FALSE(on_top(self->upper_fd, "sub/f"));
	ASSERT_FALSE(on_top(self->upper_fd, "sub/deep"));

	EXPECT_EQ(0, sandboxed_op(LANDLOCK_ACCESS_FS_READ_FILE, sub,
				  LL_OPEN_READ, f));
	EXPECT_EQ(0, sandboxed_op(LANDLOCK_ACCESS_FS_READ_FILE, sub,
				  LL_OPEN_READ, g));
	EXPECT_EQ(EACCES, sandboxed_op(LANDLOCK_ACCESS_FS_READ_FILE, other,
				       LL_OPEN_READ, f));
	EXPECT_EQ(EACCES, sandboxed_op(LANDLOCK_ACCESS_FS_READ_FILE, other,
				       LL_OPEN_READ, g));
	EXPECT_FALSE(on_top(self->upper_fd, "sub/f"));

	EXPECT_EQ(EACCES, sandboxed_op(MAKE_ACCESS, other, LL_CREAT, n));
	EXPECT_FALSE(on_top(self->upper_fd, "sub/deep"))
		TH_LOG("deep was copied up for a refused create");
	EXPECT_EQ(0, sandboxed_op(MAKE_ACCESS, sub, LL_CREAT, n));
	EXPECT_TRUE(on_top(self->upper_fd, "sub/deep/new"));

	snprintf(moved, sizeof(moved), "%s/moved", self->lower);
	ASSERT_EQ(0, rename(sub, moved)) TH_LOG("rename: %m");
	snprintf(f, sizeof(f), "%s/moved/f", self->lower);
	ASSERT_FALSE(on_top(self->upper_fd, "moved/f"));
	EXPECT_EQ(0, sandboxed_op(LANDLOCK_ACCESS_FS_READ_FILE, moved,
				  LL_OPEN_READ, f));
	EXPECT_EQ(EACCES, sandboxed_op(LANDLOCK_ACCESS_FS_READ_FILE, other,
				       LL_OPEN_READ, f));
}

/*
 * A rule added on "sub" while only the lower layer has it is on the lower
 * directory.  The sandbox (which handles only reading files) makes
 * "sub/new", which copies "sub" up, and reads it back: the new file is in
 * the copy of "sub", whose walk up meets the lower directory as a part of
 * the union's "sub" -- allowed, as the rule's directory is still the
 * union's "sub".  The same rule does not allow reading a file made in
 * "edir".  Before, the copy was another inode that the rule was not on,
 * and the read was refused.
 */
TEST_F(ll, lower_dir_rule_after_copy_up)
{
	char sub[400], n[400], e[400];

	snprintf(sub, sizeof(sub), "%s/sub", self->lower);
	snprintf(n, sizeof(n), "%s/sub/new", self->lower);
	snprintf(e, sizeof(e), "%s/edir/new", self->lower);
	ASSERT_FALSE(on_top(self->upper_fd, "sub"));
	EXPECT_EQ(0, sandboxed_op(LANDLOCK_ACCESS_FS_READ_FILE, sub,
				  LL_CREATE_READ, n));
	EXPECT_TRUE(on_top(self->upper_fd, "sub/new"))
		TH_LOG("the sandbox did not make sub/new");
	/* the rule on "sub" does not cover the copy of "edir" */
	EXPECT_EQ(EACCES, sandboxed_op(LANDLOCK_ACCESS_FS_READ_FILE, sub,
				       LL_CREATE_READ, e));
	EXPECT_TRUE(on_top(self->upper_fd, "edir/new"))
		TH_LOG("the sandbox did not make edir/new");
}

/*
 * A rule on a file only the lower layer has (so on the lower file) allows
 * writing it through the union: the open for writing copies it up, and
 * the copy has the rules of the file it was copied from, for that open and
 * the ones after it.  Another lower file stays outside the rule.
 */
TEST_F(ll, lower_file_rule_covers_copy)
{
	const __u64 rw = LANDLOCK_ACCESS_FS_READ_FILE |
			 LANDLOCK_ACCESS_FS_WRITE_FILE;
	char p[400], f[400], buf[16] = "";
	int fd;

	snprintf(p, sizeof(p), "%s/victim", self->lower);
	snprintf(f, sizeof(f), "%s/sub/f", self->lower);
	EXPECT_EQ(EACCES, sandboxed_op(rw, p, LL_OPEN_READ, f));
	EXPECT_EQ(0, sandboxed_op(rw, p, LL_OPEN_READ, p));
	EXPECT_FALSE(on_top(self->upper_fd, "victim"));

	EXPECT_EQ(0, sandboxed_op(rw, p, LL_OPEN_WRITE, p));
	EXPECT_TRUE(on_top(self->upper_fd, "victim"));
	EXPECT_EQ(0, sandboxed_op(rw, p, LL_OPEN_READ, p));
	fd = open(p, O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(6, read(fd, buf, sizeof(buf) - 1));
	close(fd);
	EXPECT_STREQ("lower\n", buf);
	EXPECT_FALSE(on_top(self->upper_fd, "sub"));
}

TEST_HARNESS_MAIN
