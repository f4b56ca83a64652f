# --- hardware in the loop: the reference mission through the real drivers ---
# The simulator (tests/hil/hil_bridge.lua, with the tycho_hil Lua module for
# the pseudo-terminal devices) stands behind the base, LiDAR, camera and
# launcher drivers; the fake I2C bus and fake libgpiod are preloaded into the
# runtime. The mission runs at wall-clock pace (about five minutes), so the
# test is registered in the plain Lua 5.4 flavour only.
if(NOT TYCHO_LUAJIT AND NOT TYCHO_SANITIZE)
  set(TYCHO_HIL_DIR ${CMAKE_BINARY_DIR}/hil)
  add_library(tycho_hil MODULE ${CMAKE_SOURCE_DIR}/tests/hil/hil_lua.c ${CMAKE_SOURCE_DIR}/tests/drivers/opencr_sim.c)
  set_target_properties(tycho_hil PROPERTIES PREFIX "" OUTPUT_NAME tycho_hil LIBRARY_OUTPUT_DIRECTORY ${TYCHO_HIL_DIR})
  target_include_directories(tycho_hil PRIVATE ${CMAKE_SOURCE_DIR}/bindings ${CMAKE_SOURCE_DIR}/tests/drivers
                             ${LUA_INCLUDE_DIRS})
  target_link_libraries(tycho_hil PRIVATE tycho_core pthread)

  add_library(tycho_fake_i2c_preload SHARED ${CMAKE_SOURCE_DIR}/tests/hil/preload_i2c.c
              ${CMAKE_SOURCE_DIR}/tests/fake/fake_i2c.c)
  target_include_directories(tycho_fake_i2c_preload PRIVATE ${CMAKE_SOURCE_DIR}/tests/fake)
  target_link_libraries(tycho_fake_i2c_preload PRIVATE pthread ${CMAKE_DL_LIBS})
  add_library(tycho_fake_gpiod_preload SHARED ${CMAKE_SOURCE_DIR}/tests/hil/preload_gpiod.c
              ${CMAKE_SOURCE_DIR}/tests/fake/fake_gpiod.c)
  target_compile_definitions(tycho_fake_gpiod_preload PRIVATE FAKE_GPIOD_V2=${TYCHO_GPIOD_V2})
  if(TYCHO_GPIOD_V2)
    target_include_directories(tycho_fake_gpiod_preload BEFORE PRIVATE ${CMAKE_SOURCE_DIR}/tests/fake/v2)
  endif()
  target_include_directories(tycho_fake_gpiod_preload PRIVATE ${CMAKE_SOURCE_DIR}/tests/fake)
  target_link_libraries(tycho_fake_gpiod_preload PRIVATE pthread)
  set_target_properties(tycho_fake_i2c_preload tycho_fake_gpiod_preload PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${TYCHO_HIL_DIR})

  add_test(NAME e2e_heat_seek_hil
           COMMAND ${LUA_INTERP} ${BUSTED} --output=plainTerminal ${CMAKE_SOURCE_DIR}/tests/hil/hil_spec.lua
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(e2e_heat_seek_hil PROPERTIES TIMEOUT 1200
    ENVIRONMENT "${TYCHO_TEST_ENV};${TYCHO_LUA_ENV};TYCHO_HIL_CPATH=${TYCHO_HIL_DIR}/?.so;TYCHO_HIL_REPORT=${TYCHO_HIL_DIR}/e2e_report.txt;TYCHO_HIL_PRELOAD=$<TARGET_FILE:tycho_fake_i2c_preload>:$<TARGET_FILE:tycho_fake_gpiod_preload>")
endif()
