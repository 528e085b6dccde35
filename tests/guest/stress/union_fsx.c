// SPDX-License-Identifier: GPL-2.0
/*
 * union_fsx - an fsx-style data checker for files that start in a lower
 * layer of a writable union.
 *
 *   union_fsx [-s SEED] [-n OPS] [-t SECONDS] [-m] [-l MAXLEN]
 *             [-L LOWER_COPY] FILE
 *
 * FILE is a path through the union to a regular file that only a lower
 * layer has (LOWER_COPY, if given, is the same file read directly from the
 * lower layer: the model starts from it, and the union must show it).  The
 * run starts with a read-only descriptor, so the first operations read the
 * lower file; the first operation that changes the file opens it for
 * writing, which copies it up in the middle of the run.  Then a random
 * sequence of
 *   read, pread, write, pwrite (also past the end), ftruncate, truncate(2)
 *   by path, mmap read, mmap write (-m), fallocate (allocate, keep size,
 *   punch hole, zero range), fsync, reopen by path (O_RDWR or O_TRUNC-free),
 *   read through a new descriptor by path
 * runs, and after every operation the whole file (its size and every byte)
 * is compared with an in-memory model.  The sequence depends on the seed
 * only, never on results, so a run is replayed with the same -s and -n.
 *
 * On a mismatch the seed, the operation number, the first differing offset
 * and the last 64 operations are printed and the exit status is 1.
 * -t SECONDS ends the run after that time, but never before the first
 * change (the copy-up, after 10-159 reads) and 32 operations after it,
 * however slow the machine: the work is counted, not only the time.
 * Operations that the file system refuses with EOPNOTSUPP (a fallocate
 * mode) are dropped from the rest of the run and counted.
 * The last line is "fsx: ok SEED OPS ops (counts per operation)".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef FALLOC_FL_KEEP_SIZE
#define FALLOC_FL_KEEP_SIZE	0x01
#endif
#ifndef FALLOC_FL_PUNCH_HOLE
#define FALLOC_FL_PUNCH_HOLE	0x02
#endif
#ifndef FALLOC_FL_ZERO_RANGE
#define FALLOC_FL_ZERO_RANGE	0x10
#endif

enum {
	OP_READ, OP_PREAD, OP_WRITE, OP_PWRITE, OP_FTRUNC, OP_TRUNC_PATH,
	OP_MREAD, OP_MWRITE, OP_FALLOC, OP_FALLOC_KEEP, OP_PUNCH, OP_ZERO,
	OP_FSYNC, OP_REOPEN, OP_PATHREAD, OP_NR
};
static const char *opname[OP_NR] = {
	"read", "pread", "write", "pwrite", "ftruncate", "truncate",
	"mmap-read", "mmap-write", "fallocate", "fallocate-keep",
	"punch-hole", "zero-range", "fsync", "reopen", "path-read",
};

static const char *path;
static int fd = -1;
static bool writable;		/* fd open O_RDWR (copy-up done) */
static bool use_mmap;
static unsigned char *model, *buf;
static size_t maxlen = 256 * 1024, size;
static uint64_t rng;
static unsigned long long seed, opno, counts[OP_NR];
static bool disabled[OP_NR];
static long pagesize;

#define LOGN 64
static char oplog[LOGN][128];

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static void logop(const char *fmt, ...)
{
	va_list ap;
	char *l = oplog[opno % LOGN];
	int n = snprintf(l, 128, "%llu ", opno);

	va_start(ap, fmt);
	vsnprintf(l + n, 128 - n, fmt, ap);
	va_end(ap);
}

static void dump_and_fail(const char *fmt, ...)
{
	va_list ap;

	printf("fsx: FAIL seed=%llu op=%llu file=%s: ", seed, opno, path);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\nfsx: last operations (replay: union_fsx -s %llu -n %llu%s -l %zu FILE):\n",
	       seed, opno + 1, use_mmap ? " -m" : "", maxlen);
	for (unsigned long long i = opno >= LOGN ? opno - LOGN + 1 : 0;
	     i <= opno; i++)
		printf("fsx:   %s\n", oplog[i % LOGN]);
	fflush(stdout);
	exit(1);
}

static void need_writable(void)
{
	if (writable)
		return;
	/* the first change: this open copies the file up */
	int nfd = open(path, O_RDWR | O_CLOEXEC);

	if (nfd < 0)
		dump_and_fail("open(O_RDWR) for the copy-up: %s", strerror(errno));
	close(fd);
	fd = nfd;
	writable = true;
	printf("fsx: copy-up at op %llu\n", opno);
}

static void check_bytes(const unsigned char *got, size_t off, size_t len,
			const char *what)
{
	if (!memcmp(got, model + off, len))
		return;
	for (size_t i = 0; i < len; i++) {
		if (got[i] != model[off + i])
			dump_and_fail("%s: byte at offset %zu is 0x%02x, expected 0x%02x (size %zu)",
				      what, off + i, got[i], model[off + i], size);
	}
}

static void check_all(int cfd, const char *what)
{
	struct stat st;
	size_t done = 0;

	if (fstat(cfd, &st))
		dump_and_fail("%s: fstat: %s", what, strerror(errno));
	if ((size_t)st.st_size != size)
		dump_and_fail("%s: size %lld, expected %zu", what,
			      (long long)st.st_size, size);
	while (done < size) {
		ssize_t n = pread(cfd, buf, size - done, done);

		if (n < 0)
			dump_and_fail("%s: pread: %s", what, strerror(errno));
		if (n == 0)
			dump_and_fail("%s: short file: EOF at %zu, expected %zu",
				      what, done, size);
		check_bytes(buf, done, n, what);
		done += n;
	}
	if (pread(cfd, buf, 1, size) != 0)
		dump_and_fail("%s: data past the expected end %zu", what, size);
}

static void fill(unsigned char *p, size_t len)
{
	uint64_t v = rnd();

	for (size_t i = 0; i < len; i++) {
		if (!(i & 7))
			v = rnd();
		p[i] = (unsigned char)(v >> ((i & 7) * 8));
		/* no zero bytes: a lost write is never mistaken for a hole */
		if (!p[i])
			p[i] = 0x5a;
	}
}

static void set_size(size_t n)
{
	if (n > size)
		memset(model + size, 0, n - size);
	size = n;
}

static bool is_read_op(int op)
{
	return op == OP_READ || op == OP_PREAD || op == OP_MREAD ||
	       op == OP_PATHREAD || op == OP_REOPEN || op == OP_FSYNC;
}

static void do_op(int op)
{
	size_t off = rnd() % maxlen, len = 1 + rnd() % (maxlen / 4);
	ssize_t n;
	int r;

	if (off + len > maxlen)
		len = maxlen - off;
	switch (op) {
	case OP_READ:
	case OP_PREAD:
		if (size == 0) {
			logop("%s: empty file", opname[op]);
			break;
		}
		off %= size;
		if (off + len > size)
			len = size - off;
		logop("%s off=%zu len=%zu", opname[op], off, len);
		if (op == OP_READ) {
			if (lseek(fd, off, SEEK_SET) != (off_t)off)
				dump_and_fail("lseek: %s", strerror(errno));
			n = read(fd, buf, len);
		} else {
			n = pread(fd, buf, len, off);
		}
		if (n != (ssize_t)len)
			dump_and_fail("%s returned %zd (%s), expected %zu",
				      opname[op], n, n < 0 ? strerror(errno) : "short", len);
		check_bytes(buf, off, len, opname[op]);
		break;
	case OP_WRITE:
	case OP_PWRITE:
		need_writable();
		fill(buf, len);
		logop("%s off=%zu len=%zu (size %zu)", opname[op], off, len, size);
		if (op == OP_WRITE) {
			if (lseek(fd, off, SEEK_SET) != (off_t)off)
				dump_and_fail("lseek: %s", strerror(errno));
			n = write(fd, buf, len);
		} else {
			n = pwrite(fd, buf, len, off);
		}
		if (n != (ssize_t)len)
			dump_and_fail("%s returned %zd (%s), expected %zu",
				      opname[op], n, n < 0 ? strerror(errno) : "short", len);
		if (off + len > size)
			set_size(off + len);
		memcpy(model + off, buf, len);
		break;
	case OP_FTRUNC:
	case OP_TRUNC_PATH:
		off = rnd() % (maxlen + 1);
		logop("%s to %zu (size %zu)", opname[op], off, size);
		if (op == OP_FTRUNC) {
			need_writable();
			r = ftruncate(fd, off);
		} else {
			/* truncate(2) by path copies up by itself */
			r = truncate(path, off);
		}
		if (r)
			dump_and_fail("%s: %s", opname[op], strerror(errno));
		if (op == OP_TRUNC_PATH && !writable) {
			/* the read-only fd still shows the lower file */
			int nfd = open(path, O_RDONLY | O_CLOEXEC);

			if (nfd < 0)
				dump_and_fail("reopen after truncate: %s", strerror(errno));
			close(fd);
			fd = nfd;
			printf("fsx: copy-up (truncate) at op %llu\n", opno);
		}
		if (off < size)
			size = off;
		else
			set_size(off);
		break;
	case OP_MREAD:
	case OP_MWRITE: {
		size_t pgoff, maplen;
		unsigned char *p;

		if (size == 0) {
			logop("%s: empty file", opname[op]);
			break;
		}
		off %= size;
		if (off + len > size)
			len = size - off;
		pgoff = off & ~(size_t)(pagesize - 1);
		maplen = off + len - pgoff;
		if (op == OP_MWRITE)
			need_writable();
		logop("%s off=%zu len=%zu", opname[op], off, len);
		p = mmap(NULL, maplen, op == OP_MWRITE ? PROT_READ | PROT_WRITE : PROT_READ,
			 MAP_SHARED, fd, pgoff);
		if (p == MAP_FAILED)
			dump_and_fail("mmap: %s", strerror(errno));
		if (op == OP_MREAD) {
			check_bytes(p + (off - pgoff), off, len, "mmap-read");
		} else {
			fill(buf, len);
			memcpy(p + (off - pgoff), buf, len);
			memcpy(model + off, buf, len);
			if (rnd() & 1 && msync(p, maplen, MS_SYNC))
				dump_and_fail("msync: %s", strerror(errno));
		}
		if (munmap(p, maplen))
			dump_and_fail("munmap: %s", strerror(errno));
		break;
	}
	case OP_FALLOC:
	case OP_FALLOC_KEEP:
	case OP_PUNCH:
	case OP_ZERO: {
		static const int modes[] = {
			[OP_FALLOC] = 0, [OP_FALLOC_KEEP] = FALLOC_FL_KEEP_SIZE,
			[OP_PUNCH] = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			[OP_ZERO] = FALLOC_FL_ZERO_RANGE,
		};

		need_writable();
		logop("%s off=%zu len=%zu (size %zu)", opname[op], off, len, size);
		if (fallocate(fd, modes[op], off, len)) {
			if (errno == EOPNOTSUPP) {
				printf("fsx: %s not supported here, dropped\n", opname[op]);
				disabled[op] = true;
				counts[op]--;
				break;
			}
			dump_and_fail("fallocate(%s): %s", opname[op], strerror(errno));
		}
		if (op == OP_PUNCH) {
			if (off < size)
				memset(model + off, 0, (off + len > size ? size : off + len) - off);
		} else if (op == OP_ZERO) {
			if (off + len > size)
				set_size(off + len);
			memset(model + off, 0, len);
		} else if (op == OP_FALLOC && off + len > size) {
			set_size(off + len);
		}
		break;
	}
	case OP_FSYNC:
		logop("fsync");
		if (writable && fsync(fd))
			dump_and_fail("fsync: %s", strerror(errno));
		break;
	case OP_REOPEN: {
		int nfd = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);

		logop("reopen %s", writable ? "rw" : "ro");
		if (nfd < 0)
			dump_and_fail("reopen: %s", strerror(errno));
		close(fd);
		fd = nfd;
		break;
	}
	case OP_PATHREAD: {
		int nfd = open(path, O_RDONLY | O_CLOEXEC);

		logop("path-read");
		if (nfd < 0)
			dump_and_fail("open for path-read: %s", strerror(errno));
		check_all(nfd, "path-read");
		close(nfd);
		break;
	}
	}
}

int main(int argc, char **argv)
{
	unsigned long long nops = 0, secs = 0;
	const char *lower = NULL;
	unsigned long long ro_ops;
	struct timespec t0, t;
	int c, lfd;
	size_t done;

	seed = (unsigned long long)time(NULL) ^ getpid();
	while ((c = getopt(argc, argv, "s:n:t:ml:L:")) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': nops = strtoull(optarg, NULL, 0); break;
		case 't': secs = strtoull(optarg, NULL, 0); break;
		case 'm': use_mmap = true; break;
		case 'l': maxlen = strtoull(optarg, NULL, 0); break;
		case 'L': lower = optarg; break;
		default:
			fprintf(stderr, "usage: union_fsx [-s SEED] [-n OPS] [-t SECONDS] [-m] [-l MAXLEN] [-L LOWER] FILE\n");
			return 2;
		}
	}
	if (optind + 1 != argc || maxlen < 4096) {
		fprintf(stderr, "union_fsx: one FILE, MAXLEN >= 4096\n");
		return 2;
	}
	if (!nops && !secs)
		nops = 10000;
	path = argv[optind];
	pagesize = sysconf(_SC_PAGESIZE);
	rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	model = calloc(1, maxlen);
	buf = malloc(maxlen);
	if (!model || !buf)
		return 2;
	if (!use_mmap)
		disabled[OP_MREAD] = disabled[OP_MWRITE] = true;

	/* the model starts as the lower file, read without the union */
	lfd = open(lower ? lower : path, O_RDONLY | O_CLOEXEC);
	if (lfd < 0) {
		printf("fsx: FAIL open %s: %s\n", lower ? lower : path, strerror(errno));
		return 1;
	}
	for (done = 0;;) {
		ssize_t n = read(lfd, model + done, maxlen - done);

		if (n < 0) {
			printf("fsx: FAIL read %s: %s\n", lower ? lower : path, strerror(errno));
			return 1;
		}
		if (n == 0)
			break;
		done += n;
		if (done == maxlen) {
			printf("fsx: FAIL %s is larger than -l %zu\n", path, maxlen);
			return 1;
		}
	}
	close(lfd);
	size = done;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("fsx: FAIL open %s: %s\n", path, strerror(errno));
		return 1;
	}
	logop("start: %zu bytes from %s", size, lower ? "the lower layer" : "the file");
	check_all(fd, "initial contents");
	printf("fsx: seed=%llu file=%s size=%zu mmap=%d\n", seed, path, size, use_mmap);
	fflush(stdout);

	ro_ops = 10 + rnd() % 150;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (opno = 1; !nops || opno <= nops; opno++) {
		int op;

		/* reads only for a random while, then copy-up by a change */
		do {
			op = rnd() % OP_NR;
		} while (disabled[op] || (opno <= ro_ops && !is_read_op(op)));
		counts[op]++;
		do_op(op);
		check_all(fd, opname[op]);
		/* -t stops a run only past its copy-up and 32 more operations */
		if (secs && opno > ro_ops + 32 && !(opno & 15)) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if ((unsigned long long)(t.tv_sec - t0.tv_sec) >= secs)
				break;
		}
	}
	if (opno > nops && nops)
		opno = nops;
	/* what the union shows now is what a new open of the path shows */
	close(fd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		dump_and_fail("final open: %s", strerror(errno));
	check_all(fd, "final contents");
	printf("fsx: ok seed=%llu %llu ops copied-up=%d size=%zu (", seed, opno,
	       writable, size);
	for (int i = 0; i < OP_NR; i++)
		if (counts[i])
			printf("%s%s=%llu", i ? " " : "", opname[i], counts[i]);
	printf(")\n");
	return 0;
}
