# `cpack -G DEB` of this build: one nqcount_<version>_<arch>.deb whose control file has the
# project's version and whose files are the two programs, the README, the design pages and
# the known table. Run by ctest:
#   cmake -DCPACK=... -DBUILD_DIR=... -DOUT=... -DVERSION=... -DMPI=ON|OFF -P package_test.cmake
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${CPACK} -G DEB -B ${OUT} WORKING_DIRECTORY ${BUILD_DIR}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE error)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "cpack -G DEB failed (${status}):\n${out}\n${error}")
endif()
file(GLOB debs ${OUT}/nqcount_${VERSION}_*.deb)
list(LENGTH debs made)
if(NOT made EQUAL 1)
  message(FATAL_ERROR "expected one nqcount_${VERSION}_*.deb in ${OUT}, found: ${debs}")
endif()
execute_process(COMMAND dpkg-deb --field ${debs} Package Version RESULT_VARIABLE status
                OUTPUT_VARIABLE fields)
if(NOT status EQUAL 0 OR NOT fields MATCHES "Package: nqcount\nVersion: ${VERSION}\n")
  message(FATAL_ERROR "the package's control fields: ${fields}")
endif()
execute_process(COMMAND dpkg-deb --contents ${debs} RESULT_VARIABLE status OUTPUT_VARIABLE files)
set(wanted usr/bin/nqcount usr/share/doc/nqcount/README.md usr/share/doc/nqcount/queens.csv
           usr/share/doc/nqcount/docs/count.md)
if(MPI)
  list(APPEND wanted usr/bin/nqcount-mpi)
endif()
foreach(file ${wanted})
  if(NOT files MATCHES "\\./${file}\n")
    message(FATAL_ERROR "not in the package: ${file}\n${files}")
  endif()
endforeach()
file(REMOVE_RECURSE ${OUT})
