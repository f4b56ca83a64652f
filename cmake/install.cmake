# `cmake --install`: the executable, libtycho (shared, SONAME libtycho.so.0,
# and static), the public headers, tycho.pc, the CMake package
# (find_package(tycho)), tycho.so for stock Lua, the runtime's Lua files as
# tycho.* modules, the driver plugins, maps, robot configs and the man page.
# Nothing installed names the source or build tree: the runtime finds its
# files from where it lies (bindings/home.c), so the tree can be moved.
# Then CPack (cpack -G DEB; scripts/deb.sh).
include(CMakePackageConfigHelpers)

# libtycho: the C core, from the objects tycho_core is made of
add_library(tycho_shared SHARED $<TARGET_OBJECTS:tycho_core_objects>)
set_target_properties(tycho_shared PROPERTIES OUTPUT_NAME tycho EXPORT_NAME tycho
                      VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
# exports the public API only (core/libtycho.map; the ctest module_exports checks it)
target_link_options(tycho_shared PRIVATE "LINKER:--version-script=${CMAKE_SOURCE_DIR}/core/libtycho.map")
set_target_properties(tycho_shared PROPERTIES LINK_DEPENDS ${CMAKE_SOURCE_DIR}/core/libtycho.map)
target_link_libraries(tycho_shared PRIVATE PkgConfig::PNG PkgConfig::YAML PkgConfig::CAIRO ${CXSPARSE_LIBRARY} PkgConfig::ZSTD PkgConfig::ZLIB m)
add_library(tycho_static STATIC $<TARGET_OBJECTS:tycho_core_objects>)
set_target_properties(tycho_static PROPERTIES OUTPUT_NAME tycho EXPORT_NAME tycho_static)
# a static archive's users link its dependencies; plain names, found on the
# system's library path where Debian's -dev packages put them
target_link_libraries(tycho_static INTERFACE ${PNG_LIBRARIES} ${YAML_LIBRARIES} ${CAIRO_LIBRARIES} cxsparse ${ZSTD_LIBRARIES} ${ZLIB_LIBRARIES} pthread m)
foreach(t tycho_shared tycho_static)
  target_include_directories(${t} INTERFACE $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/core/include>
                             $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
endforeach()

install(TARGETS tycho RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS tycho_shared tycho_static EXPORT tychoTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/core/include/tycho ${CMAKE_SOURCE_DIR}/drivers/include/tycho
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")

# tycho.pc: its prefix is found from the file's own place, so a moved tree
# still builds against itself
file(RELATIVE_PATH TYCHO_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" TYCHO_PC_TO_PREFIX "${TYCHO_PC_TO_PREFIX}")
configure_file(${CMAKE_SOURCE_DIR}/cmake/tycho.pc.in ${CMAKE_BINARY_DIR}/tycho.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/tycho.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

set(TYCHO_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tycho)
install(EXPORT tychoTargets NAMESPACE tycho:: DESTINATION ${TYCHO_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/tychoConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/tychoConfig.cmake INSTALL_DESTINATION ${TYCHO_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/tychoConfigVersion.cmake COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/tychoConfig.cmake ${CMAKE_BINARY_DIR}/tychoConfigVersion.cmake
        DESTINATION ${TYCHO_CMAKE_DIR})

# Lua: the C module where stock Lua looks (PREFIX/<libdir>/lua/5.4), the
# runtime's Lua files under the tycho. prefix (PREFIX/share/lua/5.4/tycho)
# (component lua: what the rockspec installs, `cmake --install --component lua`)
install(TARGETS tycho_module LIBRARY DESTINATION ${TYCHO_INSTALL_CMODDIR} COMPONENT lua)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/behaviors/ DESTINATION ${TYCHO_INSTALL_LUADIR} COMPONENT lua
        FILES_MATCHING PATTERN "*.lua")
install(FILES ${CMAKE_SOURCE_DIR}/bindings/tycho_ffi.lua DESTINATION ${TYCHO_INSTALL_LUADIR} COMPONENT lua)
install(FILES ${CMAKE_BINARY_DIR}/meta/tycho.lua DESTINATION ${TYCHO_INSTALL_DATADIR}/meta)

get_property(TYCHO_PLUGIN_TARGETS GLOBAL PROPERTY TYCHO_PLUGINS)
install(TARGETS ${TYCHO_PLUGIN_TARGETS} LIBRARY DESTINATION ${TYCHO_INSTALL_PLUGINDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/maps/ DESTINATION ${TYCHO_INSTALL_DATADIR}/maps)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/robots/ DESTINATION ${TYCHO_INSTALL_DATADIR}/robots)
# the JSON Schemas of the live view and recording channels (behaviors/channels.lua)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/viz/ DESTINATION ${TYCHO_INSTALL_DATADIR}/viz)
install(FILES ${CMAKE_SOURCE_DIR}/repl/tycho.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# --- Debian package: cpack -G DEB (scripts/deb.sh) ---------------------------
set(CPACK_PACKAGE_NAME tycho)
set(CPACK_PACKAGE_VENDOR "tycho")
set(CPACK_PACKAGE_CONTACT "tycho maintainers <tycho@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "robot runtime: C core with embedded Lua 5.4 behaviours and a simulator")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION misc)
# Debian 12's names for what the installed files link and run with
if(TYCHO_LUAJIT)
  set(TYCHO_DEB_LUA "libluajit-5.1-2")
else()
  set(TYCHO_DEB_LUA "liblua5.4-0")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libc6, ${TYCHO_DEB_LUA}, libpng16-16, libyaml-0-2, libedit2, libgpiod2, libi2c0, libcxsparse3, libzstd1, zlib1g, libwslay1, libnettle8, libcairo2, fonts-dejavu-core")
# `require "tycho"` from the stock interpreter
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "lua5.4")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "tycho runs robot missions written in Lua on a C core (maps, ray casting,\n planners, fusion, drivers) against the built-in simulator or the robot.")
include(CPack)
