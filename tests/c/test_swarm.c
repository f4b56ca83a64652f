/* Potential-field avoidance: the shapes match the figures, and two
 * robots meeting head-on stall without the side step and pass with it. */
#include "check.h"
#include "tycho/swarm.h"

#include <math.h>

static double run_head_on(const tycho_swarm_params *p, bool *both_arrived, double *t_end)
{
    tycho_vec2 pos[2] = {{0, 0}, {40, 0}}, goal[2] = {{40, 0}, {0, 0}};
    tycho_swarm_state st[2] = {{0}};
    double dmin = INFINITY, t = 0, dt = 0.1;
    bool arrived[2] = {false, false};
    for (; t < 300 && !(arrived[0] && arrived[1]); t += dt) {
        tycho_swarm_cmd c[2];
        for (int i = 0; i < 2; i++)
            tycho_swarm_command(p, &st[i], t, pos[i], goal[i], &pos[1 - i], 1, &c[i]);
        for (int i = 0; i < 2; i++) {
            pos[i].x += c[i].velocity.x * dt;
            pos[i].y += c[i].velocity.y * dt;
            arrived[i] = c[i].arrived;
        }
        double d = hypot(pos[0].x - pos[1].x, pos[0].y - pos[1].y);
        if (d < dmin) dmin = d;
    }
    *both_arrived = arrived[0] && arrived[1];
    *t_end = t;
    return dmin;
}

int main(void)
{
    tycho_swarm_params p;
    tycho_swarm_defaults(&p);
    tycho_err err = {0};
    CHECK(tycho_swarm_validate(&p, &err) == TYCHO_OK);

    /* repulsion at 3 / 4.5 / 7.5 / 10.5 m with the defaults (3, 6, 12) */
    const double d[4] = {3, 4.5, 7.5, 10.5};
    const double lin[4] = {1, .8333, .5, .1667}, ex[4] = {1, .7818, .4142, .1225};
    for (int i = 0; i < 4; i++) {
        p.repulse_shape = TYCHO_SHAPE_LIN;
        CHECK_NEAR(tycho_swarm_repulsion(&p, d[i]), lin[i], 5e-5);
        p.repulse_shape = TYCHO_SHAPE_EXP;
        CHECK_NEAR(tycho_swarm_repulsion(&p, d[i]), ex[i], 5e-5);
    }
    CHECK(tycho_swarm_repulsion(&p, 1.0) == 1 && tycho_swarm_repulsion(&p, 12.5) == 0);
    /* attraction with the closest neighbour at 3 / 3.75 / 4.5 / 5.25 / 6 m */
    const double c[5] = {3, 3.75, 4.5, 5.25, 6};
    const double alin[5] = {0, .25, .5, .75, 1}, asin_[5] = {0, .1464, .5, .8536, 1};
    for (int i = 0; i < 5; i++) {
        p.attract_shape = TYCHO_SHAPE_LIN;
        CHECK_NEAR(tycho_swarm_attraction(&p, c[i]), alin[i], 5e-5);
        p.attract_shape = TYCHO_SHAPE_SIN;
        CHECK_NEAR(tycho_swarm_attraction(&p, c[i]), asin_[i], 5e-5);
    }
    CHECK(tycho_swarm_attraction(&p, INFINITY) == 1);
    /* the other shapes: ends fixed, monotone */
    for (int s = TYCHO_SHAPE_LIN; s <= TYCHO_SHAPE_CONST; s++) {
        CHECK(tycho_shape_eval((tycho_shape)s, 0) == 0 && tycho_shape_eval((tycho_shape)s, 1) == 1);
        CHECK(tycho_shape_eval((tycho_shape)s, 0.3) <= tycho_shape_eval((tycho_shape)s, 0.7));
        CHECK(tycho_shape_from_name(tycho_shape_name((tycho_shape)s)) == s);
    }
    CHECK_NEAR(tycho_shape_eval(TYCHO_SHAPE_LI2, 0.5), 0.25, 1e-12);
    CHECK_NEAR(tycho_shape_eval(TYCHO_SHAPE_LOG, 0.5), log2(1.5), 1e-12);
    CHECK(tycho_shape_from_name("cubic") == -1);

    /* speed: 0 at dist_critical/2, full at dist_repulse/2 */
    tycho_swarm_defaults(&p);
    tycho_swarm_state st = {0};
    tycho_swarm_cmd cmd;
    tycho_vec2 nb = {0, 3.75};
    tycho_swarm_command(&p, &st, 0, (tycho_vec2){0, 0}, (tycho_vec2){10, 0}, &nb, 1, &cmd);
    CHECK_NEAR(cmd.speed_factor, (3.75 - 1.5) / (6 - 1.5), 1e-12);
    CHECK_NEAR(hypot(cmd.velocity.x, cmd.velocity.y), cmd.speed_factor * p.max_speed, 1e-12);
    CHECK(cmd.velocity.y < 0); /* pushed away from the neighbour above */

    /* head-on: without the side step they stop short of each other ... */
    tycho_swarm_params stuck = p;
    stuck.escape_time = 0;
    bool arrived;
    double t_end;
    double dmin = run_head_on(&stuck, &arrived, &t_end);
    CHECK(!arrived);
    CHECK(dmin > p.dist_critical);
    /* ... with it (everyone keeps right) both pass and arrive, never closer
     * than dist_critical / 2 */
    dmin = run_head_on(&p, &arrived, &t_end);
    CHECK(arrived);
    CHECK(dmin > p.dist_critical / 2);
    CHECK(t_end < 200);

    /* bad parameters are named */
    p.dist_attract = 2;
    CHECK(tycho_swarm_validate(&p, &err) == TYCHO_EINVAL);
    return check_summary("swarm");
}
