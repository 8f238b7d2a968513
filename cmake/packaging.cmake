# What `cmake --install` installs besides the CLI, and what `cpack` packs.
#
# Components: `cli` (the default of every install() without COMPONENT: the
# binary, its vocabularies, the man page, the bash and fish completions),
# `zsh` (the zsh completion in share/zsh/site-functions), `zsh_debian` (the
# same file in share/zsh/vendor-completions, where Debian's zsh looks;
# installed only when asked for) and `dev` (the C++ library: <tok/tok.hpp>,
# the static libraries behind tok::tok and the CMake package files).
# `cmake --install build --prefix P` installs cli, zsh and dev; `cpack -G DEB`
# packs cli and zsh_debian, so the .deb holds only the CLI and nothing it
# installs overlaps the library's files.

# --- The tok::tok CMake package (component dev) ---------------------------
# tok_api (exported as tok::tok) and the modules it links, as static
# libraries; their own headers stay private (their include directories are
# build-tree only), so a consumer sees only <tok/tok.hpp> and the Result
# types it returns.
include(CMakePackageConfigHelpers)
set(TOK_CMAKE_PACKAGE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/tok")
install(TARGETS tok_api tok_formats tok_bpe tok_text tok_ggml tok_core EXPORT tokTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(FILES ${PROJECT_SOURCE_DIR}/include/tok/tok.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tok COMPONENT dev)
install(FILES ${PROJECT_SOURCE_DIR}/src/core/result.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tok/core COMPONENT dev)
install(EXPORT tokTargets NAMESPACE tok:: DESTINATION ${TOK_CMAKE_PACKAGE_DIR} COMPONENT dev)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tokConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tokConfig.cmake INSTALL_DESTINATION ${TOK_CMAKE_PACKAGE_DIR})
# 0.x: a minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tokConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tokConfig.cmake ${PROJECT_BINARY_DIR}/tokConfigVersion.cmake
        DESTINATION ${TOK_CMAKE_PACKAGE_DIR} COMPONENT dev)

# --- The Debian package of the CLI (cpack -G DEB) --------------------------
# tok_VERSION_ARCH.deb: version from project(), architecture from
# `dpkg --print-architecture`, the shared-library dependencies (libicu72,
# libfmt9, ...) computed by dpkg-shlibdeps (package dpkg-dev) from the binary.
set(TOK_DEB_MAINTAINER "tok maintainers <tok@localhost>" CACHE STRING
    "Maintainer field of the Debian package")
set(CPACK_PACKAGE_NAME tok)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "count, encode and compare LLM tokens")
set(CPACK_PACKAGE_DESCRIPTION
    "tok counts and encodes text with the tokenizers of language models (o200k_base,
cl100k_base, Llama 3, Qwen 3, any tokenizer.json or GGUF vocabulary), prices
it against a model catalog, compares vocabularies and runs small GGUF models.
The shipped vocabularies are in /usr/share/tok/vocab.")
set(CPACK_PACKAGE_CONTACT "${TOK_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli zsh_debian)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)
include(CPack)
