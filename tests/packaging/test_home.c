/* bindings/home.c: where the runtime finds its files. Builds the layouts it
 * must recognise in a temporary folder (an installed prefix, a build tree
 * beside its source tree, TYCHO_HOME of either kind, broken ones) and checks
 * what is resolved, then the two names of a runtime module through the
 * package searchers in a Lua state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "home.h"

static char root[256];

static void mkdirs(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    mkdir(path, 0755);
}

static void write_file(const char *rel, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

static const char *at(const char *rel)
{
    static char bufs[4][1024];
    static int next;
    char *b = bufs[next++ % 4];
    snprintf(b, sizeof b[0] * 1024, "%s%s%s", root, *rel ? "/" : "", rel);
    return b;
}

static const tycho_install_dirs dirs = {"bin", "lib/x86_64-linux-gnu/lua/5.4",
                                        "share/lua/5.4/tycho", "lib/x86_64-linux-gnu/tycho/plugins",
                                        "share/tycho"};

static void test_installed(void)
{
    tycho_home h;
    mkdirs("prefix/bin");
    mkdirs("prefix/share/lua/5.4/tycho");
    mkdirs("prefix/lib/x86_64-linux-gnu/lua/5.4");
    /* the executable in PREFIX/bin */
    CHECK(tycho_home_resolve(&h, &dirs, NULL, at("prefix/bin/tycho")) == 0);
    CHECK(strcmp(h.layout, "installed") == 0);
    CHECK(strcmp(h.lua_dir, at("prefix/share/lua/5.4/tycho")) == 0);
    CHECK(h.lua_dir2[0] == '\0');
    CHECK(strcmp(h.plugin_dir, at("prefix/lib/x86_64-linux-gnu/tycho/plugins")) == 0);
    CHECK(strcmp(h.data_dir, at("prefix/share/tycho")) == 0);
    /* tycho.so where stock Lua loads it from finds the same prefix */
    CHECK(tycho_home_resolve(&h, &dirs, NULL, at("prefix/lib/x86_64-linux-gnu/lua/5.4/tycho.so")) ==
          0);
    CHECK(strcmp(h.lua_dir, at("prefix/share/lua/5.4/tycho")) == 0);
    /* a bin/ without the Lua files is no installation */
    mkdirs("bare/bin");
    CHECK(tycho_home_resolve(&h, &dirs, NULL, at("bare/bin/tycho")) == -1);
    CHECK(strcmp(h.layout, "none") == 0 && h.lua_dir[0] == '\0');
    CHECK_MSG(strstr(h.problem, "bare/bin/tycho") && strstr(h.problem, "TYCHO_HOME"), "%s",
              h.problem);
    /* an absolute install folder (a rock's) names no prefix */
    tycho_install_dirs absolute = dirs;
    absolute.bindir = "/bin";
    absolute.cmoddir = "/lib/x86_64-linux-gnu/lua/5.4";
    CHECK(tycho_home_resolve(&h, &absolute, NULL, at("prefix/bin/tycho")) == -1);
    /* a folder merely ending in the same letters is not bin/ */
    mkdirs("prefixbin");
    CHECK(tycho_home_resolve(&h, &dirs, NULL, at("prefixbin/tycho")) == -1);
    /* a relative path says so rather than guessing */
    CHECK(tycho_home_resolve(&h, &dirs, NULL, "tycho") == -1 &&
          strstr(h.problem, "not an absolute path"));
    CHECK(tycho_home_resolve(&h, &dirs, NULL, NULL) == -1 && strstr(h.problem, "TYCHO_HOME"));
}

static void test_build_tree(void)
{
    tycho_home h;
    mkdirs("src/behaviors");
    mkdirs("src/bindings");
    mkdirs("src/build/drivers");
    char marker[1024];
    snprintf(marker, sizeof marker, "%s\n", at("src"));
    write_file("src/build/tycho-source-tree", marker);
    CHECK(tycho_home_resolve(&h, &dirs, NULL, at("src/build/tycho")) == 0);
    CHECK(strcmp(h.layout, "source") == 0);
    CHECK(strcmp(h.lua_dir, at("src/behaviors")) == 0);
    CHECK(strcmp(h.lua_dir2, at("src/bindings")) == 0);
    CHECK(strcmp(h.plugin_dir, at("src/build/drivers")) == 0);
    CHECK(strcmp(h.data_dir, at("src")) == 0);
    /* a build tree whose source tree has gone */
    mkdirs("orphan");
    write_file("orphan/tycho-source-tree", "/nonexistent/tycho-src\n");
    CHECK(tycho_home_resolve(&h, &dirs, NULL, at("orphan/tycho")) == -1);
    CHECK_MSG(strstr(h.problem, "/nonexistent/tycho-src") && strstr(h.problem, "gone"), "%s",
              h.problem);
    /* an empty marker is no marker */
    mkdirs("empty");
    write_file("empty/tycho-source-tree", "\n");
    CHECK(tycho_home_resolve(&h, &dirs, NULL, at("empty/tycho")) == -1);
}

static void test_env_home(void)
{
    tycho_home h;
    /* TYCHO_HOME wins over where the program lies */
    CHECK(tycho_home_resolve(&h, &dirs, at("src"), at("prefix/bin/tycho")) == 0);
    CHECK(strcmp(h.layout, "source") == 0 && strcmp(h.lua_dir, at("src/behaviors")) == 0);
    CHECK(strcmp(h.plugin_dir, at("src/build/drivers")) == 0);
    /* a source tree as TYCHO_HOME, the program in another build tree of it:
     * that build's plugins */
    mkdirs("src/build-luajit/drivers");
    char marker[1024];
    snprintf(marker, sizeof marker, "%s\n", at("src"));
    write_file("src/build-luajit/tycho-source-tree", marker);
    CHECK(tycho_home_resolve(&h, &dirs, at("src"), at("src/build-luajit/tycho")) == 0);
    CHECK(strcmp(h.plugin_dir, at("src/build-luajit/drivers")) == 0);
    CHECK(tycho_home_resolve(&h, &dirs, at("prefix"), at("src/build/tycho")) == 0);
    CHECK(strcmp(h.layout, "installed") == 0 &&
          strcmp(h.lua_dir, at("prefix/share/lua/5.4/tycho")) == 0);
    CHECK(tycho_home_resolve(&h, &dirs, at("bare"), at("prefix/bin/tycho")) == -1);
    CHECK_MSG(strstr(h.problem, "TYCHO_HOME=") && strstr(h.problem, "bare"), "%s", h.problem);
}

/* require "tycho.X" and require "X" load one instance of the runtime's X;
 * other names are left to Lua's own searchers */
static void test_searchers(void)
{
    mkdirs("prefix/share/lua/5.4/tycho/sub");
    write_file("prefix/share/lua/5.4/tycho/alpha.lua",
               "loads = (loads or 0) + 1\nreturn { name = ... }\n");
    write_file("prefix/share/lua/5.4/tycho/sub/beta.lua", "return { beta = true }\n");
    mkdirs("user/tycho");
    write_file("user/tycho/mine.lua", "return { mine = true }\n");
    /* tycho_home_get reads TYCHO_HOME once, at its first call: this one */
    setenv("TYCHO_HOME", at("prefix"), 1);
    const tycho_home *h = tycho_home_get();
    CHECK_MSG(strcmp(h->layout, "installed") == 0, "%s %s", h->layout, h->problem);

    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    tycho_home_install_searchers(L);
    tycho_home_install_searchers(L); /* twice: still one pair */
    char code[2048];
    snprintf(
        code, sizeof code,
        "package.path = '%s/?.lua;' .. package.path\n"
        "local n = #(package.searchers or package.loaders)\n"
        "local a = require 'tycho.alpha'\n"
        "assert(a == require 'alpha', 'two instances')\n"
        "assert(loads == 1, 'loaded ' .. tostring(loads) .. ' times')\n"
        "assert(a.name == 'alpha', 'the module is told its short name: ' .. tostring(a.name))\n"
        "assert(require('tycho.sub.beta') == require('sub.beta') and require('sub.beta').beta)\n"
        "assert(require('tycho.mine').mine, 'a user module under tycho. is not taken away')\n"
        "local ok, err = pcall(require, 'tycho.nosuch')\n"
        "assert(not ok and err:find(\"module 'tycho.nosuch' not found\", 1, true), err)\n"
        "ok, err = pcall(require, 'nosuch')\n"
        "assert(not ok and err:find(\"no runtime module 'tycho.nosuch'\", 1, true), err)\n"
        "return n\n",
        at("user"));
    int rc = luaL_dostring(L, code);
    CHECK_MSG(rc == 0, "%s", rc ? lua_tostring(L, -1) : "");
    if (rc == 0) {
        int n = (int)lua_tointeger(L, -1);
        CHECK_MSG(n == 6, "%d searchers", n); /* Lua 5.4 and LuaJIT both have 4 of their own */
    }
    lua_close(L);
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/tycho-home-XXXXXX");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    test_installed();
    test_build_tree();
    test_env_home();
    test_searchers();
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
    return check_summary("home");
}
