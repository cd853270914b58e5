# The bundle target's script (cmake/Bundle.cmake says what the bundle holds).
#   cmake -DBINARY=... -DOUT=... -DSTRIP=... -DOBJDUMP=... -P MakeBundle.cmake
set(glibc "^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libresolv|libutil|libmvec|libanl)[.-]")
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}/bin" "${OUT}/lib")
execute_process(COMMAND "${STRIP}" -o "${OUT}/bin/layoutproof" "${BINARY}" COMMAND_ERROR_IS_FATAL ANY)
file(GET_RUNTIME_DEPENDENCIES EXECUTABLES "${BINARY}"
     RESOLVED_DEPENDENCIES_VAR libraries UNRESOLVED_DEPENDENCIES_VAR unresolved
     PRE_EXCLUDE_REGEXES "${glibc}" POST_EXCLUDE_REGEXES "/${glibc}")
if(unresolved)
  message(FATAL_ERROR "bundle: the loader cannot find ${unresolved} for ${BINARY}")
endif()
foreach(path IN LISTS libraries)
  get_filename_component(name "${path}" NAME)
  file(REAL_PATH "${path}" real)
  # Named as the binary asks for it (its soname), with the content of the file the link points to.
  file(COPY_FILE "${real}" "${OUT}/lib/${name}")
  execute_process(COMMAND "${STRIP}" --strip-unneeded "${OUT}/lib/${name}")
endforeach()
file(WRITE "${OUT}/layoutproof" [[#!/bin/sh
# layoutproof from the bundle target (cmake/Bundle.cmake): the bundled binary with the bundled libraries.
here=$(dirname "$(readlink -f "$0")")
exec /lib64/ld-linux-x86-64.so.2 --library-path "$here/lib" "$here/bin/layoutproof" "$@"
]])
file(CHMOD "${OUT}/layoutproof" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                            WORLD_READ WORLD_EXECUTE)
# The newest GLIBC_ version any bundled file asks for.
set(newest "")
file(GLOB bundled "${OUT}/bin/*" "${OUT}/lib/*")
foreach(f IN LISTS bundled)
  execute_process(COMMAND "${OBJDUMP}" -T "${f}" OUTPUT_VARIABLE symbols COMMAND_ERROR_IS_FATAL ANY)
  string(REGEX MATCHALL "GLIBC_2\\.[0-9]+" versions "${symbols}")
  foreach(v IN LISTS versions)
    string(REPLACE "GLIBC_" "" n "${v}")
    string(REPLACE "GLIBC_" "" m "${newest}")
    if(newest STREQUAL "" OR n VERSION_GREATER m)
      set(newest "${v}")
    endif()
  endforeach()
endforeach()
file(WRITE "${OUT}/GLIBC_NEEDED" "${newest}\n")
list(LENGTH libraries count)
message(STATUS "bundle: ${OUT} (${count} libraries), needs ${newest} or later")
