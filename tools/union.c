// SPDX-License-Identifier: GPL-2.0
/*
 * union - stack directories as union layers (Linux union mounts)
 *
 *   union add [-b | -a] [-c | -r] LAYER DIR
 *   union show [-J | -r] [-n] [-o LIST] DIR | -A
 *   union remove [-a] [-l] DIR
 *   union probe
 *
 * A union layer is a mount whose root keeps the directory it covers visible:
 * a name missing at the layer's root is looked up in the covered directory,
 * and on down through stacked layers; readdir of the root is merged.  Only
 * the root directory of a layer is merged, and only the top layer can be
 * changed through the union.  See Documentation/filesystems/union-mounts.rst
 * and union(8).
 *
 * Which system call runs at which step.  Every mount is made with the new
 * mount API; mount(2) is not used: open_tree(OPEN_TREE_CLONE) +
 * mount_setattr(MOUNT_ATTR_UNION) + move_mount() is what
 * mount(LAYER, DIR, NULL, MS_BIND | MS_UNION, NULL) does, and it can also
 * make the layer read-only before anyone sees it.
 *
 * probe (first step of "add", and "union probe")
 *	open_tree("/", OPEN_TREE_CLONE)		a detached copy of the root mount
 *	mount_setattr(MOUNT_ATTR_UNION)		EINVAL: the kernel has no union
 *						mounts; EPERM: not privileged
 *	close()					the copy goes away unattached
 *
 * add -b LAYER DIR (before: the new layer goes on top, the default)
 *	open(DIR, O_PATH | O_DIRECTORY)		DIR exists and is a directory
 *	open_tree(LAYER, OPEN_TREE_CLONE)	detached bind mount of LAYER
 *	fstat(layer)				LAYER is a directory
 *	mount_setattr(layer, MOUNT_ATTR_UNION [| MOUNT_ATTR_RDONLY])
 *	statx(layer, STATX_MNT_ID_UNIQUE, then STATX_MNT_ID)	its IDs
 *	move_mount(layer, "", DIR)		on top of whatever DIR shows now,
 *						a plain directory or a union stack
 *	statmount(ID, STATMOUNT_MNT_BASIC)	MOUNT_ATTR_UNION in mnt_attr?
 *	  (no statmount: mountinfo's line of the old ID, "union" option)
 *	  no: umount2(DIR, MNT_DETACH) if the new mount is still DIR's top
 *	  mount, and fail: a kernel that accepted the attribute without
 *	  making a union layer leaves no plain bind mount behind
 *
 * add -a LAYER DIR (after: the new layer goes beneath).  The kernel refuses
 * MOVE_MOUNT_BENEATH under a union layer, so the stack is rebuilt here,
 * which is not atomic:
 *	open(DIR), open_tree(LAYER), fstat(), mount_setattr(layer, UNION [| RDONLY])
 *	while the top mount on DIR is a union layer (/proc/self/mountinfo):
 *		open_tree(DIR, OPEN_TREE_CLONE | AT_RECURSIVE)	keep a copy
 *		mount_setattr(copy, MOUNT_ATTR_UNION [| MOUNT_ATTR_RDONLY])
 *							union again, ro as it was
 *		umount2(DIR, MNT_DETACH)		take the layer off
 *	stat(DIR) against fstat() of the copies: unless a copy already is
 *	DIR's own directory (an earlier "add -a" made one):
 *		open_tree(DIR, OPEN_TREE_CLONE | AT_RECURSIVE)	DIR's content
 *		mount_setattr(copy, MOUNT_ATTR_UNION)	ro or rw as DIR is
 *	move_mount(layer, "", DIR)		LAYER right on the covered directory
 *	statmount(ID), as for add -b		not a union layer: take it off,
 *						put the copies back, fail
 *	move_mount(copy, "", DIR)		for each copy, bottom first
 *	On a failure the copies taken off so far are put back.
 * LAYER goes on the covered directory as a union layer, not as a plain
 * bind mount that would hide it: everything stacked on DIR stays a union
 * layer, so "remove -a" gives DIR back exactly as it was.
 *
 * show DIR
 *	statx(DIR, STATX_MNT_ID_UNIQUE)		the top mount on DIR, and whether
 *						DIR is a mount root at all
 *	statmount(ID, SB_BASIC | MNT_BASIC | FS_TYPE | MNT_ROOT | MNT_POINT)
 *						walk to mnt_parent_id while the
 *						mount is a union layer on DIR
 *	read /proc/self/mountinfo		only for the SOURCE column: 6.12's
 *						statmount has no source; the line
 *						of each mount's mnt_id_old
 *   Without statmount (ENOSYS, or no STATX_MNT_ID_UNIQUE: before Linux 6.8)
 *   or with UNION_NO_STATMOUNT=1 in the environment:
 *	statx(DIR, STATX_MNT_ID)		the old mount ID
 *	read /proc/self/mountinfo		the same walk over its lines
 *   Both give the same output, byte for byte, but for FUSE: mountinfo's
 *   type is "fuse.SUBTYPE", 6.12's statmount has no subtype.
 *
 * show --all
 *	listmount(LSMT_ROOT), statmount(each)	the mount points of every
 *						union layer (or mountinfo)
 *	show of each, sorted by path
 *
 * remove [-a] [-l] DIR
 *	statx(DIR), read /proc/self/mountinfo	the top mount must be a layer
 *	umount2(DIR, 0 or MNT_DETACH)		once, or with -a while the top
 *						mount on DIR is a union layer
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/mount.h>

#ifndef MOUNT_ATTR_UNION
#define MOUNT_ATTR_UNION	0x00400000
#endif
#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY	0x00000001
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE		1
#endif
#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC	O_CLOEXEC
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH	0x00000004
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE		0x8000
#endif
#ifndef STATX_MNT_ID
#define STATX_MNT_ID		0x00001000U
#endif
#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT	0x00002000
#endif
#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE	0x00004000U
#endif
#ifndef MOUNT_ATTR_IDMAP
#define MOUNT_ATTR_IDMAP	0x00100000
#endif
#ifndef MOUNT_ATTR_NOSYMFOLLOW
#define MOUNT_ATTR_NOSYMFOLLOW	0x00200000
#endif
#ifndef SB_RDONLY
#define SB_RDONLY		0x00000001	/* statmount's sb_flags */
#endif
/* statmount(2) and listmount(2), Linux 6.8; from linux/mount.h of 6.12 */
#ifndef STATMOUNT_SB_BASIC
struct mnt_id_req {
	__u32 size;
	__u32 spare;
	__u64 mnt_id;
	__u64 param;
};

struct statmount {
	__u32 size;
	__u32 __spare1;
	__u64 mask;
	__u32 sb_dev_major;
	__u32 sb_dev_minor;
	__u64 sb_magic;
	__u32 sb_flags;
	__u32 fs_type;
	__u64 mnt_id;
	__u64 mnt_parent_id;
	__u32 mnt_id_old;
	__u32 mnt_parent_id_old;
	__u64 mnt_attr;
	__u64 mnt_propagation;
	__u64 mnt_peer_group;
	__u64 mnt_master;
	__u64 propagate_from;
	__u32 mnt_root;
	__u32 mnt_point;
	__u64 __spare2[50];
	char str[];
};

#define MNT_ID_REQ_SIZE_VER0	24
#define STATMOUNT_SB_BASIC	0x00000001U
#define STATMOUNT_MNT_BASIC	0x00000002U
#define STATMOUNT_MNT_ROOT	0x00000008U
#define STATMOUNT_MNT_POINT	0x00000010U
#define STATMOUNT_FS_TYPE	0x00000020U
#endif
/* The mount API syscalls have one number on every architecture but alpha. */
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
#ifndef __NR_listmount
#define __NR_listmount		458
#endif
#ifndef LSMT_ROOT
#define LSMT_ROOT		0xffffffffffffffffULL
#endif

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define EXIT_USAGE	2

static const char *prog = "union";

/* --- Thin syscall wrappers ------------------------------------------- */

static int sys_open_tree(int dfd, const char *path, unsigned int flags)
{
	return syscall(__NR_open_tree, dfd, path, flags);
}

static int sys_move_mount(int from_dfd, const char *from_path, int to_dfd,
			  const char *to_path, unsigned int flags)
{
	return syscall(__NR_move_mount, from_dfd, from_path, to_dfd, to_path,
		       flags);
}

static int sys_mount_setattr(int dfd, const char *path, unsigned int flags,
			     struct mount_attr *attr, size_t size)
{
	return syscall(__NR_mount_setattr, dfd, path, flags, attr, size);
}

/* --- Messages ---------------------------------------------------------- */

/* "union: STEP PATH: strerror(errno)" */
static void fail(const char *step, const char *path)
{
	int err = errno;

	if (path)
		fprintf(stderr, "%s: %s %s: %s\n", prog, step, path,
			strerror(err));
	else
		fprintf(stderr, "%s: %s: %s\n", prog, step, strerror(err));
	errno = err;
}

static const char synopsis[] =
"usage: union add [-b | -a] [-c | -r] LAYER DIR\n"
"       union show [-J | -r] [-n] [-o LIST] DIR | -A\n"
"       union remove [-a] [-l] DIR\n"
"       union probe\n";

static void usage(void)
{
	printf("%s\n%s", synopsis,
"add      put directory LAYER in DIR's union as a union layer\n"
"  -b, --before     on top of DIR's stack: LAYER's names win (default)\n"
"  -a, --after      beneath the stack and DIR's own directory: their\n"
"                   names win (rebuilds the stack, not atomically)\n"
"  -c, --create     the new layer may be written (-w, --writable): with -b,\n"
"                   new names made in DIR go into LAYER\n"
"  -r, --read-only  the new layer is read-only (the default)\n"
"show     list DIR's union layers top to bottom, then the covered directory\n"
"  -A, --all        every directory with union layers, by path\n"
"  -J, --json       JSON: {\"dir\", \"layers\", \"stack\": [{column: value}]}\n"
"  -o, --output LIST  only the columns in LIST (comma-separated; +LIST adds\n"
"                   to the default POS,ROLE,MODE,TYPE,SOURCE), no title\n"
"  -n, --noheadings no title and no header line\n"
"  -r, --raw        columns separated by one space, blanks as \\xHH\n"
"remove   take the top union layer off DIR\n"
"  -a, --all        take off every union layer stacked on DIR\n"
"  -l, --lazy       detach busy layers (umount2 MNT_DETACH)\n"
"probe    tell whether the kernel has union mounts\n"
"\n"
"Columns of show: POS ROLE MODE TYPE SOURCE ROOT TARGET ID PARENT OPTIONS DIR.\n"
"Exit status: 0 done, 1 failed, 2 usage error.  See union(8).\n");
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n%sTry 'union --help'.\n", synopsis);
	return EXIT_USAGE;
}

/* --- The probe --------------------------------------------------------- */

/*
 * Set MOUNT_ATTR_UNION on a detached copy of the root mount.  A kernel
 * without union mounts rejects the unknown attribute bit with EINVAL.
 */
static int probe(void)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_UNION };
	int fd, ret;

	fd = sys_open_tree(AT_FDCWD, "/", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (fd < 0) {
		fail("open_tree", "/");
		if (errno == ENOSYS)
			fprintf(stderr,
				"%s: this kernel lacks the mount API (open_tree, Linux 5.2)\n",
				prog);
		return -1;
	}
	ret = sys_mount_setattr(fd, "", AT_EMPTY_PATH, &attr, sizeof(attr));
	if (ret) {
		fail("mount_setattr MOUNT_ATTR_UNION on a copy of", "/");
		if (errno == EINVAL || errno == ENOSYS)
			fprintf(stderr,
				"%s: this kernel has no union mounts (CONFIG_UNION_MOUNT)\n",
				prog);
		else if (errno == EPERM)
			fprintf(stderr,
				"%s: union layers need CAP_SYS_ADMIN in the initial user namespace\n",
				prog);
	}
	close(fd);
	return ret ? -1 : 0;
}

/* --- The mount table: statmount(2) or /proc/self/mountinfo ------------- */

/*
 * One mount, as statmount() or a mountinfo line describes it.  Both give
 * the same fields but one: 6.12's statmount() has no mount source, so the
 * SOURCE column comes from the mountinfo line of the mount's old ID.
 */
struct minfo {
	char *buf;	/* the mountinfo line or the statmount buffer */
	char *sbuf;	/* the source, copied from mountinfo (statmount) */
	__u64 uid;	/* unique mount ID (statmount), 0 from mountinfo */
	__u64 puid;	/* the parent's unique ID */
	int id;		/* the mountinfo ID (statmount: mnt_id_old) */
	int parent;
	char *root;	/* the mount's root within its file system */
	char *mpoint;	/* where it is mounted */
	char *fstype;
	char *source;	/* NULL until needed (statmount) */
	char opts[256];	/* per-mount options as mountinfo spells them */
	bool is_union;	/* "union" among the per-mount options */
	bool mnt_ro;	/* the mount is read-only */
	bool ro;	/* the mount or its super block is read-only */
};

struct mtable {
	struct minfo **m;
	size_t n;
	size_t alloc;
};

/* Undo the octal escapes (\040 and friends) of mountinfo, in place. */
static char *unescape(char *s)
{
	char *r = s, *w = s;

	while (*r) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' &&
		    r[2] >= '0' && r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
			*w++ = (r[1] - '0') << 6 | (r[2] - '0') << 3 | (r[3] - '0');
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = 0;
	return s;
}

static bool has_opt(const char *opts, const char *opt)
{
	size_t len = strlen(opt);
	const char *p = opts;

	while (p && *p) {
		if (!strncmp(p, opt, len) && (p[len] == ',' || !p[len]))
			return true;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return false;
}

/* Parse one mountinfo line (see proc(5)); false if it is malformed. */
static bool parse_line(char *line, struct minfo *mi)
{
	char *f[6], *sopts, *save = NULL, *tok;
	int i;

	line[strcspn(line, "\n")] = 0;
	for (i = 0; i < 6; i++) {
		f[i] = strtok_r(i ? NULL : line, " ", &save);
		if (!f[i])
			return false;
	}
	/* optional fields up to the "-" separator */
	while ((tok = strtok_r(NULL, " ", &save)) && strcmp(tok, "-"))
		;
	if (!tok)
		return false;
	mi->fstype = strtok_r(NULL, " ", &save);
	mi->source = strtok_r(NULL, " ", &save);
	sopts = strtok_r(NULL, " ", &save);
	if (!mi->fstype || !mi->source)
		return false;
	mi->id = atoi(f[0]);
	mi->parent = atoi(f[1]);
	mi->root = unescape(f[3]);
	mi->mpoint = unescape(f[4]);
	snprintf(mi->opts, sizeof(mi->opts), "%s", f[5]);
	unescape(mi->fstype);
	unescape(mi->source);
	mi->is_union = has_opt(mi->opts, "union");
	mi->mnt_ro = has_opt(mi->opts, "ro");
	mi->ro = mi->mnt_ro || (sopts && has_opt(sopts, "ro"));
	return true;
}

static void free_minfo(struct minfo *mi)
{
	if (!mi)
		return;
	free(mi->buf);
	free(mi->sbuf);
	free(mi);
}

static void free_mtable(struct mtable *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free_minfo(t->m[i]);
	free(t->m);
	memset(t, 0, sizeof(*t));
}

/* Append @mi to @t, which owns it from now on, even on failure. */
static int add_minfo(struct mtable *t, struct minfo *mi)
{
	if (t->n == t->alloc) {
		size_t alloc = t->alloc ? 2 * t->alloc : 64;
		struct minfo **m = realloc(t->m, alloc * sizeof(*m));

		if (!m) {
			free_minfo(mi);
			errno = ENOMEM;
			return -1;
		}
		t->m = m;
		t->alloc = alloc;
	}
	t->m[t->n++] = mi;
	return 0;
}

static int read_mountinfo(struct mtable *t)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	memset(t, 0, sizeof(*t));
	f = fopen("/proc/self/mountinfo", "re");
	if (!f) {
		fail("open", "/proc/self/mountinfo");
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		struct minfo *mi = calloc(1, sizeof(*mi));

		if (!mi)
			goto out_nomem;
		mi->buf = strdup(line);
		if (!mi->buf) {
			free(mi);
			goto out_nomem;
		}
		if (!parse_line(mi->buf, mi)) {
			free_minfo(mi);
			continue;
		}
		if (add_minfo(t, mi))
			goto out_nomem;
	}
	free(line);
	fclose(f);
	return 0;

out_nomem:
	errno = ENOMEM;
	fail("read", "/proc/self/mountinfo");
	free(line);
	fclose(f);
	free_mtable(t);
	return -1;
}

/*
 * UNION_NO_STATMOUNT=1 in the environment: read /proc/self/mountinfo as on
 * a kernel without statmount(2), to compare the two.
 */
static bool statmount_disabled(void)
{
	const char *e = getenv("UNION_NO_STATMOUNT");

	return e && *e && strcmp(e, "0");
}

/*
 * statmount(2) of the mount with unique ID @uid: the fixed part and the
 * strings of @mask, in a buffer grown until they fit.  NULL with errno set
 * on failure (ENOSYS: no statmount, before Linux 6.8).
 */
static struct statmount *statmount_alloc(__u64 uid, __u64 mask)
{
	struct mnt_id_req req = {
		.size = MNT_ID_REQ_SIZE_VER0,
		.mnt_id = uid,
		.param = mask,
	};
	size_t size = sizeof(struct statmount) + 2 * PATH_MAX;
	struct statmount *sm;

	for (;;) {
		sm = malloc(size);
		if (!sm) {
			errno = ENOMEM;
			return NULL;
		}
		if (!syscall(__NR_statmount, &req, sm, size, 0))
			return sm;
		free(sm);
		if (errno != EOVERFLOW || size >= (1 << 24))
			return NULL;
		size *= 2;
	}
}

#define SM_MASK	(STATMOUNT_SB_BASIC | STATMOUNT_MNT_BASIC | \
		 STATMOUNT_FS_TYPE | STATMOUNT_MNT_ROOT | STATMOUNT_MNT_POINT)

/* The per-mount options of mountinfo, from statmount's mnt_attr. */
static void attr_opts(char *buf, size_t size, __u64 attr)
{
	snprintf(buf, size, "%s%s%s%s%s%s%s%s%s%s",
		 attr & MOUNT_ATTR_RDONLY ? "ro" : "rw",
		 attr & MOUNT_ATTR_NOSUID ? ",nosuid" : "",
		 attr & MOUNT_ATTR_NODEV ? ",nodev" : "",
		 attr & MOUNT_ATTR_NOEXEC ? ",noexec" : "",
		 (attr & MOUNT_ATTR__ATIME) == MOUNT_ATTR_NOATIME ?
			",noatime" : "",
		 attr & MOUNT_ATTR_NODIRATIME ? ",nodiratime" : "",
		 (attr & MOUNT_ATTR__ATIME) == MOUNT_ATTR_RELATIME ?
			",relatime" : "",
		 attr & MOUNT_ATTR_NOSYMFOLLOW ? ",nosymfollow" : "",
		 attr & MOUNT_ATTR_UNION ? ",union" : "",
		 attr & MOUNT_ATTR_IDMAP ? ",idmapped" : "");
}

/* The mount with unique ID @uid from statmount(2); NULL, errno set. */
static struct minfo *statmount_minfo(__u64 uid)
{
	struct statmount *sm;
	struct minfo *mi;

	sm = statmount_alloc(uid, SM_MASK);
	if (!sm)
		return NULL;
	if ((sm->mask & SM_MASK) != SM_MASK) {
		free(sm);
		errno = EOPNOTSUPP;
		return NULL;
	}
	mi = calloc(1, sizeof(*mi));
	if (!mi) {
		free(sm);
		errno = ENOMEM;
		return NULL;
	}
	mi->buf = (char *)sm;
	mi->uid = sm->mnt_id;
	mi->puid = sm->mnt_parent_id;
	mi->id = sm->mnt_id_old;
	mi->parent = sm->mnt_parent_id_old;
	mi->root = sm->str + sm->mnt_root;
	mi->mpoint = sm->str + sm->mnt_point;
	mi->fstype = sm->str + sm->fs_type;
	attr_opts(mi->opts, sizeof(mi->opts), sm->mnt_attr);
	mi->is_union = sm->mnt_attr & MOUNT_ATTR_UNION;
	mi->mnt_ro = sm->mnt_attr & MOUNT_ATTR_RDONLY;
	mi->ro = mi->mnt_ro || (sm->sb_flags & SB_RDONLY);
	return mi;
}

/*
 * What DIR shows: the union layers stacked on it, top first, and the covered
 * directory under the lowest of them, which is either the root of a plain
 * mount on DIR or DIR itself inside the mount that holds it.
 *
 * With statmount, the table holds the mounts read so far, looked up by
 * unique ID; from mountinfo, all of them, looked up by mountinfo ID.
 */
struct stack {
	struct mtable t;
	bool sm;			/* read with statmount(2) */
	struct minfo **layer;
	size_t nlayers;
	struct minfo *covered;		/* the mount holding the covered dir */
	char path[PATH_MAX];		/* DIR as the mount table spells it */
	char croot[PATH_MAX];		/* covered dir within its file system */
};

static void free_stack(struct stack *st)
{
	free(st->layer);
	st->layer = NULL;
	st->nlayers = 0;
	free_mtable(&st->t);
}

/* The mount with ID @id: unique with statmount, else mountinfo's. */
static struct minfo *find_mount(struct stack *st, __u64 id)
{
	struct minfo *mi;
	size_t i;

	for (i = 0; i < st->t.n; i++)
		if ((st->sm ? st->t.m[i]->uid : (__u64)st->t.m[i]->id) == id)
			return st->t.m[i];
	if (!st->sm) {
		errno = ENOENT;
		return NULL;
	}
	mi = statmount_minfo(id);
	if (!mi || add_minfo(&st->t, mi))
		return NULL;
	return mi;
}

static struct minfo *find_parent(struct stack *st, struct minfo *m)
{
	return find_mount(st, st->sm ? m->puid : (__u64)m->parent);
}

/* "/" + "/a" = "/a", "/x" + "/a" = "/x/a", "/x" + "" = "/x" */
static void path_join(char *buf, size_t size, const char *a, const char *b)
{
	if (!*b)
		snprintf(buf, size, "%s", a);
	else if (!strcmp(a, "/"))
		snprintf(buf, size, "%s", b);
	else
		snprintf(buf, size, "%s%s", a, b);
}

/*
 * Fill in the sources of the stack's mounts from mountinfo, by old ID:
 * statmount(2) of 6.12 has none (STATMOUNT_SB_SOURCE came in 6.13).
 */
static int stack_sources(struct stack *st)
{
	struct mtable mt;
	size_t i, j;

	if (!st->sm)
		return 0;
	if (read_mountinfo(&mt))
		return -1;
	for (i = 0; i < st->t.n; i++) {
		struct minfo *m = st->t.m[i];

		for (j = 0; j < mt.n && mt.m[j]->id != m->id; j++)
			;
		if (j == mt.n) {
			/*
			 * A mount outside the caller's root has no line: the
			 * image covered by the layer of a union root (README
			 * "Union root") is below the root it was moved under.
			 */
			m->source = "-";
			continue;
		}
		m->sbuf = strdup(mt.m[j]->source);
		if (!m->sbuf) {
			fail("read", "/proc/self/mountinfo");
			free_mtable(&mt);
			return -1;
		}
		m->source = m->sbuf;
	}
	free_mtable(&mt);
	return 0;
}

static int read_stack(const char *dir, struct stack *st)
{
	unsigned int want = STATX_TYPE | STATX_MNT_ID;
	struct statx stx;
	struct minfo *m, *p;
	bool mount_root;
	const char *rel;
	__u64 id;

	memset(st, 0, sizeof(*st));
	if (!statmount_disabled())
		want = STATX_TYPE | STATX_MNT_ID_UNIQUE;
	if (statx(AT_FDCWD, dir, 0, want, &stx)) {
		fail("statx", dir);
		return -1;
	}
	if (!S_ISDIR(stx.stx_mode)) {
		errno = ENOTDIR;
		fail("statx", dir);
		return -1;
	}
	if (!(stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT)) {
		errno = EOPNOTSUPP;
		fail("statx STATX_ATTR_MOUNT_ROOT", dir);
		return -1;
	}
	/* statmount needs the unique ID (Linux 6.8): else mountinfo */
	st->sm = stx.stx_mask & STATX_MNT_ID_UNIQUE;
	id = stx.stx_mnt_id;
	if (st->sm) {
		m = find_mount(st, id);
		if (!m && errno == ENOSYS) {
			st->sm = false;
		} else if (!m && errno == ENOENT) {
			goto out_outside;
		} else if (!m) {
			fail("statmount", dir);
			goto out_free;
		}
	}
	if (!st->sm) {
		if (!(stx.stx_mask & STATX_MNT_ID) &&
		    statx(AT_FDCWD, dir, 0, STATX_TYPE | STATX_MNT_ID, &stx)) {
			fail("statx", dir);
			goto out_free;
		}
		if (!(stx.stx_mask & STATX_MNT_ID)) {
			errno = EOPNOTSUPP;
			fail("statx STATX_MNT_ID", dir);
			goto out_free;
		}
		id = stx.stx_mnt_id;
		if (read_mountinfo(&st->t))
			goto out_free;
		m = find_mount(st, id);
		if (!m)
			goto out_outside;
	}
	mount_root = stx.stx_attributes & STATX_ATTR_MOUNT_ROOT;
	if (mount_root) {
		snprintf(st->path, sizeof(st->path), "%s", m->mpoint);
		/* a layer on DIR covers its parent's root when that is on DIR too */
		while (m->is_union) {
			if (!(st->nlayers & 15)) {
				struct minfo **l;

				l = realloc(st->layer,
					    (st->nlayers + 16) * sizeof(*l));
				if (!l) {
					fail("read the union stack of", dir);
					goto out_free;
				}
				st->layer = l;
			}
			st->layer[st->nlayers++] = m;
			p = find_parent(st, m);
			if (!p) {
				fail(st->sm ? "statmount the parent mount of" :
				     "find the covered mount in /proc/self/mountinfo of",
				     dir);
				goto out_free;
			}
			if (p == m || strcmp(p->mpoint, m->mpoint)) {
				m = p;
				mount_root = false;
				break;
			}
			m = p;
		}
	} else if (!realpath(dir, st->path)) {
		fail("realpath", dir);
		goto out_free;
	}
	st->covered = m;
	if (mount_root) {
		snprintf(st->croot, sizeof(st->croot), "%s", m->root);
	} else {
		/* DIR is a directory inside the covered mount */
		rel = st->path;
		if (strcmp(m->mpoint, "/"))
			rel += strlen(m->mpoint);
		path_join(st->croot, sizeof(st->croot), m->root, rel);
	}
	return 0;

out_outside:
	/* the internal mount a union reaches a lower layer's directory on */
	fprintf(stderr,
		"%s: %s: on a mount that is not in the mount table (a directory of a union's lower layer?)\n",
		prog, dir);
out_free:
	free_stack(st);
	return -1;
}

/* --- Printing a stack ---------------------------------------------------- */

enum {
	COL_POS, COL_ROLE, COL_MODE, COL_TYPE, COL_SOURCE, COL_ROOT,
	COL_TARGET, COL_ID, COL_PARENT, COL_OPTIONS, COL_DIR, NCOLS
};

static const struct column {
	const char *name;	/* in -o LIST and as the header */
	const char *key;	/* in --json */
	int minw;		/* width in the default table */
	bool num;		/* right-aligned; a JSON number */
	const char *help;
} columns[NCOLS] = {
	[COL_POS] = { "POS", "pos", 3, true, "position, 1 for the top" },
	[COL_ROLE] = { "ROLE", "role", 7, false, "layer or covered" },
	[COL_MODE] = { "MODE", "mode", 4, false, "rw or ro (mount or file system)" },
	[COL_TYPE] = { "TYPE", "type", 8, false, "file system type" },
	[COL_SOURCE] = { "SOURCE", "source", 0, false,
			 "mount source[directory shown], as findmnt" },
	[COL_ROOT] = { "ROOT", "root", 0, false,
		       "directory of the file system shown" },
	[COL_TARGET] = { "TARGET", "target", 0, false, "mount point" },
	[COL_ID] = { "ID", "id", 0, true, "mount ID (mountinfo's)" },
	[COL_PARENT] = { "PARENT", "parent", 0, true, "parent mount ID" },
	[COL_OPTIONS] = { "OPTIONS", "options", 0, false,
			  "per-mount options, as mountinfo" },
	[COL_DIR] = { "DIR", "dir", 0, false, "the directory shown" },
};

static const int default_cols[] = {
	COL_POS, COL_ROLE, COL_MODE, COL_TYPE, COL_SOURCE
};

#define SHOW_JSON	0x1	/* --json */
#define SHOW_RAW	0x2	/* --raw */
#define SHOW_NOHEAD	0x4	/* --noheadings */
#define SHOW_COLS	0x8	/* --output: a plain table, no title */
#define SHOW_ALL	0x10	/* --all: every directory with union layers */
#define SHOW_MORE	0x20	/* --all: not the first stack printed */

struct show_opts {
	unsigned int flags;
	int cols[NCOLS * 4];
	size_t ncols;
};

/* Parse -o LIST (a leading "+" appends to the default columns). */
static int parse_columns(struct show_opts *so, const char *list)
{
	char *copy, *rest, *tok;
	size_t i;
	int c;

	so->ncols = 0;
	if (*list == '+') {
		for (i = 0; i < ARRAY_SIZE(default_cols); i++)
			so->cols[so->ncols++] = default_cols[i];
		list++;
	}
	copy = strdup(list);
	if (!copy)
		return -1;
	rest = copy;
	while ((tok = strsep(&rest, ","))) {
		for (c = 0; c < NCOLS && strcasecmp(tok, columns[c].name); c++)
			;
		if (c == NCOLS || so->ncols == ARRAY_SIZE(so->cols)) {
			free(copy);
			return -1;
		}
		so->cols[so->ncols++] = c;
	}
	free(copy);
	return 0;
}

/* The value of column @c for entry @pos (1 = top) of @st. */
static void cell(char *buf, size_t size, const struct stack *st, size_t pos,
		 int c)
{
	const struct minfo *m;
	const char *root;

	if (pos <= st->nlayers) {
		m = st->layer[pos - 1];
		root = m->root;
	} else {
		m = st->covered;
		root = st->croot;
	}
	switch (c) {
	case COL_POS:
		snprintf(buf, size, "%zu", pos);
		break;
	case COL_ROLE:
		snprintf(buf, size, "%s", pos <= st->nlayers ? "layer" : "covered");
		break;
	case COL_MODE:
		snprintf(buf, size, "%s", m->ro ? "ro" : "rw");
		break;
	case COL_TYPE:
		snprintf(buf, size, "%s", m->fstype);
		break;
	case COL_SOURCE:
		if (!strcmp(root, "/"))
			snprintf(buf, size, "%s", m->source);
		else
			snprintf(buf, size, "%s[%s]", m->source, root);
		break;
	case COL_ROOT:
		snprintf(buf, size, "%s", root);
		break;
	case COL_TARGET:
		snprintf(buf, size, "%s", m->mpoint);
		break;
	case COL_ID:
		snprintf(buf, size, "%d", m->id);
		break;
	case COL_PARENT:
		snprintf(buf, size, "%d", m->parent);
		break;
	case COL_OPTIONS:
		snprintf(buf, size, "%s", m->opts);
		break;
	case COL_DIR:
		snprintf(buf, size, "%s", st->path);
		break;
	}
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void put_json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

/* As findmnt --raw: blanks, backslashes and the unprintable as \xHH. */
static void put_raw(const char *s)
{
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch <= ' ' || ch == '\\' || ch == 0x7f)
			printf("\\x%02x", ch);
		else
			putchar(ch);
	}
}

#define CELL_MAX	(2 * PATH_MAX + 3)

static int show_json(const struct stack *st, const struct show_opts *so)
{
	char *v = malloc(CELL_MAX);
	size_t pos, i;

	if (!v)
		return -1;
	if (so->flags & SHOW_MORE)
		printf(",\n");
	printf("{\n  \"dir\": ");
	put_json_str(st->path);
	printf(",\n  \"layers\": %zu,\n  \"stack\": [\n", st->nlayers);
	for (pos = 1; pos <= st->nlayers + 1; pos++) {
		printf("    {");
		for (i = 0; i < so->ncols; i++) {
			int c = so->cols[i];

			cell(v, CELL_MAX, st, pos, c);
			printf("%s\"%s\": ", i ? ", " : "", columns[c].key);
			if (columns[c].num)
				printf("%s", v);
			else
				put_json_str(v);
		}
		printf("}%s\n", pos <= st->nlayers ? "," : "");
	}
	printf("  ]\n}%s", so->flags & SHOW_ALL ? "" : "\n");
	free(v);
	return 0;
}

static int show_table(const struct stack *st, const struct show_opts *so)
{
	bool legacy = !(so->flags & (SHOW_COLS | SHOW_RAW));
	bool raw = so->flags & SHOW_RAW;
	size_t rows = st->nlayers + 1, pos, i;
	int width[NCOLS * 4];
	char *v = malloc(CELL_MAX);

	if (!v)
		return -1;
	if ((so->flags & SHOW_MORE) && !(so->flags & SHOW_NOHEAD))
		putchar('\n');
	/* widths: the widest value or header, at least minw by default */
	for (i = 0; i < so->ncols; i++) {
		int c = so->cols[i];

		width[i] = legacy ? columns[c].minw : 0;
		if ((int)strlen(columns[c].name) > width[i])
			width[i] = strlen(columns[c].name);
		for (pos = 1; pos <= rows && !raw; pos++) {
			cell(v, CELL_MAX, st, pos, c);
			if ((int)strlen(v) > width[i])
				width[i] = strlen(v);
		}
	}
	if (legacy && !(so->flags & SHOW_NOHEAD)) {
		if (st->nlayers)
			printf("%s: %zu union layer%s, top first\n", st->path,
			       st->nlayers, st->nlayers == 1 ? "" : "s");
		else
			printf("%s: no union layers\n", st->path);
	}
	for (pos = 0; pos <= rows; pos++) {
		if (!pos && (so->flags & SHOW_NOHEAD))
			continue;
		for (i = 0; i < so->ncols; i++) {
			int c = so->cols[i];
			bool last = i + 1 == so->ncols;

			if (!pos)
				snprintf(v, CELL_MAX, "%s",
					 legacy && c == COL_POS ? "#" :
					 columns[c].name);
			else
				cell(v, CELL_MAX, st, pos, c);
			if (i)
				fputs(raw ? " " : "  ", stdout);
			if (raw)
				put_raw(v);
			else if (columns[c].num)
				printf("%*s", width[i], v);
			else
				printf("%-*s", last ? 0 : width[i], v);
		}
		putchar('\n');
	}
	free(v);
	return 0;
}

static bool wants_source(const struct show_opts *so)
{
	size_t i;

	for (i = 0; i < so->ncols; i++)
		if (so->cols[i] == COL_SOURCE)
			return true;
	return false;
}

static int show_one(const char *dir, const struct show_opts *so)
{
	struct stack st;
	int ret;

	if (read_stack(dir, &st))
		return 1;
	if (wants_source(so) && stack_sources(&st)) {
		free_stack(&st);
		return 1;
	}
	if (so->flags & SHOW_JSON)
		ret = show_json(&st, so);
	else
		ret = show_table(&st, so);
	free_stack(&st);
	if (ret || fflush(stdout) || ferror(stdout)) {
		fail("write", "standard output");
		return 1;
	}
	return 0;
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The mount points of every union layer in this mount namespace, sorted,
 * each once: listmount(2) of every mount and statmount(2) of each, or
 * /proc/self/mountinfo.  NULL-terminated, in @t's strings.
 */
static char **union_dirs(struct mtable *t)
{
	__u64 ids[256], last = 0;
	char **dirs = NULL;
	size_t i, j, n = 0;
	ssize_t got;

	memset(t, 0, sizeof(*t));
	if (statmount_disabled()) {
		errno = ENOSYS;
		got = -1;
	} else {
		do {
			struct mnt_id_req req = {
				.size = MNT_ID_REQ_SIZE_VER0,
				.mnt_id = LSMT_ROOT,
				.param = last,
			};

			got = syscall(__NR_listmount, &req, ids,
				      ARRAY_SIZE(ids), 0);
			for (i = 0; got > 0 && i < (size_t)got; i++) {
				struct minfo *mi = statmount_minfo(ids[i]);

				/* gone since listmount: not shown */
				if (!mi && errno == ENOENT)
					continue;
				if (!mi || add_minfo(t, mi)) {
					fail("statmount", "a mount of listmount");
					goto out_free;
				}
			}
			if (got > 0)
				last = ids[got - 1];
		} while (got == (ssize_t)ARRAY_SIZE(ids));
	}
	if (got < 0 && errno != ENOSYS) {
		fail("listmount", "the mount namespace");
		goto out_free;
	}
	if (got < 0 && read_mountinfo(t))
		return NULL;
	dirs = calloc(t->n + 1, sizeof(*dirs));
	if (!dirs) {
		fail("list", "the union layers");
		goto out_free;
	}
	for (i = 0; i < t->n; i++)
		if (t->m[i]->is_union && *t->m[i]->mpoint)	/* "": unreachable */
			dirs[n++] = t->m[i]->mpoint;
	qsort(dirs, n, sizeof(*dirs), cmp_path);
	for (i = 0, j = 0; i < n; i++)
		if (!j || strcmp(dirs[i], dirs[j - 1]))
			dirs[j++] = dirs[i];
	dirs[j] = NULL;
	return dirs;

out_free:
	free_mtable(t);
	return NULL;
}

/* show --all: each directory with union layers, sorted by path. */
static int show_all(struct show_opts *so)
{
	struct mtable t;
	char **dirs;
	int rc = 0;
	size_t i;

	dirs = union_dirs(&t);
	if (!dirs)
		return 1;
	so->flags |= SHOW_ALL;
	if (so->flags & SHOW_JSON)
		printf("[");
	for (i = 0; dirs[i]; i++) {
		if ((so->flags & SHOW_JSON) && !i)
			printf("\n");
		if (show_one(dirs[i], so))
			rc = 1;
		else
			so->flags |= SHOW_MORE;
	}
	if (so->flags & SHOW_JSON)
		printf("%s]\n", i ? "\n" : "");
	free(dirs);
	free_mtable(&t);
	if (fflush(stdout) || ferror(stdout)) {
		fail("write", "standard output");
		return 1;
	}
	return rc;
}

static int cmd_show(const char *dir, struct show_opts *so)
{
	if (!so->ncols) {
		memcpy(so->cols, default_cols, sizeof(default_cols));
		so->ncols = ARRAY_SIZE(default_cols);
		if (so->flags & SHOW_JSON)
			for (so->ncols = 0; so->ncols < COL_DIR; so->ncols++)
				so->cols[so->ncols] = so->ncols;
	}
	if (!dir)
		return show_all(so);
	return show_one(dir, so);
}

/* --- Checking that the kernel made a union layer ------------------------- */

/* The IDs of a mount, taken from an fd on it before it is attached. */
struct mnt_ids {
	__u64 uid;	/* unique ID, 0 if statx has none (before 6.8) */
	int id;		/* mountinfo's ID */
};

static int get_mnt_ids(int fd, const char *path, struct mnt_ids *ids)
{
	struct statx stx;

	memset(ids, 0, sizeof(*ids));
	if (!statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID_UNIQUE, &stx) &&
	    (stx.stx_mask & STATX_MNT_ID_UNIQUE))
		ids->uid = stx.stx_mnt_id;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx)) {
		fail("statx", path);
		return -1;
	}
	if (!(stx.stx_mask & STATX_MNT_ID)) {
		errno = EOPNOTSUPP;
		fail("statx STATX_MNT_ID", path);
		return -1;
	}
	ids->id = stx.stx_mnt_id;
	return 0;
}

/*
 * Does the kernel report the attached mount @ids as a union layer?  1 yes,
 * 0 no, -1 it cannot be told.  @how says where the answer came from.
 *
 * UNION_TEST_NO_UNION_ATTR=1 in the environment makes the answer "no"
 * whatever the kernel says: the tests use it to check what "add" does on a
 * kernel that accepts MOUNT_ATTR_UNION but does not make a union layer.
 */
static int union_reported(const struct mnt_ids *ids, const char **how)
{
	const char *sim = getenv("UNION_TEST_NO_UNION_ATTR");
	struct statmount *sm;
	struct mtable mt;
	int ret = -1;
	size_t i;

	if (ids->uid && !statmount_disabled()) {
		sm = statmount_alloc(ids->uid, STATMOUNT_MNT_BASIC);
		if (sm && (sm->mask & STATMOUNT_MNT_BASIC)) {
			ret = !!(sm->mnt_attr & MOUNT_ATTR_UNION);
			*how = "statmount reports no MOUNT_ATTR_UNION";
		}
		free(sm);
	}
	if (ret < 0 && !read_mountinfo(&mt)) {
		for (i = 0; i < mt.n; i++)
			if (mt.m[i]->id == ids->id)
				ret = mt.m[i]->is_union;
		free_mtable(&mt);
		*how = "/proc/self/mountinfo shows no \"union\" option";
	}
	if (ret > 0 && sim && *sim && strcmp(sim, "0"))
		ret = 0;
	return ret;
}

/*
 * After move_mount() of the new layer @ids onto @dir: unless the kernel
 * reports it as a union layer, take it off again, so that a kernel that
 * ignores MOUNT_ATTR_UNION never leaves a plain bind mount behind.
 */
static int verify_union(const struct mnt_ids *ids, const char *dir)
{
	const char *how = NULL;
	struct statx stx;
	int ret;

	ret = union_reported(ids, &how);
	if (ret > 0)
		return 0;
	if (ret == 0)
		fprintf(stderr,
			"%s: move_mount onto %s: the new mount is no union layer (%s): the kernel ignored it\n",
			prog, dir, how);
	else
		fprintf(stderr,
			"%s: move_mount onto %s: cannot tell whether the new mount is a union layer\n",
			prog, dir);
	/* take it off only if it still is the top mount on DIR */
	if (statx(AT_FDCWD, dir, 0, STATX_MNT_ID, &stx) ||
	    !(stx.stx_mask & STATX_MNT_ID) || (int)stx.stx_mnt_id != ids->id) {
		fprintf(stderr,
			"%s: %s: the new mount is no longer the top mount; it stays\n",
			prog, dir);
		return -1;
	}
	if (umount2(dir, MNT_DETACH)) {
		fail("umount2", dir);
		fprintf(stderr, "%s: %s: the new mount stays: take it off with umount\n",
			prog, dir);
		return -1;
	}
	fprintf(stderr, "%s: %s: the new mount was taken off again\n", prog, dir);
	return -1;
}

/* --- Making layers ----------------------------------------------------- */

/* Make the detached mount @fd a union layer; read-only if @ro. */
static int set_union(int fd, const char *path, bool ro)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_UNION };

	if (ro)
		attr.attr_set |= MOUNT_ATTR_RDONLY;
	if (sys_mount_setattr(fd, "", AT_EMPTY_PATH, &attr, sizeof(attr))) {
		fail("mount_setattr", path);
		return -1;
	}
	return 0;
}

/*
 * A detached copy of the directory @path (with the mounts below it if
 * @flags has AT_RECURSIVE), made a union layer, read-only if @ro.
 */
static int clone_layer(const char *path, unsigned int flags, bool ro)
{
	struct stat sb;
	int fd;

	fd = sys_open_tree(AT_FDCWD, path,
			   OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | flags);
	if (fd < 0) {
		fail("open_tree", path);
		return -1;
	}
	if (fstat(fd, &sb)) {
		fail("fstat", path);
		goto out_close;
	}
	if (!S_ISDIR(sb.st_mode)) {
		errno = ENOTDIR;
		fail("open_tree", path);
		goto out_close;
	}
	if (set_union(fd, path, ro))
		goto out_close;
	return fd;

out_close:
	close(fd);
	return -1;
}

static int attach(int fd, const char *dir)
{
	if (sys_move_mount(fd, "", AT_FDCWD, dir, MOVE_MOUNT_F_EMPTY_PATH)) {
		fail("move_mount onto", dir);
		return -1;
	}
	return 0;
}

static int check_dir(const char *dir)
{
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		fail("open", dir);
		return -1;
	}
	close(fd);
	return 0;
}

static void warn_if_ro(int fd, const char *layer)
{
	struct statvfs sv;

	if (!fstatvfs(fd, &sv) && (sv.f_flag & ST_RDONLY))
		fprintf(stderr,
			"%s: warning: %s is read-only (its mount or file system): the layer is read-only\n",
			prog, layer);
}

/* add -b: LAYER on top of what DIR shows now. */
static int add_before(const char *layer, const char *dir, bool writable)
{
	struct mnt_ids ids;
	int fd, ret;

	fd = clone_layer(layer, 0, !writable);
	if (fd < 0)
		return 1;
	if (writable)
		warn_if_ro(fd, layer);
	ret = get_mnt_ids(fd, layer, &ids);
	if (!ret)
		ret = attach(fd, dir);
	if (!ret)
		ret = verify_union(&ids, dir);
	close(fd);
	return ret ? 1 : 0;
}

/* Attach the kept copies @fds[@n - 1] (bottom) .. @fds[0] (top) onto @dir. */
static int put_back(int *fds, size_t n, const char *dir)
{
	int bad = 0;

	while (n--) {
		if (attach(fds[n], dir))
			bad++;
		close(fds[n]);
		fds[n] = -1;
	}
	return bad;
}

static void restore(int *fds, size_t n, const char *dir)
{
	int bad;

	if (!n)
		return;
	bad = put_back(fds, n, dir);
	if (bad)
		fprintf(stderr,
			"%s: %s: %d of the %zu union layers taken off could not be put back\n",
			prog, dir, bad, n);
	else
		fprintf(stderr, "%s: %s: the union layers taken off were put back\n",
			prog, dir);
}

/*
 * add -a: LAYER beneath everything DIR shows, DIR's own directory included.
 * Take the union layers off (keeping detached copies), put LAYER as a union
 * layer right on the covered directory, a copy of the covered directory on
 * it unless one of the layers already is that directory, and the layers
 * back in their order.
 */
static int add_after(const char *layer, const char *dir, bool writable)
{
	struct mnt_ids ids;
	struct stack st;
	struct stat sb, ksb;
	size_t n = 0, cap = 0, i;
	int xfd, fd, *fds = NULL, rc = 1;
	bool need_copy = true;

	xfd = clone_layer(layer, 0, !writable);
	if (xfd < 0)
		return 1;
	if (writable)
		warn_if_ro(xfd, layer);
	if (get_mnt_ids(xfd, layer, &ids)) {
		close(xfd);
		return 1;
	}

	for (;;) {
		bool ro;

		if (read_stack(dir, &st))
			goto out_restore;
		ro = st.nlayers && st.layer[0]->mnt_ro;
		i = st.nlayers;
		free_stack(&st);
		if (!i)
			break;
		if (n + 2 > cap) {
			int *p;

			cap = cap ? 2 * cap : 8;
			p = realloc(fds, cap * sizeof(*fds));
			if (!p) {
				fail("rebuild", dir);
				goto out_restore;
			}
			fds = p;
		}
		fd = clone_layer(dir, AT_RECURSIVE, ro);
		if (fd < 0)
			goto out_restore;
		if (umount2(dir, MNT_DETACH)) {
			fail("umount2", dir);
			close(fd);
			goto out_restore;
		}
		fds[n++] = fd;
	}

	/* DIR now shows the covered directory */
	if (stat(dir, &sb)) {
		fail("stat", dir);
		goto out_restore;
	}
	for (i = 0; i < n; i++)
		if (!fstat(fds[i], &ksb) && ksb.st_dev == sb.st_dev &&
		    ksb.st_ino == sb.st_ino)
			need_copy = false;
	fd = -1;
	if (need_copy) {
		fd = clone_layer(dir, AT_RECURSIVE, false);
		if (fd < 0)
			goto out_restore;
	}
	if (attach(xfd, dir) || verify_union(&ids, dir)) {
		if (fd >= 0)
			close(fd);
		goto out_restore;
	}
	if (fd >= 0) {
		if (!fds) {
			fds = malloc(sizeof(*fds));
			if (!fds) {
				fail("rebuild", dir);
				close(fd);
				goto out;
			}
		}
		fds[n++] = fd;
	}
	rc = put_back(fds, n, dir) ? 1 : 0;
	if (rc)
		fprintf(stderr, "%s: %s: the union is incomplete\n", prog, dir);
	goto out;

out_restore:
	restore(fds, n, dir);
out:
	close(xfd);
	free(fds);
	return rc;
}

static int cmd_add(const char *layer, const char *dir, bool after,
		   bool writable)
{
	if (probe())
		return 1;
	if (check_dir(dir))
		return 1;
	if (after)
		return add_after(layer, dir, writable);
	return add_before(layer, dir, writable);
}

/* --- Removing layers ----------------------------------------------------- */

static int cmd_remove(const char *dir, bool all, bool lazy)
{
	struct stack st;
	int removed = 0;
	size_t n;

	for (;;) {
		if (read_stack(dir, &st))
			return 1;
		n = st.nlayers;
		free_stack(&st);
		if (!n)
			break;
		if (umount2(dir, lazy ? MNT_DETACH : 0)) {
			fail("umount2", dir);
			return 1;
		}
		removed++;
		if (!all)
			break;
	}
	if (!removed) {
		fprintf(stderr, "%s: remove %s: no union layer on %s\n", prog,
			dir, dir);
		return 1;
	}
	return 0;
}

/* --- Command line -------------------------------------------------------- */

static int getopt_error(char **argv)
{
	return usage_error("unknown option or missing argument: %s",
			   argv[optind - 1]);
}

int main(int argc, char **argv)
{
	static const struct option add_opts[] = {
		{ "before",	no_argument, NULL, 'b' },
		{ "after",	no_argument, NULL, 'a' },
		{ "create",	no_argument, NULL, 'c' },
		{ "writable",	no_argument, NULL, 'w' },
		{ "read-only",	no_argument, NULL, 'r' },
		{ "help",	no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const struct option rm_opts[] = {
		{ "all",	no_argument, NULL, 'a' },
		{ "lazy",	no_argument, NULL, 'l' },
		{ "help",	no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const struct option show_opts[] = {
		{ "all",	no_argument, NULL, 'A' },
		{ "json",	no_argument, NULL, 'J' },
		{ "output",	required_argument, NULL, 'o' },
		{ "noheadings",	no_argument, NULL, 'n' },
		{ "raw",	no_argument, NULL, 'r' },
		{ "help",	no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const struct option no_opts[] = {
		{ "help",	no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	bool after = false, writable = false, all = false, lazy = false;
	const char *cmd;
	int c;

	if (argc < 2)
		return usage_error("%s", "no command given");
	cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") ||
	    !strcmp(cmd, "help")) {
		usage();
		return 0;
	}
	/* options of the command follow it: parse argv[1..] */
	argc--;
	argv++;
	opterr = 0;
	if (!strcmp(cmd, "add")) {
		while ((c = getopt_long(argc, argv, "bacwrh", add_opts, NULL)) != -1) {
			switch (c) {
			case 'b':
				after = false;
				break;
			case 'a':
				after = true;
				break;
			case 'c':
			case 'w':
				writable = true;
				break;
			case 'r':
				writable = false;
				break;
			case 'h':
				usage();
				return 0;
			default:
				return getopt_error(argv);
			}
		}
		if (argc - optind != 2)
			return usage_error("%s", "add takes LAYER and DIR");
		return cmd_add(argv[optind], argv[optind + 1], after, writable);
	}
	if (!strcmp(cmd, "remove")) {
		while ((c = getopt_long(argc, argv, "alh", rm_opts, NULL)) != -1) {
			switch (c) {
			case 'a':
				all = true;
				break;
			case 'l':
				lazy = true;
				break;
			case 'h':
				usage();
				return 0;
			default:
				return getopt_error(argv);
			}
		}
		if (argc - optind != 1)
			return usage_error("%s", "remove takes DIR");
		return cmd_remove(argv[optind], all, lazy);
	}
	if (!strcmp(cmd, "show")) {
		struct show_opts so = { 0 };

		while ((c = getopt_long(argc, argv, "AJo:nrh", show_opts, NULL)) != -1) {
			switch (c) {
			case 'A':
				so.flags |= SHOW_ALL;
				break;
			case 'J':
				so.flags |= SHOW_JSON;
				break;
			case 'o':
				if (parse_columns(&so, optarg))
					return usage_error("unknown column in -o %s", optarg);
				so.flags |= SHOW_COLS;
				break;
			case 'n':
				so.flags |= SHOW_NOHEAD;
				break;
			case 'r':
				so.flags |= SHOW_RAW;
				break;
			case 'h':
				usage();
				return 0;
			default:
				return getopt_error(argv);
			}
		}
		if ((so.flags & SHOW_JSON) && (so.flags & (SHOW_RAW | SHOW_NOHEAD)))
			return usage_error("%s", "--json goes with neither --raw nor --noheadings");
		if ((so.flags & SHOW_ALL) && argc != optind)
			return usage_error("%s", "show --all takes no DIR");
		if (so.flags & SHOW_ALL)
			return cmd_show(NULL, &so);
		if (argc - optind != 1)
			return usage_error("%s", "show takes DIR");
		return cmd_show(argv[optind], &so);
	}
	if (!strcmp(cmd, "probe")) {
		while ((c = getopt_long(argc, argv, "h", no_opts, NULL)) != -1) {
			if (c != 'h')
				return getopt_error(argv);
			usage();
			return 0;
		}
		if (argc != optind)
			return usage_error("%s", "probe takes no arguments");
		if (probe())
			return 1;
		printf("union mounts: supported\n");
		return 0;
	}
	return usage_error("unknown command: %s", cmd);
}
