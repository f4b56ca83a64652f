/* Lua bindings: runtime (filled in by its area). */
#include "ltycho.h"

void tycho_l_open_runtime(lua_State *L, int module, int methods)
{
    (void)L;
    (void)module;
    (void)methods;
}
