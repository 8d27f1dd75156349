// TSMM for std::complex<float> (configurations: KBLA_TSMM_C in tall_skinny_params.hpp).
#include "tall_skinny_dispatch.cuh"
KBLA_TS_DEFINE_TSMM(std::complex<float>, KBLA_TSMM_C, KBLA_TSMM_GEN_CPLX, KBLA_TSMM_NARROW_8B)
