# Runs DRIVER with ARGS ('|'-separated) and passes when it exits with status 1 and says "error:" on stderr:
# bad input must be refused with a message, not accepted and not crash.
string(REPLACE "|" ";" _args "${ARGS}")
execute_process(COMMAND ${DRIVER} ${_args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "exit status: ${rc}\nstderr: ${err}")
if(NOT rc STREQUAL "1")
  message(FATAL_ERROR "expected exit status 1 for bad input, got '${rc}'\nstdout: ${out}")
endif()
if(NOT err MATCHES "kbla_eigen_driver: error: ")
  message(FATAL_ERROR "expected a message on stderr, got: '${err}'")
endif()
