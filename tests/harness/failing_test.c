// SPDX-License-Identifier: GPL-2.0
/* Harness self-test: one passing and one failing test case. */
#include "kselftest_harness.h"

TEST(passes)
{
	ASSERT_EQ(1, 1);
}

TEST(fails)
{
	ASSERT_EQ(1, 2);
}

TEST_HARNESS_MAIN
