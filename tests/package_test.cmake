# `cpack -G DEB` of this build: nqcount_<version>_<arch>.deb and libnqcount-dev_<version>_<arch>.deb,
# each with the project's version in its control file and its own share of the files. Run by
# ctest:
#   cmake -DCPACK=... -DBUILD_DIR=... -DOUT=... -DVERSION=... -DMPI=ON|OFF -P package_test.cmake
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${CPACK} -G DEB -B ${OUT} WORKING_DIRECTORY ${BUILD_DIR}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE error)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "cpack -G DEB failed (${status}):\n${out}\n${error}")
endif()
# Two packages, split as Debian splits its own: nqcount (the programs, the documentation, the man
# pages and the bash completion) and libnqcount-dev (the library, its headers, the CMake and
# pkg-config files).
function(package_files name out)
  file(GLOB debs ${OUT}/${name}_${VERSION}_*.deb)
  list(LENGTH debs made)
  if(NOT made EQUAL 1)
    message(FATAL_ERROR "expected one ${name}_${VERSION}_*.deb in ${OUT}, found: ${debs}")
  endif()
  execute_process(COMMAND dpkg-deb --field ${debs} Package Version RESULT_VARIABLE status
                  OUTPUT_VARIABLE fields)
  if(NOT status EQUAL 0 OR NOT fields MATCHES "Package: ${name}\nVersion: ${VERSION}\n")
    message(FATAL_ERROR "${name}'s control fields: ${fields}")
  endif()
  execute_process(COMMAND dpkg-deb --contents ${debs} RESULT_VARIABLE status
                  OUTPUT_VARIABLE files)
  set(${out} "${files}" PARENT_SCOPE)
endfunction()

function(expect_files package files)
  foreach(file ${ARGN})
    if(NOT files MATCHES "\\./${file}\n")
      message(FATAL_ERROR "not in ${package}: ${file}\n${files}")
    endif()
  endforeach()
endfunction()

package_files(nqcount programs)
set(wanted usr/bin/nqcount usr/share/doc/nqcount/README.md usr/share/doc/nqcount/queens.csv
           usr/share/doc/nqcount/docs/count.md usr/share/man/man1/nqcount.1
           usr/share/bash-completion/completions/nqcount)
if(MPI)
  list(APPEND wanted usr/bin/nqcount-mpi usr/share/man/man1/nqcount-mpi.1
       usr/share/bash-completion/completions/nqcount-mpi)
endif()
expect_files(nqcount "${programs}" ${wanted})
if(programs MATCHES "include/nqcount|libnqcount")
  message(FATAL_ERROR "the library's files belong in libnqcount-dev, not nqcount:\n${programs}")
endif()

package_files(libnqcount-dev dev)
expect_files(libnqcount-dev "${dev}" usr/include/nqcount/nqcount.hpp
             usr/include/nqcount/engine/count/count.hpp usr/lib/libnqcount.a
             usr/lib/cmake/nqcount/nqcountConfig.cmake
             usr/lib/cmake/nqcount/nqcountConfigVersion.cmake
             usr/lib/cmake/nqcount/nqcountTargets.cmake usr/lib/pkgconfig/nqcount.pc)
if(dev MATCHES "usr/bin/")
  message(FATAL_ERROR "the programs belong in nqcount, not libnqcount-dev:\n${dev}")
endif()
file(REMOVE_RECURSE ${OUT})
