/* The ball launcher's sequencing, without any I/O: arming, flywheel spin-up,
 * feeding balls one by one, spin-down, and the safe state. A driver calls
 * tycho_launcher_step() on its own clock and applies the outputs to the
 * hardware (an arming line, the flywheel ESC and the feeder servo, both as
 * servo pulses); the simulator's twin can run the same sequencer.
 *
 * Safety: every path to trouble (disarm, safe stop, a fault reported by the
 * driver, a command it cannot take) ends in the safe outputs: arming line
 * low, ESC at its idle pulse (flywheels off), feeder at rest. */
#ifndef TYCHO_LAUNCHER_H
#define TYCHO_LAUNCHER_H

#include "tycho/common.h"

typedef struct {
    double spin_up_s;                   /* flywheels from idle to speed before the first ball */
    double feed_s;                      /* feeder held at the push position, per ball */
    double feed_interval_s;             /* feeder back at rest between balls */
    double spin_down_s;                 /* flywheels kept running after the last ball */
    int esc_idle_us, esc_run_us;        /* ESC pulse widths: off, running */
    int feeder_rest_us, feeder_push_us; /* servo pulse widths */
    int max_balls;                      /* per fire command */
} tycho_launcher_params;

typedef enum {
    TYCHO_LAUNCHER_DISARMED = 0,
    TYCHO_LAUNCHER_ARMED, /* idle, ready for a fire command */
    TYCHO_LAUNCHER_SPIN_UP,
    TYCHO_LAUNCHER_FEED,     /* feeder pushing a ball */
    TYCHO_LAUNCHER_FEED_GAP, /* feeder back at rest between balls */
    TYCHO_LAUNCHER_SPIN_DOWN,
    TYCHO_LAUNCHER_FAULT /* safe outputs until disarmed */
} tycho_launcher_state;

typedef struct {
    bool arm;      /* the arming / enable line */
    int esc_us;    /* flywheel ESC pulse width */
    int feeder_us; /* feeder servo pulse width */
} tycho_launcher_outputs;

typedef struct {
    tycho_launcher_params p;
    tycho_launcher_state state;
    double since;   /* when the current state began */
    int balls_left; /* of the current fire command */
    int fired;      /* balls pushed since arming */
    char fault[128];
} tycho_launcher;

void tycho_launcher_defaults(tycho_launcher_params *p);
tycho_status tycho_launcher_init(tycho_launcher *l, const tycho_launcher_params *p, tycho_err *err);

tycho_status tycho_launcher_arm(tycho_launcher *l, double now, tycho_err *err);
void tycho_launcher_disarm(tycho_launcher *l, double now);
/* n balls; refused unless armed. During a volley (spinning up, feeding)
 * they join it, up to max_balls pending; during the spin-down the flywheels
 * are still at speed and feeding starts again at once. */
tycho_status tycho_launcher_fire(tycho_launcher *l, int n, double now, tycho_err *err);
/* The driver lost the hardware (or the runtime is in safe stop): safe
 * outputs now, state FAULT with the reason until disarmed. */
void tycho_launcher_fault(tycho_launcher *l, double now, const char *reason);

/* Advances the sequence to `now` and gives the outputs to apply. Returns
 * true when a ball was pushed during this step. */
bool tycho_launcher_step(tycho_launcher *l, double now, tycho_launcher_outputs *out);
tycho_launcher_outputs tycho_launcher_safe_outputs(const tycho_launcher_params *p);
const char *tycho_launcher_state_name(tycho_launcher_state s);

#endif
