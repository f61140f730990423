/* The unit runner: forks each registered test, prints one line per test and
 * ends with exactly one "N passed, N failed" line. Exit status 0 only when
 * nothing failed. An optional argument runs only tests whose name contains
 * it. */
#include "harness.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define TH_LEAK_CHECK() __lsan_do_recoverable_leak_check()
#else
#define TH_LEAK_CHECK() 0
#endif

/* Child exit codes the parent understands; anything else is a failure. */
#define TH_EXIT_PASS 0
#define TH_EXIT_FAIL 1
#define TH_EXIT_SKIP 4

#define TH_MAX_TESTS 512

struct th_test {
	const char *name;
	th_fn fn;
	const char *file;
};

/* Registration happens in constructors before main; this is test-runner
 * state, not module state. */
static struct th_test tests[TH_MAX_TESTS];
static size_t ntests;
static char current_case[256];
static bool current_failed;

void th_register(const char *name, th_fn fn, const char *file)
{
	if (ntests == TH_MAX_TESTS) {
		fprintf(stderr, "harness: more than %d tests; raise TH_MAX_TESTS\n", TH_MAX_TESTS);
		abort();
	}
	tests[ntests++] = (struct th_test){name, fn, file};
}

void th_case(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(current_case, sizeof(current_case), fmt, ap);
	va_end(ap);
}

static void diag_where(const char *file, int line)
{
	printf("#   %s:%d", file, line);
	if (current_case[0] != '\0')
		printf(" [%s]", current_case);
	printf(": ");
}

bool th_check(bool ok, const char *file, int line, const char *expr)
{
	if (ok)
		return true;
	current_failed = true;
	diag_where(file, line);
	printf("expected %s\n", expr);
	return false;
}

bool th_check_eq(long long a, long long b, const char *file, int line, const char *ea,
		 const char *eb)
{
	if (a == b)
		return true;
	current_failed = true;
	diag_where(file, line);
	printf("%s == %s: got %lld, want %lld\n", ea, eb, a, b);
	return false;
}

bool th_check_str(const char *a, const char *b, const char *file, int line, const char *ea,
		  const char *eb)
{
	if (a != NULL && b != NULL && strcmp(a, b) == 0)
		return true;
	current_failed = true;
	diag_where(file, line);
	printf("%s == %s: got \"%s\", want \"%s\"\n", ea, eb, a ? a : "(null)", b ? b : "(null)");
	return false;
}

bool th_check_contains(const char *hay, const char *needle, const char *file, int line,
		       const char *eh)
{
	if (hay != NULL && needle != NULL && strstr(hay, needle) != NULL)
		return true;
	current_failed = true;
	diag_where(file, line);
	printf("%s contains \"%s\": got \"%s\"\n", eh, needle ? needle : "(null)",
	       hay ? hay : "(null)");
	return false;
}

bool th_check_mem(const void *a, const void *b, size_t n, const char *file, int line,
		  const char *ea, const char *eb)
{
	if (memcmp(a, b, n) == 0)
		return true;
	current_failed = true;
	diag_where(file, line);
	printf("%s and %s differ in their first %zu bytes\n", ea, eb, n);
	return false;
}

_Noreturn void th_stop(void)
{
	fflush(stdout);
	_exit(TH_EXIT_FAIL);
}

_Noreturn void th_skip(const char *reason)
{
	printf("#   SKIP: %s\n", reason);
	fflush(stdout);
	_exit(TH_EXIT_SKIP);
}

/* Returns TH_EXIT_PASS, TH_EXIT_FAIL or TH_EXIT_SKIP. */
static int run_one(const struct th_test *t)
{
	int status;
	pid_t pid;

	/* Unflushed output would be written twice, once by each process. */
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		printf("#   fork: %s\n", strerror(errno));
		return TH_EXIT_FAIL;
	}
	if (pid == 0) {
		alarm(TH_TIMEOUT_SECONDS);
		t->fn();
		/* _exit skips LeakSanitizer's atexit check, so run it here: a
		 * leak in a test is the test's failure. */
		if (TH_LEAK_CHECK() != 0) {
			printf("#   LeakSanitizer found leaks (report on stderr)\n");
			current_failed = true;
		}
		fflush(stdout);
		_exit(current_failed ? TH_EXIT_FAIL : TH_EXIT_PASS);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			printf("#   waitpid: %s\n", strerror(errno));
			return TH_EXIT_FAIL;
		}
	}
	if (WIFSIGNALED(status)) {
		if (WTERMSIG(status) == SIGALRM)
			printf("#   timed out after %d s\n", TH_TIMEOUT_SECONDS);
		else
			printf("#   killed by signal %d (%s)\n", WTERMSIG(status),
			       strsignal(WTERMSIG(status)));
		return TH_EXIT_FAIL;
	}
	if (WEXITSTATUS(status) == TH_EXIT_PASS || WEXITSTATUS(status) == TH_EXIT_SKIP)
		return WEXITSTATUS(status);
	if (WEXITSTATUS(status) != TH_EXIT_FAIL)
		printf("#   exited with status %d\n", WEXITSTATUS(status));
	return TH_EXIT_FAIL;
}

int main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	size_t passed = 0, failed = 0, skipped = 0, n = 0;

	/* Lines from the forked tests and from here interleave correctly only
	 * if nothing sits in a buffer across a fork. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; i < ntests; i++) {
		const struct th_test *t = &tests[i];
		int rc;

		if (filter != NULL && strstr(t->name, filter) == NULL)
			continue;
		n++;
		rc = run_one(t);
		if (rc == TH_EXIT_PASS) {
			passed++;
			printf("ok %zu %s\n", n, t->name);
		} else if (rc == TH_EXIT_SKIP) {
			skipped++;
			printf("ok %zu %s # SKIP\n", n, t->name);
		} else {
			failed++;
			printf("not ok %zu %s (%s)\n", n, t->name, t->file);
		}
	}
	if (skipped > 0)
		printf("# %zu skipped\n", skipped);
	printf("%zu passed, %zu failed\n", passed, failed);
	return failed == 0 && n > 0 ? 0 : 1;
}
