// SPDX-License-Identifier: GPL-2.0
/*
 * Real programs at work inside the lower directories of a writable union:
 * Debian's git, GNU tar, dpkg, rsync, GNU sed, cp, mv and rm (in the guest at
 * /opt/real/bin, scripts/build-realtools.sh), run with their cwd in a
 * directory that only the lower layer has, as root and as alice (uid 1000)
 * in a directory alice owns in the lower layer.
 *
 * For each scratch file system (tmpfs, ext4, xfs, btrfs) a test makes
 *
 *   S/lower   the lower layer, populated by the test BEFORE the union
 *             exists (a git repository with three commits, a dpkg root with
 *             union-hello 1.0 installed, a tree for tar, files for rsync,
 *             sed, cp, mv, rm), with S/lower/root (0:0) and
 *             S/lower/alice (1000:1000) as the two users' areas
 *   S/top     the writable top layer, union-mounted on S/lower
 *             (mount(S/top, S/lower, MS_BIND | MS_UNION)): S/lower is then
 *             the union, and an fd of the covered S/lower, opened before,
 *             still reads the lower layer itself
 *
 * then runs the programs (fork, setresuid() for alice, chdir() into the
 * union's lower directory, execvp() with PATH=/opt/real/bin:...), checks
 * their exit codes, their exact output and the exact result in the union
 * (contents, listings, st_mode, owners, times), and in the end that the
 * lower layer has not changed at all (a fingerprint of every name: type,
 * mode, owner, size, mtime, contents hash or link target).
 *
 * A program's stdout and stderr are in the TAP log whenever a check of its
 * run fails.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/magic.h>

#include "guest_util.h"

/* See tools/testing/selftests/union/union_dir_test.c: setjmp() and -O2. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wclobbered"
#endif

#include "kselftest_harness.h"

#ifndef MS_UNION
#define MS_UNION	512
#endif

#define REAL		"/opt/real"
#define DEB_1		REAL "/share/union-hello_1.0_all.deb"
#define DEB_2		REAL "/share/union-hello_2.0_all.deb"
#define OUT_MAX		16384
#define ALICE		1000
/* git's dates, fixed: the same commits every run */
#define GIT_DATE	"1700000000 +0000"

/* What one run of a program did. */
struct result {
	char cmd[1024];		/* the command line, for the log */
	int status;		/* exit status, 128 + signal if killed */
	char out[OUT_MAX];
	char err[OUT_MAX];
};

static const char *const child_env[] = {
	"PATH=" REAL "/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	"HOME=/tmp",
	"LC_ALL=C",
	"TZ=UTC",
	"COLUMNS=80",
	"PAGER=cat",
	"GIT_PAGER=cat",
	"GIT_CONFIG_NOSYSTEM=1",
	"GIT_CONFIG_GLOBAL=/dev/null",
	"GIT_AUTHOR_NAME=Union Tester",
	"GIT_AUTHOR_EMAIL=tester@example.org",
	"GIT_AUTHOR_DATE=" GIT_DATE,
	"GIT_COMMITTER_NAME=Union Tester",
	"GIT_COMMITTER_EMAIL=tester@example.org",
	"GIT_COMMITTER_DATE=" GIT_DATE,
	NULL
};

/* Drop to @uid (its own group, no supplementary groups); 0: stay root. */
static int become(uid_t uid)
{
	if (!uid)
		return 0;
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		return -1;
	return 0;
}

/*
 * run_in() - run @argv (argv[0] found in child_env's PATH, /opt/real/bin
 * first) with the cwd
 * @cwd, as @uid, stdin /dev/null, stdout and stderr into @r.
 */
static int run_in(struct result *r, const char *cwd, uid_t uid,
		  const char *const *argv)
{
	int ofd, efd, st, i;
	ssize_t n;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	for (i = 0; argv[i]; i++) {
		size_t l = strlen(r->cmd);

		snprintf(r->cmd + l, sizeof(r->cmd) - l, "%s%s", i ? " " : "",
			 argv[i]);
	}
	ofd = memfd_create("tool-stdout", MFD_CLOEXEC);
	efd = memfd_create("tool-stderr", MFD_CLOEXEC);
	if (ofd < 0 || efd < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY);

		if (nul < 0 || dup2(nul, 0) < 0 || dup2(ofd, 1) < 0 ||
		    dup2(efd, 2) < 0)
			_exit(126);
		umask(022);
		if (become(uid)) {
			dprintf(2, "setresuid(%u): %m\n", uid);
			_exit(126);
		}
		if (chdir(cwd)) {
			dprintf(2, "chdir %s: %m\n", cwd);
			_exit(126);
		}
		/* execvpe() would search the caller's PATH, not child_env's */
		environ = (char **)child_env;
		execvp(argv[0], (char *const *)argv);
		dprintf(2, "exec %s: %m\n", argv[0]);
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

#define RUN(_r, _cwd, _uid, ...) \
	run_in(_r, _cwd, _uid, (const char *const[]){ __VA_ARGS__, NULL })

#define RUN_LOG(_r, _cwd, _uid)						\
	TH_LOG("uid %u, cwd %s: `%s`: exit %d\n# stdout: %s\n# stderr: %s", \
	       (unsigned int)(_uid), _cwd, (_r)->cmd, (_r)->status,	\
	       (_r)->out, (_r)->err)

/* The run must exit with @_st. */
#define EXPECT_RUN(_st, _r, _cwd, _uid, ...) do {			\
	RUN(_r, _cwd, _uid, __VA_ARGS__);				\
	EXPECT_EQ(_st, (_r)->status) RUN_LOG(_r, _cwd, _uid);		\
} while (0)

#define ASSERT_RUN(_st, _r, _cwd, _uid, ...) do {			\
	RUN(_r, _cwd, _uid, __VA_ARGS__);				\
	ASSERT_EQ(_st, (_r)->status) RUN_LOG(_r, _cwd, _uid);		\
} while (0)

/* The run exits 0 and prints exactly @_out on stdout. */
#define EXPECT_OUT(_out, _r, _cwd, _uid, ...) do {			\
	RUN(_r, _cwd, _uid, __VA_ARGS__);				\
	EXPECT_EQ(0, (_r)->status) RUN_LOG(_r, _cwd, _uid);		\
	EXPECT_STREQ(_out, (_r)->out) RUN_LOG(_r, _cwd, _uid);		\
} while (0)

/* Make @path with @text, mode @mode, owner @uid:@uid, mtime @mtime. */
static int put(const char *path, const char *text, mode_t mode, uid_t uid,
	       time_t mtime)
{
	struct timespec ts[2] = { { mtime, 0 }, { mtime, 0 } };
	ssize_t len = strlen(text);
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (write(fd, text, len) != len || fchown(fd, uid, uid) ||
	    fchmod(fd, mode) || futimens(fd, ts)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* mkdir @path with @mode, owner @uid:@uid. */
static int dir(const char *path, mode_t mode, uid_t uid)
{
	if (mkdir(path, mode) || chown(path, uid, uid) || chmod(path, mode))
		return -1;
	return 0;
}

/* Set the mtime of @path (after its content is made). */
static int set_mtime(const char *path, time_t mtime)
{
	struct timespec ts[2] = { { mtime, 0 }, { mtime, 0 } };

	return utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW);
}

/* Append @text to @path (the name the checks below print). */
static int append(const char *path, const char *text)
{
	return append_file(path, text);
}

/* errno of lstat(@path), 0 if it exists. */
static int lstat_errno(const char *path)
{
	struct stat st;

	return lstat(path, &st) ? errno : 0;
}

/* "mode uid:gid mtime" of @path, e.g. "100640 1001:2000 1600000000". */
static const char *meta(const char *path)
{
	static char buf[4][128];
	static unsigned int i;
	char *b = buf[i++ % 4];
	struct stat st;

	if (lstat(path, &st))
		snprintf(b, 128, "<lstat: %s>", strerror(errno));
	else
		snprintf(b, 128, "%o %u:%u %lld", st.st_mode, st.st_uid,
			 st.st_gid, (long long)st.st_mtime);
	return b;
}

/* --- Fingerprint of a tree, read through a directory fd ---------------- */

struct sbuf {
	char *s;
	size_t len, cap;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < b->cap - b->len) {
			b->len += n;
			return;
		}
		b->cap = b->cap * 2 + n + 4096;
		b->s = realloc(b->s, b->cap);
		if (!b->s)
			abort();
	}
}

static uint64_t fnv_fd(int fd)
{
	uint64_t h = 1469598103934665603ULL;
	unsigned char buf[8192];
	ssize_t n, i;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < n; i++)
			h = (h ^ buf[i]) * 1099511628211ULL;
	return n < 0 ? 0 : h;
}

/* One line per name under @dfd (path relative to the top @rel), sorted. */
static void fingerprint(int dfd, const char *rel, struct sbuf *b)
{
	struct dirent *de;
	char *v[1024];
	size_t n = 0, i;
	int fd;
	DIR *d;

	fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		sb_printf(b, "%s: <opendir: %s>\n", rel, strerror(errno));
		return;
	}
	while ((de = readdir(d)) && n < 1024)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			v[n++] = strdup(de->d_name);
	qsort(v, n, sizeof(*v), cmp_str);
	for (i = 0; i < n; i++) {
		char path[PATH_MAX], lnk[PATH_MAX];
		struct stat st;
		ssize_t l;

		snprintf(path, sizeof(path), "%s/%s", rel, v[i]);
		if (fstatat(dirfd(d), v[i], &st, AT_SYMLINK_NOFOLLOW)) {
			sb_printf(b, "%s <stat: %s>\n", path, strerror(errno));
			continue;
		}
		sb_printf(b, "%s %o %u:%u %lld %lld.%09ld", path, st.st_mode,
			  st.st_uid, st.st_gid, (long long)st.st_size,
			  (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
		if (S_ISREG(st.st_mode)) {
			int f = openat(dirfd(d), v[i], O_RDONLY | O_CLOEXEC);

			sb_printf(b, " %016llx\n", f < 0 ? 0ULL :
				  (unsigned long long)fnv_fd(f));
			if (f >= 0)
				close(f);
		} else if (S_ISLNK(st.st_mode)) {
			l = readlinkat(dirfd(d), v[i], lnk, sizeof(lnk) - 1);
			lnk[l > 0 ? l : 0] = 0;
			sb_printf(b, " -> %s\n", lnk);
		} else {
			sb_printf(b, "\n");
		}
		if (S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd(d), v[i], O_RDONLY | O_DIRECTORY |
					 O_CLOEXEC | O_NOFOLLOW);

			if (sub < 0) {
				sb_printf(b, "%s <open: %s>\n", path,
					  strerror(errno));
			} else {
				fingerprint(sub, path, b);
				close(sub);
			}
		}
		free(v[i]);
	}
	closedir(d);
}

/* The first line where @a and @b differ, for the log. */
static const char *first_diff(const char *a, const char *b)
{
	static char buf[1024];
	size_t i = 0, ls = 0;

	while (a[i] && a[i] == b[i]) {
		if (a[i] == '\n')
			ls = i + 1;
		i++;
	}
	snprintf(buf, sizeof(buf), "before: \"%.*s\" after: \"%.*s\"",
		 (int)strcspn(a + ls, "\n"), a + ls,
		 (int)strcspn(b + ls, "\n"), b + ls);
	return buf;
}

/* --- The fixture ------------------------------------------------------ */

FIXTURE(tools) {
	char scratch[PATH_MAX];	/* mkdtemp() on the variant's file system */
	char lower[PATH_MAX];	/* the lower layer; the union once mounted */
	char top[PATH_MAX];	/* the writable top layer */
	char stage[PATH_MAX];	/* mkdtemp() in /tmp: archives, rsync source */
	int lower_fd;		/* the covered lower layer itself */
	struct sbuf before;	/* its fingerprint when the union was made */
};

FIXTURE_VARIANT(tools) {
	const char *fs;
	long magic;
};

FIXTURE_VARIANT_ADD(tools, tmpfs) { .fs = "tmpfs", .magic = TMPFS_MAGIC };
FIXTURE_VARIANT_ADD(tools, ext4) { .fs = "ext4", .magic = EXT4_SUPER_MAGIC };
FIXTURE_VARIANT_ADD(tools, xfs) { .fs = "xfs", .magic = XFS_SUPER_MAGIC };
FIXTURE_VARIANT_ADD(tools, btrfs) { .fs = "btrfs", .magic = BTRFS_SUPER_MAGIC };

FIXTURE_SETUP(tools)
{
	static const char *const progs[] = { "git", "tar", "dpkg", "dpkg-deb",
		"dpkg-query", "rsync", "sed", "cp", "mv", "rm", NULL };
	const char *sroot = getenv("UNION_SCRATCH");
	char fsdir[PATH_MAX - 32];
	struct statfs sfs;
	int i;

	self->scratch[0] = self->stage[0] = 0;
	self->lower_fd = -1;
	memset(&self->before, 0, sizeof(self->before));
	for (i = 0; progs[i]; i++) {
		const char *prog = P(REAL "/bin", progs[i]);

		ASSERT_EQ(0, access(prog, X_OK))
			TH_LOG("%s: %m (scripts/build-realtools.sh)", prog);
	}
	ASSERT_EQ(0, unshare(CLONE_NEWNS)) TH_LOG("unshare(CLONE_NEWNS): %m");
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		TH_LOG("making / private: %m");

	ASSERT_GT((int)sizeof(fsdir), snprintf(fsdir, sizeof(fsdir), "%s/%s",
			sroot ? sroot : "/mnt/scratch", variant->fs));
	if (statfs(fsdir, &sfs) || sfs.f_type != variant->magic)
		SKIP(return, "no %s scratch file system", variant->fs);

	snprintf(self->scratch, sizeof(self->scratch), "%s/tools.XXXXXX", fsdir);
	ASSERT_NE(NULL, mkdtemp(self->scratch)) TH_LOG("mkdtemp in %s: %m", fsdir);
	ASSERT_EQ(0, chmod(self->scratch, 0755));
	strcpy(self->lower, P(self->scratch, "lower"));
	strcpy(self->top, P(self->scratch, "top"));
	ASSERT_EQ(0, dir(self->lower, 0755, 0));
	ASSERT_EQ(0, dir(self->top, 0755, 0));
	ASSERT_EQ(0, dir(P(self->lower, "root"), 0755, 0));
	ASSERT_EQ(0, dir(P(self->lower, "alice"), 0755, ALICE));

	strcpy(self->stage, "/tmp/tools.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->stage)) TH_LOG("mkdtemp in /tmp: %m");
	ASSERT_EQ(0, chmod(self->stage, 0755));
	ASSERT_EQ(0, dir(P(self->stage, "root"), 0755, 0));
	ASSERT_EQ(0, dir(P(self->stage, "alice"), 0755, ALICE));
}

FIXTURE_TEARDOWN_PARENT(tools)
{
	char cmd[2 * PATH_MAX + 32];

	/* the union went with the test's mount namespace */
	if (self->scratch[0] || self->stage[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", self->scratch,
			 self->stage);
		if (system(cmd))
			fprintf(stderr, "# %s failed\n", cmd);
	}
}

/*
 * union_on() - the lower layer is populated: fingerprint it, then make the
 * union (the top layer on it).
 */
static void union_on(struct __test_metadata *_metadata,
		     FIXTURE_DATA(tools) *self)
{
	self->lower_fd = open(self->lower, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, self->lower_fd) TH_LOG("open %s: %m", self->lower);
	fingerprint(self->lower_fd, ".", &self->before);
	ASSERT_EQ(0, mount(self->top, self->lower, NULL, MS_BIND | MS_UNION,
			   NULL))
		TH_LOG("mount(%s, %s, MS_BIND | MS_UNION): %m", self->top,
		       self->lower);
}

/* lower_unchanged() - the lower layer is what union_on() saw. */
static void lower_unchanged(struct __test_metadata *_metadata,
			    FIXTURE_DATA(tools) *self)
{
	struct sbuf now = { 0 };

	ASSERT_LE(0, self->lower_fd);
	fingerprint(self->lower_fd, ".", &now);
	EXPECT_STREQ(self->before.s, now.s)
		TH_LOG("the lower layer changed: %s",
		       first_diff(self->before.s, now.s));
	free(now.s);
	free(self->before.s);
	self->before.s = NULL;
}

/* The area of @uid in the lower layer: "root" or "alice". */
static const char *area(FIXTURE_DATA(tools) *self, uid_t uid)
{
	static char buf[PATH_MAX + 8];

	snprintf(buf, sizeof(buf), "%s/%s", self->lower, uid ? "alice" : "root");
	return buf;
}

/* --- git ---------------------------------------------------------------- */

static void git_populate(struct __test_metadata *_metadata, const char *area,
			 uid_t uid)
{
	char a[PATH_MAX], repo[PATH_MAX];
	struct result r;

	strcpy(a, area);
	strcpy(repo, P(a, "repo"));

	ASSERT_RUN(0, &r, a, uid, "git", "init", "-q", "-b", "main", "repo");
	ASSERT_EQ(0, put(P(repo, "README"), "line one\n", 0644, uid, 1600000000));
	ASSERT_EQ(0, dir(P(repo, "src"), 0755, uid));
	ASSERT_EQ(0, put(P(repo, "src/main.c"), "int main(void) { return 0; }\n",
			 0644, uid, 1600000000));
	ASSERT_EQ(0, put(P(repo, "run.sh"), "#!/bin/sh\necho run\n", 0755, uid,
			 1600000000));
	ASSERT_RUN(0, &r, repo, uid, "git", "add", ".");
	ASSERT_RUN(0, &r, repo, uid, "git", "commit", "-q", "-m", "initial");
	ASSERT_EQ(0, append(P(repo, "README"), "line two\n"));
	ASSERT_RUN(0, &r, repo, uid, "git", "commit", "-q", "-am", "second");
	ASSERT_EQ(0, dir(P(repo, "docs"), 0755, uid));
	ASSERT_EQ(0, put(P(repo, "docs/guide.txt"), "guide\n", 0644, uid,
			 1600000000));
	ASSERT_RUN(0, &r, repo, uid, "git", "add", "docs");
	ASSERT_RUN(0, &r, repo, uid, "git", "commit", "-q", "-m", "third");
	ASSERT_RUN(0, &r, repo, uid, "git", "tag", "v1");
}

static void git_steps(struct __test_metadata *_metadata,
		      FIXTURE_DATA(tools) *self, uid_t uid)
{
	char repo[PATH_MAX], src[PATH_MAX], want[256];
	struct result r;

	strcpy(repo, P(area(self, uid), "repo"));
	strcpy(src, P(repo, "src"));
	git_populate(_metadata, area(self, uid), uid);
	union_on(_metadata, self);

	/* cd repo: a lower-only directory of the union */
	EXPECT_OUT("", &r, repo, uid, "git", "status", "--porcelain");
	EXPECT_OUT("third\nsecond\ninitial\n", &r, repo, uid,
		   "git", "log", "--format=%s");
	ASSERT_EQ(0, append(P(repo, "README"), "union edit\n"));
	EXPECT_OUT(" M README\n", &r, repo, uid, "git", "status", "--porcelain");
	EXPECT_RUN(0, &r, repo, uid, "git", "commit", "-q", "-am", "in the union");
	EXPECT_OUT("", &r, repo, uid, "git", "status", "--porcelain");
	EXPECT_OUT("in the union\nthird\nsecond\ninitial\n", &r, repo, uid,
		   "git", "log", "--format=%s");
	EXPECT_STREQ("line one\nline two\nunion edit\n", content(P(repo, "README")));

	/* a branch, a stash and its pop, from the cwd src (lower-only too) */
	EXPECT_RUN(0, &r, src, uid, "git", "checkout", "-q", "-b", "feature");
	EXPECT_OUT("feature\n", &r, src, uid, "git", "rev-parse",
		   "--abbrev-ref", "HEAD");
	ASSERT_EQ(0, append(P(src, "main.c"), "/* feature */\n"));
	EXPECT_RUN(0, &r, src, uid, "git", "stash", "-q");
	EXPECT_STREQ("int main(void) { return 0; }\n", content(P(src, "main.c")));
	EXPECT_OUT("", &r, src, uid, "git", "status", "--porcelain");
	RUN(&r, src, uid, "git", "rev-parse", "--short", "HEAD");
	EXPECT_EQ(0, r.status) RUN_LOG(&r, src, uid);
	snprintf(want, sizeof(want), "stash@{0}: WIP on feature: %.*s in the union\n",
		 (int)strcspn(r.out, "\n"), r.out);
	EXPECT_OUT(want, &r, src, uid, "git", "stash", "list");
	EXPECT_RUN(0, &r, src, uid, "git", "stash", "pop", "-q");
	EXPECT_STREQ("int main(void) { return 0; }\n/* feature */\n",
		     content(P(src, "main.c")));
	EXPECT_OUT("", &r, src, uid, "git", "stash", "list");
	EXPECT_OUT(" M src/main.c\n", &r, src, uid, "git", "status",
		   "--porcelain");
	EXPECT_RUN(0, &r, src, uid, "git", "commit", "-q", "-am", "feature work");
	EXPECT_RUN(0, &r, src, uid, "git", "checkout", "-q", "main");
	EXPECT_STREQ("int main(void) { return 0; }\n", content(P(src, "main.c")));
	EXPECT_OUT("  feature\n* main\n", &r, repo, uid, "git", "branch", "--list");
	EXPECT_OUT("feature work\nin the union\nthird\nsecond\ninitial\n", &r,
		   repo, uid, "git", "log", "--format=%s", "feature");

	/* everything packed, nothing dangling, the repository sound */
	EXPECT_RUN(0, &r, repo, uid, "git", "gc", "-q", "--prune=now");
	RUN(&r, repo, uid, "git", "count-objects", "-v");
	EXPECT_EQ(0, r.status) RUN_LOG(&r, repo, uid);
	EXPECT_EQ(0, strncmp(r.out, "count: 0\n", 9)) RUN_LOG(&r, repo, uid);
	EXPECT_NE(NULL, strstr(r.out, "\npacks: 1\n")) RUN_LOG(&r, repo, uid);
	EXPECT_OUT("", &r, repo, uid, "git", "fsck", "--strict", "--no-progress",
		   "--no-dangling");
	EXPECT_OUT("v1\n", &r, repo, uid, "git", "tag", "--list");
	EXPECT_OUT("", &r, repo, uid, "git", "status", "--porcelain");
	/* the executable bit and the owner survived copy-ups and checkouts */
	EXPECT_STREQ(uid ? "100755 1000:1000 1600000000" :
		     "100755 0:0 1600000000", meta(P(repo, "run.sh")));

	lower_unchanged(_metadata, self);
}

TEST_F_TIMEOUT(tools, git_root, 600)
{
	git_steps(_metadata, self, 0);
}

TEST_F_TIMEOUT(tools, git_user, 600)
{
	git_steps(_metadata, self, ALICE);
}

/* --- tar ---------------------------------------------------------------- */

/*
 * The lower tree:                     the archive (tar -cf of . in /tmp/tree):
 *   tree/            0755 1500000000    ./           0750 1600000000
 *   tree/etc/        0755               ./etc/       0700 1600000100
 *   tree/etc/a.conf  0644 "old a"       ./etc/a.conf 0640 "new a"
 *   tree/etc/b.conf  0600 "old b"
 *   tree/etc/sub/    0755               ./etc/sub/   0755
 *   tree/etc/sub/c   0644 "old c"       ./etc/sub/c  0604 "new c"
 *                                       ./etc/sub/d  0600 "new d"
 *                                       ./new/e      0644 "new e"
 *   tree/old.txt     0644 "old"
 * extracted with the cwd tree (tar -xpf: the cwd itself changes too);
 * as root the archive's members are bob's (1001:2000), as alice hers.
 */
static void tar_steps(struct __test_metadata *_metadata,
		      FIXTURE_DATA(tools) *self, uid_t uid)
{
	char a[PATH_MAX], st[PATH_MAX], arch[PATH_MAX], out[PATH_MAX];
	const uid_t own = uid ? ALICE : 1001;
	const gid_t grp = uid ? ALICE : 2000;
	char owner[32], group[32], want[128], t[PATH_MAX];
	struct stat st0, st1;
	struct result r;

	strcpy(a, area(self, uid));
	strcpy(st, P(self->stage, uid ? "alice" : "root"));
	snprintf(arch, sizeof(arch), "%s/new.tar", st);
	snprintf(out, sizeof(out), "%s/merged.tar", st);
	/* the lower tree */
	ASSERT_EQ(0, dir(P(a, "tree"), 0755, uid));
	ASSERT_EQ(0, dir(P(a, "tree/etc"), 0755, uid));
	ASSERT_EQ(0, dir(P(a, "tree/etc/sub"), 0755, uid));
	ASSERT_EQ(0, put(P(a, "tree/etc/a.conf"), "old a\n", 0644, uid, 1500000000));
	ASSERT_EQ(0, put(P(a, "tree/etc/b.conf"), "old b\n", 0600, uid, 1500000000));
	ASSERT_EQ(0, put(P(a, "tree/etc/sub/c"), "old c\n", 0644, uid, 1500000000));
	ASSERT_EQ(0, put(P(a, "tree/old.txt"), "old\n", 0644, uid, 1500000000));
	ASSERT_EQ(0, set_mtime(P(a, "tree/etc/sub"), 1500000000));
	ASSERT_EQ(0, set_mtime(P(a, "tree/etc"), 1500000000));
	ASSERT_EQ(0, set_mtime(P(a, "tree"), 1500000000));
	/* the archive's source, in /tmp */
	ASSERT_EQ(0, dir(P(st, "tree"), 0750, uid));
	ASSERT_EQ(0, dir(P(st, "tree/etc"), 0700, uid));
	ASSERT_EQ(0, dir(P(st, "tree/etc/sub"), 0755, uid));
	ASSERT_EQ(0, dir(P(st, "tree/new"), 0755, uid));
	ASSERT_EQ(0, put(P(st, "tree/etc/a.conf"), "new a\n", 0640, uid, 1600000000));
	ASSERT_EQ(0, put(P(st, "tree/etc/sub/c"), "new c\n", 0604, uid, 1600000000));
	ASSERT_EQ(0, put(P(st, "tree/etc/sub/d"), "new d\n", 0600, uid, 1600000000));
	ASSERT_EQ(0, put(P(st, "tree/new/e"), "new e\n", 0644, uid, 1600000000));
	ASSERT_EQ(0, set_mtime(P(st, "tree/new"), 1600000000));
	ASSERT_EQ(0, set_mtime(P(st, "tree/etc/sub"), 1600000000));
	ASSERT_EQ(0, set_mtime(P(st, "tree/etc"), 1600000100));
	ASSERT_EQ(0, set_mtime(P(st, "tree"), 1600000000));
	snprintf(owner, sizeof(owner), "--owner=%u", own);
	snprintf(group, sizeof(group), "--group=%u", grp);
	ASSERT_RUN(0, &r, P(st, "tree"), uid, "tar", "-cf", arch, "--sort=name",
		   "--numeric-owner", owner, group, ".");
	union_on(_metadata, self);

	/* cd tree (lower only); extract over it, keeping modes, owners, times */
	strcpy(t, P(a, "tree"));
	ASSERT_EQ(0, stat(t, &st0));
	RUN(&r, t, uid, "tar", "-xpf", arch);
	ASSERT_EQ(0, stat(t, &st1));
	/* tar checks that "." is still the directory it saw before it sets
	 * its mode, owner and times: the copy-up keeps its identity */
	EXPECT_EQ(0, r.status) RUN_LOG(&r, t, uid);
	EXPECT_STREQ("", r.out) RUN_LOG(&r, t, uid);
	EXPECT_EQ(st0.st_dev, st1.st_dev);
	EXPECT_EQ(st0.st_ino, st1.st_ino);
	EXPECT_STREQ("a.conf b.conf sub", names(P(t, "etc")));
	EXPECT_STREQ("c d", names(P(t, "etc/sub")));
	EXPECT_STREQ("etc new old.txt", names(t));
	EXPECT_STREQ("new a\n", content(P(t, "etc/a.conf")));
	EXPECT_STREQ("old b\n", content(P(t, "etc/b.conf")));
	EXPECT_STREQ("new c\n", content(P(t, "etc/sub/c")));
	EXPECT_STREQ("new d\n", content(P(t, "etc/sub/d")));
	EXPECT_STREQ("new e\n", content(P(t, "new/e")));
	EXPECT_STREQ("old\n", content(P(t, "old.txt")));
#define META(_mode, _time) \
	(snprintf(want, sizeof(want), "%o %u:%u %d", _mode, own, grp, _time), want)
	EXPECT_STREQ(META(040750, 1600000000), meta(t));
	EXPECT_STREQ(META(040700, 1600000100), meta(P(t, "etc")));
	EXPECT_STREQ(META(0100640, 1600000000), meta(P(t, "etc/a.conf")));
	EXPECT_STREQ(META(040755, 1600000000), meta(P(t, "etc/sub")));
	EXPECT_STREQ(META(0100604, 1600000000), meta(P(t, "etc/sub/c")));
	EXPECT_STREQ(META(0100600, 1600000000), meta(P(t, "etc/sub/d")));
	EXPECT_STREQ(META(040755, 1600000000), meta(P(t, "new")));
	EXPECT_STREQ(META(0100644, 1600000000), meta(P(t, "new/e")));
#undef META
	snprintf(want, sizeof(want), "100600 %u:%u 1500000000", uid, uid);
	EXPECT_STREQ(want, meta(P(t, "etc/b.conf")));
	/* tar itself finds every member as archived (modes, owners, times) */
	EXPECT_OUT("", &r, t, uid, "tar", "-df", arch);

	/* a whiteout is no member; an archive of the merged tree, cwd the area */
	ASSERT_EQ(0, unlink(P(t, "old.txt")));
	EXPECT_OUT("", &r, a, uid, "tar", "-cf", out, "tree");
	EXPECT_OUT("tree/\ntree/etc/\ntree/etc/a.conf\ntree/etc/b.conf\n"
		   "tree/etc/sub/\ntree/etc/sub/c\ntree/etc/sub/d\ntree/new/\n"
		   "tree/new/e\n", &r, a, uid, "sh", "-c",
		   REAL "/bin/tar -tf \"$0\" | LC_ALL=C sort", out);
	/* and extracted elsewhere it is the merged tree */
	EXPECT_OUT("", &r, st, uid, "sh", "-c",
		   "mkdir x && " REAL "/bin/tar -C x -xpf \"$0\" && "
		   REAL "/bin/tar -C x -df \"$0\"",
		   out);
	EXPECT_OUT("", &r, st, uid, "sh", "-c",
		   "test \"$(cat x/tree/etc/sub/c x/tree/etc/b.conf)\" = "
		   "\"$(printf 'new c\\nold b')\"");

	lower_unchanged(_metadata, self);
}

TEST_F_TIMEOUT(tools, tar_root, 600)
{
	tar_steps(_metadata, self, 0);
}

TEST_F_TIMEOUT(tools, tar_user, 600)
{
	tar_steps(_metadata, self, ALICE);
}

/* --- dpkg --------------------------------------------------------------- */

#define QUERY_FMT	"${Package} ${Version} ${Status}\n"

static void dpkg_steps(struct __test_metadata *_metadata,
		       FIXTURE_DATA(tools) *self, uid_t uid)
{
	char sys[PATH_MAX], rootopt[PATH_MAX + 16], inst[PATH_MAX + 16];
	char adm[PATH_MAX + 32];
	/* alice: dpkg refuses to run unprivileged unless told to (root: no-op) */
	const char *nr = "--force-not-root";
	struct result r;

	strcpy(sys, P(area(self, uid), "sysroot"));
	snprintf(rootopt, sizeof(rootopt), "--root=%s", sys);
	snprintf(inst, sizeof(inst), "--instdir=%s", sys);
	snprintf(adm, sizeof(adm), "--admindir=%s/var/lib/dpkg", sys);
	ASSERT_EQ(0, dir(sys, 0755, uid));
	ASSERT_EQ(0, dir(P(sys, "var"), 0755, uid));
	ASSERT_EQ(0, dir(P(sys, "var/lib"), 0755, uid));
	ASSERT_EQ(0, dir(P(sys, "var/lib/dpkg"), 0755, uid));
	ASSERT_EQ(0, dir(P(sys, "var/lib/dpkg/info"), 0755, uid));
	ASSERT_EQ(0, dir(P(sys, "var/lib/dpkg/updates"), 0755, uid));
	ASSERT_EQ(0, put(P(sys, "var/lib/dpkg/status"), "", 0644, uid, 1600000000));
	/* union-hello 1.0, installed in the lower layer */
	ASSERT_RUN(0, &r, sys, uid, "dpkg", nr, "--log=/dev/null", rootopt,
		   "-i", DEB_1);
	ASSERT_STREQ("hello 1.0\n", content(P(sys, "usr/share/union-hello/greeting")));
	union_on(_metadata, self);

	/* cd sysroot (lower only): the state as the lower layer has it */
	EXPECT_OUT("union-hello 1.0 install ok installed\n", &r, sys, uid,
		   "dpkg-query", "--admindir=var/lib/dpkg", "-W",
		   "--showformat=" QUERY_FMT, "union-hello");
	/* upgrade to 2.0: files replaced, the untouched conffile too */
	EXPECT_RUN(0, &r, P(sys, "var/lib/dpkg"), uid, "dpkg", nr,
		   "--log=/dev/null", rootopt, "-i", DEB_2);
	EXPECT_NE(NULL, strstr(r.out, "Unpacking union-hello (2.0) over (1.0) ...\n"))
		RUN_LOG(&r, sys, uid);
	EXPECT_STREQ("hello 2.0\n", content(P(sys, "usr/share/union-hello/greeting")));
	EXPECT_STREQ("greeting=2.0\n", content(P(sys, "etc/union-hello.conf")));
	EXPECT_OUT("union-hello 2.0 install ok installed\n", &r, sys, uid,
		   "dpkg-query", "--admindir=var/lib/dpkg", "-W",
		   "--showformat=" QUERY_FMT, "union-hello");
	EXPECT_OUT("/.\n/etc\n/etc/union-hello.conf\n/usr\n/usr/share\n"
		   "/usr/share/union-hello\n/usr/share/union-hello/greeting\n",
		   &r, sys, uid, "dpkg", rootopt, "-L", "union-hello");
	RUN(&r, sys, uid, "dpkg", rootopt, "-s", "union-hello");
	EXPECT_EQ(0, r.status) RUN_LOG(&r, sys, uid);
	EXPECT_NE(NULL, strstr(r.out, "Status: install ok installed\n"))
		RUN_LOG(&r, sys, uid);
	EXPECT_NE(NULL, strstr(r.out, "\nVersion: 2.0\n")) RUN_LOG(&r, sys, uid);

	/* remove (--instdir + --admindir): the conffile stays */
	EXPECT_RUN(0, &r, P(sys, "usr/share"), uid, "dpkg", nr,
		   "--log=/dev/null", inst, adm, "-r", "union-hello");
	EXPECT_EQ(ENOENT, lstat_errno(P(sys, "usr")));
	EXPECT_STREQ("etc var", names(sys));
	EXPECT_STREQ("union-hello.conf", names(P(sys, "etc")));
	EXPECT_OUT("union-hello 2.0 deinstall ok config-files\n", &r, sys, uid,
		   "dpkg-query", "--admindir=var/lib/dpkg", "-W",
		   "--showformat=" QUERY_FMT, "union-hello");
	RUN(&r, sys, uid, "dpkg", rootopt, "-l", "union-hello");
	EXPECT_EQ(0, r.status) RUN_LOG(&r, sys, uid);
	EXPECT_NE(NULL, strstr(r.out, "\nrc  union-hello    2.0 "))
		RUN_LOG(&r, sys, uid);

	/* purge: nothing left of it */
	EXPECT_RUN(0, &r, P(sys, "etc"), uid, "dpkg", nr, "--log=/dev/null",
		   rootopt, "--purge", "union-hello");
	EXPECT_STREQ("var", names(sys));
	RUN(&r, sys, uid, "dpkg", rootopt, "-s", "union-hello");
	EXPECT_EQ(1, r.status) RUN_LOG(&r, sys, uid);
#define NOT_INST "dpkg-query: package 'union-hello' is not installed and no " \
		 "information is available\n"
	EXPECT_EQ(0, strncmp(r.err, NOT_INST, strlen(NOT_INST)))
		RUN_LOG(&r, sys, uid);
#undef NOT_INST
	RUN(&r, sys, uid, "dpkg", rootopt, "-l", "union-hello");
	EXPECT_EQ(1, r.status) RUN_LOG(&r, sys, uid);
	EXPECT_STREQ("dpkg-query: no packages found matching union-hello\n", r.err)
		RUN_LOG(&r, sys, uid);
	EXPECT_STREQ("", content(P(sys, "var/lib/dpkg/status")));
	EXPECT_STREQ("format", names(P(sys, "var/lib/dpkg/info")));

	lower_unchanged(_metadata, self);
}

TEST_F_TIMEOUT(tools, dpkg_root, 600)
{
	dpkg_steps(_metadata, self, 0);
}

TEST_F_TIMEOUT(tools, dpkg_user, 600)
{
	dpkg_steps(_metadata, self, ALICE);
}

/* --- rsync, sed -i, cp -a, mv, rm -rf ------------------------------------ */

static void files_steps(struct __test_metadata *_metadata,
			FIXTURE_DATA(tools) *self, uid_t uid)
{
	char a[PATH_MAX], d[PATH_MAX], src[PATH_MAX], want[128];
	struct result r;

	strcpy(a, area(self, uid));
	strcpy(d, P(a, "data"));
	strcpy(src, P(self->stage, uid ? "alice/src" : "root/src"));
	/* the lower layer */
	ASSERT_EQ(0, dir(d, 0755, uid));
	ASSERT_EQ(0, put(P(d, "conf"), "key=old\nother=1\n", 0640, uid, 1500000000));
	ASSERT_EQ(0, dir(P(d, "dir1"), 0755, uid));
	ASSERT_EQ(0, put(P(d, "dir1/f1"), "lower f1\n", 0644, uid, 1500000000));
	ASSERT_EQ(0, put(P(d, "dir1/f2"), "lower f2\n", 0600, uid, 1500000000));
	ASSERT_EQ(0, dir(P(d, "dir1/sub"), 0700, uid));
	ASSERT_EQ(0, put(P(d, "dir1/sub/f3"), "lower f3\n", 0644, uid, 1500000000));
	ASSERT_EQ(0, symlink("f1", P(d, "dir1/link")));
	ASSERT_EQ(0, lchown(P(d, "dir1/link"), uid, uid));
	ASSERT_EQ(0, dir(P(d, "tree"), 0755, uid));
	ASSERT_EQ(0, dir(P(d, "tree/a"), 0755, uid));
	ASSERT_EQ(0, dir(P(d, "tree/a/b"), 0751, uid));
	ASSERT_EQ(0, put(P(d, "tree/a/b/deep"), "deep\n", 0444, uid, 1500000000));
	ASSERT_EQ(0, put(P(d, "tree/top"), "top\n", 0644, uid, 1500000000));
	ASSERT_EQ(0, set_mtime(P(d, "tree/a/b"), 1500000000));
	/* the rsync source, in /tmp */
	ASSERT_EQ(0, dir(src, 0755, uid));
	ASSERT_EQ(0, put(P(src, "f1"), "rsync f1\n", 0664, uid, 1600000000));
	ASSERT_EQ(0, put(P(src, "f4"), "rsync f4\n", 0640, uid, 1600000000));
	ASSERT_EQ(0, dir(P(src, "sub"), 0750, uid));
	ASSERT_EQ(0, put(P(src, "sub/f5"), "rsync f5\n", 0644, uid, 1600000000));
	ASSERT_EQ(0, set_mtime(P(src, "sub"), 1600000000));
	union_on(_metadata, self);

	/* cd data/dir1; rsync -a into it */
	EXPECT_OUT("", &r, P(d, "dir1"), uid, "rsync", "-a", P(src, ""), ".");
	EXPECT_STREQ("f1 f2 f4 link sub", names(P(d, "dir1")));
	EXPECT_STREQ("f3 f5", names(P(d, "dir1/sub")));
	EXPECT_STREQ("rsync f1\n", content(P(d, "dir1/f1")));
	EXPECT_STREQ("lower f2\n", content(P(d, "dir1/f2")));
	EXPECT_STREQ("rsync f4\n", content(P(d, "dir1/f4")));
	EXPECT_STREQ("rsync f5\n", content(P(d, "dir1/sub/f5")));
	EXPECT_STREQ("lower f3\n", content(P(d, "dir1/sub/f3")));
	EXPECT_STREQ("rsync f1\n", content(P(d, "dir1/link")));
#define META(_mode, _time) \
	(snprintf(want, sizeof(want), "%o %u:%u %d", _mode, uid, uid, _time), want)
	EXPECT_STREQ(META(0100664, 1600000000), meta(P(d, "dir1/f1")));
	EXPECT_STREQ(META(0100640, 1600000000), meta(P(d, "dir1/f4")));
	EXPECT_STREQ(META(040750, 1600000000), meta(P(d, "dir1/sub")));
	EXPECT_STREQ(META(0100600, 1500000000), meta(P(d, "dir1/f2")));
	/* a second run finds nothing to do */
	EXPECT_OUT("", &r, P(d, "dir1"), uid, "rsync", "-ai", P(src, ""), ".");

	/* cd data; sed -i of a lower file keeps its mode and owner */
	EXPECT_OUT("", &r, d, uid, "sed", "-i", "s/old/new/", "conf");
	EXPECT_STREQ("key=new\nother=1\n", content(P(d, "conf")));
	snprintf(want, sizeof(want), "100640 %u:%u", uid, uid);
	EXPECT_EQ(0, strncmp(want, meta(P(d, "conf")), strlen(want)))
		TH_LOG("conf: %s", meta(P(d, "conf")));

	/* cp -a of a merged directory: the same tree, modes, times, link */
	EXPECT_OUT("", &r, d, uid, "cp", "-a", "dir1", "copy");
	EXPECT_STREQ("f1 f2 f4 link sub", names(P(d, "copy")));
	EXPECT_STREQ("f3 f5", names(P(d, "copy/sub")));
	EXPECT_STREQ(META(0100600, 1500000000), meta(P(d, "copy/f2")));
	EXPECT_STREQ(META(0100664, 1600000000), meta(P(d, "copy/f1")));
	EXPECT_STREQ(META(040750, 1600000000), meta(P(d, "copy/sub")));
	EXPECT_STREQ("lower f3\n", content(P(d, "copy/sub/f3")));
	EXPECT_STREQ("rsync f1\n", content(P(d, "copy/link")));
	EXPECT_OUT("", &r, d, uid, "diff", "-r", "dir1", "copy");

	/* mv of a lower directory to a new name (one rename, a redirect) */
	EXPECT_OUT("", &r, d, uid, "mv", "tree", "moved");
	EXPECT_EQ(ENOENT, lstat_errno(P(d, "tree")));
	EXPECT_STREQ("a top", names(P(d, "moved")));
	EXPECT_STREQ("deep", names(P(d, "moved/a/b")));
	EXPECT_STREQ("deep\n", content(P(d, "moved/a/b/deep")));
	EXPECT_STREQ(META(0100444, 1500000000), meta(P(d, "moved/a/b/deep")));
	EXPECT_STREQ(META(040751, 1500000000), meta(P(d, "moved/a/b")));
#undef META
	EXPECT_STREQ("conf copy dir1 moved", names(d));

	/* rm -rf of the lower tree dir1, then of everything: empty listings */
	EXPECT_OUT("", &r, d, uid, "rm", "-rf", "dir1");
	EXPECT_EQ(ENOENT, lstat_errno(P(d, "dir1")));
	EXPECT_STREQ("conf copy moved", names(d));
	EXPECT_OUT("", &r, P(d, "moved"), uid, "rm", "-rf", "a", "top");
	EXPECT_STREQ("", names(P(d, "moved")));
	EXPECT_OUT("", &r, d, uid, "rm", "-rf", "conf", "copy", "moved");
	EXPECT_STREQ("", names(d));
	EXPECT_OUT("", &r, a, uid, "ls", "-A", "data");

	lower_unchanged(_metadata, self);
}

TEST_F_TIMEOUT(tools, files_root, 600)
{
	files_steps(_metadata, self, 0);
}

TEST_F_TIMEOUT(tools, files_user, 600)
{
	files_steps(_metadata, self, ALICE);
}

TEST_HARNESS_MAIN
