// kbla::eigen with an operator functor, on its own: pulls in no KokkosSparse (kbla_solvers.hpp, the umbrella of
// the solvers, adds the overload for KokkosSparse::CrsMatrix and its operators). How to write the functor, with a
// complete example: the comment above kbla::eigen in solvers/kbla_eigen.hpp.
#pragma once

#include <KokkosBlockLA_config.hpp>
#include <kbla_ortho.hpp>
#include <solvers/kbla_eigen.hpp>
