/* Where the runtime finds its own files: the Lua side (behaviours, the
 * console, the mission runtime), the driver plugins and the sample worlds.
 *
 * Nothing here is a path compiled in at build time: the places are found
 * from where the running code itself lies, so an installed tree can be moved
 * or copied to a robot as a whole.
 *
 *   TYCHO_HOME set          that folder: a source tree if it holds behaviors/,
 *                           else an install prefix
 *   installed               the executable in PREFIX/bin (or the Lua module in
 *                           PREFIX/<libdir>/lua/5.x): PREFIX's share/lua/5.x/tycho,
 *                           <libdir>/tycho/plugins, share/tycho
 *   build tree              a file `tycho-source-tree` beside the executable or
 *                           module names the source tree (written by cmake);
 *                           plugins in the build tree's drivers/
 */
#ifndef TYCHO_HOME_H
#define TYCHO_HOME_H

#include <stddef.h>

#include "compat.h"

#define TYCHO_HOME_PATH_MAX 4096

typedef struct {
    char layout[16];                    /* "installed", "source" or "none" */
    char lua_dir[TYCHO_HOME_PATH_MAX];  /* fsm.lua, heat_seek.lua, repl_main.lua ... */
    char lua_dir2[TYCHO_HOME_PATH_MAX]; /* a second one (the source tree's bindings/), or "" */
    char plugin_dir[TYCHO_HOME_PATH_MAX];
    char data_dir[TYCHO_HOME_PATH_MAX];      /* maps/ and robots/ */
    char problem[TYCHO_HOME_PATH_MAX + 128]; /* why there is none ("" when found) */
} tycho_home;

/* Relative install folders, as cmake's install rules use them. */
typedef struct {
    const char *bindir;  /* "bin" */
    const char *cmoddir; /* "lib/lua/5.4": where tycho.so goes */
    const char *luadir;  /* "share/lua/5.4/tycho" */
    const char *plugindir;
    const char *datadir; /* "share/tycho" */
} tycho_install_dirs;

/* The install folders this build was configured with. */
const tycho_install_dirs *tycho_install_dirs_default(void);

/* Resolves the home from an explicit TYCHO_HOME value (NULL: unset) and the
 * absolute path of the running object (the executable or tycho.so; NULL:
 * unknown). Returns 0, or -1 with why in h->problem (the layout is "none"). */
int tycho_home_resolve(tycho_home *h, const tycho_install_dirs *dirs, const char *env_home,
                       const char *object_path);

/* The home of this process, resolved once (TYCHO_HOME, then the executable
 * or the module's own file). */
const tycho_home *tycho_home_get(void);

/* The executable says so before the first tycho_home_get: its own file is
 * /proc/self/exe, not the shared object holding this code. */
void tycho_home_in_executable(void);

/* Adds the package searchers that give the runtime's Lua files both names:
 * `require "tycho.fsm"` and the older `require "fsm"` load one instance.
 * Idempotent. */
void tycho_home_install_searchers(lua_State *L);

/* tycho.home(): the resolved places, for scripts (and to see what was found) */
int tycho_l_home(lua_State *L);

#endif
