/* A simulated LDS-01 as a program, for specs: prints its pseudo-terminal
 * path, sends revolutions at 5 Hz until its standard input closes. */
#define _GNU_SOURCE
#include "fake_lds01.h"

int main(void)
{
    fake_lds01 f;
    printf("%s\n", fake_lds01_start(&f, 0.2));
    fflush(stdout);
    char c;
    while (read(0, &c, 1) > 0) {
    }
    fake_lds01_stop(&f);
    return 0;
}
