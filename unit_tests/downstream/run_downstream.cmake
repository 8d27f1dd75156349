# Installs this build into a scratch prefix, then configures, builds and runs a small downstream project
# that only does find_package(KokkosBlockLA) and links KokkosBlockLA::kbla. Run by ctest (cmake -P).
foreach(var KBLA_BINARY_DIR KBLA_SOURCE_DIR WORK_DIR CXX_COMPILER)
  if(NOT ${var})
    message(FATAL_ERROR "run_downstream.cmake needs -D${var}=...")
  endif()
endforeach()

function(run_step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "downstream step '${name}' failed (${rc}):\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run_step(install ${CMAKE_COMMAND} --install ${KBLA_BINARY_DIR} --prefix ${prefix})
run_step(configure ${CMAKE_COMMAND} -S ${KBLA_SOURCE_DIR}/unit_tests/downstream/project -B ${WORK_DIR}/build
         -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${prefix};${PREFIX_PATH}" -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
run_step(build ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run_step(run ${WORK_DIR}/build/downstream_app)
if(NOT step_output MATCHES "downstream ok")
  message(FATAL_ERROR "downstream_app printed:\n${step_output}")
endif()
message(STATUS "${step_output}")
