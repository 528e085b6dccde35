// SPDX-License-Identifier: GPL-2.0
/*
 * A live system on a union root (README "Union root"): / is the read-only
 * ext4 system image on /dev/vdd with a tmpfs union layer on top, made by the
 * initramfs (guest/init, union.root=; tools/union-switch-root.c).
 *
 * scripts/union-root-test.sh boots such a guest twice on the same image
 * and runs this program in each boot:
 *   union_root_test -f boot1   what a user does: install a package into
 *                              /usr, edit /etc, rm -rf a system directory,
 *                              write to /root and /tmp, work in a lower
 *                              directory; each change is checked through the
 *                              union, in the top layer and in the image
 *   union_root_test -f boot2   the next boot: the image as it was built
 * UNION_ROOT_BOOT=1 or 2 says that the guest was booted for it; without it
 * (the guest of make check, whose / is the initramfs) the program skips.
 *
 * The image is also mounted on its own, read-only, at /run/image, and the
 * top layer alone (a bind mount of the union's root is a plain mount of
 * the top layer) at /run/top.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define IMAGE	"/run/image"
#define TOP	"/run/top"
#define DEV	"/dev/vdd"

/* Output of the shell command @cmd (at most @len - 1 bytes); exit status. */
static int sh(const char *cmd, char *out, size_t len)
{
	char discard[256];
	size_t n = 0, r;
	FILE *p = popen(cmd, "r");
	int st;

	if (!out) {
		out = discard;
		len = sizeof(discard);
	}
	out[0] = 0;
	if (!p)
		return -1;
	while ((r = fread(out + n, 1, len - 1 - n, p)) > 0)
		n += r;
	out[n] = 0;
	while (fread(discard, 1, sizeof(discard), p) > 0)
		;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The contents of @path, or "" with errno set. */
static const char *slurp(const char *path)
{
	static char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	buf[0] = 0;
	if (fd < 0)
		return buf;
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	close(fd);
	return buf;
}

static int put(const char *path, const char *s, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* The names in @dir, sorted, space separated ("." and ".." left out). */
static const char *names(const char *dir)
{
	static char buf[8192];
	struct dirent **list;
	int n, i;

	buf[0] = 0;
	n = scandir(dir, &list, NULL, alphasort);
	if (n < 0)
		return "(error)";
	for (i = 0; i < n; i++) {
		if (strcmp(list[i]->d_name, ".") && strcmp(list[i]->d_name, "..")) {
			if (buf[0])
				strncat(buf, " ", sizeof(buf) - strlen(buf) - 1);
			strncat(buf, list[i]->d_name, sizeof(buf) - strlen(buf) - 1);
		}
		free(list[i]);
	}
	free(list);
	return buf;
}

static int listed(const char *dir, const char *name)
{
	char want[256];
	char *all = strdup(names(dir));
	char *tok, *save = NULL;
	int found = 0;

	snprintf(want, sizeof(want), "%s", name);
	for (tok = strtok_r(all, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		if (!strcmp(tok, want))
			found = 1;
	free(all);
	return found;
}

static int gone(const char *path)
{
	struct stat st;

	return lstat(path, &st) == -1 && errno == ENOENT;
}

static int is_mount(const char *dir)
{
	struct stat a, b;
	char parent[256];

	snprintf(parent, sizeof(parent), "%s/..", dir);
	return !stat(dir, &a) && !stat(parent, &b) && a.st_dev != b.st_dev;
}

/* The image alone at /run/image (read-only), the top layer alone at /run/top. */
static void mount_views(struct __test_metadata *_metadata)
{
	mkdir(IMAGE, 0755);
	mkdir(TOP, 0755);
	if (!is_mount(IMAGE))
		ASSERT_EQ(0, mount(DEV, IMAGE, "ext4", MS_RDONLY, NULL))
			TH_LOG("mount %s: %m", DEV);
	if (!is_mount(TOP))
		ASSERT_EQ(0, mount("/", TOP, NULL, MS_BIND, NULL))
			TH_LOG("bind mount of /: %m");
}

/*
 * / is the union: mountinfo shows "/" as a tmpfs union layer, union(8)
 * shows the stack tmpfs layer over the covered ext4 image, statfs is the
 * top layer's, the image is read-only down to the disk.
 */
static void check_union_root(struct __test_metadata *_metadata)
{
	char line[1024], out[1024];
	int found = 0, ro = 0, fd;
	struct statfs sfs;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		char point[256], opts[256], *dash;

		if (sscanf(line, "%*s %*s %*s %*s %255s %255s", point, opts) != 2 ||
		    strcmp(point, "/"))
			continue;
		dash = strstr(line, " - ");
		ASSERT_NE(NULL, dash);
		EXPECT_EQ(0, strncmp(dash, " - tmpfs union-rw ", 18)) TH_LOG("%s", line);
		EXPECT_NE(NULL, strstr(opts, "union")) TH_LOG("%s", line);
		found++;
	}
	fclose(f);
	EXPECT_EQ(1, found);

	/*
	 * The image's mount is below the root (the layer is the root), so
	 * mountinfo has no line for it and no source.
	 */
	ASSERT_EQ(0, sh("union show -r -n -o pos,role,mode,type,source /", out, sizeof(out)));
	EXPECT_STREQ("1 layer rw tmpfs union-rw\n2 covered ro ext4 -\n", out);

	ASSERT_EQ(0, statfs("/", &sfs));
	EXPECT_EQ(TMPFS_MAGIC, (long)sfs.f_type);
	ASSERT_EQ(0, statfs(IMAGE, &sfs));
	EXPECT_EQ(EXT4_SUPER_MAGIC, (long)sfs.f_type);
	EXPECT_TRUE(sfs.f_flags & MS_RDONLY);	/* ST_RDONLY */

	/* QEMU's readonly=on: the disk itself refuses writes */
	fd = open(DEV, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, BLKROGET, &ro));
	EXPECT_EQ(1, ro);
	close(fd);
	fd = open(DEV, O_WRONLY);
	ASSERT_LE(0, fd);
	memset(line, 0, 512);
	EXPECT_EQ(-1, pwrite(fd, line, 512, 0));
	EXPECT_EQ(EPERM, errno);
	close(fd);

	/* the system shows through: files only the image has */
	EXPECT_STREQ(slurp(IMAGE "/etc/os-release"), slurp("/etc/os-release"));
	EXPECT_EQ(0, strncmp(slurp("/etc/os-release"), "NAME=\"Union mounts guest\"\n", 26));
	EXPECT_EQ(0, access("/bin/busybox", X_OK));
	EXPECT_EQ(0, sh("union probe", NULL, 0));
}

FIXTURE(boot1) {
};

FIXTURE_SETUP(boot1)
{
	mount_views(_metadata);
}

FIXTURE_TEARDOWN(boot1)
{
}

TEST_F(boot1, root_is_union)
{
	check_union_root(_metadata);
}

/* A "package": a tar archive unpacked into /usr and /var with busybox tar. */
TEST_F(boot1, package_install)
{
	char out[256];
	struct stat st;

	ASSERT_EQ(0, sh("set -e; rm -rf /tmp/pkg; cd /tmp; "
			"mkdir -p pkg/usr/local/bin pkg/usr/local/share/hello-union "
			"pkg/usr/bin pkg/var/lib/pkgs; "
			"printf '#!/bin/sh\\necho hello-union 1.0 \"$@\"\\n' > pkg/usr/local/bin/hello-union; "
			"chmod 755 pkg/usr/local/bin/hello-union; "
			"echo 'hello-union: a test package' > pkg/usr/local/share/hello-union/README; "
			"ln -s ../local/bin/hello-union pkg/usr/bin/hello-union; "
			"echo usr/local/bin/hello-union > pkg/var/lib/pkgs/hello-union; "
			"tar -C pkg -cf hello-union.tar usr var", NULL, 0));
	ASSERT_EQ(0, sh("tar -C / -xf /tmp/hello-union.tar 2>&1", out, sizeof(out)))
		TH_LOG("tar: %s", out);

	/* runs, by its path and through PATH (/usr/bin) */
	ASSERT_EQ(0, sh("/usr/local/bin/hello-union a", out, sizeof(out)));
	EXPECT_STREQ("hello-union 1.0 a\n", out);
	ASSERT_EQ(0, sh("hello-union b", out, sizeof(out)));
	EXPECT_STREQ("hello-union 1.0 b\n", out);
	EXPECT_STREQ("hello-union: a test package\n",
		     slurp("/usr/local/share/hello-union/README"));

	/* merged with the image's directories */
	EXPECT_TRUE(listed("/usr/bin", "hello-union"));
	EXPECT_TRUE(listed("/usr/bin", "union"));
	EXPECT_TRUE(listed("/usr/bin", "union-switch-root"));
	EXPECT_STREQ("hello-union installed", names("/var/lib/pkgs"));
	EXPECT_STREQ("busybox\nunion-tools\n", slurp("/var/lib/pkgs/installed"));

	/* in the top layer, not in the image */
	ASSERT_EQ(0, stat(TOP "/usr/local/bin/hello-union", &st));
	EXPECT_TRUE(S_ISREG(st.st_mode));
	EXPECT_EQ(0755U, st.st_mode & 07777);
	EXPECT_STREQ("hello-union", names(TOP "/var/lib/pkgs"));
	EXPECT_TRUE(gone(IMAGE "/usr/local/bin/hello-union"));
	EXPECT_TRUE(gone(IMAGE "/usr/bin/hello-union"));
	EXPECT_STREQ("installed", names(IMAGE "/var/lib/pkgs"));
}

/* sed -i of /etc/hostname and of a file in a directory only the image has */
TEST_F(boot1, edit_etc)
{
	EXPECT_EQ(0, sh("sed -i 's/^union-image$/union-live/' /etc/hostname", NULL, 0));
	EXPECT_STREQ("union-live\n", slurp("/etc/hostname"));
	EXPECT_STREQ("union-live\n", slurp(TOP "/etc/hostname"));
	EXPECT_STREQ("union-image\n", slurp(IMAGE "/etc/hostname"));

	EXPECT_EQ(0, sh("sed -i 's/^mode=image$/mode=live/' /etc/system/defaults.conf",
			NULL, 0));
	EXPECT_STREQ("mode=live\nlayers=2\n", slurp("/etc/system/defaults.conf"));
	EXPECT_STREQ("mode=live\nlayers=2\n", slurp(TOP "/etc/system/defaults.conf"));
	EXPECT_STREQ("mode=image\nlayers=2\n", slurp(IMAGE "/etc/system/defaults.conf"));
	/* sed's temporary file is gone, nothing else was added */
	EXPECT_STREQ("defaults.conf", names("/etc/system"));
	EXPECT_STREQ("defaults.conf", names(TOP "/etc/system"));

	/* /etc is still the image's too */
	EXPECT_TRUE(listed("/etc", "passwd"));
	EXPECT_TRUE(listed("/etc", "os-release"));
	EXPECT_EQ(0, sh("grep -q '^alice:x:1000:' /etc/passwd", NULL, 0));
}

/* rm -rf of a system directory: whited out, the image keeps it */
TEST_F(boot1, rm_rf_system_dir)
{
	struct stat st;

	ASSERT_TRUE(listed("/usr/share", "system-doc"));
	ASSERT_EQ(0, sh("rm -rf /usr/share/system-doc", NULL, 0));
	EXPECT_TRUE(gone("/usr/share/system-doc"));
	EXPECT_TRUE(gone("/usr/share/system-doc/guide/intro.txt"));
	EXPECT_FALSE(listed("/usr/share", "system-doc"));
	EXPECT_NE(0, sh("ls /usr/share/system-doc 2>/dev/null", NULL, 0));

	/* a whiteout (0/0 character device) in the top layer */
	ASSERT_EQ(0, lstat(TOP "/usr/share/system-doc", &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0U, major(st.st_rdev));
	EXPECT_EQ(0U, minor(st.st_rdev));

	/* the image still has all of it */
	EXPECT_STREQ("README guide", names(IMAGE "/usr/share/system-doc"));
	EXPECT_STREQ("the lower layer is the ext4 image on /dev/vdd\n",
		     slurp(IMAGE "/usr/share/system-doc/guide/intro.txt"));

	/* made again, it is a new, empty directory */
	ASSERT_EQ(0, mkdir("/usr/share/system-doc", 0755));
	EXPECT_STREQ("", names("/usr/share/system-doc"));
	EXPECT_TRUE(gone("/usr/share/system-doc/README"));
	ASSERT_EQ(0, rmdir("/usr/share/system-doc"));
	EXPECT_TRUE(gone("/usr/share/system-doc"));
}

/* users' files: root's in /root (0700 in the image), alice's in /tmp */
TEST_F(boot1, user_files)
{
	struct stat st;
	pid_t pid;
	int status;

	ASSERT_EQ(0, put("/root/notes.txt", "root's notes\n", 0600));
	EXPECT_STREQ("root's notes\n", slurp("/root/notes.txt"));
	EXPECT_STREQ("root's notes\n", slurp(TOP "/root/notes.txt"));
	EXPECT_TRUE(gone(IMAGE "/root/notes.txt"));
	ASSERT_EQ(0, stat("/root", &st));
	EXPECT_EQ(040700U, st.st_mode);

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (setgroups(0, NULL) || setresgid(1000, 1000, 1000) ||
		    setresuid(1000, 1000, 1000))
			_exit(10);
		if (put("/tmp/alice.txt", "alice was here\n", 0644))
			_exit(11);
		/* the union keeps the image's permissions */
		if (open("/etc/hostname", O_WRONLY) != -1 || errno != EACCES)
			_exit(12);
		if (open("/root/notes.txt", O_RDONLY) != -1 || errno != EACCES)
			_exit(13);
		if (mkdir("/usr/alice", 0755) != -1 || errno != EACCES)
			_exit(14);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	EXPECT_STREQ("alice was here\n", slurp("/tmp/alice.txt"));
	ASSERT_EQ(0, stat("/tmp/alice.txt", &st));
	EXPECT_EQ(1000U, st.st_uid);
	EXPECT_TRUE(gone("/usr/alice"));
}

/* cd into a directory only the image has and work there */
TEST_F(boot1, cwd_in_lower_dir)
{
	char cwd[256], out[256];
	struct stat a, b;

	ASSERT_TRUE(gone(TOP "/bin"));
	ASSERT_EQ(0, chdir("/bin"));
	ASSERT_NE(NULL, getcwd(cwd, sizeof(cwd)));
	EXPECT_STREQ("/bin", cwd);
	ASSERT_EQ(0, sh("./busybox echo from-cwd", out, sizeof(out)));
	EXPECT_STREQ("from-cwd\n", out);
	ASSERT_EQ(0, put("local-note", "written in /bin\n", 0644));
	EXPECT_STREQ("written in /bin\n", slurp("/bin/local-note"));
	EXPECT_STREQ("written in /bin\n", slurp(TOP "/bin/local-note"));
	EXPECT_TRUE(gone(IMAGE "/bin/local-note"));
	ASSERT_EQ(0, sh("ls", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "busybox\n"));
	EXPECT_NE(NULL, strstr(out, "local-note\n"));
	ASSERT_EQ(0, sh("pwd", out, sizeof(out)));
	EXPECT_STREQ("/bin\n", out);
	ASSERT_EQ(0, chdir(".."));
	ASSERT_NE(NULL, getcwd(cwd, sizeof(cwd)));
	EXPECT_STREQ("/", cwd);
	ASSERT_EQ(0, stat(".", &a));
	ASSERT_EQ(0, stat("/", &b));
	EXPECT_EQ(b.st_dev, a.st_dev);
	EXPECT_EQ(b.st_ino, a.st_ino);
}

FIXTURE(boot2) {
};

FIXTURE_SETUP(boot2)
{
	mount_views(_metadata);
}

FIXTURE_TEARDOWN(boot2)
{
}

TEST_F(boot2, root_is_union)
{
	check_union_root(_metadata);
}

/* what the first boot changed is the image's again */
TEST_F(boot2, image_is_back)
{
	EXPECT_STREQ("union-image\n", slurp("/etc/hostname"));
	EXPECT_STREQ("mode=image\nlayers=2\n", slurp("/etc/system/defaults.conf"));
	EXPECT_STREQ("README guide", names("/usr/share/system-doc"));
	EXPECT_STREQ("changes go to the tmpfs layer on top\n",
		     slurp("/usr/share/system-doc/guide/usage.txt"));
	EXPECT_TRUE(gone("/usr/local/bin/hello-union"));
	EXPECT_TRUE(gone("/usr/bin/hello-union"));
	EXPECT_TRUE(gone("/usr/local/share/hello-union"));
	EXPECT_STREQ("installed", names("/var/lib/pkgs"));
	EXPECT_NE(0, sh("hello-union 2>/dev/null", NULL, 0));
	EXPECT_TRUE(gone("/root/notes.txt"));
	EXPECT_TRUE(gone("/tmp/alice.txt"));
	EXPECT_TRUE(gone("/bin/local-note"));
}

/* the top layer is a fresh tmpfs: none of the first boot's changes */
TEST_F(boot2, top_layer_is_fresh)
{
	EXPECT_TRUE(gone(TOP "/etc"));
	EXPECT_TRUE(gone(TOP "/usr"));
	EXPECT_TRUE(gone(TOP "/var"));
	EXPECT_TRUE(gone(TOP "/root"));
	EXPECT_TRUE(gone(TOP "/bin"));
	/* the guest script of this boot, put there by the initramfs */
	EXPECT_TRUE(listed(TOP "/run", "script.sh"));
}

int main(int argc, char **argv)
{
	const char *boot = getenv("UNION_ROOT_BOOT");

	if (!boot || !*boot) {
		printf("1..0 # SKIP not booted on a union root (scripts/union-root-test.sh)\n");
		return KSFT_SKIP;
	}
	return test_harness_run(argc, argv);
}
