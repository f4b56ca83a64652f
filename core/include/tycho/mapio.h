/* ROS map_server map files (YAML + PGM/PNG image) with Nav2's semantics. */
#ifndef TYCHO_MAPIO_H
#define TYCHO_MAPIO_H

#include "tycho/grid.h"
#include "tycho/image.h"

typedef enum { TYCHO_MAP_TRINARY, TYCHO_MAP_SCALE, TYCHO_MAP_RAW } tycho_map_mode;

typedef struct {
    char image[4096];   /* path as resolved (relative to the YAML's folder) */
    double resolution;  /* metres per pixel */
    tycho_pose2 origin; /* pose of the lower-left pixel's outer corner */
    bool negate;
    double occupied_thresh; /* default 0.65 */
    double free_thresh;     /* default 0.25 */
    tycho_map_mode mode;    /* default trinary */
} tycho_map_meta;

/* Limits on the metadata: finite values outside them are refused as absurd
 * (a resolution of 1e-300 or an origin of 1e308 would overflow every
 * conversion to cells or pixels further on). */
#define TYCHO_MAP_MIN_RESOLUTION 1e-4 /* m per pixel */
#define TYCHO_MAP_MAX_RESOLUTION 1e3
#define TYCHO_MAP_MAX_ORIGIN 1e7 /* m, |x| and |y| */

void tycho_map_meta_defaults(tycho_map_meta *meta);

/* Parses a map_server YAML file (no image loading). Errors: "path:line: ...". */
tycho_status tycho_map_parse_yaml(const char *yaml_path, tycho_map_meta *meta, tycho_err *err);
tycho_status tycho_map_parse_yaml_mem(const char *text, size_t len, const char *name,
                                      tycho_map_meta *meta, tycho_err *err);

/* Converts an image to a grid with meta's thresholds, mode, negate and alpha
 * exactly as Nav2 does (scale mode: alpha < 255 -> unknown; trinary mode
 * averages alpha into the shade; raw ignores it -- see the block at the top
 * of core/mapio.c), flipping rows so grid row 0 is the image's bottom.
 * meta may be NULL (tycho_map_meta_defaults). */
tycho_grid *tycho_map_from_image(const tycho_image *img, const tycho_map_meta *meta,
                                 tycho_err *err);

/* YAML + image in one go; meta may be NULL. */
tycho_grid *tycho_map_load(const char *yaml_path, tycho_map_meta *meta, tycho_err *err);

/* Saves as map_saver does (trinary: 254 free, 0 occupied, 205 unknown; costs
 * >= 165 count as occupied, 255 as unknown, the rest as free) to
 * yaml_path plus an image beside it with the same stem (.pgm, or .png when
 * image_ext is "png"). Both files written atomically. */
tycho_status tycho_map_save(const tycho_grid *g, const char *yaml_path, const char *image_ext,
                            tycho_err *err);

#endif
