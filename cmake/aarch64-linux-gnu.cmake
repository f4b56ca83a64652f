# Cross-compiling for arm64 (the robot's Raspberry Pi) with Debian's
# crossbuild-essential-arm64 and the :arm64 -dev packages (multiarch):
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# Test programs run under qemu-aarch64-static (scripts/arm64.sh).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# the target's libraries and headers; the host's programs (lua5.4, busted)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
# pkg-config answers for the target's .pc files only
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
find_program(TYCHO_QEMU_AARCH64 qemu-aarch64-static)
if(TYCHO_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${TYCHO_QEMU_AARCH64})
endif()
