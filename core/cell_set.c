/* Cell set (cell_set.h): int64 keys in an open-addressing table with
 * linear probing; a slot holds the key with its sign bit flipped, so that
 * 0 means empty (that would be INT64_MIN, which no cell reaches: |x/res| is
 * kept under 4e12, so |key| < 2^62). The arithmetic of keys and of observe follows the Lua it
 * replaces operation for operation (floored modulo included), so the set
 * holds exactly the cells the Lua set held. */
#include "tycho/cell_set.h"

#include <math.h>
#include <stdlib.h>

#define SIGN 0x8000000000000000ull

struct tycho_cell_set {
    double res;
    uint64_t *slots; /* key ^ sign bit; 0 empty */
    size_t cap, count;
};

tycho_cell_set *tycho_cell_set_new(double resolution, tycho_err *err)
{
    if (!(resolution > 0) || !isfinite(resolution)) {
        tycho_fail(err, TYCHO_EINVAL, "cell set: resolution must be > 0 and finite");
        return NULL;
    }
    tycho_cell_set *s = calloc(1, sizeof *s);
    if (s) s->slots = calloc(1024, sizeof *s->slots);
    if (!s || !s->slots) {
        free(s);
        tycho_fail(err, TYCHO_ENOMEM, "cell set: out of memory");
        return NULL;
    }
    s->res = resolution;
    s->cap = 1024;
    return s;
}

void tycho_cell_set_free(tycho_cell_set *s)
{
    if (!s) return;
    free(s->slots);
    free(s);
}

size_t tycho_cell_set_count(const tycho_cell_set *s) { return s->count; }
double tycho_cell_set_resolution(const tycho_cell_set *s) { return s->res; }

static bool key_of(const tycho_cell_set *s, double x, double y, int64_t *key)
{
    double kx = floor(x / s->res + 0.5), ky = floor(y / s->res + 0.5);
    if (!(fabs(kx) < 4e12 && fabs(ky) < 4e12)) return false; /* no overflow of kx * 2^20 */
    *key = (int64_t)kx * 1048576 + (int64_t)ky;
    return true;
}

static size_t slot_of(uint64_t tag, size_t cap)
{
    uint64_t h = tag * 0x9E3779B97F4A7C15ull; /* Fibonacci hashing */
    return (size_t)(h >> 17) & (cap - 1);
}

static bool find(const tycho_cell_set *s, uint64_t tag, size_t *at)
{
    size_t i = slot_of(tag, s->cap);
    while (s->slots[i]) {
        if (s->slots[i] == tag) {
            *at = i;
            return true;
        }
        i = (i + 1) & (s->cap - 1);
    }
    *at = i;
    return false;
}

static bool grow(tycho_cell_set *s)
{
    size_t cap = s->cap * 2;
    uint64_t *slots = calloc(cap, sizeof *slots);
    if (!slots) return false;
    for (size_t i = 0; i < s->cap; i++) {
        uint64_t tag = s->slots[i];
        if (!tag) continue;
        size_t j = slot_of(tag, cap);
        while (slots[j]) j = (j + 1) & (cap - 1);
        slots[j] = tag;
    }
    free(s->slots);
    s->slots = slots;
    s->cap = cap;
    return true;
}

bool tycho_cell_set_has(const tycho_cell_set *s, double x, double y)
{
    int64_t key;
    size_t at;
    return key_of(s, x, y, &key) && find(s, (uint64_t)key ^ SIGN, &at);
}

int tycho_cell_set_add(tycho_cell_set *s, double x, double y)
{
    int64_t key;
    if (!key_of(s, x, y, &key)) return 0;
    uint64_t tag = (uint64_t)key ^ SIGN;
    size_t at;
    if (find(s, tag, &at)) return 0;
    if ((s->count + 1) * 2 > s->cap) { /* at most half full: short probes */
        if (!grow(s)) return -1;
        find(s, tag, &at);
    }
    s->slots[at] = tag;
    s->count++;
    return 1;
}

/* Lua's float modulo (luai_nummod): the result takes the divisor's sign. */
static double lua_mod(double a, double b)
{
    double m = fmod(a, b);
    if ((m > 0) ? b < 0 : (m < 0 && b != m)) m += b;
    return m;
}

static double wrap(double a) { return tycho_wrap_pi(a); }

tycho_status tycho_cell_set_observe(tycho_cell_set *s, tycho_pose2 pose, const tycho_scan *scan,
                                    double cam_yaw, double fov, double max_range, size_t *added,
                                    tycho_err *err)
{
    if (added) *added = 0;
    if (!s || !scan || scan->count < 1)
        return tycho_fail(err, TYCHO_EINVAL, "cell set: observe needs a set and a scan");
    if (!isfinite(pose.x) || !isfinite(pose.y) || !isfinite(pose.yaw) || !isfinite(cam_yaw) ||
        !(fov > 0 && fov <= 2 * M_PI) || !(max_range > 0))
        return tycho_fail(err, TYCHO_EINVAL,
                          "cell set: observe: pose and camera axis finite, fov in (0, 2 pi], "
                          "max_range > 0");
    int n = scan->count;
    double a0 = scan->angle_min, inc = scan->angle_increment;
    if (!(inc != 0)) return tycho_fail(err, TYCHO_EINVAL, "cell set: scan angle_increment is 0");
    double j0 = floor((cam_yaw - fov / 2 - a0) / inc), j1 = ceil((cam_yaw + fov / 2 - a0) / inc);
    if (!(j1 - j0 <= 4.0 * n + 4)) j1 = j0 + 4.0 * n + 4; /* a camera sees the turn once at most */
    size_t count0 = s->count;
    double res = s->res;
    for (double j = j0; j <= j1; j++) {
        int i = (int)lua_mod(j, n); /* scans cover the full turn */
        double a = a0 + i * inc;
        if (!(fabs(wrap(a - cam_yaw)) <= fov / 2)) continue;
        double r = scan->ranges[i];
        if (!(r > 0 && r <= max_range)) continue;
        /* one cell short of the hit: the block marked then holds the wall
         * cell and the free cells on the seen side, not those on the far
         * side of a wall one cell thick (whose far face this camera did
         * not see) */
        double back = r > res ? r - res : 0;
        double x = pose.x + back * cos(pose.yaw + a), y = pose.y + back * sin(pose.yaw + a);
        for (int dx = -1; dx <= 1; dx++)
            for (int dy = -1; dy <= 1; dy++)
                if (tycho_cell_set_add(s, x + dx * res, y + dy * res) < 0)
                    return tycho_fail(err, TYCHO_ENOMEM, "cell set: out of memory");
    }
    if (added) *added = s->count - count0;
    return TYCHO_OK;
}
