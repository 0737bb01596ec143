# The installed library from the outside: `cmake --install` of this build into a fresh prefix,
# then the two examples (examples/) and the smallest consumer (consumer.cpp) built against it,
# each once through find_package(nqcount CONFIG) and once through pkg-config, and run:
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

# Through CMake: the examples as they are, and the consumer in a project of its own.
file(MAKE_DIRECTORY ${WORK}/consumer)
file(COPY ${SOURCE_DIR}/tests/library/consumer.cpp DESTINATION ${WORK}/consumer)
file(WRITE ${WORK}/consumer/CMakeLists.txt
     "cmake_minimum_required(VERSION 3.22)\nproject(consumer LANGUAGES CXX)\n"
     "find_package(nqcount CONFIG REQUIRED)\nadd_executable(consumer consumer.cpp)\n"
     "target_link_libraries(consumer PRIVATE nqcount::nqcount)\n")
foreach(project ${SOURCE_DIR}/examples/count_table ${SOURCE_DIR}/examples/find_solution
                ${WORK}/consumer)
  get_filename_component(name ${project} NAME)
  run("configuring ${name}" ${CMAKE_COMMAND} -S ${project} -B ${WORK}/cmake-${name}
      -DCMAKE_PREFIX_PATH=${prefix})
  run("building ${name}" ${CMAKE_COMMAND} --build ${WORK}/cmake-${name})
endforeach()

# Through pkg-config: one compiler line each.
set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
run("pkg-config" pkg-config --cflags --libs nqcount)
string(STRIP "${out}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
foreach(source examples/count_table/count_table.cpp examples/find_solution/find_solution.cpp
               tests/library/consumer.cpp)
  get_filename_component(name ${source} NAME_WE)
  file(MAKE_DIRECTORY ${WORK}/pc-${name})
  run("compiling ${name} with pkg-config's flags" ${CXX} -std=c++20 ${SOURCE_DIR}/${source}
      -o ${WORK}/pc-${name}/${name} ${flags})
endforeach()

foreach(way cmake pc)
  run("${way}: consumer" ${WORK}/${way}-consumer/consumer)
  if(NOT out STREQUAL "14200 1787\n")
    message(FATAL_ERROR "${way}: consumer printed '${out}', not '14200 1787'")
  endif()
  run("${way}: count_table 10 12 2" ${WORK}/${way}-count_table/count_table 10 12 2)
  if(NOT out MATCHES " 12 +14200 +1787 +[0-9.]+ +ok\n" OR NOT out MATCHES " 10 +724 +92 ")
    message(FATAL_ERROR "${way}: count_table printed:\n${out}")
  endif()
  run("${way}: find_solution" ${WORK}/${way}-find_solution/find_solution 1000000)
  if(NOT out MATCHES "^n = 1000000: a solution, verified")
    message(FATAL_ERROR "${way}: find_solution printed:\n${out}")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK})
