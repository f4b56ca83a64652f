/* Lua patterns that the watchdog can stop (issue 14: "a slow C call escapes
 * every budget").
 *
 * string.find, string.match, string.gmatch and string.gsub with the
 * semantics of the Lua 5.4 reference manual (section 6.4.1: classes, sets,
 * the quantifiers * + - ?, anchors, captures and position captures, %b,
 * %f, back-references; the same error messages and the same 200-level
 * recursion limit), written here with a step counter: every 4096 steps the
 * matcher asks tycho_budget_expired() (budget.h) whether the behaviour,
 * console evaluation or data loader it runs for is out of time, and if so
 * unwinds and stops it like the watchdog's hook does. A backtracking
 * pattern such as ("a"):rep(30):find(("a*"):rep(30) .. "b") otherwise runs
 * for longer than the robot will.
 *
 * luaopen_tycho installs them into the string library (so `s:find(p)` is
 * covered too; Lua 5.4 only: LuaJIT compiles its own string functions and
 * cannot yield from C). The stock functions stay reachable as
 * tycho.pattern.stock for the differential spec (pattern_spec).
 *
 * The matcher is a plain backtracking matcher: match() walks the pattern
 * one item at a time, looping for single-character items and recursing
 * only where it must remember a way back (captures, '?', '*', '+', '-'). */
#define _GNU_SOURCE /* memmem */
#include "budget.h"
#include "ltycho.h"

#include <ctype.h>
#include <string.h>

#if !TYCHO_LUAJIT

#define MAX_CAPTURES 32
#define MAX_DEPTH 200
#define CHECK_EVERY 4096u /* steps between two budget checks (a power of two) */
#define CAP_OPEN (-1)     /* capture started, not closed yet */
#define CAP_POSITION (-2) /* () */

typedef struct {
    lua_State *L;
    const char *src, *src_end; /* subject */
    const char *pat_end;
    int depth;   /* recursion levels left */
    int ncap;    /* captures started */
    int stopped; /* the budget ran out: every level returns NULL at once */
    unsigned steps;
    struct {
        const char *at;
        ptrdiff_t len; /* or CAP_OPEN, CAP_POSITION */
    } cap[MAX_CAPTURES];
} matcher;

static const char *match(matcher *m, const char *s, const char *p);

static int step(matcher *m)
{
    if ((++m->steps & (CHECK_EVERY - 1)) == 0 && !m->stopped && tycho_budget_expired(m->L))
        m->stopped = 1;
    return m->stopped;
}

/* %a %c %d %g %l %p %s %u %w %x (upper case: the complement); any other
 * character after % stands for itself. */
static int in_class(int c, int cl)
{
    int yes;
    switch (tolower(cl)) {
    case 'a':
        yes = isalpha(c);
        break;
    case 'c':
        yes = iscntrl(c);
        break;
    case 'd':
        yes = isdigit(c);
        break;
    case 'g':
        yes = isgraph(c);
        break;
    case 'l':
        yes = islower(c);
        break;
    case 'p':
        yes = ispunct(c);
        break;
    case 's':
        yes = isspace(c);
        break;
    case 'u':
        yes = isupper(c);
        break;
    case 'w':
        yes = isalnum(c);
        break;
    case 'x':
        yes = isxdigit(c);
        break;
    case 'z':
        yes = c == 0;
        break; /* deprecated, still in 5.4 */
    default:
        return cl == c;
    }
    return isupper(cl) ? !yes : yes != 0;
}

/* [set]: `open` at its '[', `close` at its ']'. */
static int in_set(int c, const char *open, const char *close)
{
    const char *p = open + 1;
    int want = 1;
    if (*p == '^') {
        want = 0;
        p++;
    }
    for (; p < close; p++) {
        if (*p == '%') {
            p++;
            if (in_class(c, (unsigned char)*p)) return want;
        } else if (p[1] == '-' && p + 2 < close) {
            if ((unsigned char)p[0] <= c && c <= (unsigned char)p[2]) return want;
            p += 2;
        } else if ((unsigned char)*p == c) {
            return want;
        }
    }
    return !want;
}

/* The end of the single-character class starting at p. */
static const char *class_end(matcher *m, const char *p)
{
    char c = *p++;
    if (c == '%') {
        if (p == m->pat_end) luaL_error(m->L, "malformed pattern (ends with '%%')");
        return p + 1;
    }
    if (c == '[') {
        if (p < m->pat_end && *p == '^') p++;
        do { /* the first character may be ']' itself */
            if (p == m->pat_end) luaL_error(m->L, "malformed pattern (missing ']')");
            c = *p++;
            if (c == '%' && p < m->pat_end) p++;
        } while (p == m->pat_end || *p != ']');
        return p + 1;
    }
    return p;
}

/* Does the character at s match the class [p, ep)? */
static int single(const matcher *m, const char *s, const char *p, const char *ep)
{
    if (s >= m->src_end) return 0;
    int c = (unsigned char)*s;
    switch (*p) {
    case '.':
        return 1;
    case '%':
        return in_class(c, (unsigned char)p[1]);
    case '[':
        return in_set(c, p, ep - 1);
    default:
        return (unsigned char)*p == c;
    }
}

/* x*: as many as possible, then back off one at a time. */
static const char *greedy(matcher *m, const char *s, const char *p, const char *ep)
{
    ptrdiff_t n = 0;
    while (single(m, s + n, p, ep)) {
        n++;
        if (step(m)) return NULL;
    }
    for (; n >= 0; n--) {
        const char *r = match(m, s + n, ep + 1);
        if (r || m->stopped) return r;
    }
    return NULL;
}

/* x-: as few as possible, one more at a time. */
static const char *lazy(matcher *m, const char *s, const char *p, const char *ep)
{
    for (;;) {
        const char *r = match(m, s, ep + 1);
        if (r || m->stopped) return r;
        if (!single(m, s, p, ep)) return NULL;
        s++;
    }
}

static const char *open_capture(matcher *m, const char *s, const char *p, ptrdiff_t what)
{
    if (m->ncap >= MAX_CAPTURES) luaL_error(m->L, "too many captures");
    m->cap[m->ncap].at = s;
    m->cap[m->ncap].len = what;
    m->ncap++;
    const char *r = match(m, s, p);
    if (!r) m->ncap--;
    return r;
}

static const char *close_capture(matcher *m, const char *s, const char *p)
{
    int k = m->ncap - 1;
    while (k >= 0 && m->cap[k].len != CAP_OPEN) k--;
    if (k < 0) luaL_error(m->L, "invalid pattern capture");
    m->cap[k].len = s - m->cap[k].at;
    const char *r = match(m, s, p);
    if (!r) m->cap[k].len = CAP_OPEN;
    return r;
}

/* %bxy at s (p points at x). */
static const char *balance(matcher *m, const char *s, const char *p)
{
    if (p >= m->pat_end - 1) luaL_error(m->L, "malformed pattern (missing arguments to '%%b')");
    if (s >= m->src_end || *s != p[0]) return NULL;
    int depth = 1;
    while (++s < m->src_end) {
        if (step(m)) return NULL;
        if (*s == p[1]) {
            if (--depth == 0) return s + 1;
        } else if (*s == p[0]) {
            depth++;
        }
    }
    return NULL;
}

/* %1 .. %9: the text of an earlier, closed capture again. */
static const char *back_reference(matcher *m, const char *s, int digit)
{
    int k = digit - '1';
    if (k < 0 || k >= m->ncap || m->cap[k].len == CAP_OPEN)
        luaL_error(m->L, "invalid capture index %%%d", k + 1);
    ptrdiff_t len = m->cap[k].len;
    if (len < 0) return NULL; /* a position capture matches no text */
    if ((size_t)(m->src_end - s) >= (size_t)len && memcmp(m->cap[k].at, s, (size_t)len) == 0)
        return s + len;
    return NULL;
}

/* Matches the pattern from p against the subject from s; the end of the
 * match, or NULL. */
static const char *match(matcher *m, const char *s, const char *p)
{
    if (m->depth-- == 0) luaL_error(m->L, "pattern too complex");
    const char *result = NULL;
    for (;;) {
        if (step(m)) break;
        if (p == m->pat_end) {
            result = s;
            break;
        }
        if (*p == '(') {
            if (p + 1 < m->pat_end && p[1] == ')') result = open_capture(m, s, p + 2, CAP_POSITION);
            else result = open_capture(m, s, p + 1, CAP_OPEN);
            break;
        }
        if (*p == ')') {
            result = close_capture(m, s, p + 1);
            break;
        }
        if (*p == '$' && p + 1 == m->pat_end) {
            result = s == m->src_end ? s : NULL;
            break;
        }
        if (*p == '%' && p + 1 < m->pat_end) {
            char e = p[1];
            if (e == 'b') {
                s = balance(m, s, p + 2);
                if (!s) break;
                p += 4;
                continue;
            }
            if (e == 'f') {
                p += 2;
                if (p >= m->pat_end || *p != '[')
                    luaL_error(m->L, "missing '[' after '%%f' in pattern");
                const char *ep = class_end(m, p);
                int before = s == m->src ? 0 : (unsigned char)s[-1];
                int here = s < m->src_end ? (unsigned char)*s : 0;
                if (in_set(before, p, ep - 1) || !in_set(here, p, ep - 1)) break;
                p = ep;
                continue;
            }
            if (isdigit((unsigned char)e)) {
                s = back_reference(m, s, e);
                if (!s) break;
                p += 2;
                continue;
            }
        }
        /* a single-character class, perhaps with a quantifier after it */
        const char *ep = class_end(m, p);
        char q = ep < m->pat_end ? *ep : '\0';
        if (!single(m, s, p, ep)) {
            if (q == '*' || q == '?' || q == '-') { /* zero of them will do */
                p = ep + 1;
                continue;
            }
            break;
        }
        if (q == '?') {
            const char *r = match(m, s + 1, ep + 1);
            if (r || m->stopped) {
                result = r;
                break;
            }
            p = ep + 1;
            continue;
        }
        if (q == '+') {
            result = greedy(m, s + 1, p, ep);
            break;
        }
        if (q == '*') {
            result = greedy(m, s, p, ep);
            break;
        }
        if (q == '-') {
            result = lazy(m, s, p, ep);
            break;
        }
        s++;
        p = ep;
    }
    m->depth++;
    return m->stopped ? NULL : result;
}

static void matcher_init(matcher *m, lua_State *L, const char *s, size_t ls, const char *p,
                         size_t lp)
{
    m->L = L;
    m->src = s;
    m->src_end = s + ls;
    m->pat_end = p + lp;
    m->stopped = 0;
    m->steps = 0;
}

static void matcher_reset(matcher *m)
{
    m->ncap = 0;
    m->depth = MAX_DEPTH;
}

/* Capture i (or the whole match s..e when there are no captures). */
static void push_capture(matcher *m, int i, const char *s, const char *e)
{
    if (i >= m->ncap) {
        if (i != 0) luaL_error(m->L, "invalid capture index %%%d", i + 1);
        lua_pushlstring(m->L, s, (size_t)(e - s));
        return;
    }
    ptrdiff_t len = m->cap[i].len;
    if (len == CAP_OPEN) luaL_error(m->L, "unfinished capture");
    if (len == CAP_POSITION) lua_pushinteger(m->L, (lua_Integer)(m->cap[i].at - m->src) + 1);
    else lua_pushlstring(m->L, m->cap[i].at, (size_t)len);
}

/* Every capture, or the whole match when there is none and s is given. */
static int push_captures(matcher *m, const char *s, const char *e)
{
    int n = (m->ncap == 0 && s) ? 1 : m->ncap;
    luaL_checkstack(m->L, n, "too many captures");
    for (int i = 0; i < n; i++) push_capture(m, i, s, e);
    return n;
}

/* The 1-based start from an init argument (negative counts from the end). */
static size_t start_index(lua_Integer pos, size_t len)
{
    if (pos > 0) return (size_t)pos;
    if (pos == 0) return 1;
    if (pos < -(lua_Integer)len) return 1;
    return len + (size_t)pos + 1;
}

static int has_specials(const char *p, size_t lp)
{
    for (size_t i = 0; i < lp; i++)
        if (p[i] && strchr("^$*+?.([%-", p[i])) return 1;
    return 0;
}

static int find_or_match(lua_State *L, int find)
{
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = start_index(luaL_optinteger(L, 3, 1), ls) - 1;
    if (init > ls) {
        lua_pushnil(L);
        return 1;
    }
    if (find && (lua_toboolean(L, 4) || !has_specials(p, lp))) {
        /* a plain search: linear, no budget needed */
        const char *hit = lp == 0 ? s + init : memmem(s + init, ls - init, p, lp);
        if (hit) {
            lua_pushinteger(L, (lua_Integer)(hit - s) + 1);
            lua_pushinteger(L, (lua_Integer)(hit - s + (ptrdiff_t)lp));
            return 2;
        }
        lua_pushnil(L);
        return 1;
    }
    matcher m;
    int anchor = lp > 0 && *p == '^';
    if (anchor) {
        p++;
        lp--;
    }
    matcher_init(&m, L, s, ls, p, lp);
    const char *from = s + init;
    do {
        matcher_reset(&m);
        const char *e = match(&m, from, p);
        if (m.stopped) return tycho_budget_stop(L);
        if (e) {
            if (!find) return push_captures(&m, from, e);
            lua_pushinteger(L, (lua_Integer)(from - s) + 1);
            lua_pushinteger(L, (lua_Integer)(e - s));
            return push_captures(&m, NULL, NULL) + 2;
        }
        if (step(&m)) return tycho_budget_stop(L);
    } while (from++ < m.src_end && !anchor);
    lua_pushnil(L);
    return 1;
}

static int l_find(lua_State *L) { return find_or_match(L, 1); }
static int l_match(lua_State *L) { return find_or_match(L, 0); }

typedef struct {
    matcher m;
    const char *pat;
    const char *next;     /* where the next search starts */
    const char *last_end; /* end of the last match: an empty match there is skipped */
} gmatch_state;

static int gmatch_next(lua_State *L)
{
    gmatch_state *g = lua_touserdata(L, lua_upvalueindex(3));
    g->m.L = L; /* the iterator may run on another coroutine than gmatch did */
    g->m.stopped = 0;
    for (const char *from = g->next; from <= g->m.src_end; from++) {
        matcher_reset(&g->m);
        const char *e = match(&g->m, from, g->pat);
        if (g->m.stopped) return tycho_budget_stop(L);
        if (e && e != g->last_end) {
            g->next = g->last_end = e;
            return push_captures(&g->m, from, e);
        }
        if (step(&g->m)) return tycho_budget_stop(L);
    }
    return 0;
}

static int l_gmatch(lua_State *L)
{
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = start_index(luaL_optinteger(L, 3, 1), ls) - 1;
    lua_settop(L, 2); /* the closure keeps both strings alive */
    gmatch_state *g = lua_newuserdatauv(L, sizeof *g, 0);
    if (init > ls) init = ls + 1;
    matcher_init(&g->m, L, s, ls, p, lp);
    g->pat = p;
    g->next = s + init;
    g->last_end = NULL;
    lua_pushcclosure(L, gmatch_next, 3);
    return 1;
}

/* gsub's replacement string: %0 the match, %1..%9 captures, %% a percent. */
static void add_template(matcher *m, luaL_Buffer *b, const char *s, const char *e)
{
    size_t l;
    const char *r = lua_tolstring(m->L, 3, &l);
    const char *end = r + l;
    for (;;) {
        const char *pc = memchr(r, '%', (size_t)(end - r));
        if (!pc) break;
        luaL_addlstring(b, r, (size_t)(pc - r));
        char d = pc + 1 < end ? pc[1] : '\0';
        if (d == '%') {
            luaL_addchar(b, '%');
        } else if (d == '0') {
            luaL_addlstring(b, s, (size_t)(e - s));
        } else if (isdigit((unsigned char)d)) {
            push_capture(m, d - '1', s, e);
            luaL_tolstring(m->L, -1, NULL); /* a position capture is a number */
            lua_remove(m->L, -2);
            luaL_addvalue(b);
        } else {
            luaL_error(m->L, "invalid use of '%%' in replacement string");
        }
        r = pc + 2;
    }
    luaL_addlstring(b, r, (size_t)(end - r));
}

/* Adds the replacement of one match; 0 when the original text was kept. */
static int add_replacement(matcher *m, luaL_Buffer *b, const char *s, const char *e, int kind)
{
    lua_State *L = m->L;
    if (kind == LUA_TFUNCTION) {
        lua_pushvalue(L, 3);
        int n = push_captures(m, s, e);
        lua_call(L, n, 1);
    } else if (kind == LUA_TTABLE) {
        push_capture(m, 0, s, e);
        lua_gettable(L, 3);
    } else {
        add_template(m, b, s, e);
        return 1;
    }
    if (!lua_toboolean(L, -1)) { /* nil or false: keep the text */
        lua_pop(L, 1);
        luaL_addlstring(b, s, (size_t)(e - s));
        return 0;
    }
    if (!lua_isstring(L, -1))
        return luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    luaL_addvalue(b);
    return 1;
}

static int l_gsub(lua_State *L)
{
    size_t ls, lp;
    const char *src = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    int kind = lua_type(L, 3);
    lua_Integer max = luaL_optinteger(L, 4, (lua_Integer)ls + 1);
    luaL_argexpected(L,
                     kind == LUA_TNUMBER || kind == LUA_TSTRING || kind == LUA_TFUNCTION ||
                         kind == LUA_TTABLE,
                     3, "string/function/table");
    int anchor = lp > 0 && *p == '^';
    if (anchor) {
        p++;
        lp--;
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    matcher m;
    matcher_init(&m, L, src, ls, p, lp);
    const char *last_end = NULL;
    lua_Integer n = 0;
    int changed = 0;
    while (n < max) {
        matcher_reset(&m);
        const char *e = match(&m, src, p);
        if (m.stopped || step(&m)) return tycho_budget_stop(L);
        if (e && e != last_end) {
            n++;
            changed |= add_replacement(&m, &b, src, e, kind);
            src = last_end = e;
        } else if (src < m.src_end) {
            luaL_addchar(&b, *src++);
        } else {
            break;
        }
        if (anchor) break;
    }
    if (!changed) {
        lua_pushvalue(L, 1);
    } else {
        luaL_addlstring(&b, src, (size_t)(m.src_end - src));
        luaL_pushresult(&b);
    }
    lua_pushinteger(L, n);
    return 2;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
---Lua patterns with a step counter the watchdog can stop (bindings/l_pattern.c);
---under Lua 5.4 they are also string.find/match/gmatch/gsub (LuaJIT keeps its own).
tycho.pattern = {}
---@return integer|nil start, integer? finish, any ...
function tycho.pattern.find(s, pattern, init, plain) end
---@return any ...
function tycho.pattern.match(s, pattern, init) end
---@return fun(): any
function tycho.pattern.gmatch(s, pattern, init) end
---@return string text, integer count
function tycho.pattern.gsub(s, pattern, repl, n) end
---The string library's own functions, as they were before tycho replaced them.
tycho.pattern.stock = {}
function tycho.pattern.stock.find(s, pattern, init, plain) end
function tycho.pattern.stock.match(s, pattern, init) end
function tycho.pattern.stock.gmatch(s, pattern, init) end
function tycho.pattern.stock.gsub(s, pattern, repl, n) end
*/
// clang-format on

static const luaL_Reg FUNCS[] = {
    {"find", l_find}, {"match", l_match}, {"gmatch", l_gmatch}, {"gsub", l_gsub}, {NULL, NULL}};

/* tycho.pattern = {find, match, gmatch, gsub, stock = {the string library's own}}
 * and the string library's four replaced by these (once per state). */
void tycho_l_open_pattern(lua_State *L, int module, int methods)
{
    (void)methods;
    lua_newtable(L);
    int t = lua_gettop(L);
    luaL_setfuncs(L, FUNCS, 0);
    lua_getglobal(L, "string");
    int str = lua_gettop(L);
    if (lua_istable(L, str)) {
        lua_getfield(L, LUA_REGISTRYINDEX, "tycho.pattern.stock");
        if (!lua_istable(L, -1)) { /* first time in this state: keep the originals */
            lua_pop(L, 1);
            lua_newtable(L);
            for (const luaL_Reg *f = FUNCS; f->name; f++) {
                lua_getfield(L, str, f->name);
                lua_setfield(L, -2, f->name);
            }
            lua_pushvalue(L, -1);
            lua_setfield(L, LUA_REGISTRYINDEX, "tycho.pattern.stock");
        }
        lua_setfield(L, t, "stock");
        for (const luaL_Reg *f = FUNCS; f->name; f++) {
            lua_pushcfunction(L, f->func);
            lua_setfield(L, str, f->name);
        }
    }
    lua_pop(L, 1);
    lua_setfield(L, module, "pattern");
}

#else /* LuaJIT: its own string functions stay (and are what tycho.pattern gives) */

void tycho_l_open_pattern(lua_State *L, int module, int methods)
{
    (void)methods;
    static const char *const names[] = {"find", "match", "gmatch", "gsub", NULL};
    lua_newtable(L);
    lua_newtable(L);
    lua_getglobal(L, "string");
    for (int i = 0; names[i]; i++) {
        lua_getfield(L, -1, names[i]); /* P, stock, string, f */
        lua_pushvalue(L, -1);
        lua_setfield(L, -5, names[i]); /* P[name] */
        lua_setfield(L, -3, names[i]); /* stock[name] */
    }
    lua_pop(L, 1);
    lua_setfield(L, -2, "stock");
    lua_setfield(L, module, "pattern");
}

#endif
