# Packaging tests (label packaging): the relocatable install in every
# flavour; the Debian package, the rockspec and `busted` at the top of the
# repository in the plain Lua 5.4 flavour (the one they are made for).
set(TYCHO_PACKAGING_DIR ${CMAKE_SOURCE_DIR}/tests/packaging)
set(TYCHO_PACKAGING_ENV "")
if(TYCHO_SANITIZE)
  list(APPEND TYCHO_PACKAGING_ENV "TYCHO_TEST_LUA_PRELOAD=${ASAN_LIB}:${UBSAN_LIB}"
       "TYCHO_TEST_CONSUMER_FLAGS=-fsanitize=address,undefined" "TYCHO_TEST_SANITIZED=1")
endif()
add_test(NAME install_relocated
         COMMAND bash ${TYCHO_PACKAGING_DIR}/install_relocated.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR} ${LUA_INTERP}
                 ${CMAKE_INSTALL_LIBDIR} ${TYCHO_INSTALL_CMODDIR} ${TYCHO_INSTALL_LUADIR} ${TYCHO_INSTALL_DATADIR}
                 ${TYCHO_INSTALL_PLUGINDIR})
set_tests_properties(install_relocated PROPERTIES LABELS packaging TIMEOUT 600 ENVIRONMENT "${TYCHO_PACKAGING_ENV}")

if(NOT TYCHO_SANITIZE AND NOT TYCHO_LUAJIT)
  add_test(NAME package_deb
           COMMAND bash ${TYCHO_PACKAGING_DIR}/package_deb.sh ${CMAKE_BINARY_DIR} ${TYCHO_INSTALL_LUADIR}
                   ${TYCHO_INSTALL_DATADIR})
  # dpkg -i changes the machine: alone, and 77 (not root, or a tycho
  # package already there) is a skip
  set_tests_properties(package_deb PROPERTIES LABELS packaging TIMEOUT 300 RUN_SERIAL TRUE SKIP_RETURN_CODE 77)
  # the same package on a clean Debian 12 (debootstrap): its Depends resolved
  # from the archive, not from what this machine has
  add_test(NAME package_deb_chroot
           COMMAND bash ${TYCHO_PACKAGING_DIR}/package_deb_chroot.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
  set_tests_properties(package_deb_chroot PROPERTIES LABELS packaging TIMEOUT 900 RUN_SERIAL TRUE
                       SKIP_RETURN_CODE 77)
  add_test(NAME rockspec_make COMMAND bash ${TYCHO_PACKAGING_DIR}/rockspec_make.sh ${CMAKE_SOURCE_DIR} ${LUA_INTERP})
  set_tests_properties(rockspec_make PROPERTIES LABELS packaging TIMEOUT 600 SKIP_RETURN_CODE 77)
  # .busted points at build/: tested from the build that is there
  if(CMAKE_BINARY_DIR STREQUAL "${CMAKE_SOURCE_DIR}/build")
    add_test(NAME busted_toplevel COMMAND bash ${TYCHO_PACKAGING_DIR}/busted_toplevel.sh ${CMAKE_SOURCE_DIR})
    set_tests_properties(busted_toplevel PROPERTIES LABELS packaging TIMEOUT 300)
  endif()
endif()

# the resolver behind the relocatable install, on layouts built for it
add_executable(test_home ${TYCHO_PACKAGING_DIR}/test_home.c ${CMAKE_SOURCE_DIR}/bindings/home.c)
target_include_directories(test_home PRIVATE ${CMAKE_SOURCE_DIR}/bindings ${CMAKE_SOURCE_DIR}/tests/c ${LUA_INCLUDE_DIRS})
target_link_libraries(test_home PRIVATE PkgConfig::LUA ${CMAKE_DL_LIBS})
add_test(NAME c_test_home COMMAND test_home)
# it requires tycho.so through Lua, and lua_close unloads it with cairo's
# dependencies: the full unwinder lets tests/lsan.supp recognise their
# constructors' allocations (_dl_init) in the sanitized flavour
set_tests_properties(c_test_home PROPERTIES ENVIRONMENT "${TYCHO_TEST_ENV};ASAN_OPTIONS=fast_unwind_on_malloc=0")
