// GoogleTest main that brackets the run with Kokkos::initialize / finalize.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  Kokkos::initialize(argc, argv);
  int result = 0;
  { result = RUN_ALL_TESTS(); }
  Kokkos::finalize();
  return result;
}
