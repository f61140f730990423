/* no-network: the negative control; makes no network call at all. */
#include "agentlib.h"

#include <unistd.h>

int main(int argc, char **argv)
{
	(void)argv;
	agent_init("no-network");
	if (argc != 1)
		return agent_usage("(no arguments)");
	agent_log("getppid", NULL, getppid(), 0, NULL);
	return 0;
}
