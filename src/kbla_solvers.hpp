// KokkosBlockLA solvers on top of the public calls: kbla::ortho (BCGS2 + CholQR2 block orthogonalisation with
// rank-deficiency handling) and kbla::eigen (thick-restart block Lanczos for Hermitian operators).
#pragma once

#include <solvers/kbla_crs_operator.hpp>
#include <solvers/kbla_dense_host.hpp>
#include <solvers/kbla_eigen.hpp>
#include <solvers/kbla_laplacian.hpp>
#include <solvers/kbla_ortho.hpp>
#include <solvers/kbla_random.hpp>
