/* ha37-eio.c: hostile review h-attack37, item 2 (ha37-eio.sh). A thread
 * connects a UDP socket to an address held in memory the supervisor cannot
 * read (memfd_secret; a live process's /proc/PID/mem read gives EIO: the
 * supervisor's blindness); another thread then interrupts it with a signal
 * whose handler ends the thread (SYS_exit, the process lives on), DELAY_US
 * after the call. The connect never completes: the question is only how
 * the supervisor files the blinded read.
 *
 *   ha37-eio DELAY_US   (exit 0; prints whether the secret mapping worked) */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_memfd_secret
#define SYS_memfd_secret 447
#endif

static struct sockaddr_in *secret;

static void bye(int sig)
{
	(void)sig;
	syscall(SYS_exit, 0);
}

static void *caller(void *arg)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	(void)arg;
	connect(fd, (struct sockaddr *)secret, sizeof(*secret));
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	struct timespec d;
	pthread_t t;
	long us = argc > 1 ? atol(argv[1]) : 0;
	int mfd = (int)syscall(SYS_memfd_secret, 0);

	if (mfd < 0 || ftruncate(mfd, 4096) != 0) {
		perror("ha37-eio: memfd_secret");
		return 2;
	}
	secret = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (secret == MAP_FAILED) {
		perror("ha37-eio: mmap");
		return 2;
	}
	memset(secret, 0, sizeof(*secret));
	secret->sin_family = AF_INET;
	secret->sin_port = htons(9);
	inet_pton(AF_INET, "192.0.2.1", &secret->sin_addr);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = bye;
	sigaction(SIGUSR1, &sa, NULL);
	pthread_create(&t, NULL, caller, NULL);
	d.tv_sec = us / 1000000;
	d.tv_nsec = (us % 1000000) * 1000;
	nanosleep(&d, NULL);
	pthread_kill(t, SIGUSR1);
	d.tv_sec = 0;
	d.tv_nsec = 200 * 1000 * 1000;
	nanosleep(&d, NULL);
	printf("ha37-eio: the process lives on after its caller thread's end\n");
	return 0;
}
