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
 * Every test makes a two-layer writable union on the scratch tmpfs in its
 * own mount namespace and sandboxes a forked child, which reports its
 * errno to the parent through its exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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
	close(fd);
	snprintf(p, sizeof(p), "%s/edir", self->lower);
	ASSERT_EQ(0, mkdir(p, 0755));
	snprintf(p, sizeof(p), "%s/sub", self->lower);
	ASSERT_EQ(0, mkdir(p, 0755));
	snprintf(p, sizeof(p), "%s/sub/f", self->lower);
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	close(fd);
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

/*
 * Sandbox a child that may remove only beneath @allow (none if NULL),
 * run @op on @path in it, and return its errno (0 on success).
 */
static int sandboxed(const char *allow, const char *path, int isdir)
{
	struct landlock_ruleset_attr ra = { .handled_access_fs = RM_ACCESS };
	struct landlock_path_beneath_attr pb = { .allowed_access = RM_ACCESS };
	int status, rs, ret;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
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
		ret = isdir ? rmdir(path) : unlink(path);
		_exit(ret ? errno : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
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

TEST_HARNESS_MAIN
