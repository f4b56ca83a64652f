/* The mission on mazes it has never seen: runs behaviors/campaign.lua on
 * the held-out generated worlds (seeds 10001.., never used for tuning;
 * tuning used seeds 1..100) and on held-out worlds with odometry noise and
 * doubled camera noise (seeds 20001..), and prints the campaign's totals
 * against the targets of the mission-generality work:
 *   held-out: >= 99 % of sources engaged, >= 97 % of worlds solved,
 *             0 collisions, ramp climbed in >= 95 %, median <= 400 s
 *             simulated, no timeout or crash, <= 600 s wall on 2 cores;
 *   noisy:    >= 97 % engaged.
 * TYCHO_CAMPAIGN_N (default 200) and TYCHO_CAMPAIGN_NOISY_N (default 50)
 * set the sizes, TYCHO_CAMPAIGN_SEED0 (default 10001) and
 * TYCHO_CAMPAIGN_NOISY_SEED0 (default 20001) the first seeds (a fresh
 * held-out set: seeds nobody has run before). Each campaign writes to
 * $TMPDIR/tycho-bench-campaign-SEED0. */
#include "result.h"
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    int worlds, engaged, sources, solved, collisions, ramp_climbed, ramp_worlds, timeouts, crashed;
    double engaged_pct, solved_pct, ramp_pct, median_s, max_s, wall_s;
} totals;

/* Runs one campaign, echoing its closing lines, and reads the totals from them. */
static int run_campaign(const char *exe, const char *src, int n, int seed0, int noisy, totals *t)
{
    char out[256], cmd[2048];
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(out, sizeof out, "%s/tycho-bench-campaign-%d", tmp, seed0);
    snprintf(
        cmd, sizeof cmd,
        "cd '%s' && '%s' run behaviors/campaign.lua --generate %d --seed0 %d --out '%s' %s 2>&1",
        src, exe, n, seed0, out, noisy ? "--noise" : "");
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    memset(t, 0, sizeof *t);
    char line[4096];
    int got = 0;
    while (fgets(line, sizeof line, p)) {
        /* every world's line as it finishes (progress), then the totals */
        if (line[0] == '[') fputs(line, stdout);
        if (strncmp(line, "campaign:", 9) != 0) continue;
        fputs(line, stdout);
        if (sscanf(line,
                   "campaign: %d worlds, %d/%d heat sources engaged (%lf%%), %d/%*d worlds solved "
                   "(%lf%%), %d collisions",
                   &t->worlds, &t->engaged, &t->sources, &t->engaged_pct, &t->solved,
                   &t->solved_pct, &t->collisions) == 7)
            got++;
        if (sscanf(line,
                   "campaign: ramp climbed in %d/%d worlds with a ramp (%lf%%), median %lf s "
                   "simulated (max %lf), %d timeouts, %d crashed, %lf s wall",
                   &t->ramp_climbed, &t->ramp_worlds, &t->ramp_pct, &t->median_s, &t->max_s,
                   &t->timeouts, &t->crashed, &t->wall_s) == 8)
            got++;
    }
    int rc = pclose(p);
    return got == 2 ? rc : -1;
}

static const char *verdict(int ok) { return ok ? "ok" : "MISSED"; }

int main(int argc, char **argv)
{
    (void)argc;
    setvbuf(stdout, NULL, _IOLBF, 0);
    char exe[4096];
    snprintf(exe, sizeof exe, "%s/tycho", dirname(strdup(argv[0])));
    const char *src = getenv("TYCHO_SOURCE_DIR") ? getenv("TYCHO_SOURCE_DIR") : ".";
    int n = getenv("TYCHO_CAMPAIGN_N") ? atoi(getenv("TYCHO_CAMPAIGN_N")) : 200;
    int nn = getenv("TYCHO_CAMPAIGN_NOISY_N") ? atoi(getenv("TYCHO_CAMPAIGN_NOISY_N")) : 50;
    int s0 = getenv("TYCHO_CAMPAIGN_SEED0") ? atoi(getenv("TYCHO_CAMPAIGN_SEED0")) : 10001;
    int ns0 =
        getenv("TYCHO_CAMPAIGN_NOISY_SEED0") ? atoi(getenv("TYCHO_CAMPAIGN_NOISY_SEED0")) : 20001;
    if (n < 1 || nn < 1 || s0 < 1 || ns0 < 1) {
        fprintf(
            stderr,
            "bench_campaign: TYCHO_CAMPAIGN_N, _NOISY_N, _SEED0 and _NOISY_SEED0 must be >= 1\n");
        return 2;
    }
    totals h, z;
    printf("bench_campaign: held-out worlds, seeds %d..%d\n", s0, s0 + n - 1);
    if (run_campaign(exe, src, n, s0, 0, &h) < 0) {
        fprintf(stderr, "bench_campaign: the held-out campaign did not finish\n");
        return 1;
    }
    printf(
        "bench_campaign: held-out noisy worlds (odometry 0.05, camera noise 0.2 C), seeds %d..%d\n",
        ns0, ns0 + nn - 1);
    if (run_campaign(exe, src, nn, ns0, 1, &z) < 0) {
        fprintf(stderr, "bench_campaign: the noisy campaign did not finish\n");
        return 1;
    }
    printf("\nfigure                           measured   target\n");
    printf("held-out sources engaged         %6.1f %%   >= 99 %%   %s\n", h.engaged_pct,
           verdict(h.engaged_pct >= 99));
    printf("held-out worlds solved           %6.1f %%   >= 97 %%   %s\n", h.solved_pct,
           verdict(h.solved_pct >= 97));
    printf("held-out collisions              %6d     0         %s\n", h.collisions,
           verdict(h.collisions == 0));
    printf("held-out ramp climbed            %6.1f %%   >= 95 %%   %s\n", h.ramp_pct,
           verdict(h.ramp_pct >= 95));
    printf("held-out median simulated time   %6.0f s   <= 400 s  %s\n", h.median_s,
           verdict(h.median_s <= 400));
    printf("held-out timeouts + crashes      %6d     0         %s\n", h.timeouts + h.crashed,
           verdict(h.timeouts + h.crashed == 0));
    printf("held-out campaign wall time      %6.0f s   <= 600 s  %s\n", h.wall_s,
           verdict(h.wall_s <= 600));
    printf("noisy sources engaged            %6.1f %%   >= 97 %%   %s\n", z.engaged_pct,
           verdict(z.engaged_pct >= 97));
    char what[200];
    snprintf(what, sizeof what,
             "`bench_campaign`: the mission on %d held-out generated mazes (seeds %d–%d), "
             "sources engaged",
             n, s0, s0 + n - 1);
    bench_result("campaign.engaged_pct", h.engaged_pct, "%", ">=", 99, what);
    bench_result("campaign.solved_pct", h.solved_pct, "%", ">=", 97,
                 "`bench_campaign`: the same, worlds solved");
    bench_result("campaign.collisions", h.collisions, "collisions", "<=", 0,
                 "`bench_campaign`: the same, collisions");
    bench_result("campaign.ramp_pct", h.ramp_pct, "%", ">=", 95,
                 "`bench_campaign`: the same, ramp climbed");
    bench_result("campaign.median_sim_s", h.median_s, "s", "<=", 400,
                 "`bench_campaign`: the same, median simulated time");
    bench_result("campaign.timeouts", h.timeouts + h.crashed, "worlds", "<=", 0,
                 "`bench_campaign`: the same, timeouts and crashes");
    bench_result("campaign.wall_s", h.wall_s, "s", "<=", 600,
                 "`bench_campaign`: the same, wall time on 2 cores");
    snprintf(what, sizeof what,
             "`bench_campaign`: %d held-out mazes with odometry noise 0.05 and camera noise "
             "doubled (seeds %d–%d), sources engaged",
             nn, ns0, ns0 + nn - 1);
    bench_result("campaign.noisy_engaged_pct", z.engaged_pct, "%", ">=", 97, what);
    return 0;
}
