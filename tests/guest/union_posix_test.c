// SPDX-License-Identifier: GPL-2.0
/*
 * POSIX conformance of a union, as a differential test.
 *
 * A table of cases, each a short sequence of syscalls (open/creat with its
 * flags, link, unlink, rmdir, mkdir, mknod, rename/renameat2, symlink,
 * chmod, chown, utimensat, truncate, access, and stat/read/readdir to see
 * what they did), runs as root, as uid 1000 and as uid 1001 in three
 * directories prepared from the same initial tree:
 *
 *   plain    a directory on tmpfs holding the whole tree;
 *   overlay  an overlayfs merged directory, the tree in lowerdir, an empty
 *            upperdir;
 *   union    a union: a tmpfs top layer (MS_BIND | MS_UNION) on a tmpfs
 *            directory holding the tree.
 *
 * Every environment is built anew for each case and user, on a tmpfs of
 * its own, so cases do not see each other's changes.  For every step the
 * return value and errno (and, for some, st_mode/owner/size, contents or a
 * listing) are recorded, and after the case a snapshot of the whole tree
 * (types, modes, owners, sizes, link counts, contents, symlink targets) is
 * taken through each environment.
 *
 * A union result that differs from the plain one fails the case, unless
 * the step is listed in known[] below: a non-standard behaviour that
 * Documentation/filesystems/union-mounts.rst documents (it is then printed
 * as "# known difference: ...").  An overlayfs result that differs from
 * the plain one is information only ("# overlay differs: ...").
 *
 * The output is TAP, one line per case and user, the plan last; the exit
 * status is 1 on any failure, 4 (skip) where union layers are missing.
 * An argument restricts the run to the cases whose name contains it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"

#ifndef MS_UNION
#define MS_UNION	(1 << 9)
#endif
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE	(1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE		(1 << 1)
#endif

#define UA	1000		/* owns f666, udir, sticky/u1000 */
#define UB	1001		/* owns sticky/u1001 */

/* --- Steps and cases -------------------------------------------------- */

enum op {
	OP_END,
	OP_OPEN,	/* p1, a = flags, b = mode; out: fstat of the fd */
	OP_WRITE,	/* p1, p2 = data: open(O_WRONLY | O_APPEND) + write */
	OP_READ,	/* p1; out: contents */
	OP_LIST,	/* p1; out: sorted names */
	OP_STAT,	/* p1; out: mode, owner, size */
	OP_LSTAT,	/* p1; out: mode, owner, size */
	OP_READLINK,	/* p1; out: target */
	OP_TIMES,	/* p1; out: atime and mtime (lstat), if UT_SET's */
	OP_LINK,	/* p1 -> p2 */
	OP_UNLINK,	/* p1 */
	OP_RMDIR,	/* p1 */
	OP_MKDIR,	/* p1, a = mode */
	OP_MKNOD,	/* p1, a = mode, b = dev */
	OP_RENAME,	/* p1 -> p2, a = renameat2 flags */
	OP_SYMLINK,	/* p2 -> target p1 */
	OP_CHMOD,	/* p1, a = mode */
	OP_CHOWN,	/* p1, a = uid, b = gid */
	OP_LCHOWN,	/* p1, a = uid, b = gid */
	OP_UTIMENS,	/* p1, a = UT_*, b = utimensat flags */
	OP_TRUNCATE,	/* p1, a = length */
	OP_ACCESS,	/* p1, a = mode */
};

enum { UT_NULL, UT_NOW, UT_SET };
/* The times UT_SET sets: atime ahead (relatime leaves it), mtime past. */
#define SET_ATIME	2000000000L
#define SET_MTIME	1000000000L

struct step {
	enum op op;
	const char *p1, *p2;
	long a, b;
};

#define OPEN(p, f, m)	{ OP_OPEN, p, NULL, f, m }
#define WRITE(p, d)	{ OP_WRITE, p, d, 0, 0 }
#define READ(p)		{ OP_READ, p, NULL, 0, 0 }
#define LIST(p)		{ OP_LIST, p, NULL, 0, 0 }
#define STAT(p)		{ OP_STAT, p, NULL, 0, 0 }
#define LSTAT(p)	{ OP_LSTAT, p, NULL, 0, 0 }
#define READLINK(p)	{ OP_READLINK, p, NULL, 0, 0 }
#define TIMES(p)	{ OP_TIMES, p, NULL, 0, 0 }
#define LINK(o, n)	{ OP_LINK, o, n, 0, 0 }
#define UNLINK(p)	{ OP_UNLINK, p, NULL, 0, 0 }
#define RMDIR(p)	{ OP_RMDIR, p, NULL, 0, 0 }
#define MKDIR(p, m)	{ OP_MKDIR, p, NULL, m, 0 }
#define MKNOD(p, m, d)	{ OP_MKNOD, p, NULL, m, d }
#define RENAME(o, n, f)	{ OP_RENAME, o, n, f, 0 }
#define SYMLINK(t, p)	{ OP_SYMLINK, t, p, 0, 0 }
#define CHMOD(p, m)	{ OP_CHMOD, p, NULL, m, 0 }
#define CHOWN(p, u, g)	{ OP_CHOWN, p, NULL, u, g }
#define LCHOWN(p, u, g)	{ OP_LCHOWN, p, NULL, u, g }
#define UTIMENS(p, k, f) { OP_UTIMENS, p, NULL, k, f }
#define TRUNCATE(p, l)	{ OP_TRUNCATE, p, NULL, l, 0 }
#define ACCESS(p, m)	{ OP_ACCESS, p, NULL, m, 0 }

#define MAX_STEPS	14

/* Who runs a case: a mask of these. */
#define U_ROOT		1
#define U_A		2
#define U_B		4
#define U_USERS		(U_A | U_B)
#define U_ALL		(U_ROOT | U_A | U_B)

struct tcase {
	const char *name;
	unsigned int users;
	struct step steps[MAX_STEPS];
};

#define WRC	(O_WRONLY | O_CREAT)
#define CHR_NULL	((1L << 8) | 3)	/* makedev(1, 3), /dev/null */

/*
 * The initial tree (build_tree()), in the directory the cases run in:
 *
 *   .            0755 root
 *   f644         0644 root        "hello\n"
 *   f600         0600 root        "secret\n"
 *   f666         0666 1000:1000   "shared\n"
 *   dir/         0755 root        a, b (0644 root)
 *   empty/       0755 root
 *   sticky/     01777 root        u1000 (0644 1000), u1001 (0644 1001)
 *   lnk          -> f644
 *   dangling     -> missing
 *   ro/          0555 root        f (0644 root)
 *   priv/        0700 root        f (0644 root)
 *   udir/        0755 1000:1000   f (0644 1000), sub/ (0755 1000, empty)
 */
static const struct tcase cases[] = {
	/* --- open(2) and creat(2) --- */
	{ "open_creat_new", U_ALL, {
		OPEN("new", WRC, 0640), STAT("new"), READ("new") } },
	{ "open_creat_existing", U_ALL, {
		OPEN("f644", WRC, 0600), STAT("f644"),
		OPEN("f666", WRC, 0600), STAT("f666") } },
	{ "creat_existing_truncates", U_ALL, {
		OPEN("f666", WRC | O_TRUNC, 0600), STAT("f666"), READ("f666"),
		OPEN("f644", WRC | O_TRUNC, 0600), STAT("f644") } },
	{ "open_creat_excl_existing", U_ALL, {
		OPEN("f644", WRC | O_EXCL, 0600), OPEN("dir", WRC | O_EXCL, 0600),
		OPEN("lnk", WRC | O_EXCL, 0600), OPEN("sticky/u1000", WRC | O_EXCL, 0600),
		STAT("f644") } },
	{ "open_creat_excl_new_in_sticky", U_ALL, {
		OPEN("sticky/n", WRC | O_EXCL, 0644), STAT("sticky/n"),
		OPEN("sticky/n", WRC | O_EXCL, 0644), LIST("sticky") } },
	{ "open_creat_via_dangling_symlink", U_ALL, {
		OPEN("dangling", WRC | O_EXCL, 0644),
		OPEN("dangling", WRC, 0644), LSTAT("missing"), STAT("dangling") } },
	{ "open_creat_in_udir", U_ALL, {
		OPEN("udir/new", WRC, 0644), STAT("udir/new"), LIST("udir") } },
	{ "open_creat_in_ro_dir", U_ALL, {
		OPEN("ro/new", WRC, 0644), OPEN("ro/f", O_WRONLY, 0), STAT("ro/new") } },
	{ "open_creat_in_missing_or_file", U_ALL, {
		OPEN("nope/new", WRC, 0644), OPEN("f644/new", WRC, 0644),
		OPEN("lnk/new", WRC, 0644) } },
	{ "open_trunc", U_ALL, {
		OPEN("f644", O_WRONLY | O_TRUNC, 0), STAT("f644"), READ("f644"),
		OPEN("f666", O_RDWR | O_TRUNC, 0), STAT("f666") } },
	{ "open_rdonly_trunc", U_ALL, {
		OPEN("f644", O_RDONLY | O_TRUNC, 0), STAT("f644"),
		OPEN("f666", O_RDONLY | O_TRUNC, 0), STAT("f666") } },
	{ "open_write_permissions", U_ALL, {
		OPEN("f644", O_WRONLY, 0), OPEN("f600", O_RDONLY, 0),
		OPEN("f600", O_WRONLY, 0), OPEN("f666", O_RDWR, 0),
		OPEN("dir/a", O_RDWR, 0), READ("f600") } },
	{ "open_append_write", U_ALL, {
		WRITE("f666", "more\n"), READ("f666"), STAT("f666"),
		WRITE("f644", "more\n"), READ("f644"),
		WRITE("sticky/u1001", "x\n"), READ("sticky/u1001") } },
	{ "open_directory_flag", U_ALL, {
		OPEN("f644", O_RDONLY | O_DIRECTORY, 0),
		OPEN("dir", O_RDONLY | O_DIRECTORY, 0),
		OPEN("lnk", O_RDONLY | O_DIRECTORY, 0),
		OPEN("dir", O_WRONLY, 0), OPEN("dir", O_RDWR, 0),
		OPEN("dir", O_RDONLY | O_CREAT, 0644),
		OPEN("newd", O_RDONLY | O_CREAT | O_DIRECTORY, 0755),
		OPEN("ro", O_RDONLY | O_DIRECTORY, 0),
		OPEN("priv", O_RDONLY | O_DIRECTORY, 0), LSTAT("newd") } },
	{ "open_nofollow", U_ALL, {
		OPEN("lnk", O_RDONLY | O_NOFOLLOW, 0),
		OPEN("lnk", O_PATH | O_NOFOLLOW, 0),
		OPEN("lnk", O_RDONLY, 0), OPEN("dangling", O_RDONLY, 0),
		OPEN("dangling", O_RDONLY | O_NOFOLLOW, 0),
		OPEN("dangling", WRC | O_NOFOLLOW, 0644),
		OPEN("dir/a", O_RDONLY | O_NOFOLLOW, 0),
		OPEN("lnk", O_WRONLY | O_NOFOLLOW, 0) } },
	{ "open_trailing_slash", U_ALL, {
		OPEN("f644/", O_RDONLY, 0), OPEN("f644/", WRC, 0644),
		OPEN("newf/", WRC, 0644), OPEN("dir/", O_RDONLY, 0),
		OPEN("lnk/", O_RDONLY, 0), STAT("f644/"), LSTAT("lnk/"),
		STAT("dir/"), LSTAT("newf") } },
	{ "open_in_private_dir", U_ALL, {
		OPEN("priv/f", O_RDONLY, 0), STAT("priv/f"), LIST("priv"),
		OPEN("priv/new", WRC, 0644), STAT("priv") } },
	{ "open_creat_over_whiteout", U_ROOT, {
		UNLINK("f644"), OPEN("f644", WRC | O_EXCL, 0600), STAT("f644"),
		READ("f644"), UNLINK("dir/a"), OPEN("dir/a", WRC, 0640),
		LIST("dir"), STAT("dir/a") } },

	/* --- link(2) --- */
	{ "link_new_name", U_ALL, {
		LINK("f644", "f644.l"), STAT("f644.l"), STAT("f644"),
		WRITE("f644.l", "via link\n"), READ("f644") } },
	{ "link_onto_existing", U_ALL, {
		LINK("f644", "f600"), LINK("f644", "dir"), LINK("f644", "dangling"),
		LINK("nope", "f600"), READ("f600") } },
	{ "link_directory", U_ALL, {
		LINK("dir", "dir2"), LINK("empty", "sticky/e"), LSTAT("dir2") } },
	{ "link_across_dirs", U_ALL, {
		LINK("dir/a", "empty/a"), STAT("empty/a"), STAT("dir/a"),
		LIST("empty"), LINK("f666", "sticky/f666"), STAT("f666") } },
	{ "link_in_sticky_dir", U_ALL, {
		LINK("sticky/u1001", "sticky/l1001"), LINK("sticky/u1000", "sticky/l1000"),
		LIST("sticky"), STAT("sticky/u1000") } },
	{ "link_in_user_dir", U_ALL, {
		LINK("udir/f", "udir/f2"), STAT("udir/f"), LIST("udir") } },
	{ "link_symlink_and_missing", U_ALL, {
		LINK("lnk", "sticky/lnk2"), LSTAT("sticky/lnk2"),
		LINK("dangling", "sticky/d2"), LSTAT("sticky/d2"),
		LINK("nope", "sticky/x"), LINK("f644", "nope/x"),
		LINK("f644", "f644/x"), LINK("f644/", "sticky/y") } },

	/* --- unlink(2) --- */
	{ "unlink_file", U_ALL, {
		UNLINK("f644"), LSTAT("f644"), UNLINK("f644"), LIST("."),
		UNLINK("f666"), LSTAT("f666") } },
	{ "unlink_directory", U_ALL, {
		UNLINK("dir"), UNLINK("empty"), UNLINK("sticky"), LSTAT("dir") } },
	{ "unlink_trailing_slash", U_ALL, {
		UNLINK("f644/"), UNLINK("dir/"), UNLINK("nope/"), UNLINK("lnk/"),
		LSTAT("f644") } },
	{ "unlink_missing", U_ALL, {
		UNLINK("nope"), UNLINK("nope/x"), UNLINK("f644/x"), UNLINK("dir/nope"),
		UNLINK("sticky/nope") } },
	{ "unlink_in_sticky_dir", U_ALL, {
		UNLINK("sticky/u1000"), UNLINK("sticky/u1001"), LIST("sticky"),
		LSTAT("sticky/u1000"), LSTAT("sticky/u1001") } },
	{ "unlink_then_rmdir_then_mkdir", U_ALL, {
		UNLINK("dir/a"), LIST("dir"), RMDIR("dir"), UNLINK("dir/b"),
		RMDIR("dir"), LSTAT("dir"), MKDIR("dir", 0700), LIST("dir"),
		STAT("dir") } },
	{ "unlink_symlinks", U_ALL, {
		UNLINK("lnk"), STAT("f644"), UNLINK("dangling"), LSTAT("dangling"),
		LIST(".") } },
	{ "unlink_in_ro_and_private_dir", U_ALL, {
		UNLINK("ro/f"), UNLINK("priv/f"), LIST("ro"), LIST("priv") } },
	{ "unlink_in_user_dir", U_ALL, {
		UNLINK("udir/f"), LIST("udir"), OPEN("udir/f", WRC, 0600),
		STAT("udir/f") } },

	/* --- rmdir(2) --- */
	{ "rmdir_empty", U_ALL, {
		RMDIR("empty"), LSTAT("empty"), MKDIR("empty", 0755), LIST("empty"),
		STAT("empty") } },
	{ "rmdir_non_empty", U_ALL, {
		RMDIR("dir"), RMDIR("priv"), RMDIR("sticky"), RMDIR("udir"),
		LIST("dir") } },
	{ "rmdir_not_a_directory", U_ALL, {
		RMDIR("f644"), RMDIR("lnk"), RMDIR("dangling"), RMDIR("nope"),
		RMDIR("f644/"), RMDIR("sticky/u1000") } },
	{ "rmdir_dot_and_dotdot", U_ALL, {
		RMDIR("."), RMDIR("empty/."), RMDIR("dir/."), RMDIR("empty/.."),
		RMDIR("empty/"), LSTAT("empty") } },
	{ "rmdir_in_user_dir", U_ALL, {
		RMDIR("udir/sub"), LIST("udir"), MKDIR("udir/sub", 0700),
		STAT("udir/sub") } },
	{ "rmdir_in_sticky_dir", U_ALL, {
		MKDIR("sticky/d", 0755), RMDIR("sticky/d"), LSTAT("sticky/d") } },

	/* --- mkdir(2) --- */
	{ "mkdir_new", U_ALL, {
		MKDIR("nd", 0750), STAT("nd"), LIST("nd"), MKDIR("nd2/", 0755),
		STAT("nd2") } },
	{ "mkdir_existing", U_ALL, {
		MKDIR("dir", 0755), MKDIR("empty", 0), MKDIR("empty/", 0755),
		MKDIR("sticky", 0755), MKDIR(".", 0755) } },
	{ "mkdir_over_non_directory", U_ALL, {
		MKDIR("f644", 0755), MKDIR("lnk", 0755), MKDIR("dangling", 0755),
		MKDIR("sticky/u1001", 0755), LSTAT("missing") } },
	{ "mkdir_in_ro_dir", U_ALL, {
		MKDIR("ro/x", 0755), STAT("ro/x"), LIST("ro") } },
	{ "mkdir_under_file_or_missing", U_ALL, {
		MKDIR("f644/x", 0755), MKDIR("nope/x", 0755), MKDIR("lnk/x", 0755),
		MKDIR("priv/x", 0755) } },
	{ "mkdir_in_sticky_and_user_dir", U_ALL, {
		MKDIR("sticky/d", 0700), STAT("sticky/d"), MKDIR("udir/d", 0777),
		STAT("udir/d"), MKDIR("udir/sub/d", 0755), LIST("udir/sub") } },

	/* --- mknod(2) --- */
	{ "mknod_fifo", U_ALL, {
		MKNOD("sticky/fifo", S_IFIFO | 0644, 0), STAT("sticky/fifo"),
		MKNOD("fifo", S_IFIFO | 0600, 0), LSTAT("fifo"),
		OPEN("sticky/fifo", O_RDWR, 0) } },
	{ "mknod_chardev", U_ALL, {
		MKNOD("sticky/null", S_IFCHR | 0666, CHR_NULL), STAT("sticky/null"),
		WRITE("sticky/null", "gone"), LIST("sticky") } },
	{ "mknod_existing", U_ALL, {
		MKNOD("f644", S_IFIFO | 0644, 0), MKNOD("sticky/u1000", S_IFIFO | 0644, 0),
		MKNOD("dangling", S_IFIFO | 0644, 0), MKNOD("dir/", S_IFIFO | 0644, 0) } },
	{ "mknod_regular_and_bad_type", U_ALL, {
		MKNOD("sticky/reg", S_IFREG | 0640, 0), STAT("sticky/reg"),
		MKNOD("sticky/dir", S_IFDIR | 0755, 0), LSTAT("sticky/dir") } },

	/* --- rename(2), renameat2(2) --- */
	{ "rename_file_onto_file", U_ALL, {
		RENAME("f644", "f600", 0), LSTAT("f644"), READ("f600"), STAT("f600") } },
	{ "rename_file_new_name", U_ALL, {
		RENAME("f644", "g", 0), STAT("g"), LSTAT("f644"), RENAME("g", "f644", 0),
		READ("f644"), LIST(".") } },
	{ "rename_file_onto_dir", U_ALL, {
		RENAME("f644", "empty", 0), RENAME("f644", "dir", 0),
		RENAME("f644", "empty/", 0), STAT("empty") } },
	{ "rename_dir_onto_file", U_ALL, {
		RENAME("empty", "f644", 0), RENAME("dir", "f644", 0),
		RENAME("empty", "lnk", 0), STAT("f644") } },
	{ "rename_dir_onto_empty_dir", U_ALL, {
		RENAME("dir", "empty", 0), LIST("empty"), LSTAT("dir") } },
	{ "rename_dir_onto_non_empty_dir", U_ALL, {
		RENAME("empty", "dir", 0), RENAME("dir", "udir", 0), LIST("dir"),
		LSTAT("empty") } },
	{ "rename_dir_new_name", U_ALL, {
		RENAME("dir", "dir2", 0), LIST("dir2"), LSTAT("dir") } },
	{ "rename_new_dir", U_ROOT, {
		MKDIR("nd", 0755), OPEN("nd/f", WRC, 0644), RENAME("nd", "nd2", 0),
		LIST("nd2"), MKDIR("nd3", 0755), RENAME("nd2", "nd3", 0), LIST("nd3"),
		LSTAT("nd2") } },
	{ "rename_dir_into_itself", U_ALL, {
		RENAME("dir", "dir/sub", 0), RENAME("empty", "empty/x", 0),
		RENAME("dir", "dir/a", 0), RENAME(".", "x", 0), RENAME("dir/..", "x", 0) } },
	{ "rename_onto_itself", U_ALL, {
		RENAME("f644", "f644", 0), RENAME("dir", "dir", 0), RENAME("lnk", "lnk", 0),
		RENAME("sticky/u1001", "sticky/u1001", 0), RENAME("nope", "nope", 0),
		LIST(".") } },
	{ "rename_hard_links_of_one_file", U_ROOT, {
		LINK("f644", "h"), RENAME("f644", "h", 0), LSTAT("f644"), LSTAT("h"),
		RENAME("h", "f644", RENAME_NOREPLACE), RENAME("h", "f644", RENAME_EXCHANGE) } },
	{ "rename_noreplace", U_ALL, {
		RENAME("f644", "f600", RENAME_NOREPLACE), RENAME("dir", "dangling", RENAME_NOREPLACE),
		RENAME("f644", "empty", RENAME_NOREPLACE), RENAME("f644", "new", RENAME_NOREPLACE),
		LSTAT("new"), RENAME("sticky/u1000", "sticky/n", RENAME_NOREPLACE),
		LIST("sticky") } },
	{ "rename_exchange", U_ALL, {
		RENAME("f644", "f600", RENAME_EXCHANGE), READ("f644"), READ("f600"),
		RENAME("f644", "nope", RENAME_EXCHANGE), RENAME("dir", "f666", RENAME_EXCHANGE),
		LSTAT("dir"), RENAME("sticky/u1000", "sticky/u1001", RENAME_EXCHANGE),
		READ("sticky/u1000") } },
	{ "rename_exchange_new_names", U_ROOT, {
		OPEN("x1", WRC, 0600), MKDIR("x2", 0700), RENAME("x1", "x2", RENAME_EXCHANGE),
		LSTAT("x1"), LSTAT("x2"), RENAME("x1", "x2", RENAME_EXCHANGE | RENAME_NOREPLACE) } },
	{ "rename_in_sticky_dir", U_ALL, {
		RENAME("sticky/u1000", "sticky/m1000", 0), RENAME("sticky/u1001", "sticky/m1001", 0),
		LIST("sticky"), RENAME("sticky/m1000", "sticky/u1001", 0),
		RENAME("sticky/m1001", "sticky/u1000", 0), LIST("sticky") } },
	{ "rename_into_sticky_dir", U_ALL, {
		RENAME("udir/f", "sticky/f", 0), RENAME("f666", "sticky/u1001", 0),
		LIST("sticky"), LIST("udir") } },
	{ "rename_across_dirs", U_ALL, {
		RENAME("dir/a", "empty/a", 0), LIST("dir"), LIST("empty"), READ("empty/a"),
		RENAME("empty/a", "dir/b", 0), LIST("dir") } },
	{ "rename_trailing_slash", U_ALL, {
		RENAME("f644/", "x", 0), RENAME("f644", "x/", 0), RENAME("dir/", "dir3/", 0),
		LSTAT("dir3"), RENAME("lnk/", "x", 0) } },
	{ "rename_missing_and_bad_paths", U_ALL, {
		RENAME("nope", "x", 0), RENAME("f644", "nope/x", 0),
		RENAME("f644", "f600/x", 0), RENAME("f644", "priv/x", 0),
		RENAME("f644", "f600", RENAME_NOREPLACE | RENAME_EXCHANGE) } },
	{ "rename_in_user_dir", U_ALL, {
		RENAME("udir/f", "udir/g", 0), RENAME("udir/sub", "udir/sub2", 0),
		LIST("udir"), RENAME("udir/g", "udir/sub2", 0) } },
	{ "rename_symlink", U_ALL, {
		RENAME("lnk", "lnk2", 0), READLINK("lnk2"), READ("lnk2"),
		RENAME("dangling", "sticky/dl", 0), READLINK("sticky/dl") } },
	{ "rename_onto_whiteout", U_ROOT, {
		UNLINK("f600"), RENAME("f644", "f600", 0), READ("f600"), LSTAT("f644"),
		RMDIR("empty"), RENAME("dir", "empty", 0), LIST("empty") } },
	{ "rename_onto_emptied_dir", U_ROOT, {
		MKDIR("nd", 0755), OPEN("nd/f", WRC, 0644), UNLINK("dir/a"),
		RENAME("nd", "dir", 0), UNLINK("dir/b"), RENAME("nd", "dir", 0),
		LIST("dir"), LSTAT("nd"), LIST(".") } },
	{ "rename_onto_copied_dir", U_ROOT, {
		CHMOD("dir", 0750), MKDIR("nd", 0755), RENAME("nd", "dir", 0),
		LIST("dir"), LSTAT("nd"), RENAME("dir", "dir", 0), LIST("dir") } },
	{ "rename_onto_remade_dir", U_ROOT, {
		UNLINK("dir/a"), UNLINK("dir/b"), RMDIR("dir"), MKDIR("dir", 0755),
		MKDIR("nd", 0755), OPEN("nd/f", WRC, 0644), RENAME("nd", "dir", 0),
		LIST("dir"), MKDIR("nd2", 0755), RENAME("nd2", "dir", RENAME_EXCHANGE),
		LIST("dir"), LIST("nd2") } },

	/* --- symlink(2) --- */
	{ "symlink_existing_name", U_ALL, {
		SYMLINK("x", "f644"), SYMLINK("x", "dangling"), SYMLINK("x", "dir"),
		SYMLINK("x", "sticky/u1000"), SYMLINK("x", "dir/"), READLINK("dangling") } },
	{ "symlink_new", U_ALL, {
		SYMLINK("f644", "s"), READLINK("s"), READ("s"), SYMLINK("../f644", "sticky/s"),
		READ("sticky/s"), LSTAT("sticky/s"), SYMLINK("x", "s2/"),
		SYMLINK("", "sticky/e") } },

	/* --- chmod(2), chown(2), lchown(2) --- */
	{ "chmod_owner_and_other", U_ALL, {
		CHMOD("f666", 0600), STAT("f666"), CHMOD("f644", 0600), STAT("f644"),
		CHMOD("sticky/u1001", 04755), STAT("sticky/u1001") } },
	{ "chmod_directory", U_ALL, {
		CHMOD("dir", 0700), STAT("dir"), LIST("dir"), CHMOD("udir", 01777),
		STAT("udir") } },
	{ "chmod_through_symlink", U_ALL, {
		CHMOD("lnk", 0600), STAT("f644"), LSTAT("lnk"), CHMOD("dangling", 0644),
		CHMOD("nope", 0644) } },
	{ "chmod_in_private_dir", U_ALL, {
		CHMOD("priv/f", 0600), STAT("priv/f"), CHMOD("priv", 0755), STAT("priv") } },
	{ "chown_file", U_ALL, {
		CHOWN("f644", UA, UA), STAT("f644"), CHOWN("f666", -1, UB),
		CHOWN("f666", UA, -1), CHOWN("f666", -1, UA), STAT("f666"),
		CHOWN("f666", 0, -1), STAT("f666") } },
	{ "chown_directory", U_ALL, {
		CHOWN("dir", UB, UB), STAT("dir"), LIST("dir"), CHOWN("udir", -1, -1),
		STAT("udir") } },
	{ "lchown_symlink", U_ALL, {
		LCHOWN("lnk", UA, UA), LSTAT("lnk"), STAT("lnk"), CHOWN("lnk", UB, UB),
		STAT("f644"), LCHOWN("dangling", UA, -1), LSTAT("dangling") } },
	{ "chown_drops_setid", U_ROOT, {
		CHMOD("f644", 06755), CHOWN("f644", UA, UA), STAT("f644") } },

	/* --- utimensat(2) --- */
	{ "utimensat_now", U_ALL, {
		UTIMENS("f644", UT_NULL, 0), UTIMENS("f666", UT_NULL, 0),
		UTIMENS("f600", UT_NULL, 0), UTIMENS("sticky/u1000", UT_NULL, 0),
		UTIMENS("f666", UT_NOW, 0), UTIMENS("f644", UT_NOW, 0),
		UTIMENS("nope", UT_NULL, 0) } },
	{ "utimensat_explicit", U_ALL, {
		UTIMENS("f644", UT_SET, 0), TIMES("f644"), UTIMENS("f666", UT_SET, 0),
		TIMES("f666"), UTIMENS("dir", UT_SET, 0), TIMES("dir"),
		UTIMENS("udir/f", UT_SET, 0), TIMES("udir/f") } },
	{ "utimensat_symlink_nofollow", U_ALL, {
		UTIMENS("lnk", UT_SET, AT_SYMLINK_NOFOLLOW), TIMES("lnk"),
		UTIMENS("dangling", UT_SET, 0), UTIMENS("dangling", UT_NULL, AT_SYMLINK_NOFOLLOW) } },

	/* --- truncate(2) --- */
	{ "truncate", U_ALL, {
		TRUNCATE("f644", 2), READ("f644"), TRUNCATE("f666", 3), READ("f666"),
		TRUNCATE("f666", 10), STAT("f666"), TRUNCATE("f600", 0),
		TRUNCATE("dir", 0), TRUNCATE("nope", 0), TRUNCATE("f644", -1),
		TRUNCATE("f644/", 0), TRUNCATE("lnk", 1), READ("f644") } },

	/* --- access(2) --- */
	{ "access", U_ALL, {
		ACCESS("f644", W_OK), ACCESS("f666", W_OK), ACCESS("f644", X_OK),
		ACCESS("dir", X_OK), ACCESS("ro", W_OK), ACCESS("priv/f", R_OK),
		ACCESS("f600", R_OK), ACCESS("dir/a", W_OK), ACCESS("sticky", W_OK | X_OK),
		ACCESS("dangling", F_OK), ACCESS("lnk", W_OK), ACCESS("udir/sub", W_OK) } },
	{ "access_after_change", U_ALL, {
		WRITE("f666", "x"), ACCESS("f666", W_OK), CHMOD("f666", 0500),
		ACCESS("f666", W_OK), ACCESS("f666", X_OK), ACCESS("f666", R_OK) } },

	/* --- last: a 0/0 character device is what overlayfs calls a whiteout --- */
	{ "mknod_chardev_0_0", U_ROOT, {
		MKNOD("sticky/z", S_IFCHR | 0644, 0), LSTAT("sticky/z"), LIST("sticky"),
		MKNOD("f644", S_IFCHR | 0644, 0), UNLINK("sticky/z"), LSTAT("sticky/z") } },
};

#define NCASES	(sizeof(cases) / sizeof(cases[0]))

/* --- Known differences ------------------------------------------------ */

/*
 * Union results that differ from the plain file system's where
 * Documentation/filesystems/union-mounts.rst documents the difference.
 * @uid -1: every user; @step: 1-based, 0 for the final tree; @err: the
 * errno the union must give (0: any result; for steps that only look at
 * what an earlier refused step left).
 */
struct known {
	const char *tcase;
	int uid;
	int step;
	int err;
	const char *reason;
};

/* "Rename": RENAME_EXCHANGE with names from lower layers. */
#define K_XCHG	"RENAME_EXCHANGE with a name from a lower layer is EXDEV " \
		"(union-mounts.rst \"Rename\")"
/* "Non-standard behavior": a lower directory is another mount. */
#define K_MNT	"a directory found in a lower layer is another mount; rename " \
		"across the boundary is EXDEV (union-mounts.rst " \
		"\"Non-standard behavior\")"
/* "Non-standard behavior": a no-op chown of a lower object. */
#define K_CHOWN	"chown(-1, -1) of a lower object by a user who neither owns " \
		"it nor may write it is EPERM: it would copy the object up " \
		"(union-mounts.rst \"Non-standard behavior\")"
/* "Non-standard behavior": a 0/0 character device is a whiteout. */
#define K_WHT	"mknod of a 0/0 character device in a union is EPERM, as in " \
		"overlayfs: it is the whiteout (union-mounts.rst " \
		"\"Non-standard behavior\")"
/* What a step after such a refused rename sees (any result). */
#define K_AFTER	"follows from the documented difference of an earlier step"

static const struct known known[] = {
	{ "rename_dir_into_itself", -1, 5, EXDEV, K_MNT },	/* "dir/.." */
	{ "rename_exchange", 0, 1, EXDEV, K_XCHG },
	{ "rename_exchange", 0, 2, 0, K_AFTER },
	{ "rename_exchange", 0, 3, 0, K_AFTER },
	{ "rename_exchange", 0, 4, EXDEV, K_XCHG },	/* with "nope" */
	{ "rename_exchange", -1, 5, EXDEV, K_XCHG },
	{ "rename_exchange", 0, 6, 0, K_AFTER },
	{ "rename_exchange", 0, 7, EXDEV, K_XCHG },
	{ "rename_exchange", 0, 8, 0, K_AFTER },
	{ "rename_exchange", 0, 0, 0, K_AFTER },
	{ "chown_directory", UB, 4, EPERM, K_CHOWN },
	{ "mknod_chardev_0_0", 0, 1, EPERM, K_WHT },
	{ "mknod_chardev_0_0", 0, 2, 0, K_AFTER },
	{ "mknod_chardev_0_0", 0, 3, 0, K_AFTER },
	{ "mknod_chardev_0_0", 0, 5, 0, K_AFTER },
	{ "mknod_chardev_0_0", 0, 0, 0, K_AFTER },
};

/* --- Running a case in one environment ------------------------------- */

#define OUT_LEN		256

struct result {
	long ret;
	int err;
	char out[OUT_LEN];
};

struct run {
	int status;		/* 0: the child ran every step */
	struct result r[MAX_STEPS];
};

static void put(char *out, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out, len, fmt, ap);
	va_end(ap);
}

static void escape(char *out, size_t len, const char *in, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 3 < len; i++) {
		unsigned char c = in[i];

		if (c == '\n') {
			out[o++] = '\\';
			out[o++] = 'n';
		} else if (c < 32 || c > 126) {
			out[o++] = '?';
		} else {
			out[o++] = c;
		}
	}
	out[o] = 0;
}

static char ftype(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG: return 'f';
	case S_IFDIR: return 'd';
	case S_IFLNK: return 'l';
	case S_IFIFO: return 'p';
	case S_IFCHR: return 'c';
	case S_IFBLK: return 'b';
	case S_IFSOCK: return 's';
	}
	return '?';
}

/*
 * What stat says, minus what may differ between equal trees: times, inode
 * and device numbers, and the size and link count of directories.
 */
static void stat_str(char *out, size_t len, const struct stat *st)
{
	char extra[64] = "";

	switch (st->st_mode & S_IFMT) {
	case S_IFREG:
		put(extra, sizeof(extra), " size=%lld nlink=%lu",
		    (long long)st->st_size, (unsigned long)st->st_nlink);
		break;
	case S_IFLNK:
		put(extra, sizeof(extra), " size=%lld", (long long)st->st_size);
		break;
	case S_IFCHR:
	case S_IFBLK:
		put(extra, sizeof(extra), " rdev=%u:%u", major(st->st_rdev),
		    minor(st->st_rdev));
		break;
	}
	put(out, len, "%c%04o %u:%u%s", ftype(st->st_mode),
	    (unsigned int)(st->st_mode & 07777), (unsigned int)st->st_uid,
	    (unsigned int)st->st_gid, extra);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in @path, sorted, comma separated; 0 or -1. */
static int list_dir(const char *path, char *out, size_t len)
{
	char *names[256];
	int n = 0;
	struct dirent *e;
	DIR *d = opendir(path);

	out[0] = 0;
	if (!d)
		return -1;
	while ((e = readdir(d)) && n < 256) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (int i = 0; i < n; i++) {
		size_t l = strlen(out);

		snprintf(out + l, len - l, "%s%s", i ? "," : "", names[i]);
		free(names[i]);
	}
	if (!n)
		snprintf(out, len, "(empty)");
	return 0;
}

static long do_step(const struct step *s, char *out)
{
	struct timespec ts[2];
	struct stat st;
	char buf[128];
	ssize_t n;
	long ret;
	int fd;

	switch (s->op) {
	case OP_OPEN:
		fd = open(s->p1, (int)s->a | O_CLOEXEC, (mode_t)s->b);
		if (fd < 0)
			return -1;
		if (!fstat(fd, &st))
			stat_str(out, OUT_LEN, &st);
		close(fd);
		return 0;
	case OP_WRITE:
		fd = open(s->p1, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (fd < 0)
			return -1;
		n = write(fd, s->p2, strlen(s->p2));
		ret = n == (ssize_t)strlen(s->p2) ? 0 : -1;
		if (n >= 0 && ret)
			errno = EIO;
		close(fd);
		return ret;
	case OP_READ:
		fd = open(s->p1, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -1;
		n = read(fd, buf, sizeof(buf));
		close(fd);
		if (n < 0)
			return -1;
		escape(out, OUT_LEN, buf, n);
		put(out + strlen(out), OUT_LEN - strlen(out), "%s",
		    n ? "" : "(empty)");
		return 0;
	case OP_LIST:
		return list_dir(s->p1, out, OUT_LEN);
	case OP_STAT:
	case OP_LSTAT:
		ret = s->op == OP_STAT ? stat(s->p1, &st) : lstat(s->p1, &st);
		if (!ret)
			stat_str(out, OUT_LEN, &st);
		return ret;
	case OP_READLINK:
		n = readlink(s->p1, buf, sizeof(buf));
		if (n >= 0)
			escape(out, OUT_LEN, buf, n);
		return n;
	case OP_TIMES:
		/*
		 * The times UT_SET sets, or "other": the environments are
		 * built seconds apart, so their own times differ.
		 */
		ret = lstat(s->p1, &st);
		if (!ret)
			put(out, OUT_LEN, "atime=%s mtime=%s",
			    st.st_atime == SET_ATIME ? "2000000000" : "other",
			    st.st_mtime == SET_MTIME ? "1000000000" : "other");
		return ret;
	case OP_LINK:
		return link(s->p1, s->p2);
	case OP_UNLINK:
		return unlink(s->p1);
	case OP_RMDIR:
		return rmdir(s->p1);
	case OP_MKDIR:
		return mkdir(s->p1, (mode_t)s->a);
	case OP_MKNOD:
		return mknod(s->p1, (mode_t)s->a, (dev_t)s->b);
	case OP_RENAME:
		return renameat2(AT_FDCWD, s->p1, AT_FDCWD, s->p2,
				 (unsigned int)s->a);
	case OP_SYMLINK:
		return symlink(s->p1, s->p2);
	case OP_CHMOD:
		return chmod(s->p1, (mode_t)s->a);
	case OP_CHOWN:
		return chown(s->p1, (uid_t)s->a, (gid_t)s->b);
	case OP_LCHOWN:
		return lchown(s->p1, (uid_t)s->a, (gid_t)s->b);
	case OP_UTIMENS:
		if (s->a == UT_NULL)
			return utimensat(AT_FDCWD, s->p1, NULL, (int)s->b);
		if (s->a == UT_NOW) {
			ts[0].tv_sec = ts[1].tv_sec = 0;
			ts[0].tv_nsec = ts[1].tv_nsec = UTIME_NOW;
		} else {
			ts[0].tv_sec = SET_ATIME;
			ts[1].tv_sec = SET_MTIME;
			ts[0].tv_nsec = ts[1].tv_nsec = 0;
		}
		return utimensat(AT_FDCWD, s->p1, ts, (int)s->b);
	case OP_TRUNCATE:
		return truncate(s->p1, (off_t)s->a);
	case OP_ACCESS:
		return access(s->p1, (int)s->a);
	case OP_END:
		break;
	}
	errno = ENOSYS;
	return -1;
}

static void become(uid_t uid)
{
	if (!uid)
		return;
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		_exit(20);
}

/* Run @tc as @uid in @dir; the results go to @run (shared memory). */
static void run_case(const struct tcase *tc, uid_t uid, const char *dir,
		     struct run *run)
{
	pid_t pid;
	int st;

	memset(run, 0, sizeof(*run));
	run->status = -1;
	pid = fork();
	if (pid < 0)
		return;
	if (!pid) {
		become(uid);
		umask(022);
		if (chdir(dir))
			_exit(21);
		for (int i = 0; i < MAX_STEPS && tc->steps[i].op; i++) {
			struct result *r = &run->r[i];

			errno = 0;
			r->ret = do_step(&tc->steps[i], r->out);
			r->err = r->ret < 0 ? errno : 0;
			if (r->ret > 0)
				r->ret = 0;	/* readlink's length: in out */
			if (r->ret < 0)
				r->out[0] = 0;
		}
		_exit(0);
	}
	if (waitpid(pid, &st, 0) == pid)
		run->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* --- Snapshots of a whole tree --------------------------------------- */

#define SNAP_LEN	16384

static void snap_walk(const char *root, const char *rel, char *out, size_t len)
{
	char path[1024], line[512], desc[128], names_buf[4096];
	struct stat st;
	char *save, *name;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (lstat(path, &st)) {
		put(line, sizeof(line), "%s lstat: %s\n", rel, strerror(errno));
		strncat(out, line, len - strlen(out) - 1);
		return;
	}
	stat_str(desc, sizeof(desc), &st);
	if (S_ISREG(st.st_mode)) {
		char buf[64], esc[160] = "";
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));

		if (fd >= 0)
			close(fd);
		if (n >= 0)
			escape(esc, sizeof(esc), buf, n);
		else
			put(esc, sizeof(esc), "(read: %s)", strerror(errno));
		put(line, sizeof(line), "%s %s \"%s\"\n", rel, desc, esc);
	} else if (S_ISLNK(st.st_mode)) {
		char buf[128], esc[160] = "";
		ssize_t n = readlink(path, buf, sizeof(buf));

		if (n >= 0)
			escape(esc, sizeof(esc), buf, n);
		put(line, sizeof(line), "%s %s -> %s\n", rel, desc, esc);
	} else {
		put(line, sizeof(line), "%s %s\n", rel, desc);
	}
	strncat(out, line, len - strlen(out) - 1);
	if (!S_ISDIR(st.st_mode))
		return;
	if (list_dir(path, names_buf, sizeof(names_buf))) {
		put(line, sizeof(line), "%s/ opendir: %s\n", rel, strerror(errno));
		strncat(out, line, len - strlen(out) - 1);
		return;
	}
	if (!strcmp(names_buf, "(empty)"))
		return;
	for (name = strtok_r(names_buf, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		char sub[512];

		if (!strcmp(rel, "."))
			snprintf(sub, sizeof(sub), "%s", name);
		else
			snprintf(sub, sizeof(sub), "%s/%s", rel, name);
		snap_walk(root, sub, out, len);
	}
}

static void snapshot(const char *root, char *out)
{
	out[0] = 0;
	snap_walk(root, ".", out, SNAP_LEN);
}

/* --- Environments ----------------------------------------------------- */

enum { E_PLAIN, E_OVL, E_UNION, NENV };

static char work[512];		/* a tmpfs of ours for each case */
static char env_dir[NENV][600];	/* where the cases run */
static char uni_top[600];
static bool have_ovl = true;

static int mk(const char *base, const char *rel, mode_t mode, uid_t uid)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/%s", base, rel);
	if (mkdir(p, mode) || chmod(p, mode) || lchown(p, uid, uid))
		return -1;
	return 0;
}

static int mkf(const char *base, const char *rel, mode_t mode, uid_t uid,
	       const char *data)
{
	char p[1024];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", base, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0)
		return -1;
	if (write(fd, data, strlen(data)) != (ssize_t)strlen(data) ||
	    fchmod(fd, mode) || fchown(fd, uid, uid)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int mkmode(const char *base, const char *rel, mode_t mode)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/%s", base, rel);
	return chmod(p, mode);
}

static int mkl(const char *base, const char *rel, const char *target)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/%s", base, rel);
	return symlink(target, p);
}

/* The initial tree in @d (which exists, 0755 root); see cases[]. */
static int build_tree(const char *d)
{
	return mkf(d, "f644", 0644, 0, "hello\n") ||
	       mkf(d, "f600", 0600, 0, "secret\n") ||
	       mkf(d, "f666", 0666, UA, "shared\n") ||
	       mk(d, "dir", 0755, 0) ||
	       mkf(d, "dir/a", 0644, 0, "a\n") ||
	       mkf(d, "dir/b", 0644, 0, "b\n") ||
	       mk(d, "empty", 0755, 0) ||
	       mk(d, "sticky", 01777, 0) ||
	       mkf(d, "sticky/u1000", 0644, UA, "u1000\n") ||
	       mkf(d, "sticky/u1001", 0644, UB, "u1001\n") ||
	       mkl(d, "lnk", "f644") ||
	       mkl(d, "dangling", "missing") ||
	       mk(d, "ro", 0755, 0) ||
	       mkf(d, "ro/f", 0644, 0, "ro\n") ||
	       mk(d, "priv", 0700, 0) ||
	       mkf(d, "priv/f", 0644, 0, "priv\n") ||
	       mk(d, "udir", 0755, UA) ||
	       mkf(d, "udir/f", 0644, UA, "uf\n") ||
	       mk(d, "udir/sub", 0755, UA) ||
	       mkmode(d, "ro", 0555);		/* after ro/f */
}

static void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static int sub(char *out, const char *rel, mode_t mode)
{
	snprintf(out, 600, "%s/%s", work, rel);
	if (mkdir(out, mode) || chmod(out, mode))
		return -1;
	return 0;
}

/*
 * Build the three environments on a fresh tmpfs at @work.  Returns 0,
 * or -1 (with a diagnostic) if plain or union could not be made.
 */
static int envs_up(void)
{
	char lower[600], upper[600], wdir[600], opts[2048], f[700];
	struct stat st;

	if (mount("posix-work", work, "tmpfs", 0, "mode=0755")) {
		diag("mount tmpfs on %s: %s", work, strerror(errno));
		return -1;
	}
	/* plain */
	if (sub(env_dir[E_PLAIN], "plain", 0755) ||
	    build_tree(env_dir[E_PLAIN])) {
		diag("plain tree: %s", strerror(errno));
		return -1;
	}
	/* overlay */
	if (have_ovl) {
		if (sub(f, "ovl", 0755) || sub(lower, "ovl/lower", 0755) ||
		    build_tree(lower) || sub(upper, "ovl/upper", 0755) ||
		    sub(wdir, "ovl/work", 0755) ||
		    sub(env_dir[E_OVL], "ovl/merged", 0755)) {
			diag("overlay tree: %s", strerror(errno));
			return -1;
		}
		snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s",
			 lower, upper, wdir);
		if (mount("posix-ovl", env_dir[E_OVL], "overlay", 0, opts)) {
			diag("overlayfs unavailable (%s): overlay results are n/a",
			     strerror(errno));
			have_ovl = false;
		}
	}
	/* union: a tmpfs top layer on the directory holding the tree */
	if (sub(f, "uni", 0755) || sub(env_dir[E_UNION], "uni/dir", 0755) ||
	    build_tree(env_dir[E_UNION]) || sub(uni_top, "uni/top", 0755)) {
		diag("union tree: %s", strerror(errno));
		return -1;
	}
	if (mount("posix-top", uni_top, "tmpfs", 0, "mode=0755")) {
		diag("mount tmpfs on %s: %s", uni_top, strerror(errno));
		return -1;
	}
	if (mount(uni_top, env_dir[E_UNION], NULL, MS_BIND | MS_UNION, NULL)) {
		diag("mount(%s, %s, MS_BIND | MS_UNION): %s", uni_top,
		     env_dir[E_UNION], strerror(errno));
		return -1;
	}
	/* The union shows the lower tree, and the top layer is empty. */
	snprintf(f, sizeof(f), "%s/f644", env_dir[E_UNION]);
	if (lstat(f, &st)) {
		diag("the union does not show its lower layer (%s): no union layers",
		     strerror(errno));
		return -1;
	}
	return 0;
}

static void envs_down(void)
{
	if (umount2(env_dir[E_UNION], 0))
		diag("umount %s: %s", env_dir[E_UNION], strerror(errno));
	if (umount2(uni_top, 0))
		diag("umount %s: %s", uni_top, strerror(errno));
	if (have_ovl && umount2(env_dir[E_OVL], 0))
		diag("umount %s: %s", env_dir[E_OVL], strerror(errno));
	if (umount2(work, 0)) {
		diag("umount %s: %s", work, strerror(errno));
		umount2(work, MNT_DETACH);
	}
}

/* --- Reporting -------------------------------------------------------- */

static const char *errname(int e)
{
	static char buf[32];
	static const struct { int e; const char *n; } names[] = {
		{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { EIO, "EIO" },
		{ EBADF, "EBADF" }, { EACCES, "EACCES" }, { EBUSY, "EBUSY" },
		{ EEXIST, "EEXIST" }, { EXDEV, "EXDEV" }, { ENODEV, "ENODEV" },
		{ ENOTDIR, "ENOTDIR" }, { EISDIR, "EISDIR" }, { EINVAL, "EINVAL" },
		{ ETXTBSY, "ETXTBSY" }, { EFBIG, "EFBIG" }, { ENOSPC, "ENOSPC" },
		{ EROFS, "EROFS" }, { EMLINK, "EMLINK" }, { ENAMETOOLONG, "ENAMETOOLONG" },
		{ ENOSYS, "ENOSYS" }, { ENOTEMPTY, "ENOTEMPTY" }, { ELOOP, "ELOOP" },
		{ EOPNOTSUPP, "EOPNOTSUPP" }, { ESTALE, "ESTALE" }, { EFAULT, "EFAULT" },
		{ ENXIO, "ENXIO" }, { EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == e)
			return names[i].n;
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

static void res_str(char *out, size_t len, const struct run *run,
		    const struct result *r)
{
	if (run->status)
		put(out, len, "(child failed: status %d)", run->status);
	else if (r->ret < 0)
		put(out, len, "-1 %s", errname(r->err));
	else if (r->out[0])
		put(out, len, "0 [%s]", r->out);
	else
		put(out, len, "0");
}

static bool res_eq(const struct run *ra, const struct result *a,
		   const struct run *rb, const struct result *b)
{
	if (ra->status || rb->status)
		return false;
	return a->ret == b->ret && a->err == b->err && !strcmp(a->out, b->out);
}

static const char *opname(enum op op)
{
	static const char *const n[] = {
		[OP_END] = "end", [OP_OPEN] = "open", [OP_WRITE] = "write",
		[OP_READ] = "read", [OP_LIST] = "readdir", [OP_STAT] = "stat",
		[OP_LSTAT] = "lstat", [OP_READLINK] = "readlink",
		[OP_TIMES] = "lstat(times)", [OP_LINK] = "link",
		[OP_UNLINK] = "unlink", [OP_RMDIR] = "rmdir",
		[OP_MKDIR] = "mkdir", [OP_MKNOD] = "mknod",
		[OP_RENAME] = "renameat2", [OP_SYMLINK] = "symlink",
		[OP_CHMOD] = "chmod", [OP_CHOWN] = "chown",
		[OP_LCHOWN] = "lchown", [OP_UTIMENS] = "utimensat",
		[OP_TRUNCATE] = "truncate", [OP_ACCESS] = "access",
	};
	return n[op];
}

static void flags_str(char *out, size_t len, long fl)
{
	static const struct { long f; const char *n; } names[] = {
		{ O_CREAT, "O_CREAT" }, { O_EXCL, "O_EXCL" }, { O_TRUNC, "O_TRUNC" },
		{ O_APPEND, "O_APPEND" }, { O_DIRECTORY, "O_DIRECTORY" },
		{ O_NOFOLLOW, "O_NOFOLLOW" }, { O_PATH, "O_PATH" },
	};
	int acc = fl & O_ACCMODE;

	put(out, len, "%s", acc == O_RDONLY ? "O_RDONLY" :
	    acc == O_WRONLY ? "O_WRONLY" : "O_RDWR");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (fl & names[i].f)
			put(out + strlen(out), len - strlen(out), "|%s",
			    names[i].n);
}

static void step_str(char *out, size_t len, const struct step *s)
{
	char fl[128];

	switch (s->op) {
	case OP_OPEN:
		flags_str(fl, sizeof(fl), s->a);
		if (s->a & O_CREAT)
			put(out, len, "open(\"%s\", %s, 0%lo)", s->p1, fl, s->b);
		else
			put(out, len, "open(\"%s\", %s)", s->p1, fl);
		break;
	case OP_WRITE:
		escape(fl, sizeof(fl), s->p2, strlen(s->p2));
		put(out, len, "write(\"%s\", O_APPEND, \"%s\")", s->p1, fl);
		break;
	case OP_LINK:
	case OP_SYMLINK:
		put(out, len, "%s(\"%s\", \"%s\")", opname(s->op), s->p1, s->p2);
		break;
	case OP_RENAME:
		put(out, len, "renameat2(\"%s\", \"%s\", %s)", s->p1, s->p2,
		    s->a == 0 ? "0" :
		    s->a == RENAME_NOREPLACE ? "RENAME_NOREPLACE" :
		    s->a == RENAME_EXCHANGE ? "RENAME_EXCHANGE" :
		    "RENAME_NOREPLACE|RENAME_EXCHANGE");
		break;
	case OP_MKDIR:
	case OP_CHMOD:
		put(out, len, "%s(\"%s\", 0%lo)", opname(s->op), s->p1, s->a);
		break;
	case OP_MKNOD:
		put(out, len, "mknod(\"%s\", %c%04lo, %u:%u)", s->p1,
		    ftype((mode_t)s->a), s->a & 07777,
		    major((dev_t)s->b), minor((dev_t)s->b));
		break;
	case OP_CHOWN:
	case OP_LCHOWN:
		put(out, len, "%s(\"%s\", %ld, %ld)", opname(s->op), s->p1,
		    s->a, s->b);
		break;
	case OP_UTIMENS:
		put(out, len, "utimensat(\"%s\", %s%s)", s->p1,
		    s->a == UT_NULL ? "NULL" : s->a == UT_NOW ?
		    "{UTIME_NOW, UTIME_NOW}" : "{atime 2000000000, mtime 1000000000}",
		    s->b ? ", AT_SYMLINK_NOFOLLOW" : "");
		break;
	case OP_TRUNCATE:
		put(out, len, "truncate(\"%s\", %ld)", s->p1, s->a);
		break;
	case OP_ACCESS:
		put(out, len, "access(\"%s\", %s%s%s%s)", s->p1,
		    s->a == F_OK ? "F_OK" : "", s->a & R_OK ? "R" : "",
		    s->a & W_OK ? "W" : "", s->a & X_OK ? "X_OK" : "_OK");
		break;
	default:
		put(out, len, "%s(\"%s\")", opname(s->op), s->p1);
		break;
	}
}

static const struct known *find_known(const char *tcase, uid_t uid, int step,
				      const struct run *run,
				      const struct result *r)
{
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		const struct known *k = &known[i];

		if (!k->tcase || strcmp(k->tcase, tcase) ||
		    (k->uid != -1 && (uid_t)k->uid != uid) || k->step != step)
			continue;
		if (k->err && (!r || run->status || r->ret != -1 ||
				r->err != k->err))
			continue;
		return k;
	}
	return NULL;
}

/* Print the lines of @a missing from @b, prefixed. */
static void snap_missing(const char *a, const char *b, const char *prefix)
{
	char *copy = strdup(a), *save, *line;

	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *hit = strstr(b, line);
		size_t l = strlen(line);

		/* a whole line of b */
		while (hit && !((hit == b || hit[-1] == '\n') &&
				(hit[l] == '\n' || !hit[l])))
			hit = strstr(hit + 1, line);
		if (!hit)
			printf("#       %s %s\n", prefix, line);
	}
	free(copy);
}

static int ntests, nfailed;

/* Run one case as one user in the three environments and report it. */
static void one(const struct tcase *tc, uid_t uid, struct run *runs)
{
	static char snap[NENV][SNAP_LEN];
	char name[160], desc[256], res[NENV][OUT_LEN + 64];
	bool fail = false, envs_ok;
	int nsteps;

	snprintf(name, sizeof(name), "%s [uid %u]", tc->name, (unsigned int)uid);
	ntests++;
	envs_ok = !envs_up();
	if (!envs_ok) {
		envs_down();
		printf("not ok %d - %s # environments not built\n", ntests, name);
		nfailed++;
		return;
	}
	for (int e = 0; e < NENV; e++) {
		if (e == E_OVL && !have_ovl)
			continue;
		run_case(tc, uid, env_dir[e], &runs[e]);
		snapshot(env_dir[e], snap[e]);
	}
	envs_down();

	printf("# %s\n", name);
	for (nsteps = 0; nsteps < MAX_STEPS && tc->steps[nsteps].op; nsteps++) {
		const struct result *rp = &runs[E_PLAIN].r[nsteps];
		const struct result *ro = &runs[E_OVL].r[nsteps];
		const struct result *ru = &runs[E_UNION].r[nsteps];
		const struct known *k;

		step_str(desc, sizeof(desc), &tc->steps[nsteps]);
		for (int e = 0; e < NENV; e++)
			res_str(res[e], sizeof(res[e]), &runs[e],
				&runs[e].r[nsteps]);
		if (!have_ovl)
			snprintf(res[E_OVL], sizeof(res[E_OVL]), "n/a");
		printf("#   %2d %s: plain %s | overlay %s | union %s\n",
		       nsteps + 1, desc, res[E_PLAIN], res[E_OVL], res[E_UNION]);
		if (have_ovl && !res_eq(&runs[E_PLAIN], rp, &runs[E_OVL], ro))
			printf("# overlay differs: %s step %d %s: plain %s, overlay %s\n",
			       name, nsteps + 1, desc, res[E_PLAIN], res[E_OVL]);
		if (res_eq(&runs[E_PLAIN], rp, &runs[E_UNION], ru))
			continue;
		k = find_known(tc->name, uid, nsteps + 1, &runs[E_UNION], ru);
		if (k) {
			printf("# known difference: %s step %d %s: plain %s, union %s: %s\n",
			       name, nsteps + 1, desc, res[E_PLAIN], res[E_UNION],
			       k->reason);
			continue;
		}
		printf("# FAIL union differs: %s step %d %s: plain %s, union %s\n",
		       name, nsteps + 1, desc, res[E_PLAIN], res[E_UNION]);
		fail = true;
	}
	if (have_ovl && strcmp(snap[E_PLAIN], snap[E_OVL])) {
		printf("# overlay differs: %s final tree:\n", name);
		snap_missing(snap[E_PLAIN], snap[E_OVL], "plain  ");
		snap_missing(snap[E_OVL], snap[E_PLAIN], "overlay");
	}
	if (strcmp(snap[E_PLAIN], snap[E_UNION])) {
		const struct known *k = find_known(tc->name, uid, 0,
						   &runs[E_UNION], NULL);

		if (k)
			printf("# known difference: %s final tree: %s\n", name,
			       k->reason);
		else
			printf("# FAIL union differs: %s final tree:\n", name);
		snap_missing(snap[E_PLAIN], snap[E_UNION], "plain");
		snap_missing(snap[E_UNION], snap[E_PLAIN], "union");
		if (!k)
			fail = true;
	}
	if (fail)
		nfailed++;
	printf("%sok %d - %s\n", fail ? "not " : "", ntests, name);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *scratch = getenv("UNION_SCRATCH");
	const char *filter = argc > 1 ? argv[1] : NULL;
	static const uid_t uids[] = { 0, UA, UB };
	static const unsigned int umask_bits[] = { U_ROOT, U_A, U_B };
	struct run *runs;
	char tmpl[512];

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	if (getuid()) {
		printf("1..0 # SKIP needs root\n");
		return KSFT_SKIP;
	}
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		printf("1..0 # SKIP no private mount namespace: %s\n", strerror(errno));
		return KSFT_SKIP;
	}
	snprintf(tmpl, sizeof(tmpl), "%s/tmpfs/posix.XXXXXX",
		 scratch ? scratch : "/mnt/scratch");
	if (!mkdtemp(tmpl) || chmod(tmpl, 0755)) {
		printf("1..0 # SKIP no scratch directory %s: %s\n", tmpl,
		       strerror(errno));
		return KSFT_SKIP;
	}
	snprintf(work, sizeof(work), "%s", tmpl);
	umask(0);
	runs = mmap(NULL, NENV * sizeof(*runs), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (runs == MAP_FAILED) {
		printf("1..0 # SKIP mmap: %s\n", strerror(errno));
		return KSFT_SKIP;
	}

	/* Union layers missing: skip rather than fail every case. */
	if (envs_up()) {
		envs_down();
		rmdir(work);
		printf("1..0 # SKIP cannot build the environments (see above)\n");
		return KSFT_SKIP;
	}
	envs_down();

	diag("plain: %s/plain; overlay: %s/ovl/merged; union: %s/uni/top on %s/uni/dir",
	     work, work, work, work);
	for (size_t i = 0; i < NCASES; i++) {
		if (filter && !strstr(cases[i].name, filter))
			continue;
		for (int u = 0; u < 3; u++)
			if (cases[i].users & umask_bits[u])
				one(&cases[i], uids[u], runs);
	}
	rmdir(work);
	diag("%d cases, %d failed", ntests, nfailed);
	printf("1..%d\n", ntests);
	return nfailed ? 1 : 0;
}
