/* Terrain mission benchmark (issue 7): both terrain worlds, each with the
 * differential-drive and the mecanum robot, run by the real mission
 * (behaviors/terrain_nav.lua through the tycho executable beside this
 * binary), 3 runs each. Prints the simulated/wall time ratio, the mean
 * time per 3D LiDAR sweep (cast + map update + traversability) and per
 * plan. Target: >= 30x real time. */
#include "result.h"
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    int reached, entered, plans;
    double sim_s, wall_s;
    double pitch_deg, roll_deg, dev_mean_m, dev_max_m;
} outcome;

static int run(const char *exe, const char *src, const char *world, const char *kind, outcome *o)
{
    char cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && '%s' run behaviors/terrain_nav.lua --quiet --world maps/%s.lua --kind %s "
             "--out /tmp/tycho-bench-terrain-%d 2>&1",
             src, exe, world, kind, (int)getpid());
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    char line[1024], what[64];
    int found = 0;
    *o = (outcome){0};
    while (fgets(line, sizeof line, p)) {
        double factor;
        if (sscanf(line, "summary: %63[^,], %*s robot, %lf s sim / %lf s wall (%lfx real time)",
                   what, &o->sim_s, &o->wall_s, &factor) == 4) {
            o->reached = !strcmp(what, "goal reached");
            found++;
        }
        double driven;
        if (sscanf(line, "summary: driven %lf m, %d plans", &driven, &o->plans) == 2) {
            found++;
            const char *a = strstr(line, "max pitch ");
            if (!a || sscanf(a,
                             "max pitch %lf deg, max roll %lf deg, deviation from plan mean %lf m "
                             "max %lf m",
                             &o->pitch_deg, &o->roll_deg, &o->dev_mean_m, &o->dev_max_m) != 4)
                found--; /* the summary line changed: say so rather than report zeros */
            const char *c = strstr(line, " untraversable cells entered");
            while (c && c > line && c[-1] != ' ') c--;
            o->entered = c ? atoi(c) : -1;
        }
    }
    pclose(p);
    return found == 2 ? 0 : -1;
}

int main(void)
{
    char self[PATH_MAX], exe[PATH_MAX + 8];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n < 0) return 1;
    self[n] = 0;
    snprintf(exe, sizeof exe, "%s/tycho", dirname(self));
    const char *src = getenv("TYCHO_SOURCE_DIR");
    if (!src) src = ".";
    const char *worlds[] = {"terrain_rough", "terrain_flat"}, *kinds[] = {"diff", "mecanum"};
    int pass = 1;
    double worst = 1e300;
    for (int wi = 0; wi < 2; wi++)
        for (int ki = 0; ki < 2; ki++) {
            double sim = 0, wall = 0;
            outcome o;
            for (int r = 0; r < 3; r++) {
                if (run(exe, src, worlds[wi], kinds[ki], &o) != 0) {
                    fprintf(stderr, "bench_terrain_nav: %s/%s: no summary (is %s built?)\n",
                            worlds[wi], kinds[ki], exe);
                    return 1;
                }
                sim += o.sim_s, wall += o.wall_s;
                if (o.sim_s / o.wall_s < worst) worst = o.sim_s / o.wall_s;
                pass = pass && o.reached && o.entered == 0;
            }
            printf(
                "%-14s %-8s goal %s, %d plans, %.1f s simulated in %.3f s wall: %.0fx real time; "
                "max pitch %.1f deg, roll %.1f deg, off the plan %.3f m mean, %.3f m max\n",
                worlds[wi], kinds[ki], o.reached ? "reached" : "NOT reached", o.plans, sim / 3,
                wall / 3, sim / wall, o.pitch_deg, o.roll_deg, o.dev_mean_m, o.dev_max_m);
            /* the figures the README quotes: every pairing's speed and plans, the rough
             * world's ride with the differential drive (runs are deterministic: the last) */
            char key[96], what[200];
            const char *fig[] = {"x_real_time", "plans",      "sim_s",    "pitch_deg",
                                 "roll_deg",    "dev_mean_m", "dev_max_m"};
            const char *unit[] = {"x_real_time", "plans", "s", "deg", "deg", "m", "m"};
            const char *doc[] = {"times real time (mean of 3)",
                                 "plans made",
                                 "simulated time to the goal",
                                 "largest pitch",
                                 "largest roll",
                                 "mean distance from the plan",
                                 "largest distance from the plan"};
            double val[] = {sim / wall, o.plans,      o.sim_s,    o.pitch_deg,
                            o.roll_deg, o.dev_mean_m, o.dev_max_m};
            int nfig = (wi == 0 && ki == 0) ? 7 : 2;
            for (int k = 0; k < nfig; k++) {
                snprintf(key, sizeof key, "terrain_nav.%s.%s.%s", worlds[wi] + 8, kinds[ki],
                         fig[k]);
                snprintf(what, sizeof what, "`bench_terrain_nav`: %s, %s robot, %s", worlds[wi],
                         kinds[ki], doc[k]);
                bench_result(key, val[k], unit[k], NULL, 0, what);
            }
        }
    pass = pass && worst >= 30;
    printf("terrain mission: slowest run %.0fx real time (target >= 30x) %s\n", worst,
           pass ? "PASS" : "FAIL");
    bench_result(
        "terrain_nav.slowest_x", pass ? worst : 0, "x_real_time", ">=", 30,
        "`bench_terrain_nav`: terrain mission, both worlds × diff/mecanum, 3 runs each, slowest "
        "(0 when a goal was missed)");
    char rm[128];
    snprintf(rm, sizeof rm, "rm -rf /tmp/tycho-bench-terrain-%d", (int)getpid());
    if (system(rm) != 0) fprintf(stderr, "could not clean up\n");
    return pass ? 0 : 1;
}
