/* Jump point search for uniform-cost 8-connected grids without corner
 * cutting, with block-based (64 cells per word) straight jumps.
 *
 * Pruning rules for this variant (a diagonal step needs both orthogonal
 * neighbours free):
 *   - moving diagonally there are no forced neighbours: any cell beside the
 *     diagonal is reached at least as cheaply through one of the two free
 *     orthogonal cells, so only the two straight directions and the diagonal
 *     continue;
 *   - moving straight, say east into (x, y), the cell (x, y+1) is forced when
 *     it is free and (x-1, y+1) is blocked: the parent cannot step to it
 *     diagonally (corner), so it must be reached through (x, y). Then north
 *     and north-east continue from (x, y). Likewise for the other side.
 * A straight jump therefore stops at the first cell whose side neighbour is
 * free while the one behind it is blocked, at the goal, or dies at a wall.
 * On bit rows (for east/west) and bit columns (north/south) that is one
 * unaligned load and a count of trailing zeros per 56 cells, on "stop lines"
 * derived with each snapshot; "reach lines", also derived with it, say in
 * one bit whether a scan from a cell will find a jump point at all, so the
 * many scans of a diagonal walk that would die at a wall are never run.
 * Both are a few word operations per 64 cells of the map, rebuilt whenever
 * the costmap changes; no jump point is precomputed.
 *
 * Intermediate cells of diagonal jumps are not put on the open list: when a
 * straight scan from diagonal cell c finds a jump point j, j is generated
 * directly with the diagonal's origin as parent (the cells in between are
 * recovered as "diagonal first, then straight"), and the diagonal walk goes
 * on. Only straight arrivals (and the start) are ever expanded. */
#include "planner_internal.h"

#include <stdlib.h>

/* Arrival directions kept in bits 29..31 of the parent field. */
enum { D_E, D_W, D_N, D_S, D_DIAG };
#define DIR_SHIFT 29

/* Bit lines: cell x of row y is bit x + 64 of row line y + 1 (rows -1 and h
 * are all zero, as are bits 0..63 and everything past x = w - 1), so scans
 * stop at the border without bounds checks. Columns likewise with y.
 *
 * Beside each passable line lie its two stop lines, one per scan direction:
 * a bit is set where a straight scan moving that way must stop, at a wall
 * or at a cell with a forced neighbour (side cell free, the one behind it
 * blocked). They are derived from the passable lines in a few word
 * operations per 64 cells when the snapshot changes -- no jump point is
 * precomputed, so a changed costmap costs what building the bit lines
 * costs -- and they let a scan read one line instead of three. */
#define PAD 64
/* The planes beside each passable line (PLANE_FREE): its stop lines and
 * reach lines (see reach_lines) for scans up (towards higher x or y) and
 * down. */
enum { PLANE_FREE, PLANE_UP, PLANE_DOWN, PLANE_REACH_UP, PLANE_REACH_DOWN, NPLANES };

/* Stop lines of line L (n words) between side lines A and B. */
static void stop_lines(const uint64_t *L, const uint64_t *A, const uint64_t *B, size_t n,
                       uint64_t *up, uint64_t *down)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t a = A[i], b = B[i];
        uint64_t a_lo = i ? A[i - 1] >> 63 : 0, b_lo = i ? B[i - 1] >> 63 : 0;
        uint64_t a_hi = i + 1 < n ? A[i + 1] << 63 : 0, b_hi = i + 1 < n ? B[i + 1] << 63 : 0;
        /* moving up, the cell behind a side cell is the one below it */
        up[i] = ~L[i] | (a & ~((a << 1) | a_lo)) | (b & ~((b << 1) | b_lo));
        down[i] = ~L[i] | (a & ~((a >> 1) | a_hi)) | (b & ~((b >> 1) | b_hi));
    }
}

/* Reach lines of a line of n words: bit x is set when a scan from x (x
 * itself excluded) meets a jump point before a wall -- the next stop beyond
 * x (a wall or a forced cell: the stop line's bits) is a forced cell (one
 * that is free in passable line L). A diagonal walk tests this one bit
 * before paying for a scan, and most of its scans find nothing. Computed
 * 64 cells at a time: each forced cell's mark is filled back through the
 * free cells before it that are no stop (a Kogge-Stone occluded fill), the
 * words taken from the scan's far end so the fill carries between them. */
static uint64_t fill_down(uint64_t gen, uint64_t prop)
{
    gen |= prop & (gen >> 1);
    prop &= prop >> 1;
    gen |= prop & (gen >> 2);
    prop &= prop >> 2;
    gen |= prop & (gen >> 4);
    prop &= prop >> 4;
    gen |= prop & (gen >> 8);
    prop &= prop >> 8;
    gen |= prop & (gen >> 16);
    prop &= prop >> 16;
    gen |= prop & (gen >> 32);
    return gen;
}

static uint64_t fill_up(uint64_t gen, uint64_t prop)
{
    gen |= prop & (gen << 1);
    prop &= prop << 1;
    gen |= prop & (gen << 2);
    prop &= prop << 2;
    gen |= prop & (gen << 4);
    prop &= prop << 4;
    gen |= prop & (gen << 8);
    prop &= prop << 8;
    gen |= prop & (gen << 16);
    prop &= prop << 16;
    gen |= prop & (gen << 32);
    return gen;
}

static void reach_lines(const uint64_t *L, const uint64_t *up, const uint64_t *down, size_t n,
                        uint64_t *reach_up, uint64_t *reach_down)
{
    /* scans up: H(y) = "the first stop at or above y is forced" is F(y), or
     * y open and H(y + 1); the reach of x is H(x + 1) */
    uint64_t hi = 0; /* H of bit 0 of the word above, as bit 63 */
    for (size_t i = n; i-- > 0;) {
        uint64_t stop = up[i], open = ~stop;
        uint64_t H = fill_down((stop & L[i]) | (open & hi), open);
        reach_up[i] = (H >> 1) | hi;
        hi = (H & 1) << 63;
    }
    /* scans down, mirrored */
    uint64_t lo = 0; /* H of bit 63 of the word below, as bit 0 */
    for (size_t i = 0; i < n; i++) {
        uint64_t stop = down[i], open = ~stop;
        uint64_t H = fill_up((stop & L[i]) | (open & lo), open);
        reach_down[i] = (H << 1) | lo;
        lo = H >> 63;
    }
}

static tycho_status build_bits(tycho_planner *p, tycho_err *err)
{
    const int w = p->w, h = p->h;
    const size_t rw = (size_t)(w + PAD) / 64 + 2, cw = (size_t)(h + PAD) / 64 + 2;
    const size_t rwords = rw * (size_t)(h + 2), cwords = cw * (size_t)(w + 2);
    const size_t plane = rwords > cwords ? rwords : cwords, need = NPLANES * plane;
    if (need > p->bits_cap) {
        uint64_t *r = malloc(need * sizeof *r), *c = malloc(need * sizeof *c);
        if (!r || !c) {
            free(r);
            free(c);
            return tycho_fail(err, TYCHO_ENOMEM, "out of memory for jump point bit maps");
        }
        free(p->rowbits);
        free(p->colbits);
        p->rowbits = r;
        p->colbits = c;
        p->bits_cap = need;
    }
    p->rw = rw;
    p->cw = cw;
    p->plane = plane;
    memset(p->rowbits, 0, rwords * sizeof(uint64_t));
    memset(p->colbits, 0, cwords * sizeof(uint64_t));
    const size_t pw = (size_t)p->pw;
    for (int y = 0; y < h; y++) {
        const uint8_t *src = p->enc + (size_t)(y + 1) * pw + 1;
        uint64_t *row = p->rowbits + (size_t)(y + 1) * rw;
        const size_t by = (size_t)(y + PAD);
        const uint64_t ybit = (uint64_t)1 << (by & 63);
        uint64_t *colw = p->colbits + cw + (by >> 6); /* column x = 0 */
        for (int x = 0; x < w; x++) {
            if (!src[x]) continue;
            size_t bx = (size_t)(x + PAD);
            row[bx >> 6] |= (uint64_t)1 << (bx & 63);
            colw[(size_t)x * cw] |= ybit;
        }
    }
    /* the derived planes of every line (the border lines are never scanned) */
    for (int k = 0; k < w + h; k++) {
        bool is_row = k < h;
        size_t n = is_row ? rw : cw;
        uint64_t *L =
            is_row ? p->rowbits + (size_t)(k + 1) * rw : p->colbits + (size_t)(k - h + 1) * cw;
        stop_lines(L, L + n, L - n, n, L + plane * PLANE_UP, L + plane * PLANE_DOWN);
        reach_lines(L, L + plane * PLANE_UP, L + plane * PLANE_DOWN, n, L + plane * PLANE_REACH_UP,
                    L + plane * PLANE_REACH_DOWN);
    }
    p->bits_ready = true;
    return TYCHO_OK;
}

static inline bool bit(const uint64_t *l, size_t q) { return (l[q >> 6] >> (q & 63)) & 1; }

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* Line bits from q upwards, bit 0 of the result being bit q; bits 0..56 are
 * valid. One unaligned 8-byte load instead of two word loads and a funnel
 * shift: the scans are bound by these loads. */
static inline uint64_t rd_up(const uint64_t *l, size_t q)
{
    uint64_t v;
    memcpy(&v, (const uint8_t *)l + (q >> 3), sizeof v);
    return v >> (q & 7);
}

/* Line bits up to q, bit 63 of the result being bit q; bits 7..63 are valid
 * (q >= 64: the padding). */
static inline uint64_t rd_down(const uint64_t *l, size_t q)
{
    uint64_t v;
    memcpy(&v, (const uint8_t *)l + (q >> 3) - 7, sizeof v);
    return v << (7 - (q & 7));
}
#else
static inline uint64_t rd_up(const uint64_t *l, size_t q)
{
    size_t wi = q >> 6;
    unsigned sh = (unsigned)(q & 63);
    /* the double shift keeps sh == 0 defined */
    return (l[wi] >> sh) | ((l[wi + 1] << 1) << (63 - sh));
}

static inline uint64_t rd_down(const uint64_t *l, size_t q) { return rd_up(l, q - 63); }
#endif

/* Scan towards higher bits from q (passable) on passable line L with stop
 * line S; t is the goal's bit on this line or 0. Returns the bit of the jump
 * point (or goal), 0 if the scan dies at a wall. Each window checks 56 new
 * cells (its bit 0 is the last one checked before). */
static inline size_t scan_up(const uint64_t *L, const uint64_t *S, size_t q, size_t t)
{
    for (;;) {
        uint64_t stop = rd_up(S, q) & (((uint64_t)1 << 57) - 2);
        if (t - q - 1 < 56) stop |= (uint64_t)1 << (t - q);
        if (stop) {
            size_t j = q + (unsigned)__builtin_ctzll(stop);
            return bit(L, j) ? j : 0;
        }
        q += 56;
    }
}

/* Same towards lower bits. */
static inline size_t scan_down(const uint64_t *L, const uint64_t *S, size_t q, size_t t)
{
    for (;;) {
        uint64_t stop = rd_down(S, q) & ~(((uint64_t)1 << 7) - 1) & ~((uint64_t)1 << 63);
        if (q - t - 1 < 56) stop |= (uint64_t)1 << (63 - (q - t));
        if (stop) {
            size_t j = q - 63 + (63u - (unsigned)__builtin_clzll(stop));
            return bit(L, j) ? j : 0;
        }
        q -= 56;
    }
}

typedef struct {
    tycho_planner *p;
    pl_node *nd;
    const uint8_t *enc;
    const uint64_t *rows, *cols;
    size_t rw, cw, pw, plane;
    size_t t;
    int tx, ty;
    uint32_t open, closed;
    pl_heapv hv;
    bool ok; /* false once the open list failed to grow */
} jctx;

static inline uint64_t octile(int x, int y, int tx, int ty)
{
    unsigned dx = (unsigned)abs(x - tx), dy = (unsigned)abs(y - ty);
    unsigned mn = dx < dy ? dx : dy, mx = dx ^ dy ^ mn;
    return (uint64_t)UNIT_D * mn + (uint64_t)UNIT_S * (mx - mn);
}

static inline void relax(jctx *c, size_t m, int mx, int my, uint64_t ng, size_t parent, int dir)
{
    pl_node *r = &c->nd[m];
    if (r->stamp >= c->open && (r->stamp == c->closed || ng >= r->g.gi)) return;
    r->stamp = c->open;
    r->parent = (uint32_t)parent | ((uint32_t)dir << DIR_SHIFT);
    r->g.gi = ng;
    if (!pl_push(c->p, &c->hv, pl_ukey(c->p, ng, octile(mx, my, c->tx, c->ty)), (uint32_t)m))
        c->ok = false;
}

#define ROW(c, y) ((c)->rows + (size_t)((y) + 1) * (c)->rw)
#define COL(c, x) ((c)->cols + (size_t)((x) + 1) * (c)->cw)

/* Straight jumps from (x, y); `from` is the node credited as parent, g0 its
 * cost plus the diagonal steps already walked. Return whether one was found. */
static inline void jump_h(jctx *c, int x, int y, int dx, size_t from, uint64_t g0)
{
    const uint64_t *L = ROW(c, y);
    size_t t = c->ty == y ? (size_t)(c->tx + PAD) : 0;
    size_t q = (size_t)(x + PAD);
    if (!t && !bit(L + c->plane * (dx > 0 ? PLANE_REACH_UP : PLANE_REACH_DOWN), q)) return;
    size_t j = dx > 0 ? scan_up(L, L + c->plane * PLANE_UP, q, t)
                      : scan_down(L, L + c->plane * PLANE_DOWN, q, t);
    if (!j) return;
    int jx = (int)j - PAD;
    size_t m = (size_t)(y + 1) * c->pw + (size_t)(jx + 1);
    relax(c, m, jx, y, g0 + (uint64_t)UNIT_S * (unsigned)abs(jx - x), from, dx > 0 ? D_E : D_W);
}

static inline void jump_v(jctx *c, int x, int y, int dy, size_t from, uint64_t g0)
{
    const uint64_t *L = COL(c, x);
    size_t t = c->tx == x ? (size_t)(c->ty + PAD) : 0;
    size_t q = (size_t)(y + PAD);
    if (!t && !bit(L + c->plane * (dy > 0 ? PLANE_REACH_UP : PLANE_REACH_DOWN), q)) return;
    size_t j = dy > 0 ? scan_up(L, L + c->plane * PLANE_UP, q, t)
                      : scan_down(L, L + c->plane * PLANE_DOWN, q, t);
    if (!j) return;
    int jy = (int)j - PAD;
    size_t m = (size_t)(jy + 1) * c->pw + (size_t)(x + 1);
    relax(c, m, x, jy, g0 + (uint64_t)UNIT_S * (unsigned)abs(jy - y), from, dy > 0 ? D_N : D_S);
}

/* One scan of a diagonal walk: from bit q of passable line L (stop line S
 * beside it) towards higher bits if up; t as in scan_up. On a jump point,
 * generates it with `from` as parent. */
static inline __attribute__((always_inline)) size_t walk_scan(const uint64_t *L, const uint64_t *S,
                                                              size_t q, size_t t, bool up)
{
    return up ? scan_up(L, S, q, t) : scan_down(L, S, q, t);
}

/* The diagonal walk (dx, dy) from node n at (x, y), with g its cost. Written
 * once and instantiated for the four diagonals (jump_diag below) so that the
 * directions are constants and the row/column line pointers and bit
 * positions advance by additions instead of being recomputed each step. */
static inline __attribute__((always_inline)) void walk_diag(jctx *c, size_t n, int x, int y,
                                                            const int dx, const int dy, uint64_t g)
{
    const ptrdiff_t sx = dx, sy = dy * (ptrdiff_t)c->pw, sd = sx + sy;
    const uint8_t *enc = c->enc;
    const ptrdiff_t drow = dy * (ptrdiff_t)c->rw, dcol = dx * (ptrdiff_t)c->cw;
    const size_t rstop = c->plane * (dx > 0 ? PLANE_UP : PLANE_DOWN);
    const size_t cstop = c->plane * (dy > 0 ? PLANE_UP : PLANE_DOWN);
    const size_t rreach = c->plane * (dx > 0 ? PLANE_REACH_UP : PLANE_REACH_DOWN);
    const size_t creach = c->plane * (dy > 0 ? PLANE_REACH_UP : PLANE_REACH_DOWN);
    const uint64_t *row = ROW(c, y), *col = COL(c, x);
    const size_t tqx = (size_t)(c->tx + PAD), tqy = (size_t)(c->ty + PAD);
    size_t qx = (size_t)(x + PAD), qy = (size_t)(y + PAD);
    size_t i = n;
    for (;;) {
        if (!(enc[i + sx] && enc[i + sy] && enc[i + sd])) return;
        i += sd;
        row += drow;
        col += dcol;
        qx += (size_t)(ptrdiff_t)dx;
        qy += (size_t)(ptrdiff_t)dy;
        g += UNIT_D;
        if (i == c->t) {
            relax(c, i, (int)qx - PAD, (int)qy - PAD, g, n, D_DIAG);
            return;
        }
        /* a scan runs only where its reach bit says it finds a jump point,
         * or on the goal's row or column */
        size_t j = 0;
        if (bit(row + rreach, qx) || qy == tqy)
            j = walk_scan(row, row + rstop, qx, qy == tqy ? tqx : 0, dx > 0);
        if (j) {
            int jx = (int)j - PAD, cy = (int)qy - PAD;
            size_t m = (size_t)(cy + 1) * c->pw + (size_t)(jx + 1);
            relax(c, m, jx, cy, g + (uint64_t)UNIT_S * (unsigned)abs((int)(j - qx)), n,
                  dx > 0 ? D_E : D_W);
        }
        j = 0;
        if (bit(col + creach, qy) || qx == tqx)
            j = walk_scan(col, col + cstop, qy, qx == tqx ? tqy : 0, dy > 0);
        if (j) {
            int jy = (int)j - PAD, cx = (int)qx - PAD;
            size_t m = (size_t)(jy + 1) * c->pw + (size_t)(cx + 1);
            relax(c, m, cx, jy, g + (uint64_t)UNIT_S * (unsigned)abs((int)(j - qy)), n,
                  dy > 0 ? D_N : D_S);
        }
    }
}

static void jump_diag(jctx *c, size_t n, int x, int y, int dx, int dy, uint64_t g)
{
    if (dx > 0) {
        if (dy > 0) walk_diag(c, n, x, y, 1, 1, g);
        else walk_diag(c, n, x, y, 1, -1, g);
    } else {
        if (dy > 0) walk_diag(c, n, x, y, -1, 1, g);
        else walk_diag(c, n, x, y, -1, -1, g);
    }
}

static inline bool free_at(const jctx *c, size_t i) { return c->enc[i] != 0; }

static void expand(jctx *c, size_t n, int x, int y, uint64_t g, int dir, bool is_start)
{
    const size_t pw = c->pw;
    if (is_start) {
        jump_h(c, x, y, 1, n, g);
        jump_h(c, x, y, -1, n, g);
        jump_v(c, x, y, 1, n, g);
        jump_v(c, x, y, -1, n, g);
        jump_diag(c, n, x, y, 1, 1, g);
        jump_diag(c, n, x, y, -1, 1, g);
        jump_diag(c, n, x, y, 1, -1, g);
        jump_diag(c, n, x, y, -1, -1, g);
        return;
    }
    switch (dir) {
    case D_E:
    case D_W: {
        int dx = dir == D_E ? 1 : -1;
        jump_h(c, x, y, dx, n, g);
        if (free_at(c, n + pw) && !free_at(c, n + pw - dx)) {
            jump_v(c, x, y, 1, n, g);
            jump_diag(c, n, x, y, dx, 1, g);
        }
        if (free_at(c, n - pw) && !free_at(c, n - pw - dx)) {
            jump_v(c, x, y, -1, n, g);
            jump_diag(c, n, x, y, dx, -1, g);
        }
        break;
    }
    case D_N:
    case D_S: {
        int dy = dir == D_N ? 1 : -1;
        ptrdiff_t back = -(ptrdiff_t)dy * (ptrdiff_t)pw;
        jump_v(c, x, y, dy, n, g);
        if (free_at(c, n + 1) && !free_at(c, n + 1 + back)) {
            jump_h(c, x, y, 1, n, g);
            jump_diag(c, n, x, y, 1, dy, g);
        }
        if (free_at(c, n - 1) && !free_at(c, n - 1 + back)) {
            jump_h(c, x, y, -1, n, g);
            jump_diag(c, n, x, y, -1, dy, g);
        }
        break;
    }
    default:
        /* only the goal arrives diagonally, and it is never expanded */
        break;
    }
}

tycho_status pl_jps(tycho_planner *p, size_t s, size_t t, tycho_path *out, tycho_err *err)
{
    if (!p->bits_ready) {
        tycho_status st = build_bits(p, err);
        if (st != TYCHO_OK) return st;
    }
    pl_begin(p);
    jctx c = {
        .p = p,
        .nd = p->nodes,
        .enc = p->enc,
        .rows = p->rowbits,
        .cols = p->colbits,
        .rw = p->rw,
        .cw = p->cw,
        .plane = p->plane,
        .pw = (size_t)p->pw,
        .t = t,
        .open = p->gen_open,
        .closed = p->gen_closed,
        .hv = pl_hv(p),
        .ok = true,
    };
    pl_coords(p, t, &c.tx, &c.ty);
    int sx, sy;
    pl_coords(p, s, &sx, &sy);
    pl_node *nd = p->nodes;
    nd[s].stamp = c.open;
    nd[s].parent = (uint32_t)s;
    nd[s].g.gi = 0;
    if (!pl_push(p, &c.hv, pl_ukey(p, 0, octile(sx, sy, c.tx, c.ty)), (uint32_t)s))
        return tycho_fail(err, TYCHO_ENOMEM, "out of memory growing the open list");
    while (c.hv.n) {
        /* popped before the expansion: letting the first successor take the
         * root's slot (pl_hold, as A* does) measured slower here, since jump
         * points land far from the minimum */
        size_t n = pl_pop(&c.hv).node;
        pl_node *cur = &nd[n];
        if (cur->stamp == c.closed) continue;
        cur->stamp = c.closed;
        p->expanded++;
        if (n == t) return pl_extract_path(p, s, t, true, out, err);
        int x, y;
        pl_coords(p, n, &x, &y);
        expand(&c, n, x, y, cur->g.gi, (int)(cur->parent >> DIR_SHIFT), n == s);
        if (!c.ok) return tycho_fail(err, TYCHO_ENOMEM, "out of memory growing the open list");
    }
    return pl_no_path(p, err);
}
