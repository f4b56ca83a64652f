/* Cell set: membership through growth, keys of negative coordinates, and
 * observe's beam selection (field of view, range) on a hand-made scan. */
#include "check.h"
#include "tycho/cell_set.h"

#include <math.h>

static void test_membership(void)
{
    tycho_err err = {0};
    tycho_cell_set *s = tycho_cell_set_new(0.1, &err);
    CHECK(s != NULL);
    /* 100 x 100 distinct cells, from -5 m to +5 m: the table grows many times */
    int added = 0;
    for (int i = 0; i < 100; i++)
        for (int j = 0; j < 100; j++) added += tycho_cell_set_add(s, -5 + i * 0.1, -5 + j * 0.1);
    CHECK(added == 10000 && tycho_cell_set_count(s) == 10000);
    bool all = true;
    for (int i = 0; i < 100; i++)
        for (int j = 0; j < 100; j++)
            if (!tycho_cell_set_has(s, -5 + i * 0.1 + 0.03, -5 + j * 0.1 - 0.03)) all = false;
    CHECK(all);
    CHECK(!tycho_cell_set_has(s, 5.2, 0) && !tycho_cell_set_has(s, 0, -5.2));
    CHECK(tycho_cell_set_add(s, -0.04, 0.04) == 0); /* cell (0, 0), there already */
    CHECK(tycho_cell_set_add(s, NAN, 0) == 0);      /* ignored */
    CHECK(!tycho_cell_set_has(s, INFINITY, 0));
    tycho_cell_set_free(s);
    CHECK(tycho_cell_set_new(0, &err) == NULL && err.code == TYCHO_EINVAL);
}

static void test_observe(void)
{
    tycho_err err = {0};
    tycho_cell_set *s = tycho_cell_set_new(0.05, &err);
    tycho_scan scan;
    CHECK(tycho_scan_init(&scan, 4, 0, M_PI / 2, 0.01, 10, &err) == TYCHO_OK);
    /* beams ahead, left, behind, right: 1 m, 1 m, 1 m, 3 m */
    scan.ranges[0] = scan.ranges[1] = scan.ranges[2] = 1;
    scan.ranges[3] = 3;
    size_t added = 0;
    /* a camera looking ahead with a 60 deg field: only the beam ahead, the
     * 9 cells round the point a cell short of its end (0.95, 0): the wall
     * cell hit and the free side, not the cell beyond a one-cell wall */
    CHECK(tycho_cell_set_observe(s, (tycho_pose2){0, 0, 0}, &scan, 0, M_PI / 3, 1.5, &added,
                                 &err) == TYCHO_OK);
    CHECK(added == 9 && tycho_cell_set_has(s, 1, 0) && tycho_cell_set_has(s, 0.95, 0) &&
          tycho_cell_set_has(s, 0.9, 0.05));
    CHECK(!tycho_cell_set_has(s, 1.05, 0) && !tycho_cell_set_has(s, 0, 1));
    /* looking right (-90 deg): the beam there is beyond max_range */
    CHECK(tycho_cell_set_observe(s, (tycho_pose2){0, 0, 0}, &scan, -M_PI / 2, M_PI / 3, 1.5, &added,
                                 &err) == TYCHO_OK);
    CHECK(added == 0);
    /* the robot turned a quarter: the beam ahead ends at (0, 1) */
    CHECK(tycho_cell_set_observe(s, (tycho_pose2){0, 0, M_PI / 2}, &scan, 0, M_PI / 3, 1.5, &added,
                                 &err) == TYCHO_OK);
    CHECK(added == 9 && tycho_cell_set_has(s, 0, 1) && !tycho_cell_set_has(s, 0, 1.05));
    CHECK(tycho_cell_set_observe(s, (tycho_pose2){0, 0, 0}, &scan, 0, 0, 1.5, &added, &err) ==
          TYCHO_EINVAL);
    tycho_scan_free(&scan);
    tycho_cell_set_free(s);
}

int main(void)
{
    test_membership();
    test_observe();
    return check_summary("test_cell_set");
}
