/* The picture type, shared by the files that draw into one (render.c,
 * render_terrain.c). */
#ifndef TYCHO_RENDER_INTERNAL_H
#define TYCHO_RENDER_INTERNAL_H
#include "tycho/render.h"

struct tycho_picture {
    tycho_image img;
    int scale;
    int grid_w, grid_h;
    double resolution;
    tycho_pose2 origin;
    double cos_yaw, sin_yaw;
};

/* An all-black picture of a w x h cell grid with that transform. */
tycho_picture *tycho_picture_alloc(int w, int h, double resolution, tycho_pose2 origin, int scale,
                                   tycho_err *err);
#endif
