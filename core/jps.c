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
 * That is a few word operations per 63 cells on bit rows (for east/west) and
 * bit columns (north/south).
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
 * stop at the border without bounds checks. Columns likewise with y. */
#define PAD 64

static tycho_status build_bits(tycho_planner *p, tycho_err *err)
{
    const int w = p->w, h = p->h;
    const size_t rw = (size_t)(w + PAD) / 64 + 2, cw = (size_t)(h + PAD) / 64 + 2;
    const size_t rwords = rw * (size_t)(h + 2), cwords = cw * (size_t)(w + 2);
    const size_t need = rwords > cwords ? rwords : cwords;
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
    p->bits_ready = true;
    return TYCHO_OK;
}

/* 64 bits of a line starting at bit q (bit 0 of the result is bit q). */
static inline uint64_t rd(const uint64_t *l, size_t q)
{
    size_t wi = q >> 6;
    unsigned sh = (unsigned)(q & 63);
    /* the double shift keeps sh == 0 defined */
    return (l[wi] >> sh) | ((l[wi + 1] << 1) << (63 - sh));
}

/* Scan towards higher bits from q (passable) on line L with side lines A and
 * B; t is the goal's bit on this line or 0. Returns the bit of the jump
 * point (or goal), 0 if the scan dies at a wall. */
static inline size_t scan_up(const uint64_t *L, const uint64_t *A, const uint64_t *B, size_t q,
                             size_t t)
{
    for (;;) {
        uint64_t r = rd(L, q), a = rd(A, q), b = rd(B, q);
        uint64_t stop = ((a & ~(a << 1)) | (b & ~(b << 1))) & ~(uint64_t)1;
        stop |= ~r;
        if (t - q - 1 < 63) stop |= (uint64_t)1 << (t - q);
        if (stop) {
            unsigned k = (unsigned)__builtin_ctzll(stop);
            return (r >> k) & 1 ? q + k : 0;
        }
        q += 63;
    }
}

/* Same towards lower bits. */
static inline size_t scan_down(const uint64_t *L, const uint64_t *A, const uint64_t *B, size_t q,
                               size_t t)
{
    for (;;) {
        size_t base = q - 63;
        uint64_t r = rd(L, base), a = rd(A, base), b = rd(B, base);
        uint64_t stop = ((a & ~(a >> 1)) | (b & ~(b >> 1))) & ~((uint64_t)1 << 63);
        stop |= ~r;
        if (q - t - 1 < 63) stop |= (uint64_t)1 << (63 - (q - t));
        if (stop) {
            unsigned k = 63u - (unsigned)__builtin_clzll(stop);
            return (r >> k) & 1 ? base + k : 0;
        }
        q = base;
    }
}

typedef struct {
    tycho_planner *p;
    pl_node *nd;
    const uint8_t *enc;
    const uint64_t *rows, *cols;
    size_t rw, cw, pw;
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
    const uint64_t *L = ROW(c, y), *A = ROW(c, y + 1), *B = ROW(c, y - 1);
    size_t t = c->ty == y ? (size_t)(c->tx + PAD) : 0;
    size_t q = (size_t)(x + PAD);
    size_t j = dx > 0 ? scan_up(L, A, B, q, t) : scan_down(L, A, B, q, t);
    if (!j) return;
    int jx = (int)j - PAD;
    size_t m = (size_t)(y + 1) * c->pw + (size_t)(jx + 1);
    relax(c, m, jx, y, g0 + (uint64_t)UNIT_S * (unsigned)abs(jx - x), from, dx > 0 ? D_E : D_W);
}

static inline void jump_v(jctx *c, int x, int y, int dy, size_t from, uint64_t g0)
{
    const uint64_t *L = COL(c, x), *A = COL(c, x + 1), *B = COL(c, x - 1);
    size_t t = c->tx == x ? (size_t)(c->ty + PAD) : 0;
    size_t q = (size_t)(y + PAD);
    size_t j = dy > 0 ? scan_up(L, A, B, q, t) : scan_down(L, A, B, q, t);
    if (!j) return;
    int jy = (int)j - PAD;
    size_t m = (size_t)(jy + 1) * c->pw + (size_t)(x + 1);
    relax(c, m, x, jy, g0 + (uint64_t)UNIT_S * (unsigned)abs(jy - y), from, dy > 0 ? D_N : D_S);
}

static void jump_diag(jctx *c, size_t n, int x, int y, int dx, int dy, uint64_t g)
{
    const ptrdiff_t sx = dx, sy = dy * (ptrdiff_t)c->pw, sd = sx + sy;
    const uint8_t *enc = c->enc;
    size_t i = n;
    for (;;) {
        if (!(enc[i + sx] && enc[i + sy] && enc[i + sd])) return;
        i += sd;
        x += dx;
        y += dy;
        g += UNIT_D;
        if (i == c->t) {
            relax(c, i, x, y, g, n, D_DIAG);
            return;
        }
        jump_h(c, x, y, dx, n, g);
        jump_v(c, x, y, dy, n, g);
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
