# MPI for the distributed calls (-DKBLA_ENABLE_MPI=ON), and with -DKBLA_ENABLE_NCCL=ON NCCL's header and library
# as the imported target KokkosBlockLA::nccl. Included by the build and by the installed package config, so that
# find_package(KokkosBlockLA) finds the same dependencies.
include_guard(GLOBAL)
include(CMakeFindDependencyMacro)

if(NOT TARGET MPI::MPI_CXX)
  if(CMAKE_FIND_PACKAGE_NAME)  # from the package config: a missing MPI makes find_package(KokkosBlockLA) fail
    find_dependency(MPI COMPONENTS CXX)
  else()
    find_package(MPI REQUIRED COMPONENTS CXX)
  endif()
endif()

if(KBLA_ENABLE_NCCL AND NOT TARGET KokkosBlockLA::nccl)
  # NCCL ships no CMake config: its header and library, under NCCL_ROOT, CUDA's prefix or the system paths.
  find_path(KBLA_NCCL_INCLUDE_DIR nccl.h HINTS ${NCCL_ROOT} ENV NCCL_ROOT ${CUDAToolkit_INCLUDE_DIRS}
            PATH_SUFFIXES include)
  find_library(KBLA_NCCL_LIBRARY nccl HINTS ${NCCL_ROOT} ENV NCCL_ROOT ${CUDAToolkit_LIBRARY_DIR}
               PATH_SUFFIXES lib lib64)
  if(NOT KBLA_NCCL_INCLUDE_DIR OR NOT KBLA_NCCL_LIBRARY)
    message(FATAL_ERROR "KokkosBlockLA: KBLA_ENABLE_NCCL=ON but nccl.h / libnccl were not found "
                        "(set NCCL_ROOT to NCCL's prefix)")
  endif()
  add_library(KokkosBlockLA::nccl INTERFACE IMPORTED)
  set_property(TARGET KokkosBlockLA::nccl PROPERTY INTERFACE_INCLUDE_DIRECTORIES ${KBLA_NCCL_INCLUDE_DIR})
  set_property(TARGET KokkosBlockLA::nccl PROPERTY INTERFACE_LINK_LIBRARIES ${KBLA_NCCL_LIBRARY})
  if(NOT KokkosBlockLA_FIND_QUIETLY)
    message(STATUS "KokkosBlockLA: NCCL ${KBLA_NCCL_LIBRARY}")
  endif()
endif()
