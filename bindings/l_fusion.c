/* Lua bindings: fusion (filled in by its area). */
#include "ltycho.h"

void tycho_l_open_fusion(lua_State *L, int module, int methods)
{
    (void)L;
    (void)module;
    (void)methods;
}
