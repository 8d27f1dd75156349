#include <kbla.hpp>
#include <gtest/gtest.h>
TEST(Smoke, InnerSerial) {
  Kokkos::View<double**, Kokkos::LayoutLeft> A("A", 1000, 3), B("B", 1000, 2), C("C", 3, 2);
  Kokkos::deep_copy(A, 1.0); Kokkos::deep_copy(B, 2.0);
  kbla::inner(Kokkos::DefaultExecutionSpace(), 1.0, A, B, 0.0, C);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);
  EXPECT_DOUBLE_EQ(h(2, 1), 2000.0);
  Kokkos::View<Kokkos::complex<double>**, Kokkos::LayoutRight> X("X", 1000, 3), Y("Y", 1000, 3), Z("Z", 3, 3);
  kbla::update(Kokkos::DefaultExecutionSpace(), 1.0, X, Z, 0.0, Y);
  kbla::update_in_place(Kokkos::DefaultExecutionSpace(), 1.0, X, Z);
  kbla::gemm(Kokkos::DefaultExecutionSpace(), "C", "N", 1.0, X, Y, 0.0, Z);
  Kokkos::View<float**, Kokkos::LayoutStride> S = Kokkos::subview(Kokkos::View<float**>("s", 10, 10), Kokkos::ALL, std::make_pair(0, 3));
  Kokkos::View<float**> T("T", 3, 3);
  kbla::gemm("T", "N", 1.0f, S, S, 0.0f, T);
}
