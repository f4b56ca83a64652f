/* Lua binding: tycho.console, a line-editing console that never blocks.
 *
 *   local c = tycho.console.open{prompt = "tycho> ", history = path,
 *                                complete = fn(word, line, pos) -> {candidates}}
 *   c:poll(timeout_s) -> {lines...} | nil, "eof"   -- waits at most timeout_s
 *   c:prompt(text)                                  -- e.g. ">> " for a continuation
 *   c:print(text)                                   -- above the line being edited
 *   c:close()                                       -- restores the terminal, saves history
 *
 * On a terminal it uses libedit's readline callback interface: the runtime
 * calls c:poll from the scheduler's wait hook, so keystrokes are handled
 * between ticks and the control loop never waits for a human. Completion
 * (TAB) calls back into Lua. Without a terminal (a pipe, a test) it reads
 * whole lines with no editing. readline keeps global state, so there is one
 * console per process. */
#include "ltycho.h"

#include <editline/readline.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#define CONSOLE_MT "tycho.console"
#define MAX_PENDING 64
#define MAX_RAW_LINE 65536

typedef struct {
    int open;
    int tty;
    int eof;
    char *history;
    char *pending[MAX_PENDING]; /* lines completed since the last poll */
    int npending;
    char raw[MAX_RAW_LINE]; /* non-terminal input not yet ended by \n */
    size_t nraw;
    char prompt[128]; /* the prompt readline shows */
    int need_prompt;  /* a line was accepted: show the prompt at the next poll */
} console;

/* The one console, and where its completion callback runs during a poll. */
static console *active;
static lua_State *poll_L;
static int poll_complete_idx; /* stack index of the complete function, 0 = none */

static void push_pending(console *c, char *line)
{
    if (c->npending < MAX_PENDING) c->pending[c->npending++] = line;
    else free(line); /* a flood of pasted lines: keep the first ones */
}

static void on_line(char *line)
{
    if (!active) {
        free(line);
        return;
    }
    if (!line) {
        active->eof = 1;
        return;
    }
    if (line[0]) add_history(line);
    push_pending(active, line);
}

/* --- completion ----------------------------------------------------------- */

static char **candidates;
static int ncandidates, next_candidate;

static void clear_candidates(void)
{
    for (int i = next_candidate; i < ncandidates; i++) free(candidates[i]);
    free(candidates);
    candidates = NULL;
    ncandidates = next_candidate = 0;
}

static char *candidate_generator(const char *text, int state)
{
    (void)text;
    (void)state;
    if (next_candidate < ncandidates) return candidates[next_candidate++];
    return NULL;
}

/* Asks Lua for the candidates of the word [start, end) of the line. */
static char **complete(const char *text, int start, int end)
{
    (void)end;
    rl_attempted_completion_over = 1; /* never fall back to file names */
    if (!poll_L || !poll_complete_idx) return NULL;
    lua_State *L = poll_L;
    clear_candidates();
    lua_pushvalue(L, poll_complete_idx);
    lua_pushstring(L, text);
    lua_pushstring(L, rl_line_buffer ? rl_line_buffer : "");
    lua_pushinteger(L, start + 1);
    if (lua_pcall(L, 3, 1, 0) != 0 || !lua_istable(L, -1)) {
        lua_pop(L, 1);
        return NULL;
    }
    int n = (int)lua_rawlen(L, -1);
    candidates = calloc((size_t)n + 1, sizeof *candidates);
    for (int i = 1; candidates && i <= n; i++) {
        lua_rawgeti(L, -1, i);
        const char *s = lua_tostring(L, -1);
        if (s) candidates[ncandidates++] = strdup(s);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (ncandidates == 0) return NULL;
    rl_completion_append_character = ncandidates == 1 ? '\0' : ' ';
    return rl_completion_matches(text, candidate_generator);
}

/* --- the userdata ----------------------------------------------------------- */

static console *check_console(lua_State *L)
{
    console *c = luaL_checkudata(L, 1, CONSOLE_MT);
    if (!c->open) luaL_argerror(L, 1, "console is closed");
    return c;
}

static void close_console(console *c)
{
    if (!c->open) return;
    if (c->tty) {
        rl_callback_handler_remove();
        if (c->history) write_history(c->history);
    }
    for (int i = 0; i < c->npending; i++) free(c->pending[i]);
    c->npending = 0;
    free(c->history);
    c->history = NULL;
    c->open = 0;
    if (active == c) active = NULL;
    clear_candidates();
}

static const tycho_opt_field open_fields[] = {
    TYCHO_OPT_STR("prompt"), TYCHO_OPT_STR("history"), TYCHO_OPT_FN("complete"), {0}};
static const tycho_opt_spec open_spec = {"console.open", open_fields};

static int l_open(lua_State *L)
{
    if (active) return luaL_error(L, "tycho.console.open: a console is already open");
    const char *prompt = "tycho> ";
    const char *history = NULL;
    tycho_l_checkopts(L, 1, 1, &open_spec);
    if (!lua_isnoneornil(L, 1)) {
        lua_getfield(L, 1, "prompt");
        if (!lua_isnil(L, -1)) prompt = luaL_checkstring(L, -1);
        lua_getfield(L, 1, "history");
        if (!lua_isnil(L, -1)) history = luaL_checkstring(L, -1);
        lua_getfield(L, 1, "complete");
        if (!lua_isnil(L, -1) && !lua_isfunction(L, -1))
            return luaL_error(L, "bad field 'complete' in argument #1 (function expected)");
        lua_pop(L, 3);
    }
    console *c = tycho_newuserdata(L, sizeof *c);
    memset(c, 0, sizeof *c);
    luaL_getmetatable(L, CONSOLE_MT);
    lua_setmetatable(L, -2);
    /* keep the completion function with the console */
    lua_newtable(L);
    if (lua_istable(L, 1)) {
        lua_getfield(L, 1, "complete");
        lua_setfield(L, -2, "complete");
    }
    lua_setfield(L, LUA_REGISTRYINDEX, "tycho.console.state");
    c->open = 1;
    c->tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
    if (history) c->history = strdup(history);
    snprintf(c->prompt, sizeof c->prompt, "%s", prompt);
    active = c;
    if (c->tty) {
        rl_catch_signals = 0;
        rl_attempted_completion_function = complete;
        if (c->history) read_history(c->history);
        stifle_history(1000);
        rl_callback_handler_install(c->prompt, on_line);
    } else {
        fputs(prompt, stdout);
        fflush(stdout);
    }
    return 1;
}

/* Reads what is available on a non-terminal stdin into whole lines. */
static void read_raw(console *c)
{
    char buf[4096];
    ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
    if (n == 0) {
        c->eof = 1;
        return;
    }
    if (n < 0) {
        if (errno != EINTR && errno != EAGAIN) c->eof = 1;
        return;
    }
    for (ssize_t i = 0; i < n; i++) {
        if (buf[i] == '\n') {
            char *line = malloc(c->nraw + 1);
            if (line) {
                memcpy(line, c->raw, c->nraw);
                line[c->nraw] = 0;
                push_pending(c, line);
            }
            c->nraw = 0;
        } else if (c->nraw < MAX_RAW_LINE - 1) {
            c->raw[c->nraw++] = buf[i];
        }
    }
}

static int l_poll(lua_State *L)
{
    console *c = check_console(L);
    double timeout = luaL_optnumber(L, 2, 0);
    luaL_argcheck(L, timeout >= 0 && timeout <= 3600, 2, "timeout must be in [0, 3600] s");
    lua_getfield(L, LUA_REGISTRYINDEX, "tycho.console.state");
    lua_getfield(L, -1, "complete");
    int cidx = lua_isfunction(L, -1) ? lua_gettop(L) : 0;
    double left = timeout;
    if (c->tty && c->need_prompt && !c->eof) {
        /* libedit shows the prompt when the handler is installed; after a
         * line it would only show it at the next key, so reinstall once
         * the output for that line is out. (Its rl_redisplay replays the
         * terminal's reprint key, ^R, which starts a history search, so
         * the console never calls it.) */
        rl_callback_handler_remove();
        rl_callback_handler_install(c->prompt, on_line);
        c->need_prompt = 0;
    }
    do {
        if (c->npending || c->eof) break;
        fd_set in;
        FD_ZERO(&in);
        FD_SET(STDIN_FILENO, &in);
        struct timeval tv = {(time_t)left, (suseconds_t)((left - (double)(time_t)left) * 1e6)};
        int r = select(STDIN_FILENO + 1, &in, NULL, NULL, &tv);
        if (r <= 0) break; /* timeout, or a signal: the runtime has work to do */
        lua_State *saved_L = poll_L;
        int saved_idx = poll_complete_idx;
        poll_L = L;
        poll_complete_idx = cidx;
        int before = c->npending;
        if (c->tty) {
            rl_callback_read_char();
            if (c->npending > before) c->need_prompt = 1;
        } else {
            read_raw(c);
        }
        poll_L = saved_L;
        poll_complete_idx = saved_idx;
        left = 0; /* after input, hand back quickly */
    } while (0);
    lua_settop(L, 2);
    if (c->npending == 0 && c->eof) {
        lua_pushnil(L);
        lua_pushliteral(L, "eof");
        return 2;
    }
    lua_createtable(L, c->npending, 0);
    for (int i = 0; i < c->npending; i++) {
        lua_pushstring(L, c->pending[i]);
        lua_rawseti(L, -2, i + 1);
        free(c->pending[i]);
    }
    c->npending = 0;
    return 1;
}

static int l_prompt(lua_State *L)
{
    console *c = check_console(L);
    const char *p = luaL_checkstring(L, 2);
    if (c->tty) {
        /* shown when the handler is reinstalled at the next poll */
        snprintf(c->prompt, sizeof c->prompt, "%s", p);
        if (!c->need_prompt) {
            fputs("\r\x1b[K", stdout);
            c->need_prompt = 1;
        }
    } else {
        fputs(p, stdout);
        fflush(stdout);
    }
    return 0;
}

/* Prints text on its own lines. Mid-edit (a log line while someone types)
 * the line being edited is cleared, the text printed, and the prompt and
 * the half-typed line drawn again below it. */
static int l_print(lua_State *L)
{
    console *c = check_console(L);
    size_t n;
    const char *s = luaL_checklstring(L, 2, &n);
    int redraw = c->tty && !c->need_prompt;
    if (redraw) fputs("\r\x1b[K", stdout);
    fwrite(s, 1, n, stdout);
    if (n == 0 || s[n - 1] != '\n') fputc(c->tty ? '\r' : '\n', stdout);
    if (c->tty && (n == 0 || s[n - 1] != '\n')) fputc('\n', stdout);
    if (redraw) {
        fputs(c->prompt, stdout);
        if (rl_line_buffer && rl_end > 0) fwrite(rl_line_buffer, 1, (size_t)rl_end, stdout);
    }
    fflush(stdout);
    return 0;
}

static int l_close(lua_State *L)
{
    console *c = luaL_checkudata(L, 1, CONSOLE_MT);
    if (c->open && c->tty) fputc('\n', stdout);
    close_console(c);
    return 0;
}

static int l_tostring(lua_State *L)
{
    console *c = luaL_checkudata(L, 1, CONSOLE_MT);
    lua_pushfstring(L, "console (%s, %s)", c->open ? "open" : "closed",
                    c->tty ? "terminal" : "plain input");
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
-- console, sockets, system -----------------------------------------------------------------

---@class tycho.console
local console = {}
tycho.console = {}
---@param o? {prompt?: string, history?: string, complete?: fun(word: string, line: string, pos: integer): string[]}
---@return tycho.console
function tycho.console.open(o) end
---@return string[]|nil lines, string? why
function console:poll(timeout_s) end
function console:prompt(text) end
function console:print(text) end
function console:close() end
*/
// clang-format on

void tycho_l_open_console(lua_State *L, int module, int methods)
{
    (void)methods;
    static const luaL_Reg meth[] = {{"poll", l_poll},
                                    {"prompt", l_prompt},
                                    {"print", l_print},
                                    {"close", l_close},
                                    {NULL, NULL}};
    tycho_l_newclass(L, &(tycho_l_class){CONSOLE_MT, meth, NULL, l_close, l_tostring, NULL});
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushcfunction(L, l_open);
    lua_setfield(L, -2, "open");
    lua_setfield(L, module, "console");
    tycho_l_register_opts(L, &open_spec);
}
