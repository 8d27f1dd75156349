// TSMM for std::complex<double> (configurations: KBLA_TSMM_Z in tall_skinny_params.hpp).
#include "tall_skinny_dispatch.cuh"
KBLA_TS_DEFINE_TSMM(std::complex<double>, KBLA_TSMM_Z, KBLA_TSMM_GEN_CPLX, KBLA_TSMM_NARROW_16B)
