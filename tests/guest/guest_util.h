// SPDX-License-Identifier: GPL-2.0
/*
 * Small helpers shared by the guest test programs (union_cmd_test,
 * util_linux_test, union_tools_test): paths, directory listings, file
 * contents, files made and removed.  Each program is one translation unit,
 * so the helpers are static inline (no warning where a program does not use
 * one).  They need nothing from kselftest_harness.h.
 */
#ifndef GUEST_UTIL_H
#define GUEST_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

/* "@a/@b" into @buf (PATH_MAX bytes); "" if too long. */
static inline void pjoin(char *buf, const char *a, const char *b)
{
	if (snprintf(buf, PATH_MAX, "%s/%s", a, b) >= PATH_MAX)
		buf[0] = 0;	/* too long: fails as "" would */
}

/* "@a/@b" in one of a few rotating static buffers. */
static inline const char *P(const char *a, const char *b)
{
	static char buf[8][PATH_MAX];
	static unsigned int i;
	char *p = buf[i++ % 8], t[PATH_MAX];

	/* through t: @a may be an earlier result */
	if (snprintf(t, sizeof(t), "%s/%s", a, b) >= (int)sizeof(t))
		t[0] = 0;
	return strcpy(p, t);
}

static inline int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in @dir but "." and "..", sorted, one space between them. */
static inline const char *names(const char *dir)
{
	static char buf[4096];
	char *v[256];
	struct dirent *de;
	size_t n = 0, i;
	DIR *d;

	d = opendir(dir);
	if (!d) {
		snprintf(buf, sizeof(buf), "<opendir %s: %s>", dir,
			 strerror(errno));
		return buf;
	}
	while ((de = readdir(d)) && n < 256) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		v[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(v, n, sizeof(*v), cmp_str);
	buf[0] = 0;
	for (i = 0; i < n; i++) {
		if (i)
			strcat(buf, " ");
		strncat(buf, v[i], sizeof(buf) - strlen(buf) - 2);
		free(v[i]);
	}
	return buf;
}

/* The content of @path, or "<open: error>". */
static inline const char *content(const char *path)
{
	static char buf[2][4096];
	static int i;
	char *b = buf[i ^= 1];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(b, 4096, "<open: %s>", strerror(errno));
		return b;
	}
	n = read(fd, b, 4095);
	close(fd);
	b[n > 0 ? n : 0] = 0;
	return b;
}

/*
 * Write @text to @path opened O_WRONLY | @flags (mode 0644 if it is
 * created): 0, or -1 with errno set.
 */
static inline int write_text(const char *path, int flags, const char *text)
{
	int fd = open(path, O_WRONLY | flags | O_CLOEXEC, 0644);
	ssize_t len = strlen(text);

	if (fd < 0)
		return -1;
	if (write(fd, text, len) != len) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* Create @path with @text: 0, or -1 with errno set. */
static inline int make_file(const char *path, const char *text)
{
	return write_text(path, O_CREAT | O_EXCL, text);
}

/* Append @text to the existing file @path: 0, or -1 with errno set. */
static inline int append_file(const char *path, const char *text)
{
	return write_text(path, O_APPEND, text);
}

static inline int rm_entry(const char *path, const struct stat *sb, int type,
			   struct FTW *ftw)
{
	return remove(path) && errno != ENOENT ? -1 : 0;
}

static inline void remove_tree(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A tmpfs named @source on @dir holding the files @f[0] = @f[1], ... */
static inline int layer_tmpfs(const char *dir, const char *source,
			      const char **f)
{
	char p[PATH_MAX];

	if (mkdir(dir, 0755) || mount(source, dir, "tmpfs", 0, "mode=0755"))
		return -1;
	for (; f[0]; f += 2) {
		pjoin(p, dir, f[0]);
		if (make_file(p, f[1]))
			return -1;
	}
	return 0;
}

#endif /* GUEST_UTIL_H */
