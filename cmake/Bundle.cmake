# `cmake --build BUILD --target bundle`: BUILD/bundle/, a relocatable copy of the tool for machines
# that lack its libraries (the GPU device machine: scripts/gpu/bundle.sh, replay-findings.sh):
#   bin/layoutproof   the stripped binary
#   lib/              every shared library it needs beyond glibc (libz3, spdlog, fmt, libstdc++, ...)
#   layoutproof       starts bin/layoutproof through the system's dynamic loader with
#                     `--library-path lib`: the bundled libraries for this program only, so nvcc, ncu
#                     and the replay programs it spawns keep the machine's own (LD_LIBRARY_PATH would not)
#   GLIBC_NEEDED      the newest GLIBC_ symbol version the bundle asks for: the machine's glibc must
#                     be at least that
# glibc stays behind because the machine's loader must match its own libc.
set(LP_BUNDLE_DIR ${PROJECT_BINARY_DIR}/bundle CACHE PATH "Where the bundle target writes the relocatable tool")
add_custom_target(bundle
  COMMAND ${CMAKE_COMMAND} -DBINARY=$<TARGET_FILE:layoutproof> -DOUT=${LP_BUNDLE_DIR} -DSTRIP=${CMAKE_STRIP}
          -DOBJDUMP=${CMAKE_OBJDUMP} -P ${CMAKE_CURRENT_LIST_DIR}/MakeBundle.cmake
  DEPENDS layoutproof ${CMAKE_CURRENT_LIST_DIR}/MakeBundle.cmake
  COMMENT "Writing the relocatable bundle ${LP_BUNDLE_DIR}" VERBATIM)
