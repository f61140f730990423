/* A small kselftest-shaped harness for host unit tests.
 *
 * TEST(name) registers a test; each runs in its own forked child under a
 * timeout (alarm), so a crash, hang or sanitizer abort fails that test only.
 * ASSERT_* stops the test, EXPECT_* records a failure and goes on, SKIP()
 * ends it as skipped with a reason. TH_CASE() names the table row being
 * checked, so a failure inside a loop says which row. */
#ifndef UNIT_HARNESS_H
#define UNIT_HARNESS_H

#include <stdbool.h>
#include <stddef.h>

/* Seconds before a test is killed; a pure-function test that takes this long
 * is stuck, not slow. */
#define TH_TIMEOUT_SECONDS 30

typedef void (*th_fn)(void);

/* Adds a test to the run; called from the constructors TEST() generates. */
void th_register(const char *name, th_fn fn, const char *file);

/* Checks, used through the macros below. Each returns whether it held and
 * prints a diagnostic (with the current case) when it did not. */
bool th_check(bool ok, const char *file, int line, const char *expr);
bool th_check_eq(long long a, long long b, const char *file, int line, const char *ea,
		 const char *eb);
bool th_check_str(const char *a, const char *b, const char *file, int line, const char *ea,
		  const char *eb);
bool th_check_contains(const char *hay, const char *needle, const char *file, int line,
		       const char *eh);
bool th_check_mem(const void *a, const void *b, size_t n, const char *file, int line,
		  const char *ea, const char *eb);

/* Ends the current test: failed (an ASSERT did not hold) or skipped. */
_Noreturn void th_stop(void);
_Noreturn void th_skip(const char *reason);

/* Labels the following checks until the next call ("case 3: '1.2.3.4/33'"). */
__attribute__((format(printf, 1, 2))) void th_case(const char *fmt, ...);

#define TEST(name)                                                                                 \
	static void name(void);                                                                    \
	__attribute__((constructor)) static void th_reg_##name(void)                               \
	{                                                                                          \
		th_register(#name, name, __FILE__);                                                \
	}                                                                                          \
	static void name(void)

#define TH_CASE(...) th_case(__VA_ARGS__)
#define SKIP(reason) th_skip(reason)

#define EXPECT_TRUE(c) th_check(!!(c), __FILE__, __LINE__, #c)
#define EXPECT_FALSE(c) th_check(!(c), __FILE__, __LINE__, "!(" #c ")")
#define EXPECT_EQ(a, b) th_check_eq((long long)(a), (long long)(b), __FILE__, __LINE__, #a, #b)
#define EXPECT_STREQ(a, b) th_check_str((a), (b), __FILE__, __LINE__, #a, #b)
#define EXPECT_CONTAINS(h, n) th_check_contains((h), (n), __FILE__, __LINE__, #h)
#define EXPECT_MEMEQ(a, b, n) th_check_mem((a), (b), (n), __FILE__, __LINE__, #a, #b)

#define TH_STOP_UNLESS(ok)                                                                         \
	do {                                                                                       \
		if (!(ok))                                                                         \
			th_stop();                                                                 \
	} while (0)
#define ASSERT_TRUE(c) TH_STOP_UNLESS(EXPECT_TRUE(c))
#define ASSERT_FALSE(c) TH_STOP_UNLESS(EXPECT_FALSE(c))
#define ASSERT_EQ(a, b) TH_STOP_UNLESS(EXPECT_EQ(a, b))
#define ASSERT_STREQ(a, b) TH_STOP_UNLESS(EXPECT_STREQ(a, b))
#define ASSERT_CONTAINS(h, n) TH_STOP_UNLESS(EXPECT_CONTAINS(h, n))
#define ASSERT_MEMEQ(a, b, n) TH_STOP_UNLESS(EXPECT_MEMEQ(a, b, n))

#define TH_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
