// SPDX-License-Identifier: GPL-2.0
/*
 * union - stack directories as union layers (Linux union mounts)
 *
 *   union add [-b | -a] [-c | -r] LAYER DIR
 *   union show DIR
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
 *	move_mount(layer, "", DIR)		on top of whatever DIR shows now,
 *						a plain directory or a union stack
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
 *	move_mount(copy, "", DIR)		for each copy, bottom first
 *	On a failure the copies taken off so far are put back.
 * LAYER goes on the covered directory as a union layer, not as a plain
 * bind mount that would hide it: everything stacked on DIR stays a union
 * layer, so "remove -a" gives DIR back exactly as it was.
 *
 * show DIR
 *	statx(DIR, STATX_MNT_ID)		the top mount on DIR, and whether
 *						DIR is a mount root at all
 *	read /proc/self/mountinfo		walk to the parent mount while the
 *						mount is a union layer on DIR
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
"       union show DIR\n"
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
"remove   take the top union layer off DIR\n"
"  -a, --all        take off every union layer stacked on DIR\n"
"  -l, --lazy       detach busy layers (umount2 MNT_DETACH)\n"
"probe    tell whether the kernel has union mounts\n"
"\n"
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

/* --- /proc/self/mountinfo ------------------------------------------------ */

struct minfo {
	char *buf;	/* the line the strings below point into */
	int id;
	int parent;
	char *root;	/* the mount's root within its file system */
	char *mpoint;	/* where it is mounted */
	char *fstype;
	char *source;
	bool is_union;	/* "union" among the per-mount options */
	bool mnt_ro;	/* the mount is read-only */
	bool ro;	/* the mount or its super block is read-only */
};

struct mtable {
	struct minfo *m;
	size_t n;
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
	char *f[6], *opts, *sopts, *save = NULL, *tok;
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
	opts = f[5];
	unescape(mi->fstype);
	unescape(mi->source);
	mi->is_union = has_opt(opts, "union");
	mi->mnt_ro = has_opt(opts, "ro");
	mi->ro = mi->mnt_ro || (sopts && has_opt(sopts, "ro"));
	return true;
}

static void free_mtable(struct mtable *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->m[i].buf);
	free(t->m);
	t->m = NULL;
	t->n = 0;
}

static int read_mtable(struct mtable *t)
{
	char *line = NULL;
	size_t cap = 0, alloc = 0;
	FILE *f;

	t->m = NULL;
	t->n = 0;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f) {
		fail("open", "/proc/self/mountinfo");
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		struct minfo mi;
		char *copy = strdup(line);

		if (!copy)
			goto out_nomem;
		if (!parse_line(copy, &mi)) {
			free(copy);
			continue;
		}
		mi.buf = copy;
		if (t->n == alloc) {
			struct minfo *m;

			alloc = alloc ? 2 * alloc : 64;
			m = realloc(t->m, alloc * sizeof(*m));
			if (!m) {
				free(copy);
				goto out_nomem;
			}
			t->m = m;
		}
		t->m[t->n++] = mi;
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

static struct minfo *find_mount(struct mtable *t, int id)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->m[i].id == id)
			return &t->m[i];
	return NULL;
}

/*
 * What DIR shows: the union layers stacked on it, top first, and the covered
 * directory under the lowest of them, which is either the root of a plain
 * mount on DIR or DIR itself inside the mount that holds it.
 */
struct stack {
	struct mtable t;
	struct minfo **layer;
	size_t nlayers;
	struct minfo *covered;		/* the mount holding the covered dir */
	char path[PATH_MAX];		/* DIR as mountinfo spells it */
	char croot[PATH_MAX];		/* covered dir within its file system */
};

static void free_stack(struct stack *st)
{
	free(st->layer);
	st->layer = NULL;
	st->nlayers = 0;
	free_mtable(&st->t);
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

static int read_stack(const char *dir, struct stack *st)
{
	struct statx stx;
	struct minfo *m, *p;
	bool mount_root;
	const char *rel;

	memset(st, 0, sizeof(*st));
	if (statx(AT_FDCWD, dir, 0, STATX_TYPE | STATX_MNT_ID, &stx)) {
		fail("statx", dir);
		return -1;
	}
	if (!S_ISDIR(stx.stx_mode)) {
		errno = ENOTDIR;
		fail("statx", dir);
		return -1;
	}
	if (!(stx.stx_mask & STATX_MNT_ID) ||
	    !(stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT)) {
		errno = EOPNOTSUPP;
		fail("statx STATX_MNT_ID", dir);
		return -1;
	}
	if (read_mtable(&st->t))
		return -1;
	st->layer = calloc(st->t.n + 1, sizeof(*st->layer));
	if (!st->layer) {
		fail("read /proc/self/mountinfo for", dir);
		goto out_free;
	}
	m = find_mount(&st->t, stx.stx_mnt_id);
	if (!m) {
		errno = ENOENT;
		fail("find the mount in /proc/self/mountinfo of", dir);
		goto out_free;
	}
	mount_root = stx.stx_attributes & STATX_ATTR_MOUNT_ROOT;
	if (mount_root) {
		snprintf(st->path, sizeof(st->path), "%s", m->mpoint);
		/* a layer on DIR covers its parent's root when that is on DIR too */
		while (m->is_union) {
			st->layer[st->nlayers++] = m;
			p = find_mount(&st->t, m->parent);
			if (!p || p == m || strcmp(p->mpoint, m->mpoint)) {
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
	if (!m) {
		errno = ENOENT;
		fail("find the covered mount in /proc/self/mountinfo of", dir);
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

out_free:
	free_stack(st);
	return -1;
}

static void print_entry(size_t n, const char *role, const struct minfo *m,
			const char *root)
{
	char src[2 * PATH_MAX + 3];

	if (!strcmp(root, "/"))
		snprintf(src, sizeof(src), "%s", m->source);
	else
		snprintf(src, sizeof(src), "%s[%s]", m->source, root);
	printf("%3zu  %-7s  %-4s  %-8s  %s\n", n, role, m->ro ? "ro" : "rw",
	       m->fstype, src);
}

static int cmd_show(const char *dir)
{
	struct stack st;
	size_t i;

	if (read_stack(dir, &st))
		return 1;
	if (st.nlayers)
		printf("%s: %zu union layer%s, top first\n", st.path,
		       st.nlayers, st.nlayers == 1 ? "" : "s");
	else
		printf("%s: no union layers\n", st.path);
	printf("%3s  %-7s  %-4s  %-8s  %s\n", "#", "ROLE", "MODE", "TYPE",
	       "SOURCE");
	for (i = 0; i < st.nlayers; i++)
		print_entry(i + 1, "layer", st.layer[i], st.layer[i]->root);
	print_entry(i + 1, "covered", st.covered, st.croot);
	free_stack(&st);
	return 0;
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
	int fd, ret;

	fd = clone_layer(layer, 0, !writable);
	if (fd < 0)
		return 1;
	if (writable)
		warn_if_ro(fd, layer);
	ret = attach(fd, dir);
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
	if (attach(xfd, dir)) {
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
	if (!strcmp(cmd, "show") || !strcmp(cmd, "probe")) {
		while ((c = getopt_long(argc, argv, "h", no_opts, NULL)) != -1) {
			if (c != 'h')
				return getopt_error(argv);
			usage();
			return 0;
		}
		if (!strcmp(cmd, "probe")) {
			if (argc != optind)
				return usage_error("%s", "probe takes no arguments");
			if (probe())
				return 1;
			printf("union mounts: supported\n");
			return 0;
		}
		if (argc - optind != 1)
			return usage_error("%s", "show takes DIR");
		return cmd_show(argv[optind]);
	}
	return usage_error("unknown command: %s", cmd);
}
