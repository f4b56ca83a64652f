/* Launcher sequencing (core/launcher.c): timings, refusals, safe state. */
#include "check.h"
#include "tycho/launcher.h"

#include <string.h>

static tycho_launcher fresh(void)
{
    tycho_launcher_params p;
    tycho_launcher_defaults(&p);
    p.spin_up_s = 1.0;
    p.feed_s = 0.2;
    p.feed_interval_s = 0.3;
    p.spin_down_s = 0.5;
    tycho_launcher l;
    CHECK(tycho_launcher_init(&l, &p, NULL) == TYCHO_OK);
    return l;
}

/* Balls asked for during a volley join it; beyond max_balls pending, refused. */
static void test_volley_joins(void)
{
    tycho_launcher l = fresh();
    tycho_launcher_outputs o;
    CHECK(tycho_launcher_arm(&l, 0, NULL) == TYCHO_OK);
    CHECK(tycho_launcher_fire(&l, 1, 0, NULL) == TYCHO_OK);
    CHECK(tycho_launcher_fire(&l, 1, 0.6, NULL) == TYCHO_OK); /* during the spin-up */
    tycho_err err = {0};
    CHECK(tycho_launcher_fire(&l, l.p.max_balls, 0.7, &err) == TYCHO_EINVAL);
    CHECK(strstr(err.msg, "pending") != NULL);
    int pushes = 0;
    for (double t = 0; t < 5; t += 0.01)
        if (tycho_launcher_step(&l, t, &o)) pushes++;
    CHECK(pushes == 2 && l.fired == 2 && l.state == TYCHO_LAUNCHER_ARMED);
}

static void test_sequence(void)
{
    tycho_launcher l = fresh();
    tycho_launcher_outputs o;
    tycho_launcher_step(&l, 0, &o);
    CHECK(!o.arm && o.esc_us == 1000 && o.feeder_us == 1000);   /* safe until armed */
    CHECK(tycho_launcher_fire(&l, 1, 0, NULL) == TYCHO_EINVAL); /* not armed */
    CHECK(tycho_launcher_arm(&l, 0, NULL) == TYCHO_OK);
    CHECK(tycho_launcher_fire(&l, 2, 10.0, NULL) == TYCHO_OK);
    /* spin-up: flywheels on, feeder at rest for exactly spin_up_s */
    tycho_launcher_step(&l, 10.99, &o);
    CHECK(o.arm && o.esc_us == 1600 && o.feeder_us == 1000);
    CHECK(tycho_launcher_step(&l, 11.0, &o)); /* the first ball is pushed at 11.0 */
    CHECK(o.feeder_us == 2000);
    tycho_launcher_step(&l, 11.19, &o);
    CHECK(o.feeder_us == 2000);
    tycho_launcher_step(&l, 11.21, &o); /* gap */
    CHECK(o.feeder_us == 1000 && o.esc_us == 1600 && l.fired == 1);
    CHECK(tycho_launcher_step(&l, 11.51, &o) && o.feeder_us == 2000); /* second ball */
    tycho_launcher_step(&l, 11.72, &o);                               /* spin-down */
    CHECK(l.state == TYCHO_LAUNCHER_SPIN_DOWN && o.esc_us == 1600 && l.fired == 2);
    tycho_launcher_step(&l, 12.23, &o);
    CHECK(l.state == TYCHO_LAUNCHER_ARMED && o.esc_us == 1000 && o.arm);
}

static void test_late_driver_catches_up(void)
{
    /* a driver that only steps once, long after, sees the whole sequence done */
    tycho_launcher l = fresh();
    tycho_launcher_arm(&l, 0, NULL);
    tycho_launcher_fire(&l, 3, 0, NULL);
    tycho_launcher_outputs o;
    tycho_launcher_step(&l, 100, &o);
    CHECK(l.fired == 3 && l.state == TYCHO_LAUNCHER_ARMED);
}

static void test_fault_is_safe_until_disarmed(void)
{
    tycho_launcher l = fresh();
    tycho_launcher_arm(&l, 0, NULL);
    tycho_launcher_fire(&l, 2, 0, NULL);
    tycho_launcher_outputs o;
    tycho_launcher_step(&l, 1.05, &o);
    CHECK(o.feeder_us == 2000);
    tycho_launcher_fault(&l, 1.1, "lost the ESC");
    tycho_launcher_step(&l, 1.1, &o);
    CHECK(!o.arm && o.esc_us == 1000 && o.feeder_us == 1000);
    tycho_err err = {0};
    CHECK(tycho_launcher_arm(&l, 2, &err) == TYCHO_EINVAL && strstr(err.msg, "lost the ESC"));
    CHECK(tycho_launcher_fire(&l, 1, 2, NULL) == TYCHO_EINVAL);
    tycho_launcher_disarm(&l, 3);
    CHECK(tycho_launcher_arm(&l, 3, NULL) == TYCHO_OK);
}

static void test_bad_params(void)
{
    tycho_launcher_params p;
    tycho_launcher_defaults(&p);
    p.esc_run_us = 3000;
    tycho_err err = {0};
    tycho_launcher l;
    CHECK(tycho_launcher_init(&l, &p, &err) == TYCHO_EINVAL && strstr(err.msg, "esc_run_us"));
    tycho_launcher_defaults(&p);
    p.spin_up_s = -1;
    CHECK(tycho_launcher_init(&l, &p, &err) == TYCHO_EINVAL && strstr(err.msg, "spin_up_s"));
    l = fresh();
    tycho_launcher_arm(&l, 0, NULL);
    CHECK(tycho_launcher_fire(&l, 0, 0, &err) == TYCHO_EINVAL && strstr(err.msg, "balls"));
}

int main(void)
{
    test_sequence();
    test_volley_joins();
    test_late_driver_catches_up();
    test_fault_is_safe_until_disarmed();
    test_bad_params();
    return check_summary("launcher");
}
