# Finds Kokkos Kernels (and through it Kokkos) in either of the two forms users have, and publishes
#   KokkosBlockLA::kokkoskernels   an imported interface target to link against
#   KBLA_KOKKOS_HAS_CUDA           ON when the Kokkos found was built with KOKKOS_ENABLE_CUDA
#   KBLA_KOKKOS_KERNELS_VERSION    the Kokkos Kernels version found ("unknown" when nothing states it)
#   KBLA_DEPENDENCY_SUMMARY        the line printed at configure time (version, flavour, CUDA)
#
# 1. Modern installs (Kokkos >= 3 built standalone, spack): targets Kokkos::kokkos, Kokkos::kokkoskernels.
# 2. Debian's libtrilinos-kokkos(-kernels)-dev (Kokkos 3.4.01 inside Trilinos 13.2): a TriBITS config that
#    defines no Kokkos:: targets, only KokkosKernels_INCLUDE_DIRS / KokkosKernels_LIBRARIES (+ _TPL_*).
#
# This file is installed with the package config so that find_package(KokkosBlockLA) finds the same way.
include_guard(GLOBAL)

find_package(KokkosKernels REQUIRED)
# kbla::eigen runs the Rayleigh-Ritz step's dense eigenproblem on a second host thread (std::async).
find_package(Threads REQUIRED)

if(NOT TARGET KokkosBlockLA::kokkoskernels)
  add_library(KokkosBlockLA::kokkoskernels INTERFACE IMPORTED)
  if(TARGET Kokkos::kokkoskernels)
    set_property(TARGET KokkosBlockLA::kokkoskernels PROPERTY INTERFACE_LINK_LIBRARIES Kokkos::kokkoskernels)
    set(_kbla_kokkos_flavour "modern targets (Kokkos::kokkoskernels)")
  else()
    # TriBITS: the library names in KokkosKernels_LIBRARIES are imported targets defined by the configs it
    # includes; the include directory and third-party libraries come as plain lists.
    set_property(TARGET KokkosBlockLA::kokkoskernels PROPERTY INTERFACE_INCLUDE_DIRECTORIES
                 ${KokkosKernels_INCLUDE_DIRS} ${KokkosKernels_TPL_INCLUDE_DIRS})
    set_property(TARGET KokkosBlockLA::kokkoskernels PROPERTY INTERFACE_LINK_LIBRARIES
                 ${KokkosKernels_LIBRARIES} ${KokkosKernels_TPL_LIBRARIES})
    set(_kbla_kokkos_flavour "TriBITS variables (KokkosKernels_INCLUDE_DIRS)")
  endif()
endif()

# Does the Kokkos we found have CUDA? Read its configuration header: this works for both flavours, whereas
# the CMake variables that say so differ between them.
set(KBLA_KOKKOS_HAS_CUDA OFF)
set(_kbla_search_dirs ${KokkosKernels_INCLUDE_DIRS})
foreach(_kbla_target Kokkos::kokkos Kokkos::kokkoscore)
  if(TARGET ${_kbla_target})
    get_target_property(_kbla_dirs ${_kbla_target} INTERFACE_INCLUDE_DIRECTORIES)
    if(_kbla_dirs)
      list(APPEND _kbla_search_dirs ${_kbla_dirs})
    endif()
  endif()
endforeach()
find_file(KBLA_KOKKOS_CONFIG_HEADER KokkosCore_config.h PATHS ${_kbla_search_dirs} NO_DEFAULT_PATH)
if(NOT KBLA_KOKKOS_CONFIG_HEADER)
  find_file(KBLA_KOKKOS_CONFIG_HEADER KokkosCore_config.h PATH_SUFFIXES trilinos)
endif()
if(KBLA_KOKKOS_CONFIG_HEADER)
  file(STRINGS "${KBLA_KOKKOS_CONFIG_HEADER}" _kbla_cuda_define REGEX "^#define[ \t]+KOKKOS_ENABLE_CUDA[ \t]*$")
  if(_kbla_cuda_define)
    set(KBLA_KOKKOS_HAS_CUDA ON)
  endif()
else()
  message(WARNING "KokkosBlockLA: KokkosCore_config.h not found; assuming Kokkos has no CUDA backend")
endif()

# The version of the Kokkos Kernels found, published as KBLA_KOKKOS_KERNELS_VERSION. Modern installs set
# KokkosKernels_VERSION (their KokkosKernelsConfigVersion.cmake). Debian's TriBITS config sets no version variable at
# all (KokkosKernels_VERSION stays empty, Debian ships no KokkosKernelsConfigVersion.cmake); Kokkos Kernels inside
# Trilinos carries the version of the Kokkos it comes with (3.4.01 in Trilinos 13.2), which KokkosCore_config.h
# states as KOKKOS_VERSION (30401), and Trilinos_version.h next to it names the Trilinos release.
set(KBLA_KOKKOS_KERNELS_VERSION "${KokkosKernels_VERSION}")
set(_kbla_version_source "")
if(NOT KBLA_KOKKOS_KERNELS_VERSION AND KBLA_KOKKOS_CONFIG_HEADER)
  file(STRINGS "${KBLA_KOKKOS_CONFIG_HEADER}" _kbla_version_define REGEX "^#define[ \t]+KOKKOS_VERSION[ \t]+[0-9]+")
  if(_kbla_version_define MATCHES "KOKKOS_VERSION[ \t]+([0-9]+)")
    math(EXPR _kbla_major "${CMAKE_MATCH_1} / 10000")
    math(EXPR _kbla_minor "${CMAKE_MATCH_1} / 100 % 100")
    math(EXPR _kbla_patch "${CMAKE_MATCH_1} % 100")
    if(_kbla_patch LESS 10)
      set(_kbla_patch "0${_kbla_patch}")
    endif()
    set(KBLA_KOKKOS_KERNELS_VERSION "${_kbla_major}.${_kbla_minor}.${_kbla_patch}")
    set(_kbla_version_source " (Kokkos's KOKKOS_VERSION")
    get_filename_component(_kbla_config_dir "${KBLA_KOKKOS_CONFIG_HEADER}" DIRECTORY)
    if(EXISTS "${_kbla_config_dir}/Trilinos_version.h")
      file(STRINGS "${_kbla_config_dir}/Trilinos_version.h" _kbla_trilinos REGEX "define[ \t]+TRILINOS_VERSION_STRING")
      if(_kbla_trilinos MATCHES "\"([^\"]+)\"")
        string(APPEND _kbla_version_source ", Trilinos ${CMAKE_MATCH_1}")
      endif()
    endif()
    string(APPEND _kbla_version_source ")")
  endif()
endif()
if(NOT KBLA_KOKKOS_KERNELS_VERSION)
  set(KBLA_KOKKOS_KERNELS_VERSION "unknown")
endif()

string(CONCAT KBLA_DEPENDENCY_SUMMARY "Kokkos Kernels ${KBLA_KOKKOS_KERNELS_VERSION}${_kbla_version_source} via "
              "${_kbla_kokkos_flavour}, CUDA backend: ${KBLA_KOKKOS_HAS_CUDA}")
if(NOT KokkosBlockLA_FIND_QUIETLY)
  message(STATUS "KokkosBlockLA: ${KBLA_DEPENDENCY_SUMMARY}")
endif()
