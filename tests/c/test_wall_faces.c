/* Wall faces: obstacle cells next to known free cells. */
#include "check.h"
#include "tycho/regions.h"

typedef struct {
    int n, last_cx, last_cy, last_nx, last_ny;
} seen;

static void count(void *ud, int cx, int cy, int nx, int ny)
{
    seen *s = ud;
    s->n++;
    s->last_cx = cx, s->last_cy = cy, s->last_nx = nx, s->last_ny = ny;
}

int main(void)
{
    tycho_err err = {0};
    /* 10 x 6, all unknown; a free room x 1..8, y 1..4; walls around it */
    tycho_grid *g = tycho_grid_new(10, 6, 0.1, (tycho_pose2){0, 0, 0}, 255, &err);
    CHECK(g != NULL);
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 10; x++)
            tycho_grid_set(g, x, y, (x == 0 || y == 0 || x == 9 || y == 5) ? 254 : 0);
    seen s = {0};
    /* faces: 8 bottom + 8 top + 4 left + 4 right; the corners touch no free
     * 4-neighbour */
    CHECK(tycho_wall_faces(g, 254, 0, count, &s) == 24);
    CHECK(s.n == 24);
    /* the last in row-major order is the top wall's cell (8, 5), facing down */
    CHECK(s.last_cx == 8 && s.last_cy == 5 && s.last_nx == 0 && s.last_ny == -1);
    /* an unknown cell next to the wall is not free: no face there */
    tycho_grid_set(g, 1, 1, 255);
    CHECK(tycho_wall_faces(g, 254, 0, NULL, NULL) == 22);
    /* an inflated cell (200) does not count as free unless free_max allows */
    tycho_grid_set(g, 1, 1, 200);
    CHECK(tycho_wall_faces(g, 254, 0, NULL, NULL) == 22);
    CHECK(tycho_wall_faces(g, 254, 252, NULL, NULL) == 24);
    /* a lower threshold makes the 200 cell an obstacle with two free sides
     * (+x and +y: two faces), and the walls beside it lose theirs */
    CHECK(tycho_wall_faces(g, 200, 0, NULL, NULL) == 24);
    /* a wall one cell thick across the room (x = 5, y 1..4): both of its
     * sides are faces, facing opposite ways */
    tycho_grid_set(g, 1, 1, 0);
    for (int y = 1; y <= 4; y++) tycho_grid_set(g, 5, y, 254);
    s = (seen){0};
    CHECK(tycho_wall_faces(g, 254, 0, count, &s) == 24 - 2 + 8);
    CHECK(s.n == 30);
    tycho_grid_free(g);
    return check_summary("wall_faces");
}
