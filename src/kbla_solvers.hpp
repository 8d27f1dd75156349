// KokkosBlockLA solvers on top of the public calls: kbla::ortho (BCGS2 + CholQR2 block orthogonalisation with
// rank-deficiency handling) and kbla::eigen (thick-restart block Lanczos for Hermitian operators), with the
// KokkosSparse::CrsMatrix operators and the test matrices. The umbrella: <kbla_ortho.hpp> alone gives kbla::ortho
// and <kbla_eigen.hpp> kbla::eigen with an operator functor, neither of them pulling in KokkosSparse.
#pragma once

#include <kbla_eigen.hpp>
#include <kbla_ortho.hpp>
#include <solvers/kbla_crs_operator.hpp>
#include <solvers/kbla_dense_host.hpp>
#include <solvers/kbla_eigen.hpp>
#include <solvers/kbla_laplacian.hpp>
#include <solvers/kbla_ortho.hpp>
#include <solvers/kbla_random.hpp>
