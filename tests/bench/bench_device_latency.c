/* Device latency benchmark (issue 5): from the last byte of an LDS-01
 * revolution leaving the (simulated) sensor on a pseudo-terminal to the
 * scan being readable through tycho_device_read, the call tycho.device's
 * read makes: serial wake-up, parsing, publishing, handing over. The reader
 * polls every 20 us, as a scheduler task would (at far lower rates).
 * Target: <= 1 ms. */
#define _GNU_SOURCE
#include "fake_lds01.h"
#include "loader.h"
#include "result.h"

#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(void)
{
    fake_lds01 f;
    const char *port = fake_lds01_start(&f, 0.02);
    tycho_setting s[] = {{"port", port}};
    tycho_err err = {0};
    tycho_device *d =
        tycho_device_open(TYCHO_DRIVER_DIR, "lds01", TYCHO_DEVICE_RANGE_SCANNER, s, 1, &err);
    if (!d) {
        fprintf(stderr, "bench_device_latency: %s\n", err.msg);
        return 1;
    }
    enum { N = 200 };
    static double lat[N];
    static tycho_sample sample;
    int n = 0;
    double t0 = fake_lds01_now();
    while (n < N && fake_lds01_now() - t0 < 30) {
        if (tycho_device_read(d, &sample, &err) == 1) {
            double now = fake_lds01_now();
            int k = (int)sample.seq - 1; /* revolution k of the sensor */
            if (k >= 0 && k < f.written && k < 4096) lat[n++] = (now - f.sent_at[k]) * 1e3;
        }
        usleep(20);
    }
    tycho_device_close(d);
    fake_lds01_stop(&f);
    if (n < N / 2) {
        fprintf(stderr, "bench_device_latency: only %d scans\n", n);
        return 1;
    }
    qsort(lat, (size_t)n, sizeof lat[0], cmp);
    double med = lat[n / 2], p99 = lat[n * 99 / 100];
    printf("lds-01 sample to reader (pty, parse, publish): median %.3f ms, p99 %.3f ms, max %.3f "
           "ms over %d scans "
           "(target <= 1 ms) %s\n",
           med, p99, lat[n - 1], n, p99 <= 1.0 ? "PASS" : "FAIL");
    bench_result("device_latency.median_ms", med, "ms", NULL, 0,
                 "`bench_device_latency`: LDS-01 last byte on the pty → scan readable (median)");
    bench_result("device_latency.p99_ms", p99, "ms", "<=", 1,
                 "`bench_device_latency`: the same, 99th percentile");
    return p99 <= 1.0 ? 0 : 1;
}
