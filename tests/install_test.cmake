# `cmake --install` of this build into a fresh prefix: bin/nqcount is there and runs, its
# --version is the project's version, the documentation sits in share/doc/nqcount, the man
# pages in share/man/man1 and the bash completion in share/bash-completion/completions.
# Run by ctest: cmake -DBUILD_DIR=... -DPREFIX=... -DVERSION=... -DMPI=ON|OFF -P install_test.cmake
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX}
                RESULT_VARIABLE status OUTPUT_QUIET ERROR_VARIABLE error)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${status}): ${error}")
endif()
execute_process(COMMAND ${PREFIX}/bin/nqcount --version RESULT_VARIABLE status
                OUTPUT_VARIABLE out ERROR_VARIABLE error)
string(STRIP "${out}" out)
if(NOT status EQUAL 0 OR NOT out STREQUAL VERSION)
  message(FATAL_ERROR "installed nqcount --version: status ${status}, '${out}' (want "
                      "'${VERSION}') ${error}")
endif()
execute_process(COMMAND ${PREFIX}/bin/nqcount --n 8 RESULT_VARIABLE status OUTPUT_VARIABLE out)
if(NOT status EQUAL 0 OR NOT out MATCHES "total +92\n")
  message(FATAL_ERROR "installed nqcount --n 8: status ${status}, output:\n${out}")
endif()
foreach(file README.md queens.csv docs/count.md docs/cluster.md docs/frontier.md)
  if(NOT EXISTS ${PREFIX}/share/doc/nqcount/${file})
    message(FATAL_ERROR "not installed: share/doc/nqcount/${file}")
  endif()
endforeach()
# The man pages and the bash completion, written at build time (cli/docgen.cpp).
set(generated share/man/man1/nqcount.1 share/bash-completion/completions/nqcount)
if(MPI)
  list(APPEND generated share/man/man1/nqcount-mpi.1 share/bash-completion/completions/nqcount-mpi)
endif()
foreach(file ${generated})
  if(NOT EXISTS ${PREFIX}/${file})
    message(FATAL_ERROR "not installed: ${file}")
  endif()
endforeach()
# Every link of the installed README to a design page leads to an installed file.
file(READ ${PREFIX}/share/doc/nqcount/README.md readme)
string(REGEX MATCHALL "\\(docs/[a-z-]+\\.md\\)" links "${readme}")
foreach(link ${links})
  string(REGEX REPLACE "[()]" "" page "${link}")
  if(NOT EXISTS ${PREFIX}/share/doc/nqcount/${page})
    message(FATAL_ERROR "the installed README links to ${page}, which is not installed")
  endif()
endforeach()
if(MPI)
  execute_process(COMMAND ${PREFIX}/bin/nqcount-mpi --version RESULT_VARIABLE status
                  OUTPUT_VARIABLE out ERROR_QUIET)
  string(STRIP "${out}" out)
  if(NOT out STREQUAL VERSION)
    message(FATAL_ERROR "installed nqcount-mpi --version: '${out}' (want '${VERSION}')")
  endif()
endif()
file(REMOVE_RECURSE ${PREFIX})
