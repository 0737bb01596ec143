# The installed library from the outside: `cmake --install` of this build into a fresh prefix,
# then the two examples (examples/) and the smallest consumer (consumer.cpp) built against it
# through find_package(nqcount CONFIG), the consumer through pkg-config too, and run:
# n = 12 gives "14200 1787", count_table agrees with the known table, find_solution verifies a
# solution for n = 10^6. They compile without optimization (the library they call is
# optimized; what is tested is that they build, link and run). Run by ctest:
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK=... -DCXX=... -P consumers.cmake
cmake_minimum_required(VERSION 3.22)
file(REMOVE_RECURSE ${WORK})
set(prefix ${WORK}/prefix)

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${what} failed (${status}):\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --component dev)
foreach(file include/nqcount/nqcount.hpp lib/libnqcount.a lib/cmake/nqcount/nqcountConfig.cmake
             lib/cmake/nqcount/nqcountConfigVersion.cmake lib/pkgconfig/nqcount.pc)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "not installed: ${file}")
  endif()
endforeach()

# Through CMake: the examples as they are and the consumer, in one project of their own that
# finds the installed package (one configure for the three).
file(MAKE_DIRECTORY ${WORK}/cmake)
file(COPY ${SOURCE_DIR}/tests/library/consumer.cpp DESTINATION ${WORK}/cmake)
file(WRITE ${WORK}/cmake/CMakeLists.txt
     "cmake_minimum_required(VERSION 3.22)\nproject(consumers LANGUAGES CXX)\n"
     "add_subdirectory(${SOURCE_DIR}/examples/count_table count_table)\n"
     "add_subdirectory(${SOURCE_DIR}/examples/find_solution find_solution)\n"
     "find_package(nqcount CONFIG REQUIRED)\nadd_executable(consumer consumer.cpp)\n"
     "target_link_libraries(consumer PRIVATE nqcount::nqcount)\n")
run("configuring the consumers" ${CMAKE_COMMAND} -S ${WORK}/cmake -B ${WORK}/cmake/build
    -DCMAKE_PREFIX_PATH=${prefix})
run("building the consumers" ${CMAKE_COMMAND} --build ${WORK}/cmake/build --parallel 2)

# Through pkg-config: the consumer, one compiler line with the flags pkg-config gives (the
# examples are sources of the same kind; what this route tests is the flags).
set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
run("pkg-config" pkg-config --cflags --libs nqcount)
string(STRIP "${out}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run("compiling the consumer with pkg-config's flags" ${CXX} -std=c++20
    ${SOURCE_DIR}/tests/library/consumer.cpp -o ${WORK}/pc-consumer ${flags})

foreach(consumer ${WORK}/cmake/build/consumer ${WORK}/pc-consumer)
  run("${consumer}" ${consumer})
  if(NOT out STREQUAL "14200 1787\n")
    message(FATAL_ERROR "${consumer} printed '${out}', not '14200 1787'")
  endif()
endforeach()
run("count_table 10 12 2" ${WORK}/cmake/build/count_table/count_table 10 12 2)
if(NOT out MATCHES " 12 +14200 +1787 +[0-9.]+ +ok\n" OR NOT out MATCHES " 10 +724 +92 ")
  message(FATAL_ERROR "count_table printed:\n${out}")
endif()
run("find_solution" ${WORK}/cmake/build/find_solution/find_solution 1000000)
if(NOT out MATCHES "^n = 1000000: a solution, verified")
  message(FATAL_ERROR "find_solution printed:\n${out}")
endif()
file(REMOVE_RECURSE ${WORK})
