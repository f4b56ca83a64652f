/* The fleet simulator (core/fleet_sim.c): gating at waypoints, injected
 * stops, contact detection and the emergency stop, determinism. */
#include "check.h"
#include "tycho/fleet_sim.h"

#include <string.h>

static tycho_fleet *line_fleet(int n)
{
    tycho_fleet_params p;
    tycho_fleet_defaults(&p);
    tycho_fleet *f = tycho_fleet_new(n, &p, NULL);
    CHECK(f != NULL);
    return f;
}

static void run(tycho_fleet *f, double seconds)
{
    int steps = (int)(seconds / 0.05 + 0.5);
    for (int k = 0; k < steps; k++) tycho_fleet_step(f);
}

static void test_holds_where_not_allowed(void)
{
    tycho_fleet *f = line_fleet(1);
    const double route[] = {0, 0, 1, 0, 2, 0, 3, 0};
    tycho_fleet_set_pose(f, 0, 0, 0, 0, NULL);
    CHECK(tycho_fleet_set_route(f, 0, route, 4, NULL) == TYCHO_OK);
    tycho_fleet_allow(f, 0, 2);
    run(f, 10);
    double x, y, yaw;
    tycho_fleet_pose(f, 0, &x, &y, &yaw);
    CHECK(tycho_fleet_reached(f, 0) == 2);
    CHECK_MSG(fabs(x - 2) < 1e-9 && fabs(y) < 1e-9,
              "stopped at (%g, %g), not at the last allowed waypoint", x, y);
    tycho_fleet_stats st = tycho_fleet_robot_stats(f, 0);
    CHECK(st.waits == 1 && st.wait_time > 5);
    CHECK(fabs(st.distance - 2) < 1e-6);
    /* the same permission again (a supervisor re-sending it) after it
     * braked there: it stays (it once ran one waypoint past its grant) */
    tycho_fleet_allow(f, 0, 2);
    run(f, 2);
    CHECK(tycho_fleet_reached(f, 0) == 2);
    tycho_fleet_allow(f, 0, 3);
    run(f, 5);
    CHECK(tycho_fleet_reached(f, 0) == 3 && !tycho_fleet_moving(f, 0));
    /* it never went faster than v_max: 3 m takes at least 5 s */
    tycho_fleet_free(f);
}

static void test_turns_in_place_at_corners(void)
{
    tycho_fleet *f = line_fleet(1);
    const double route[] = {0, 0, 1, 0, 1, 1};
    tycho_fleet_set_pose(f, 0, 0, 0, 0, NULL);
    tycho_fleet_set_route(f, 0, route, 3, NULL);
    tycho_fleet_allow(f, 0, 2);
    /* every pose stays on the two edges of the route */
    double worst = 0;
    for (int k = 0; k < 200; k++) {
        tycho_fleet_step(f);
        double x, y, yaw;
        tycho_fleet_pose(f, 0, &x, &y, &yaw);
        double off = fmin(fabs(y) + fmax(0, x - 1), fabs(x - 1) + fmax(0, -y));
        if (off > worst) worst = off;
    }
    CHECK_MSG(worst < 1e-9, "left the route by %g m", worst);
    CHECK(tycho_fleet_reached(f, 0) == 2);
    tycho_fleet_free(f);
}

static void test_injected_stop(void)
{
    tycho_fleet *f = line_fleet(1);
    const double route[] = {0, 0, 1, 0};
    tycho_fleet_set_route(f, 0, route, 2, NULL);
    tycho_fleet_allow(f, 0, 1);
    tycho_fleet_stop_until(f, 0, 4.0);
    run(f, 3.9);
    CHECK(tycho_fleet_reached(f, 0) <= 0 && tycho_fleet_stopped(f, 0));
    run(f, 4);
    CHECK(tycho_fleet_reached(f, 0) == 1 && !tycho_fleet_stopped(f, 0));
    CHECK(tycho_fleet_robot_stats(f, 0).stop_time > 3.8);
    tycho_fleet_free(f);
}

static void test_contact_stops_everyone(void)
{
    /* two robots sent at each other along one line, with nobody gating */
    tycho_fleet *f = line_fleet(3);
    const double a[] = {0, 0, 4, 0}, b[] = {4, 0, 0, 0}, c[] = {0, 5, 8, 5};
    tycho_fleet_set_pose(f, 0, 0, 0, 0, NULL);
    tycho_fleet_set_pose(f, 1, 4, 0, M_PI, NULL);
    tycho_fleet_set_pose(f, 2, 0, 5, 0, NULL);
    tycho_fleet_set_route(f, 0, a, 2, NULL);
    tycho_fleet_set_route(f, 1, b, 2, NULL);
    tycho_fleet_set_route(f, 2, c, 2, NULL);
    for (int i = 0; i < 3; i++) tycho_fleet_allow(f, i, 1);
    int contacts = 0, steps = 0;
    while (!contacts && steps < 400) {
        contacts = tycho_fleet_step(f);
        steps++;
    }
    CHECK(contacts == 1 && tycho_fleet_collisions(f) == 1 && tycho_fleet_estopped(f));
    double x0, x1, y, yaw, cx;
    tycho_fleet_pose(f, 0, &x0, &y, &yaw);
    tycho_fleet_pose(f, 1, &x1, &y, &yaw);
    CHECK_MSG(x1 - x0 < 0.44 && x1 - x0 > 0.3, "met at a gap of %g m", x1 - x0);
    CHECK(tycho_fleet_min_clearance(f) < 0);
    /* everyone stands still from then on, the bystander too */
    tycho_fleet_pose(f, 2, &cx, &y, &yaw);
    run(f, 2);
    double cx2;
    tycho_fleet_pose(f, 2, &cx2, &y, &yaw);
    CHECK(cx2 == cx && tycho_fleet_collisions(f) == 1);
    tycho_fleet_free(f);
}

static void test_bad_input(void)
{
    tycho_fleet_params p;
    tycho_fleet_defaults(&p);
    tycho_err err = {0};
    CHECK(tycho_fleet_new(0, &p, &err) == NULL && strstr(err.msg, "1 to 1024 robots"));
    p.dt = 0;
    CHECK(tycho_fleet_new(2, &p, &err) == NULL);
    tycho_fleet *f = line_fleet(2);
    const double nan_route[] = {0, 0, NAN, 1};
    CHECK(tycho_fleet_set_route(f, 1, nan_route, 2, &err) == TYCHO_EINVAL &&
          strstr(err.msg, "robot 1: waypoint 1"));
    CHECK(tycho_fleet_set_route(f, 5, nan_route, 2, &err) == TYCHO_EINVAL);
    tycho_fleet_free(f);
}

int main(void)
{
    test_holds_where_not_allowed();
    test_turns_in_place_at_corners();
    test_injected_stop();
    test_contact_stops_everyone();
    test_bad_input();
    return check_summary("fleet_sim");
}
