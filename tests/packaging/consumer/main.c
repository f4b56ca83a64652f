/* A program of someone else's built against an installed tycho (through
 * find_package(tycho) or pkg-config): loads a map_server map and plans
 * across it with the public C API. Prints the path and exits 0 when a path
 * was found, 1 otherwise.
 *   consumer MAP.yaml SX SY GX GY   (world coordinates, metres) */
#include <stdio.h>
#include <stdlib.h>

#include <tycho/mapio.h>
#include <tycho/planner.h>

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: consumer MAP.yaml SX SY GX GY\n");
        return 2;
    }
    tycho_err err = {0};
    tycho_map_meta meta;
    tycho_grid *g = tycho_map_load(argv[1], &meta, &err);
    if (!g) {
        fprintf(stderr, "consumer: %s\n", err.msg);
        return 1;
    }
    int sx, sy, gx, gy;
    if (!tycho_grid_world_to_cell(g, atof(argv[2]), atof(argv[3]), &sx, &sy) ||
        !tycho_grid_world_to_cell(g, atof(argv[4]), atof(argv[5]), &gx, &gy)) {
        fprintf(stderr, "consumer: start or goal outside the map\n");
        tycho_grid_free(g);
        return 1;
    }
    tycho_cell s = {sx, sy}, goal = {gx, gy};
    tycho_planner *p = tycho_planner_new();
    tycho_path path;
    tycho_path_init(&path);
    int rc = 1;
    if (p && tycho_planner_prepare(p, g, NULL, &err) == TYCHO_OK &&
        tycho_planner_find(p, s, goal, &path, &err) == TYCHO_OK) {
        printf("path: %zu cells, %.2f cells long, %s\n", path.count, path.length,
               tycho_status_name(TYCHO_OK));
        rc = 0;
    } else {
        fprintf(stderr, "consumer: %s\n", err.msg);
    }
    tycho_path_release(&path);
    tycho_planner_free(p);
    tycho_grid_free(g);
    return rc;
}
