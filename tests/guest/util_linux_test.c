// SPDX-License-Identifier: GPL-2.0
/*
 * mount(8), umount(8) and findmnt(8) of the guest: util-linux with the
 * series in patches/util-linux/ (scripts/util-linux.sh), statically linked
 * into the initramfs as /bin/mount, /bin/umount and /usr/bin/findmnt.
 *
 * Each test runs them (fork + exec, stdout and stderr captured, a fixed
 * environment) in its own mount namespace, on
 *
 *   image   a tree on the variant's scratch file system (tmpfs, ext4, xfs,
 *           btrfs), bind-mounted read-only: the directory the unions are
 *           stacked on, as /srv/image in README's examples
 *   rw      a tmpfs "ul-rw", as /srv/rw
 *   extra   a tmpfs "ul-extra"
 *
 * all under a tmpfs "ul-base" on a mkdtemp() directory in /tmp.  What the
 * commands did is checked with system calls: the merged listing and the
 * contents read through the union, where new files land, the mount IDs
 * (statx) and per-mount options (/proc/self/mountinfo) of the top mount,
 * and with the exact output and exit status of the commands.
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
#ifndef STATX_MNT_ID
#define STATX_MNT_ID		0x00001000U
#endif

#define MOUNT_BIN	"/bin/mount"
#define UMOUNT_BIN	"/bin/umount"
#define FINDMNT_BIN	"/usr/bin/findmnt"
#define OUT_MAX		8192

/* What one run of a command did. */
struct result {
	int status;		/* exit status, 128 + signal if killed */
	char out[OUT_MAX];
	char err[OUT_MAX];
};

/*
 * The environment of the commands: fixed, plus "UNION_TEST_NO_UNION_ATTR=1"
 * when a test sets @no_union (libmount then treats the new mount as a
 * kernel without union mounts would leave it: no union layer).
 */
static bool no_union;

static int run(struct result *r, const char *bin, const char *const *argv)
{
	const char *env[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C",
			      no_union ? "UNION_TEST_NO_UNION_ATTR=1" : NULL, NULL };
	int ofd, efd, st;
	ssize_t n;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	ofd = memfd_create("ul-stdout", MFD_CLOEXEC);
	efd = memfd_create("ul-stderr", MFD_CLOEXEC);
	if (ofd < 0 || efd < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		if (dup2(ofd, 1) < 0 || dup2(efd, 2) < 0)
			_exit(126);
		execve(bin, (char *const *)argv, (char *const *)env);
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

#define MOUNT(_r, ...) \
	run(_r, MOUNT_BIN, (const char *const[]){ "mount", __VA_ARGS__, NULL })
#define UMOUNT(_r, ...) \
	run(_r, UMOUNT_BIN, (const char *const[]){ "umount", __VA_ARGS__, NULL })
#define FINDMNT(_r, ...) \
	run(_r, FINDMNT_BIN, (const char *const[]){ "findmnt", __VA_ARGS__, NULL })

/* EXPECT_RUN(0, &r, MOUNT, "--bind", ...): exit status @_st, else log all. */
#define EXPECT_RUN(_st, _r, _cmd, ...) do {				\
	int __st = _cmd(_r, __VA_ARGS__);				\
	EXPECT_EQ(_st, __st)						\
		TH_LOG("%s %s: exit %d, stdout \"%s\", stderr \"%s\"",	\
		       #_cmd, #__VA_ARGS__, __st, (_r)->out, (_r)->err); \
} while (0)

#define ASSERT_RUN(_st, _r, _cmd, ...) do {				\
	int __st = _cmd(_r, __VA_ARGS__);				\
	ASSERT_EQ(_st, __st)						\
		TH_LOG("%s %s: exit %d, stdout \"%s\", stderr \"%s\"",	\
		       #_cmd, #__VA_ARGS__, __st, (_r)->out, (_r)->err); \
} while (0)

/* A command that must succeed silently. */
#define ASSERT_QUIET(_r, _cmd, ...) do {				\
	ASSERT_RUN(0, _r, _cmd, __VA_ARGS__);				\
	ASSERT_STREQ("", (_r)->out);					\
	ASSERT_STREQ("", (_r)->err);					\
} while (0)

/* Write @text over the file @path (a lower one is copied up first). */
static int write_file(const char *path, const char *text)
{
	return write_text(path, O_TRUNC, text);
}

/* The ID of the mount @path is on (the top mount on a mount point), or -1. */
static int mnt_id(const char *path)
{
	struct statx stx;

	if (statx(AT_FDCWD, path, 0, STATX_MNT_ID, &stx) ||
	    !(stx.stx_mask & STATX_MNT_ID))
		return -1;
	return (int)stx.stx_mnt_id;
}

/*
 * Field @field (1-based, before " - ") or, for @field < 0, field -@field
 * after " - " of the mountinfo line of mount @id, or "<none>".
 */
static const char *mountinfo_field(int id, int field)
{
	static char out[PATH_MAX];
	char line[4096], *tok, *save, *sep;
	int n;
	FILE *f;

	strcpy(out, "<none>");
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return out;
	while (fgets(line, sizeof(line), f)) {
		if (atoi(line) != id)
			continue;
		line[strcspn(line, "\n")] = 0;
		sep = strstr(line, " - ");
		if (!sep)
			break;
		*sep = 0;
		tok = field > 0 ? line : sep + 3;
		n = field > 0 ? field : -field;
		for (tok = strtok_r(tok, " ", &save); tok && --n;
		     tok = strtok_r(NULL, " ", &save))
			;
		if (tok)
			snprintf(out, sizeof(out), "%s", tok);
		break;
	}
	fclose(f);
	return out;
}

/* The per-mount (VFS) options of the top mount on @dir, from mountinfo. */
static const char *top_opts(const char *dir)
{
	return mountinfo_field(mnt_id(dir), 6);
}

/* The mountinfo source of the top mount on @dir. */
static const char *top_source(const char *dir)
{
	return mountinfo_field(mnt_id(dir), -2);
}

/* The parent ID of mount @id (the mount it is mounted on), or -1. */
static int parent_id(int id)
{
	const char *p = mountinfo_field(id, 2);

	return strcmp(p, "<none>") ? atoi(p) : -1;
}

FIXTURE(ul) {
	char base[PATH_MAX];	/* mkdtemp() in /tmp; tmpfs "ul-base" on it */
	char scratch[PATH_MAX];	/* mkdtemp() on the variant's file system */
	char image[PATH_MAX];	/* scratch, bind-mounted read-only */
	char rw[PATH_MAX];	/* tmpfs "ul-rw" */
	char extra[PATH_MAX];	/* tmpfs "ul-extra" */
	char other[PATH_MAX];	/* an empty directory in base */
	char fstab[PATH_MAX];	/* base/fstab */
	char img_src[PATH_MAX];	/* findmnt's SOURCE of the image bind */
	int image_id;		/* the mount ID of the image bind */
	long magic;		/* the variant's f_type */
};

FIXTURE_VARIANT(ul) {
	const char *fs;
	long magic;
};

FIXTURE_VARIANT_ADD(ul, tmpfs) { .fs = "tmpfs", .magic = TMPFS_MAGIC };
FIXTURE_VARIANT_ADD(ul, ext4) { .fs = "ext4", .magic = EXT4_SUPER_MAGIC };
FIXTURE_VARIANT_ADD(ul, xfs) { .fs = "xfs", .magic = XFS_SUPER_MAGIC };
FIXTURE_VARIANT_ADD(ul, btrfs) { .fs = "btrfs", .magic = BTRFS_SUPER_MAGIC };

FIXTURE_SETUP(ul)
{
	static const char *rw_files[] = {
		"shared", "from rw\n", "notes", "rw notes\n", NULL };
	static const char *extra_files[] = {
		"shared", "from extra\n", "extra-only", "extra\n", NULL };
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_UNION };
	const char *sroot = getenv("UNION_SCRATCH");
	char fsdir[PATH_MAX], p[PATH_MAX];
	struct statfs sfs;
	int fd, ret, err;

	self->base[0] = self->scratch[0] = 0;
	no_union = false;
	ASSERT_EQ(0, access(MOUNT_BIN, X_OK)) TH_LOG("%s: %m", MOUNT_BIN);
	ASSERT_EQ(0, access(UMOUNT_BIN, X_OK)) TH_LOG("%s: %m", UMOUNT_BIN);
	ASSERT_EQ(0, access(FINDMNT_BIN, X_OK)) TH_LOG("%s: %m", FINDMNT_BIN);
	ASSERT_EQ(0, unshare(CLONE_NEWNS)) TH_LOG("unshare(CLONE_NEWNS): %m");
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		TH_LOG("making / private: %m");

	pjoin(fsdir, sroot ? sroot : "/mnt/scratch", variant->fs);
	if (statfs(fsdir, &sfs) || sfs.f_type != variant->magic)
		SKIP(return, "no %s scratch file system at %s", variant->fs,
		     fsdir);
	self->magic = variant->magic;

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

	/* the image, on the variant's file system */
	pjoin(self->scratch, fsdir, "ul.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->scratch)) TH_LOG("mkdtemp in %s: %m", fsdir);
	ASSERT_EQ(0, chmod(self->scratch, 0755));
	ASSERT_EQ(0, make_file(P(self->scratch, "README"), "image readme\n"));
	ASSERT_EQ(0, make_file(P(self->scratch, "shared"), "from image\n"));
	ASSERT_EQ(0, mkdir(P(self->scratch, "etc"), 0755));
	pjoin(p, self->scratch, "etc/motd");
	ASSERT_EQ(0, make_file(p, "image motd\n"));

	strcpy(self->base, "/tmp/ul.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->base)) TH_LOG("mkdtemp in /tmp: %m");
	ASSERT_EQ(0, mount("ul-base", self->base, "tmpfs", 0, "mode=0755"))
		TH_LOG("tmpfs on %s: %m", self->base);
	pjoin(self->image, self->base, "image");
	pjoin(self->rw, self->base, "rw");
	pjoin(self->extra, self->base, "extra");
	pjoin(self->other, self->base, "other");
	pjoin(self->fstab, self->base, "fstab");
	ASSERT_EQ(0, mkdir(self->image, 0755));
	ASSERT_EQ(0, mkdir(self->other, 0755));
	ASSERT_EQ(0, mount(self->scratch, self->image, NULL, MS_BIND, NULL))
		TH_LOG("bind %s on %s: %m", self->scratch, self->image);
	ASSERT_EQ(0, mount(NULL, self->image, NULL,
			   MS_REMOUNT | MS_BIND | MS_RDONLY, NULL))
		TH_LOG("remount %s read-only: %m", self->image);
	self->image_id = mnt_id(self->image);
	ASSERT_LT(0, self->image_id);
	/* findmnt's SOURCE: "source[root]" of a bind mount of a directory */
	snprintf(p, sizeof(p), "%s", mountinfo_field(self->image_id, 4));
	snprintf(self->img_src, sizeof(self->img_src), "%s[%s]",
		 top_source(self->image), p);
	ASSERT_EQ(0, layer_tmpfs(self->rw, "ul-rw", rw_files))
		TH_LOG("%s: %m", self->rw);
	ASSERT_EQ(0, layer_tmpfs(self->extra, "ul-extra", extra_files))
		TH_LOG("%s: %m", self->extra);
}

/* The mounts go with the test's namespace; the directories stay. */
FIXTURE_TEARDOWN_PARENT(ul)
{
	if (self->scratch[0])
		remove_tree(self->scratch);
	if (self->base[0])
		rmdir(self->base);
}

/* The guest's mount, umount and findmnt are util-linux's, static. */
TEST_F(ul, programs)
{
	struct result r;

	ASSERT_RUN(0, &r, MOUNT, "-V");
	EXPECT_EQ(0, strncmp(r.out, "mount from util-linux 2.38.1", 28))
		TH_LOG("mount -V: %s", r.out);
	ASSERT_RUN(0, &r, UMOUNT, "-V");
	EXPECT_EQ(0, strncmp(r.out, "umount from util-linux 2.38.1", 29))
		TH_LOG("umount -V: %s", r.out);
	ASSERT_RUN(0, &r, FINDMNT, "-V");
	EXPECT_EQ(0, strncmp(r.out, "findmnt from util-linux 2.38.1", 30))
		TH_LOG("findmnt -V: %s", r.out);

	/* the login shell's mount and umount too (busybox sh would run its
	 * own applets: /etc/profile has functions for them) */
	ASSERT_EQ(0, run(&r, "/bin/sh", (const char *const[]){ "sh", "-l", "-c",
			 "mount -V; umount -V", NULL }))
		TH_LOG("sh -l: %s %s", r.out, r.err);
	EXPECT_EQ(0, strncmp(r.out, "mount from util-linux 2.38.1", 28))
		TH_LOG("sh -l -c 'mount -V': %s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "\numount from util-linux 2.38.1"))
		TH_LOG("sh -l -c 'umount -V': %s", r.out);
}

/*
 * mount --bind -o union RW IMAGE: a writable union layer on the image,
 * new files land in it, the image stays as it was; umount takes it off.
 */
TEST_F(ul, bind_union)
{
	struct result r;
	int id;

	ASSERT_QUIET(&r, MOUNT, "--bind", "-o", "union", self->rw, self->image);
	id = mnt_id(self->image);
	EXPECT_NE(self->image_id, id);
	EXPECT_EQ(self->image_id, parent_id(id));
	EXPECT_STREQ("rw,relatime,union", top_opts(self->image));
	EXPECT_STREQ("README etc notes shared", names(self->image));
	EXPECT_STREQ("from rw\n", content(P(self->image, "shared")));
	EXPECT_STREQ("image readme\n", content(P(self->image, "README")));
	EXPECT_STREQ("image motd\n", content(P(self->image, "etc/motd")));
	ASSERT_EQ(0, make_file(P(self->image, "new"), "new\n")) TH_LOG("%m");
	EXPECT_STREQ("new notes shared", names(self->rw));
	EXPECT_STREQ("README etc shared", names(self->scratch));
	EXPECT_STREQ("README etc new notes shared", names(self->image));

	ASSERT_QUIET(&r, UMOUNT, self->image);
	EXPECT_EQ(self->image_id, mnt_id(self->image));
	EXPECT_STREQ("README etc shared", names(self->image));
	EXPECT_STREQ("from image\n", content(P(self->image, "shared")));
}

/*
 * mount -t tmpfs -o union: a new tmpfs as the writable top layer; and
 * "bind,union,ro": a read-only layer (the remount step keeps the layer).
 */
TEST_F(ul, tmpfs_union_and_ro_bind)
{
	struct statfs sfs;
	struct result r;

	ASSERT_QUIET(&r, MOUNT, "-t", "tmpfs", "-o", "union,size=1m,mode=0755",
		     "ul-local", self->image);
	EXPECT_STREQ("rw,relatime,union", top_opts(self->image));
	EXPECT_STREQ("ul-local", top_source(self->image));
	EXPECT_EQ(self->image_id, parent_id(mnt_id(self->image)));
	EXPECT_STREQ("README etc shared", names(self->image));
	EXPECT_STREQ("from image\n", content(P(self->image, "shared")));
	ASSERT_EQ(0, make_file(P(self->image, "local"), "local\n")) TH_LOG("%m");
	ASSERT_EQ(0, statfs(P(self->image, "local"), &sfs));
	EXPECT_EQ(TMPFS_MAGIC, sfs.f_type);
	EXPECT_STREQ("README etc shared", names(self->scratch));
	EXPECT_STREQ("README etc local shared", names(self->image));

	/* a read-only layer on top of it */
	ASSERT_QUIET(&r, MOUNT, "--bind", "-o", "union,ro", self->extra, self->image);
	EXPECT_STREQ("ro,relatime,union", top_opts(self->image));
	EXPECT_STREQ("README etc extra-only local shared", names(self->image));
	EXPECT_STREQ("from extra\n", content(P(self->image, "shared")));
	EXPECT_EQ(-1, make_file(P(self->image, "new"), "new\n"));
	EXPECT_EQ(EROFS, errno);

	ASSERT_QUIET(&r, UMOUNT, self->image);
	ASSERT_QUIET(&r, UMOUNT, self->image);
	EXPECT_EQ(self->image_id, mnt_id(self->image));
	EXPECT_STREQ("README etc shared", names(self->image));
}

/*
 * An fstab describes a stack: mount -a makes it, in the order of the
 * lines (the last line is the top layer); a second mount -a sees it made.
 */
TEST_F(ul, fstab_mount_a)
{
	char tab[4 * PATH_MAX];
	struct result r;
	int top;

	snprintf(tab, sizeof(tab),
		 "# the writable layer, then a tmpfs on top\n"
		 "%s %s none bind,union 0 0\n"
		 "ul-top %s tmpfs union,size=1m,mode=0755 0 0\n",
		 self->rw, self->image, self->image);
	ASSERT_EQ(0, make_file(self->fstab, tab));
	ASSERT_QUIET(&r, MOUNT, "-a", "-T", self->fstab);
	top = mnt_id(self->image);
	EXPECT_STREQ("ul-top", top_source(self->image));
	EXPECT_STREQ("rw,relatime,union", top_opts(self->image));
	EXPECT_STREQ("rw,relatime,union", mountinfo_field(parent_id(top), 6));
	EXPECT_STREQ("ul-rw", mountinfo_field(parent_id(top), -2));
	EXPECT_EQ(self->image_id, parent_id(parent_id(top)));
	EXPECT_STREQ("README etc notes shared", names(self->image));
	EXPECT_STREQ("from rw\n", content(P(self->image, "shared")));
	ASSERT_EQ(0, make_file(P(self->image, "new"), "new\n")) TH_LOG("%m");
	EXPECT_STREQ("notes shared", names(self->rw));

	/* everything is mounted: nothing happens */
	ASSERT_QUIET(&r, MOUNT, "-a", "-T", self->fstab);
	EXPECT_EQ(top, mnt_id(self->image));

	/* findmnt reads the stack back */
	ASSERT_RUN(0, &r, FINDMNT, "--union", "-n", "-r", "-o", "SOURCE,FSTYPE", self->image);
	EXPECT_STREQ("ul-top tmpfs\nul-rw tmpfs\n", r.out);

	/* mount by mount point: the first line of the fstab for it */
	ASSERT_QUIET(&r, UMOUNT, self->image);
	ASSERT_QUIET(&r, UMOUNT, self->image);
	EXPECT_EQ(self->image_id, mnt_id(self->image));
	ASSERT_QUIET(&r, MOUNT, "-T", self->fstab, self->image);
	EXPECT_STREQ("ul-rw", top_source(self->image));
	EXPECT_STREQ("rw,relatime,union", top_opts(self->image));
	EXPECT_STREQ("README etc notes shared", names(self->image));
}

/*
 * findmnt: "union" among the options; --union lists the layers top to
 * bottom, in the order lookups see them; umount takes the top one off.
 */
TEST_F(ul, findmnt_union_stack)
{
	char want[4 * PATH_MAX];
	struct result r;

	ASSERT_RUN(1, &r, FINDMNT, "--union", self->image);
	EXPECT_STREQ("", r.out);
	ASSERT_QUIET(&r, MOUNT, "--bind", "-o", "union", self->rw, self->image);
	ASSERT_QUIET(&r, MOUNT, "-t", "tmpfs", "-o", "union,size=1m", "ul-mid", self->image);
	/* copied up from ul-rw into ul-mid, then written */
	ASSERT_EQ(0, write_file(P(self->image, "shared"), "from mid\n")) TH_LOG("%m");
	ASSERT_QUIET(&r, MOUNT, "--bind", "-o", "union", self->extra, self->image);
	EXPECT_STREQ("from extra\n", content(P(self->image, "shared")));
	EXPECT_STREQ("README etc extra-only notes shared", names(self->image));

	EXPECT_RUN(0, &r, FINDMNT, "--union", "-n", "-r", "-o", "TARGET,SOURCE,FSTYPE,VFS-OPTIONS",
		   self->image);
	snprintf(want, sizeof(want),
		 "%s ul-extra tmpfs rw,relatime,union\n"
		 "%s ul-mid tmpfs rw,relatime,union\n"
		 "%s ul-rw tmpfs rw,relatime,union\n",
		 self->image, self->image, self->image);
	EXPECT_STREQ(want, r.out);
	EXPECT_STREQ("", r.err);

	/* with headings; OPTIONS: the VFS and the file system's options */
	EXPECT_RUN(0, &r, FINDMNT, "--union", "-o", "SOURCE,FSTYPE,OPTIONS", self->image);
	EXPECT_STREQ("SOURCE   FSTYPE OPTIONS\n"
		     "ul-extra tmpfs  rw,relatime,union,mode=755\n"
		     "ul-mid   tmpfs  rw,relatime,union,size=1024k\n"
		     "ul-rw    tmpfs  rw,relatime,union,mode=755\n", r.out);

	/* without --union: every mount on the mount point, union or not */
	EXPECT_RUN(0, &r, FINDMNT, "-n", "-r", "-o", "SOURCE,VFS-OPTIONS", "--mountpoint", self->image);
	snprintf(want, sizeof(want),
		 "%s ro,relatime\nul-rw rw,relatime,union\n"
		 "ul-mid rw,relatime,union\nul-extra rw,relatime,union\n",
		 self->img_src);
	EXPECT_STREQ(want, r.out);

	/* --union without a mount point: every stack, this one among them */
	EXPECT_RUN(0, &r, FINDMNT, "--union", "-n", "-r", "-o", "SOURCE,TARGET");
	snprintf(want, sizeof(want),
		 "ul-extra %s\nul-mid %s\nul-rw %s\n",
		 self->image, self->image, self->image);
	EXPECT_NE(NULL, strstr(r.out, want)) TH_LOG("findmnt --union: %s", r.out);

	/* JSON */
	EXPECT_RUN(0, &r, FINDMNT, "--union", "-J", "-o", "SOURCE", self->image);
	EXPECT_STREQ("{\n   \"filesystems\": [\n"
		     "      {\n         \"source\": \"ul-extra\"\n      },"
		     "{\n         \"source\": \"ul-mid\"\n      },"
		     "{\n         \"source\": \"ul-rw\"\n      }\n"
		     "   ]\n}\n", r.out);

	/* umount: the top layer goes, the rest of the stack stays */
	ASSERT_QUIET(&r, UMOUNT, self->image);
	EXPECT_STREQ("from mid\n", content(P(self->image, "shared")));
	EXPECT_STREQ("README etc notes shared", names(self->image));
	EXPECT_RUN(0, &r, FINDMNT, "--union", "-n", "-r", "-o", "SOURCE", self->image);
	EXPECT_STREQ("ul-mid\nul-rw\n", r.out);
	ASSERT_QUIET(&r, UMOUNT, self->image);
	EXPECT_STREQ("from rw\n", content(P(self->image, "shared")));
	EXPECT_RUN(0, &r, FINDMNT, "--union", "-n", "-r", "-o", "SOURCE", self->image);
	EXPECT_STREQ("ul-rw\n", r.out);
	ASSERT_QUIET(&r, UMOUNT, self->image);
	EXPECT_EQ(self->image_id, mnt_id(self->image));
	EXPECT_STREQ("from image\n", content(P(self->image, "shared")));
	ASSERT_RUN(1, &r, FINDMNT, "--union", self->image);
	EXPECT_STREQ("", r.out);
}

/*
 * A union layer is made, not changed: union with remount or move fails
 * before mount(2); a remount of a layer leaves "union" out and works.
 */
TEST_F(ul, bad_combinations)
{
	char want[2 * PATH_MAX];
	struct result r;
	int id;

	ASSERT_QUIET(&r, MOUNT, "-t", "tmpfs", "-o", "union", "ul-top", self->image);
	id = mnt_id(self->image);

	EXPECT_RUN(1, &r, MOUNT, "-o", "remount,union", self->image);
	snprintf(want, sizeof(want),
		 "mount: %s: union makes a new union layer; it cannot be used with remount or move.\n",
		 self->image);
	EXPECT_STREQ(want, r.err);
	EXPECT_STREQ("", r.out);
	EXPECT_EQ(id, mnt_id(self->image));
	EXPECT_STREQ("rw,relatime,union", top_opts(self->image));

	EXPECT_RUN(1, &r, MOUNT, "--move", "-o", "union", self->image, self->other);
	snprintf(want, sizeof(want),
		 "mount: %s: union makes a new union layer; it cannot be used with remount or move.\n",
		 self->other);
	EXPECT_STREQ(want, r.err);
	EXPECT_EQ(id, mnt_id(self->image));

	/* remount of the layer: read-only, then back */
	ASSERT_QUIET(&r, MOUNT, "-o", "remount,ro", self->image);
	EXPECT_EQ(id, mnt_id(self->image));
	EXPECT_STREQ("ro,relatime,union", top_opts(self->image));
	EXPECT_EQ(-1, make_file(P(self->image, "new"), "new\n"));
	EXPECT_EQ(EROFS, errno);
	EXPECT_STREQ("README etc shared", names(self->image));
	ASSERT_QUIET(&r, MOUNT, "-o", "remount,rw", self->image);
	EXPECT_STREQ("rw,relatime,union", top_opts(self->image));
	EXPECT_EQ(0, make_file(P(self->image, "new"), "new\n")) TH_LOG("%m");

	/* the kernel refuses a union layer of a file */
	EXPECT_RUN(32, &r, MOUNT, "--bind", "-o", "union", P(self->rw, "shared"), self->image);
	EXPECT_EQ(id, mnt_id(self->image));

	/* a moved union layer: the kernel says no (EINVAL) */
	EXPECT_RUN(32, &r, MOUNT, "--move", self->image, self->other);
	EXPECT_EQ(id, mnt_id(self->image));
	EXPECT_STREQ("README etc new shared", names(self->image));
}

/*
 * A kernel that ignores MS_UNION makes a plain mount: mount(8) must undo
 * it and fail.  No kernel at hand ignores MS_UNION (a kernel without the
 * series is not booted here), so UNION_TEST_NO_UNION_ATTR=1 makes libmount
 * read "no union layer" from the real mountinfo: this checks the undo and
 * the message, not the detection on such a kernel.
 */
TEST_F(ul, no_union_kernel_simulated)
{
	char want[2 * PATH_MAX], tab[4 * PATH_MAX];
	struct result r;
	int id;

	snprintf(want, sizeof(want),
		 "mount: %s: the kernel made no union layer (no union mounts in this kernel?); the new mount was taken off again.\n",
		 self->image);
	no_union = true;
	EXPECT_RUN(32, &r, MOUNT, "--bind", "-o", "union", self->rw, self->image);
	EXPECT_STREQ(want, r.err);
	EXPECT_STREQ("", r.out);
	EXPECT_EQ(self->image_id, mnt_id(self->image));
	EXPECT_STREQ("README etc shared", names(self->image));

	EXPECT_RUN(32, &r, MOUNT, "-t", "tmpfs", "-o", "union", "ul-top", self->image);
	EXPECT_STREQ(want, r.err);
	EXPECT_EQ(self->image_id, mnt_id(self->image));

	/* a plain bind mount is not checked */
	ASSERT_QUIET(&r, MOUNT, "--bind", self->extra, self->image);
	EXPECT_STREQ("extra-only shared", names(self->image));
	ASSERT_QUIET(&r, UMOUNT, self->image);

	/* on a stack: the stack stays as it was */
	no_union = false;
	ASSERT_QUIET(&r, MOUNT, "--bind", "-o", "union", self->rw, self->image);
	id = mnt_id(self->image);
	no_union = true;
	EXPECT_RUN(32, &r, MOUNT, "--bind", "-o", "union", self->extra, self->image);
	EXPECT_STREQ(want, r.err);
	EXPECT_EQ(id, mnt_id(self->image));
	EXPECT_STREQ("README etc notes shared", names(self->image));

	/* mount -a: the line fails, nothing stays */
	snprintf(tab, sizeof(tab), "%s %s none bind,union 0 0\n", self->extra, self->image);
	ASSERT_EQ(0, make_file(self->fstab, tab));
	EXPECT_RUN(32, &r, MOUNT, "-a", "-T", self->fstab);
	EXPECT_STREQ(want, r.err);
	EXPECT_EQ(id, mnt_id(self->image));
	no_union = false;
}

TEST_HARNESS_MAIN
