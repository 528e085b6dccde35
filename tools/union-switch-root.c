// SPDX-License-Identifier: GPL-2.0
/*
 * union-switch-root - put a writable union layer on a new root, switch to it
 *
 *   union-switch-root TOP NEWROOT INIT [ARG...]
 *
 * The last step of an initramfs that boots a union root (guest/init with
 * union.root=DEV, README.md "Union root"): NEWROOT is the mount point of a
 * read-only system image, TOP a directory of a writable file system (a
 * tmpfs).  TOP becomes a union layer on NEWROOT, the initramfs's files are
 * deleted (as switch_root(8) does), the image with its layer is moved onto
 * / and INIT runs with the union as its root.
 *
 * busybox's switch_root cannot do this: it moves "the mount at NEWROOT",
 * which is the union layer once it is on top, and the kernel refuses to
 * move an attached union layer (EINVAL).  The covered image mount can be
 * moved, with its layer on it, but no path names it once the layer covers
 * it: it is opened before.  The steps:
 *
 *	open(NEWROOT, O_PATH)			the image's mount, still on top
 *	open_tree(TOP, OPEN_TREE_CLONE)		a detached bind mount of TOP
 *	mount_setattr(MOUNT_ATTR_UNION)		made a union layer
 *	move_mount(layer, NEWROOT)		on the image: NEWROOT is a union
 *	statmount(MNT_BASIC)			the kernel reports MOUNT_ATTR_UNION
 *	access(NEWROOT/INIT, X_OK)		the image shows through the layer
 *	umount2(TOP, MNT_DETACH)		if TOP is a mount: the layer
 *						keeps its file system
 *	chdir(NEWROOT)				the layer's root
 *	unlink/rmdir the initramfs's files	not below other mounts
 *	move_mount(image, "/")			the image and its layer onto /
 *	chroot(".")				the union is the root
 *	execv(INIT)
 *
 * Anything failing before the files are deleted takes the layer off again
 * and runs the initramfs's own INIT instead, with UNION_ROOT=failed in the
 * environment, so that the system still boots, without a union root.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/magic.h>
#include <linux/mount.h>

#ifndef MOUNT_ATTR_UNION
#define MOUNT_ATTR_UNION	0x00400000
#endif
#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE	0x00004000U
#endif
#ifndef __NR_open_tree
#define __NR_open_tree		428
#endif
#ifndef __NR_move_mount
#define __NR_move_mount		429
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr	442
#endif
#ifndef __NR_statmount
#define __NR_statmount		457
#endif

static const char *prog = "union-switch-root";

static char **init_argv;

static void fail(const char *step, const char *path)
{
	fprintf(stderr, "%s: %s %s: %s\n", prog, step, path, strerror(errno));
}

/* No union root: the initramfs's INIT runs, told so by UNION_ROOT=failed. */
static int fall_back(void)
{
	if (!init_argv)
		return 1;
	setenv("UNION_ROOT", "failed", 1);
	execv(init_argv[0], init_argv);
	fail("execv", init_argv[0]);
	return 1;
}

/* 1: the kernel reports mount @uid as a union layer, 0: not, -1: unknown */
static int reported_union(unsigned long long uid)
{
#ifdef STATMOUNT_MNT_BASIC
	struct mnt_id_req req = {
		.size = MNT_ID_REQ_SIZE_VER0,
		.mnt_id = uid,
		.param = STATMOUNT_MNT_BASIC,
	};
	struct statmount sm;

	if (!uid || syscall(__NR_statmount, &req, &sm, sizeof(sm), 0) ||
	    !(sm.mask & STATMOUNT_MNT_BASIC))
		return -1;
	return !!(sm.mnt_attr & MOUNT_ATTR_UNION);
#else
	return -1;
#endif
}

/*
 * Delete everything below the directory @dfd that is on the file system
 * @dev, as switch_root(8) does: the initramfs's memory is freed only so.
 * Mount points (another st_dev) are left alone.
 */
static void delete_contents(int dfd, dev_t dev)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;
	struct stat st;

	if (!d) {
		close(dfd);
		return;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    st.st_dev != dev)
			continue;
		if (S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd(d), e->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW);

			if (sub < 0)
				continue;
			delete_contents(sub, dev);
			unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
		} else {
			unlinkat(dirfd(d), e->d_name, 0);
		}
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	const char *top, *newroot, *init;
	char path[PATH_MAX];
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_UNION };
	struct statfs sfs;
	struct statx stx;
	struct stat rst, nst;
	int image, layer, root;
	int u;

	if (argc < 4) {
		fprintf(stderr, "usage: %s TOP NEWROOT INIT [ARG...]\n", prog);
		return 2;
	}
	top = argv[1];
	newroot = argv[2];
	init = argv[3];
	init_argv = argv + 3;

	/* switch_root's checks: / is the initramfs, NEWROOT a mount on it */
	if (statfs("/", &sfs) || stat("/", &rst)) {
		fail("statfs", "/");
		return fall_back();
	}
	if (sfs.f_type != RAMFS_MAGIC && sfs.f_type != TMPFS_MAGIC) {
		fprintf(stderr, "%s: / is not an initramfs\n", prog);
		return fall_back();
	}
	image = open(newroot, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (image < 0 || fstat(image, &nst)) {
		fail("open", newroot);
		return fall_back();
	}
	if (nst.st_dev == rst.st_dev) {
		fprintf(stderr, "%s: %s is not a mount point\n", prog, newroot);
		return fall_back();
	}

	layer = syscall(__NR_open_tree, AT_FDCWD, top,
			OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (layer < 0) {
		fail("open_tree", top);
		return fall_back();
	}
	if (syscall(__NR_mount_setattr, layer, "", AT_EMPTY_PATH, &attr,
		    sizeof(attr))) {
		fail("mount_setattr MOUNT_ATTR_UNION", top);
		return fall_back();
	}
	if (syscall(__NR_move_mount, layer, "", AT_FDCWD, newroot,
		    MOVE_MOUNT_F_EMPTY_PATH)) {
		fail("move_mount onto", newroot);
		return fall_back();
	}
	u = -1;
	if (!statx(layer, "", AT_EMPTY_PATH, STATX_MNT_ID_UNIQUE, &stx) &&
	    (stx.stx_mask & STATX_MNT_ID_UNIQUE))
		u = reported_union(stx.stx_mnt_id);
	snprintf(path, sizeof(path), "%s/%s", newroot, init);
	if (u == 0 || access(path, X_OK)) {
		fprintf(stderr, "%s: %s: %s\n", prog, newroot,
			u == 0 ? "the kernel made no union layer" :
			"the image does not show through the layer");
		if (umount2(newroot, MNT_DETACH))
			fail("umount2", newroot);
		return fall_back();
	}
	close(layer);
	/* TOP's own mount is not needed any more: the layer keeps the tmpfs */
	if (!statx(AT_FDCWD, top, 0, 0, &stx) &&
	    (stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	    (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT) &&
	    umount2(top, MNT_DETACH))
		fail("umount2", top);

	if (chdir(newroot)) {
		fail("chdir", newroot);
		umount2(newroot, MNT_DETACH);
		return fall_back();
	}
	root = open("/", O_RDONLY | O_DIRECTORY);
	if (root >= 0)
		delete_contents(root, rst.st_dev);	/* closes root */

	/* the image with the layer on it; "." stays the layer's root */
	if (syscall(__NR_move_mount, image, "", AT_FDCWD, "/",
		    MOVE_MOUNT_F_EMPTY_PATH)) {
		fail("move_mount to", "/");
		return 1;
	}
	if (chroot(".")) {
		fail("chroot", newroot);
		return 1;
	}
	if (chdir("/")) {
		fail("chdir", "/");
		return 1;
	}
	execv(init, argv + 3);
	fail("execv", init);
	return 1;
}
