/* JSON encoders of the Foxglove messages whose content is a loop over
 * cells, beams or pixels (grids, laser scans, colour-mapped images, pose
 * lists), and message templates: text with number placeholders filled in
 * at once. Plain C on a growable text buffer, so the same bytes come out
 * of the live view (bindings/l_viz.c, on the Lua thread) and of a
 * recording (encoded on the MCAP writer's thread from copies of the
 * inputs). Times are seconds; JSON has no infinity, so a beam without a
 * return is 0 and a number that is not finite is null. */
#ifndef TYCHO_VIZ_JSON_H
#define TYCHO_VIZ_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "tycho/common.h"
#include "tycho/text.h"

/* {"timestamp":{"sec":S,"nsec":N},"frame_id":"FRAME" (no closing brace) */
void tycho_viz_header(tycho_text *b, double t, const char *frame);

/* foxglove.Grid (one uint8 "cost" field) of the box round the cells that
 * are not unknown (TYCHO_COST_UNKNOWN); the cell (0, 0) when none is. */
void tycho_viz_grid(tycho_text *b, double t, const char *frame, const uint8_t *cells, int width,
                    int height, double resolution, tycho_pose2 origin);

/* foxglove.LaserScan in the frame's origin; ranges outside
 * [range_min, range_max) are 0, lengths to the millimetre. */
void tycho_viz_scan(tycho_text *b, double t, const char *frame, const float *ranges, int count,
                    double angle_min, double angle_increment, double range_min, double range_max);

/* foxglove.RawImage, rgb8: values (row-major) mapped lo..hi onto black -
 * red - yellow - white, as thermal viewers draw heat. */
void tycho_viz_image(tycho_text *b, double t, const char *frame, const double *values, int width,
                     int height, double lo, double hi);

/* foxglove.PosesInFrame of n poses (x, y, yaw triples), positions to the
 * millimetre. */
void tycho_viz_poses(tycho_text *b, double t, const char *frame, const double *xyyaw, size_t n);

/* Which of n points a list thinned to at most max keeps (max 0: all):
 * evenly spaced, the first and the last always kept; returns the count and
 * writes the 0-based indexes to pick (pick may be NULL to count). */
size_t tycho_viz_thin(size_t n, size_t max, size_t *pick);

/* Message templates. In the text:
 *   %T      the message time as {"sec":S,"nsec":N}
 *   %.Ng    the next number as printf's %.Ng (N 1..17; %.17g is exact)
 *   %d      the next number as an integer
 *   %F %D   the array, as base64 of little-endian float32 / float64 (exact)
 *   %%      a percent sign
 * A number that is not finite (or missing) is written null. */
#define TYCHO_TEMPLATE_MAX_NUMBERS 32

/* Checks a template: 0 and the count of numbers and whether it takes an
 * array, or -1 with a message naming the offset of a bad placeholder (or
 * too many numbers). */
int tycho_template_check(const char *text, size_t len, int *numbers, int *has_array,
                         tycho_err *err);
/* Fills in a checked template: numbers[0..n) (n as checked), the array. */
void tycho_template_format(tycho_text *b, const char *text, size_t len, double t,
                           const double *numbers, const double *array, size_t array_len);

#endif
