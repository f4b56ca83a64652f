/* A simulated OpenCR board as a program, for specs that drive the base
 * through tycho.device: prints the pseudo-terminal path on stdout, serves
 * until its standard input closes.
 *
 *   fake_opencr [CMD_LOG]   CMD_LOG: every change of the commanded velocity,
 *                           a line "seconds v w" (CLOCK_MONOTONIC, cm/s and
 *                           centi-rad/s), so a spec sees what the wheels got */
#include "opencr_sim.h"

#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    FILE *log = NULL;
    if (argc > 1 && !(log = fopen(argv[1], "w"))) {
        perror(argv[1]);
        return 1;
    }
    opencr o;
    char *path = start_board(&o);
    pthread_mutex_lock(&o.mu);
    o.cmd_log = log;
    pthread_mutex_unlock(&o.mu);
    printf("%s\n", path);
    fflush(stdout);
    char c;
    while (read(0, &c, 1) > 0) {
    }
    stop_board(&o);
    if (log) fclose(log);
    return 0;
}
