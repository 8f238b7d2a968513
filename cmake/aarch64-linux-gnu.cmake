# Cross-compiling to 64-bit ARM Linux with Debian's cross toolchain
# (g++-aarch64-linux-gnu) against the arm64 multiarch libraries
# (libicu-dev:arm64, libfmt-dev:arm64, ... in /usr/lib/aarch64-linux-gnu).
# Tests run under qemu-user: CMake prefixes every test and custom command
# that runs a built program with CMAKE_CROSSCOMPILING_EMULATOR, and
# tests/CMakeLists.txt hands the command-line tests a wrapper as TOK.
# scripts/test --arch aarch64 installs the packages and uses this file.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# Debian's multiarch layout: the target's libraries and config files live
# beside the host's under /usr, so search /usr but only the target's
# lib/aarch64-linux-gnu (CMake adds it from CMAKE_LIBRARY_ARCHITECTURE), and
# ask pkg-config for the target's .pc files only.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
# The arm64 loader and libraries installed by dpkg (libc6:arm64 ...) are
# where the program looks for them, so qemu needs no -L prefix.
find_program(TOK_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR ${TOK_QEMU_AARCH64})
