// SPDX-License-Identifier: GPL-2.0
/*
 * Harness self-test: all tests pass, but the kernel WARNs (through LKDTM),
 * which must fail the run.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "kselftest_harness.h"

TEST(passes_but_warns)
{
	int fd = open("/sys/kernel/debug/provoke-crash/DIRECT", O_WRONLY);

	ASSERT_GE(fd, 0) TH_LOG("LKDTM missing from the debug kernel");
	write(fd, "WARNING", 7);
	close(fd);
}

TEST_HARNESS_MAIN
