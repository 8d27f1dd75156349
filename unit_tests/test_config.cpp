// What the package config (cmake/KokkosBlockLADependencies.cmake) reports about the Kokkos Kernels it found: a
// version, also where the config of Kokkos Kernels states none (Debian's TriBITS config), matching the Kokkos the
// tests are compiled against.
#include <kbla_test_dependencies.hpp>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <regex>
#include <string>

namespace {

TEST(PackageConfig, ReportsTheKokkosKernelsVersion) {
  const std::string version = KBLA_TEST_KOKKOS_KERNELS_VERSION;
  const std::string summary = KBLA_TEST_DEPENDENCY_SUMMARY;
  SCOPED_TRACE("configure printed: KokkosBlockLA: " + summary);
  EXPECT_TRUE(std::regex_match(version, std::regex("[0-9]+\\.[0-9]+(\\.[0-9]+)?.*"))) << "version '" << version << "'";
  EXPECT_NE(summary.find("Kokkos Kernels " + version + " "), std::string::npos);
  EXPECT_EQ(summary.find("Kernels  "), std::string::npos);  // the empty version of before
  // Kokkos Kernels is released with the Kokkos of the same major.minor version (inside Trilinos it is that Kokkos's)
  const std::string kokkos_major_minor =
      std::to_string(KOKKOS_VERSION / 10000) + "." + std::to_string(KOKKOS_VERSION / 100 % 100) + ".";
  EXPECT_EQ(version.compare(0, kokkos_major_minor.size(), kokkos_major_minor), 0)
      << "Kokkos Kernels " << version << " next to Kokkos " << KOKKOS_VERSION;
}

}  // namespace
