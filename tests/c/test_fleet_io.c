/* Fleet input files, and the 32-robot warehouse planned end to end with an
 * independent conflict check (one goal set here; all in bench_fleet). */
#include "check.h"
#include "tycho/fleet_io.h"
#include "tycho/inflation.h"
#include "tycho/mapf.h"
#include "tycho/mapio.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char WORLD[] = "define floorplan model\n(\n  size [ 40 40 1 ]\n)\n"
                            "pioneer\n(\n  name \"robot_1\"\n  pose [ -10 19 0 -90 ]\n)\n"
                            "pioneer\n(\n  name \"robot_0\"\n  pose [ -14 19 0 90 ]\n)\n";
static const char GOALS[] =
    "tuw_multi_robot_msgs::RobotGoalsArray @1970-01-01T00:01:42.400000\nframe_id: map\n"
    "robot_0\n   -18.5,  2.0,  0,  0,  0,  0.7071068,  0.7071068\n"
    "robot_1\n    17.9, 10.3,  0,  0,  0,  0,  1\n";

int main(void)
{
    tycho_err err = {0};
    tycho_fleet_pose *p;
    int n;
    CHECK(tycho_stage_poses(WORLD, strlen(WORLD), "w", &p, &n, &err) == TYCHO_OK && n == 2);
    CHECK(p[0].robot == 0 && p[0].x == -14 && p[0].y == 19 && fabs(p[0].yaw - M_PI / 2) < 1e-12);
    CHECK(p[1].robot == 1 && p[1].x == -10);
    free(p);
    CHECK(tycho_goal_file(GOALS, strlen(GOALS), "g", &p, &n, &err) == TYCHO_OK && n == 2);
    CHECK(p[0].x == -18.5 && fabs(p[0].yaw - M_PI / 2) < 1e-6 && p[1].yaw == 0);
    free(p);
    /* malformed input: file:line, nothing returned */
    const char bad1[] = "name \"robot_0\"\npose [ 1 2 oops ]\n";
    CHECK(tycho_stage_poses(bad1, strlen(bad1), "w", &p, &n, &err) == TYCHO_EPARSE && !p && n == 0);
    CHECK(strstr(err.msg, "w:2:") != NULL);
    const char bad2[] = "robot_0\n1, 2, 3\n";
    CHECK(tycho_goal_file(bad2, strlen(bad2), "g", &p, &n, &err) == TYCHO_EPARSE && !p);
    CHECK(strstr(err.msg, "g:2:") != NULL);
    const char bad3[] = "robot_0\n";
    CHECK(tycho_goal_file(bad3, strlen(bad3), "g", &p, &n, &err) == TYCHO_EPARSE);
    CHECK(strstr(err.msg, "no pose line") != NULL);
    const char dup[] = "robot_0\n1,2,0,0,0,0,1\nrobot_0\n3,4,0,0,0,0,1\n";
    CHECK(tycho_goal_file(dup, strlen(dup), "g", &p, &n, &err) == TYCHO_EPARSE);
    CHECK(strstr(err.msg, "robot_0 appears twice") != NULL);
    CHECK(tycho_goal_file("", 0, "g", &p, &n, &err) == TYCHO_EPARSE);

    /* the warehouse, 32 robots, goal set 0 */
    char path[4096];
    tycho_grid *map =
        tycho_map_load(test_data(path, sizeof path, "warehouse/map.yaml"), NULL, &err);
    if (!CHECKED(map != NULL, err.msg)) return check_summary("fleet_io");
    tycho_grid *cost = tycho_grid_copy(map, &err);
    tycho_inflation *ws = tycho_inflation_new();
    tycho_inflation_params ip;
    tycho_inflation_defaults(&ip);
    ip.inscribed_radius = ip.inflation_radius = 0.3;
    CHECK(tycho_inflate(ws, map, cost, &ip, &err) == TYCHO_OK);
    char *text;
    size_t len;
    tycho_fleet_pose *st = NULL, *gl = NULL;
    int ns = 0, ng = 0;
    if (CHECKED(tycho_read_text_file(test_data(path, sizeof path, "warehouse/stage.world"), &text,
                                     &len, &err) == TYCHO_OK,
                err.msg)) {
        CHECK_MSG(tycho_stage_poses(text, len, "stage.world", &st, &ns, &err) == TYCHO_OK, "%s",
                  err.msg);
        free(text);
    }
    if (CHECKED(
            tycho_read_text_file(test_data(path, sizeof path, "warehouse/goals032/goals000.txt"),
                                 &text, &len, &err) == TYCHO_OK,
            err.msg)) {
        CHECK_MSG(tycho_goal_file(text, len, "goals000.txt", &gl, &ng, &err) == TYCHO_OK, "%s",
                  err.msg);
        free(text);
    }
    if (!CHECKED(ns == 32 && ng >= 32, NULL)) {
        free(st);
        free(gl);
        tycho_inflation_free(ws);
        tycho_grid_free(cost);
        tycho_grid_free(map);
        return check_summary("fleet_io");
    }
    double s[64], g[64];
    for (int i = 0; i < 32; i++)
        s[2 * i] = st[i].x, s[2 * i + 1] = st[i].y, g[2 * i] = gl[i].x, g[2 * i + 1] = gl[i].y;
    tycho_mapf *m = tycho_mapf_new(cost, NULL, &err);
    CHECK(m && tycho_mapf_plan(m, 32, s, g, &err) == TYCHO_OK);
    int bad = 0;
    for (int t = 0; t < 200; t++)
        for (int i = 0; i < 32; i++)
            for (int j = i + 1; j < 32; j++) {
                int a0 = tycho_mapf_vertex_at_step(m, i, t),
                    a1 = tycho_mapf_vertex_at_step(m, i, t + 1);
                int b0 = tycho_mapf_vertex_at_step(m, j, t),
                    b1 = tycho_mapf_vertex_at_step(m, j, t + 1);
                if (a0 == b0 || (a0 == b1 && a1 == b0 && a0 != a1)) bad++;
            }
    CHECK(bad == 0);
    for (int i = 0; i < 32; i++) {
        double x, y;
        tycho_mapf_vertex_xy(m, tycho_mapf_vertex_at_step(m, i, 1000), &x, &y);
        CHECK(hypot(x - g[2 * i], y - g[2 * i + 1]) <= 1.0 * M_SQRT2); /* at its goal's vertex */
    }
    tycho_mapf_free(m);
    free(st);
    free(gl);
    tycho_inflation_free(ws);
    tycho_grid_free(cost);
    tycho_grid_free(map);
    return check_summary("fleet_io");
}
