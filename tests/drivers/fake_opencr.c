/* A simulated OpenCR board as a program, for specs that drive the base
 * through tycho.device: prints the pseudo-terminal path on stdout, serves
 * until its standard input closes. */
#include "opencr_sim.h"

#include <stdio.h>
#include <unistd.h>

int main(void)
{
    opencr o;
    printf("%s\n", start_board(&o));
    fflush(stdout);
    char c;
    while (read(0, &c, 1) > 0) {
    }
    stop_board(&o);
    return 0;
}
