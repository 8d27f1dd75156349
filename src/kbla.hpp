// KokkosBlockLA: dense products on block vectors for Kokkos applications. Include this for everything.
#pragma once

#include <KokkosBlockLA_config.hpp>
#include <kbla_gemm.hpp>
#include <kbla_inner.hpp>
#include <kbla_options.hpp>
#include <kbla_strassen.hpp>
#include <kbla_update.hpp>
