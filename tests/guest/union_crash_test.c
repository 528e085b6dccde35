// SPDX-License-Identifier: GPL-2.0
/*
 * A copy-up cut short by a crash leaves no partial file.
 *
 * The top layer is on a disk file system (ext4 or xfs, the scratch disks
 * of the guest).  A child copies a 32 MiB lower file up by opening it for
 * writing through the union, and after a delay the file system is shut
 * down the way a power cut stops it (the FS_IOC_SHUTDOWN ioctl that ext4
 * and xfs share, without flushing the log: what is not on disk is lost).
 * The file system is then unmounted and mounted again from its disk, which
 * replays the journal and drops unlinked files, as the next boot would.
 * The top layer must then hold either no file of that name or a complete,
 * byte-identical copy, and nothing else; across the delays both outcomes
 * are logged.  One crash on ext4 is timed by the copy itself: when the file
 * system shows between 2 MiB and half the file's blocks taken by the copy
 * under way, so that it is known to be cut in the middle of its data (the
 * copy-up must then have failed).  On xfs the copy shares the lower file's
 * blocks (reflink), which leaves nothing to watch.  The scratch file system
 * is left mounted as it was.
 *
 * A crash of the whole machine, with the check in the next boot on the same
 * disks, is union_reset_test (scripts/crash-reset-test.sh): a sysrq-b reset
 * in the middle of a copy-up and of a storm of other union changes, on
 * ext4, xfs and btrfs top layers.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#ifndef MS_UNION
#define MS_UNION	(1 << 9)
#endif
/* XFS_IOC_GOINGDOWN, also EXT4_IOC_SHUTDOWN */
#define FS_IOC_SHUTDOWN		_IOR('X', 125, unsigned int)
#define SHUTDOWN_NOLOGFLUSH	0x2

#define FILE_MB		32
#define CHUNK		(1 << 20)

FIXTURE(crash) {
	char dev[256];		/* the scratch block device */
	char mnt[256];		/* where it is mounted */
	char base[512];		/* our directory on it */
};

FIXTURE_VARIANT(crash) {
	const char *fs;
	bool reflink;	/* the copy shares the lower file's blocks */
};

FIXTURE_VARIANT_ADD(crash, ext4) {
	.fs = "ext4",
};

FIXTURE_VARIANT_ADD(crash, xfs) {
	.fs = "xfs",
	.reflink = true,
};

/* Blocks of @mnt in use, in bytes; -1 on error. */
static long long used_bytes(const char *mnt)
{
	struct statvfs sv;

	if (statvfs(mnt, &sv))
		return -1;
	return (long long)(sv.f_blocks - sv.f_bfree) * sv.f_frsize;
}

/*
 * Wait until the copy-up under way has taken between 2 MiB and half the
 * file in the top layer's file system (delayed allocation reserves the
 * blocks as the data is written): the crash then lands in the middle of
 * the data, not before the copy started or after it ended.  The growth
 * seen, or -1 if the copy never got there in 20 s.
 */
static long long wait_mid_copy(const char *mnt, long long before)
{
	for (int i = 0; i < 20000; i++) {
		long long now = used_bytes(mnt) - before;

		if (now >= 2LL * CHUNK && now <= (long long)FILE_MB * CHUNK / 2)
			return now;
		if (now > (long long)FILE_MB * CHUNK / 2)
			return -1;
		usleep(1000);
	}
	return -1;
}

/* The device mounted at @mnt, from /proc/mounts; 0 or -1. */
static int mount_source(const char *mnt, const char *fs, char *dev,
			size_t len)
{
	char line[1024], d[256], m[256], t[64];
	FILE *f = fopen("/proc/mounts", "re");
	int ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %255s %63s", d, m, t) == 3 &&
		    !strcmp(m, mnt) && !strcmp(t, fs) && d[0] == '/') {
			snprintf(dev, len, "%s", d);
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

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
	if (st.st_size != (off_t)FILE_MB * CHUNK)
		ret = 0;
	for (int c = 0; ret == 1 && c < FILE_MB; c++) {
		fill(want, c);
		if (read(fd, got, CHUNK) != CHUNK || memcmp(want, got, CHUNK))
			ret = 0;
	}
	close(fd);
	return ret;
}

/* Names in @dir other than "." and ".." into @out (space separated). */
static void list_names(const char *dir, char *out, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	out[0] = '\0';
	if (!d) {
		snprintf(out, len, "(cannot open: %s)", strerror(errno));
		return;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		strncat(out, e->d_name, len - strlen(out) - 2);
		strcat(out, " ");
	}
	closedir(d);
}

FIXTURE_SETUP(crash)
{
	char path[600];
	static char buf[CHUNK];
	int fd;

	snprintf(self->mnt, sizeof(self->mnt), "/mnt/scratch/%s",
		 variant->fs);
	if (mount_source(self->mnt, variant->fs, self->dev, sizeof(self->dev)))
		SKIP(return, "no %s scratch disk at %s", variant->fs,
		     self->mnt);
	snprintf(self->base, sizeof(self->base), "%s/crash", self->mnt);
	ASSERT_EQ(0, system("rm -rf /mnt/scratch/ext4/crash /mnt/scratch/xfs/crash"));
	ASSERT_EQ(0, mkdir(self->base, 0755));
	snprintf(path, sizeof(path), "%s/lower", self->base);
	ASSERT_EQ(0, mkdir(path, 0755));
	snprintf(path, sizeof(path), "%s/upper", self->base);
	ASSERT_EQ(0, mkdir(path, 0755));
	snprintf(path, sizeof(path), "%s/lower/data", self->base);
	fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd) TH_LOG("create %s: %m", path);
	for (int c = 0; c < FILE_MB; c++) {
		fill(buf, c);
		ASSERT_EQ(CHUNK, write(fd, buf, CHUNK));
	}
	ASSERT_EQ(0, fsync(fd));
	close(fd);
	sync();
}

FIXTURE_TEARDOWN(crash)
{
	if (self->base[0])
		system("rm -rf /mnt/scratch/ext4/crash /mnt/scratch/xfs/crash");
}

/*
 * In a child with its own mount namespace: union upper over lower, open
 * the file for writing (the copy-up), report how it ended in the exit
 * status (0 copied, 1 failed, other: setup error).
 */
static int child_copy_up(const char *base)
{
	char lower[600], upper[600], data[600];
	int fd;

	snprintf(lower, sizeof(lower), "%s/lower", base);
	snprintf(upper, sizeof(upper), "%s/upper", base);
	snprintf(data, sizeof(data), "%s/lower/data", base);
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount(upper, lower, NULL, MS_BIND | MS_UNION, NULL))
		_exit(3);
	fd = open(data, O_RDWR | O_CLOEXEC);
	_exit(fd >= 0 ? 0 : 1);
}

TEST_F_TIMEOUT(crash, copy_up_cut_by_shutdown, 900)
{
	/*
	 * -1: let the copy-up finish and sync before the crash; -2: crash
	 * when the copy has taken part of its blocks (not where the copy
	 * shares the lower file's blocks)
	 */
	static const int delays_ms[] = { -2, 0, 30, 80, 150, 300, 600, 2000,
					 -1 };
	int none = 0, complete = 0, mid = 0;
	char path[600], names[1024];
	unsigned int flags = SHUTDOWN_NOLOGFLUSH;

	for (unsigned int i = 0; i < sizeof(delays_ms) / sizeof(*delays_ms);
	     i++) {
		struct timespec ts = {
			.tv_sec = delays_ms[i] / 1000,
			.tv_nsec = (delays_ms[i] % 1000) * 1000000L,
		};
		bool synced = delays_ms[i] == -1, in_data = delays_ms[i] == -2;
		long long before = used_bytes(self->mnt), grown = 0;
		int status, fd, ret;
		pid_t pid;

		if (in_data && variant->reflink)
			continue;
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0)
			child_copy_up(self->base);
		if (synced) {
			ASSERT_EQ(pid, waitpid(pid, &status, 0));
			sync();
		} else if (in_data) {
			grown = wait_mid_copy(self->mnt, before);
			ASSERT_LT(0, grown)
				TH_LOG("the copy-up never was in the middle of its data");
		} else {
			nanosleep(&ts, NULL);
		}

		/* the power goes */
		fd = open(self->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		ASSERT_LE(0, fd) TH_LOG("open %s: %m", self->mnt);
		ASSERT_EQ(0, ioctl(fd, FS_IOC_SHUTDOWN, &flags))
			TH_LOG("shutdown %s: %m", self->mnt);
		close(fd);
		if (!synced)
			ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) <= 1)
			TH_LOG("child status %#x", status);
		if (in_data) {
			/* proof of the cut: the copy-up was under way, and failed */
			EXPECT_EQ(1, WEXITSTATUS(status))
				TH_LOG("the copy-up cut at %lld bytes finished",
				       grown);
			mid++;
		}

		/*
		 * and comes back: unmount, mount from the disk.  The child's
		 * mounts go after it exited (delayed mntput): until they
		 * have, a new mount gets the old, shut down file system back.
		 */
		for (int tries = 0; ; tries++) {
			ASSERT_EQ(0, umount2(self->mnt, 0))
				TH_LOG("umount %s: %m", self->mnt);
			ASSERT_EQ(0, mount(self->dev, self->mnt, variant->fs, 0,
					   NULL))
				TH_LOG("mount %s on %s: %m", self->dev,
				       self->mnt);
			snprintf(path, sizeof(path), "%s/probe", self->base);
			fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
			if (fd >= 0) {
				close(fd);
				unlink(path);
				break;
			}
			ASSERT_GT(50, tries)
				TH_LOG("%s still shut down after remounting: %m",
				       self->mnt);
			usleep(200000);
		}

		snprintf(path, sizeof(path), "%s/upper", self->base);
		list_names(path, names, sizeof(names));
		snprintf(path, sizeof(path), "%s/upper/data", self->base);
		ret = is_pattern(path);
		if (ret < 0 && errno == ENOENT) {
			EXPECT_STREQ("", names);
			/* a finished and synced copy-up is on disk */
			EXPECT_FALSE(synced && !WEXITSTATUS(status))
				TH_LOG("the synced copy was lost");
			none++;
		} else {
			EXPECT_EQ(1, ret)
				TH_LOG("delay %d ms: a partial copy in the top layer",
				       delays_ms[i]);
			EXPECT_STREQ("data ", names);
			complete++;
		}
		if (in_data)
			TH_LOG("cut after %lld of %d bytes copied:", grown,
			       FILE_MB * CHUNK);
		TH_LOG("delay %d ms: copy-up %s, after the crash the top layer holds: %s",
		       delays_ms[i],
		       WEXITSTATUS(status) ? "was cut" : "finished",
		       names[0] ? names : "nothing");

		/* the lower layer is untouched */
		snprintf(path, sizeof(path), "%s/lower/data", self->base);
		EXPECT_EQ(1, is_pattern(path));
		snprintf(path, sizeof(path), "%s/upper/data", self->base);
		unlink(path);
		sync();
	}
	TH_LOG("%d crashes left no copy, %d a complete one", none, complete);
	/* ext4 copies the data: one crash must have cut it in the middle */
	EXPECT_EQ(variant->reflink ? 0 : 1, mid);
}

TEST_HARNESS_MAIN
