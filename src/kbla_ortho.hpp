// kbla::ortho on its own: block Gram-Schmidt (BCGS2 + CholQR2, rank-deficiency handling) of a K x s block X against
// an orthonormal K x p basis Q, built on kbla::inner / kbla::update. Pulls in no KokkosSparse (kbla_solvers.hpp,
// the umbrella of the solvers, adds kbla::eigen and its CRS operators).
//
//   Kokkos::View<double**, Kokkos::LayoutLeft> Q("Q", K, p), X("X", K, s);    // Q orthonormal (or p = 0)
//   kbla::OrthoResult<double> r = kbla::ortho(exec, Q, X);                      // X is overwritten: X_out
//   // X_in = Q H + X_out R; r.rank, r.rounds, ...
//   const double r00 = r.R(0, 0);                                               // host matrices, int indices
//   auto R = kbla::dense::host_view(r.R);      // the same memory as an unmanaged LayoutLeft Kokkos host View
//   Kokkos::View<double**, Kokkos::LayoutLeft> R_device("R", s, s);
//   Kokkos::deep_copy(R_device, R);
//
// OrthoResult's H (p x s) and R (s x s) are kbla::dense::Matrix: host memory, column-major, element (i, j) by
// operator()(int i, int j), rows() / cols() / data(); kbla::dense::host_view gives them as Kokkos host Views.
// For repeated calls keep a kbla::BlockOrthogonalizer<ExecSpace, Scalar> (it reuses its buffers).
#pragma once

#include <KokkosBlockLA_config.hpp>
#include <solvers/kbla_dense_host.hpp>
#include <solvers/kbla_ortho.hpp>
