/* Route graphs for fleet planning, built from a costmap (Nav2 costs,
 * inflated for the robot: a vertex or edge is usable where every cell it
 * covers is below 253).
 *
 * Grid graph: vertices at the centres of square cells of `cell` metres
 * whose centres lie at integer multiples of `cell` in world coordinates (a
 * 1 m graph has its vertices on whole metres, where warehouse aisles
 * usually are), joined to their 4 or 8 neighbours.
 *
 * Sparse graph: the free space's skeleton (its medial axis, by thinning),
 * with vertices at junctions and dead ends and every `spacing` metres along
 * the corridors between them, so one step of the planner is about one
 * spacing of travel. Each edge knows its length along the skeleton and the
 * narrowest free width it passes (twice the distance to the nearest
 * obstacle), so a planner or a person can tell a wide aisle from a squeeze.
 *
 * Both are stored the same way: vertex positions and, per vertex, its
 * neighbours (compressed rows), with edge lengths and widths. */
#ifndef TYCHO_GRAPH_H
#define TYCHO_GRAPH_H

#include "tycho/common.h"
#include "tycho/grid.h"

typedef struct {
    int V, E;       /* vertices; adjacency entries (two per edge) */
    double *x, *y;  /* vertex positions, world metres */
    int *off, *adj; /* neighbours of v: adj[off[v]] .. adj[off[v + 1] - 1] */
    double *length; /* per adjacency entry: metres along the map */
    double *width;  /* per adjacency entry: narrowest free width, metres */
    int max_degree;
    /* grid graphs: the lattice (gw x gh cells, vertex id or -1), so that
     * crossing diagonal moves can be found; gw = 0 for a sparse graph */
    int gw, gh;
    long ix0, iy0;
    double cell;
    int *lattice;
} tycho_graph;

/* connectivity 4 or 8. */
tycho_graph *tycho_graph_grid(const tycho_grid *costmap, double cell, int connectivity,
                              tycho_err *err);
/* spacing: metres between vertices along a corridor (> 0). */
tycho_graph *tycho_graph_sparse(const tycho_grid *costmap, double spacing, tycho_err *err);
void tycho_graph_free(tycho_graph *g);
/* The vertex nearest to (x, y) within max_dist, or -1. */
int tycho_graph_nearest(const tycho_graph *g, double x, double y, double max_dist);
bool tycho_graph_adjacent(const tycho_graph *g, int a, int b);

/* For the builders: vertices and undirected edges collected, then packed. */
typedef struct {
    int V, E, vcap, ecap;
    double *x, *y;
    int *ea, *eb;
    double *elen, *ewid;
} tycho_graph_builder;

int tycho_graph_builder_vertex(tycho_graph_builder *b, double x, double y);
bool tycho_graph_builder_edge(tycho_graph_builder *b, int a, int c, double length, double width);
/* Packs into a graph (frees the builder's arrays); NULL on ENOMEM. */
tycho_graph *tycho_graph_builder_pack(tycho_graph_builder *b, tycho_err *err);
void tycho_graph_builder_free(tycho_graph_builder *b);

#endif
