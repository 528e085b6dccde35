// SPDX-License-Identifier: GPL-2.0
/*
 * Checks that the test guest is the machine the union-mount suite needs:
 * the scratch layer file systems are mounted with the right types and take
 * xattrs and POSIX ACLs, and the syscalls that real programs (and stress
 * tools) use exist.  A syscall that is configured out returns ENOSYS, and
 * a tool that probes for it may then silently test nothing; this program
 * turns that into a failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/fanotify.h>
#include <linux/io_uring.h>
#include <linux/magic.h>
#include <linux/mount.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/signalfd.h>
#include <sys/statfs.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

static const char *scratch(const char *fs, char *buf, size_t len)
{
	const char *s = getenv("UNION_SCRATCH");

	snprintf(buf, len, "%s/%s", s ? s : "/mnt/scratch", fs);
	return buf;
}

FIXTURE(layerfs) {
	char dir[256];
};

FIXTURE_VARIANT(layerfs) {
	const char *name;
	long magic;
};

FIXTURE_VARIANT_ADD(layerfs, tmpfs) { .name = "tmpfs", .magic = TMPFS_MAGIC };
FIXTURE_VARIANT_ADD(layerfs, ext4) { .name = "ext4", .magic = EXT4_SUPER_MAGIC };
FIXTURE_VARIANT_ADD(layerfs, xfs) { .name = "xfs", .magic = XFS_SUPER_MAGIC };
FIXTURE_VARIANT_ADD(layerfs, btrfs) { .name = "btrfs", .magic = BTRFS_SUPER_MAGIC };

FIXTURE_SETUP(layerfs)
{
	scratch(variant->name, self->dir, sizeof(self->dir));
}

FIXTURE_TEARDOWN(layerfs)
{
}

TEST_F(layerfs, mounted_with_type)
{
	struct statfs sfs;

	ASSERT_EQ(0, statfs(self->dir, &sfs)) TH_LOG("%s: %m", self->dir);
	ASSERT_EQ(variant->magic, (long)sfs.f_type);
}

/* Layers must hold user.* and trusted.* xattrs and POSIX ACLs. */
TEST_F(layerfs, xattrs_and_acls)
{
	/* system.posix_acl_access, version 2, u::rw- g::r-- o::r-- u:1000:rw- m::rw- */
	static const unsigned char acl[] = {
		2, 0, 0, 0,
		1, 0, 6, 0, 0xff, 0xff, 0xff, 0xff,
		2, 0, 6, 0, 0xe8, 3, 0, 0,
		4, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
		0x10, 0, 6, 0, 0xff, 0xff, 0xff, 0xff,
		0x20, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
	};
	char path[300], val[64];
	int fd;

	snprintf(path, sizeof(path), "%s/env-xattr.%d", self->dir, getpid());
	fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
	ASSERT_GE(fd, 0);
	close(fd);
	ASSERT_EQ(0, setxattr(path, "user.test", "v1", 2, 0));
	ASSERT_EQ(2, getxattr(path, "user.test", val, sizeof(val)));
	ASSERT_EQ(0, memcmp(val, "v1", 2));
	ASSERT_EQ(0, setxattr(path, "trusted.overlay.opaque", "y", 1, 0));
	ASSERT_EQ(1, getxattr(path, "trusted.overlay.opaque", val, sizeof(val)));
	ASSERT_EQ(0, setxattr(path, "system.posix_acl_access", acl, sizeof(acl), 0))
		TH_LOG("ACL on %s: %m", variant->name);
	ASSERT_EQ((ssize_t)sizeof(acl),
		  getxattr(path, "system.posix_acl_access", val, sizeof(val)));
	ASSERT_EQ(0, unlink(path));
}

/* Whiteouts are 0/0 character devices: the layer must let us make one. */
TEST_F(layerfs, whiteout_device)
{
	char path[300];
	struct stat st;

	snprintf(path, sizeof(path), "%s/env-wh.%d", self->dir, getpid());
	ASSERT_EQ(0, mknod(path, S_IFCHR | 0, makedev(0, 0)));
	ASSERT_EQ(0, lstat(path, &st));
	ASSERT_TRUE(S_ISCHR(st.st_mode));
	ASSERT_EQ(0, (long)st.st_rdev);
	ASSERT_EQ(0, unlink(path));
}

TEST(filesystems_registered)
{
	static const char *want[] = { "tmpfs", "ext4", "xfs", "btrfs", "overlay" };
	char buf[8192];
	ssize_t n;
	int fd;

	fd = open("/proc/filesystems", O_RDONLY);
	ASSERT_GE(fd, 0);
	n = read(fd, buf, sizeof(buf) - 1);
	ASSERT_GT(n, 0);
	buf[n] = 0;
	close(fd);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char pat[32];

		snprintf(pat, sizeof(pat), "\t%s\n", want[i]);
		EXPECT_NE(NULL, strstr(buf, pat)) TH_LOG("%s missing", want[i]);
	}
}

TEST(async_io)
{
	aio_context_t ctx = 0;
	struct io_uring_params p = { 0 };
	int fd;

	ASSERT_EQ(0, syscall(SYS_io_setup, 8, &ctx)) TH_LOG("AIO: %m");
	ASSERT_EQ(0, syscall(SYS_io_destroy, ctx));
	fd = syscall(SYS_io_uring_setup, 8, &p);
	ASSERT_GE(fd, 0) TH_LOG("io_uring: %m");
	close(fd);
}

TEST(notify_and_fds)
{
	sigset_t mask;
	int fd;

	fd = inotify_init1(IN_CLOEXEC);
	ASSERT_GE(fd, 0);
	close(fd);
	fd = syscall(SYS_fanotify_init, FAN_CLASS_NOTIF, O_RDONLY);
	ASSERT_GE(fd, 0) TH_LOG("fanotify: %m");
	close(fd);
	fd = eventfd(0, 0);
	ASSERT_GE(fd, 0);
	close(fd);
	fd = timerfd_create(CLOCK_MONOTONIC, 0);
	ASSERT_GE(fd, 0);
	close(fd);
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	fd = signalfd(-1, &mask, 0);
	ASSERT_GE(fd, 0);
	close(fd);
}

TEST(sysv_ipc)
{
	int id;

	id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	ASSERT_GE(id, 0) TH_LOG("SYSVIPC: %m");
	ASSERT_EQ(0, shmctl(id, IPC_RMID, NULL));
	id = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	ASSERT_GE(id, 0);
	ASSERT_EQ(0, semctl(id, 0, IPC_RMID));
	id = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	ASSERT_GE(id, 0);
	ASSERT_EQ(0, msgctl(id, IPC_RMID, NULL));
}

TEST(handles_and_fadvise)
{
	struct {
		struct file_handle fh;
		unsigned char buf[128];
	} h = { .fh.handle_bytes = 128 };
	int mnt_id, fd;

	ASSERT_EQ(0, name_to_handle_at(AT_FDCWD, "/mnt/scratch/ext4", &h.fh, &mnt_id, 0))
		TH_LOG("FHANDLE: %m");
	fd = open("/proc/self/exe", O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED));
	close(fd);
}

TEST(new_mount_api)
{
	int fd;

	fd = syscall(SYS_fsopen, "tmpfs", 0);
	ASSERT_GE(fd, 0) TH_LOG("fsopen: %m");
	close(fd);
	fd = syscall(SYS_open_tree, AT_FDCWD, "/tmp", OPEN_TREE_CLONE);
	ASSERT_GE(fd, 0) TH_LOG("open_tree: %m");
	close(fd);
}

/* High-resolution timers: a clock resolution of 1ns, not a jiffy. */
TEST(fine_grained_clock)
{
	struct timespec res;

	ASSERT_EQ(0, clock_getres(CLOCK_MONOTONIC, &res));
	EXPECT_EQ(0, res.tv_sec);
	EXPECT_EQ(1, res.tv_nsec);
}

TEST_HARNESS_MAIN
