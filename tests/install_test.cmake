# `cmake --install` of this build into a fresh prefix: bin/nqcount is there and runs, its
# --version is the project's version, and the documentation sits in share/doc/nqcount.
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
foreach(file README.md queens.csv)
  if(NOT EXISTS ${PREFIX}/share/doc/nqcount/${file})
    message(FATAL_ERROR "not installed: share/doc/nqcount/${file}")
  endif()
endforeach()
if(MPI AND NOT EXISTS ${PREFIX}/bin/nqcount-mpi)
  message(FATAL_ERROR "not installed: bin/nqcount-mpi")
endif()
file(REMOVE_RECURSE ${PREFIX})
