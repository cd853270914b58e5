# Writes, under OUT, what `cmake --install` puts in PREFIX/share from the built binary itself:
#   bash/layoutproof, zsh/_layoutproof   `layoutproof completion bash|zsh` (from the CLI definition)
#   man/layoutproof.1.gz, man/layoutproof-COMMAND.1.gz
#                                        help2man from `--help` of the driver and each subcommand,
#                                        with the sections of INCLUDE (exit status, files, see also)
#   stamp                                written last
#   cmake -DLAYOUTPROOF=... -DHELP2MAN=... -DINCLUDE=... -DVERSION=... -DOUT=... -P GenerateShareFiles.cmake
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}/bash" "${OUT}/zsh" "${OUT}/man" "${OUT}/wrappers")

function(run_checked)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${ARGN}: exit ${status}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

run_checked("${LAYOUTPROOF}" completion bash)
file(WRITE "${OUT}/bash/layoutproof" "${out}")
run_checked("${LAYOUTPROOF}" completion zsh)
file(WRITE "${OUT}/zsh/_layoutproof" "${out}")

if(HELP2MAN)
  # The subcommands and their one-line descriptions, from the "Subcommands:" list of --help.
  run_checked("${LAYOUTPROOF}" --help)
  string(REGEX REPLACE "^[^\n]*\n" "" after_first "${out}")
  string(REGEX MATCH "^[^\n]*" tagline "${out}")
  string(REGEX REPLACE "^LayoutProof: " "" tagline "${tagline}")
  string(REGEX MATCH "\nSubcommands:\n.*" listing "${out}")
  string(REPLACE "\n" ";" lines "${listing}")
  set(common --no-info --version-string=${VERSION} --include=${INCLUDE})
  run_checked("${HELP2MAN}" ${common} "--name=${tagline}" --output=${OUT}/man/layoutproof.1 "${LAYOUTPROOF}")
  foreach(line IN LISTS lines)
    if(line MATCHES "^  ([a-z][-a-z0-9]*) +(.*)$")
      set(name "${CMAKE_MATCH_1}")
      set(description "${CMAKE_MATCH_2}")
      # help2man names a page after the program it runs: `layoutproof-check --help` is
      # `layoutproof check --help`.
      set(wrapper "${OUT}/wrappers/layoutproof-${name}")
      file(WRITE "${wrapper}" "#!/bin/sh\nexec '${LAYOUTPROOF}' ${name} \"$@\"\n")
      file(CHMOD "${wrapper}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
      run_checked("${HELP2MAN}" ${common} "--name=${description}" --output=${OUT}/man/layoutproof-${name}.1 "${wrapper}")
    endif()
  endforeach()
  # Compressed, as Debian installs man pages; -n: no name or time stamp in the archive.
  file(GLOB pages "${OUT}/man/*.1")
  run_checked(gzip -9nf ${pages})
endif()
file(REMOVE_RECURSE "${OUT}/wrappers")
file(WRITE "${OUT}/stamp" "")
