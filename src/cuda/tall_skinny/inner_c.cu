// TSMTTSM for std::complex<float> (configurations: KBLA_TSMTTSM_C in tall_skinny_params.hpp).
#include "tall_skinny_dispatch.cuh"
KBLA_TS_DEFINE_TSMTTSM(std::complex<float>, KBLA_TSMTTSM_C, KBLA_TSMTTSM_GEN_CPLX, KBLA_TS_PRE_NONE,
                       KBLA_TSMTTSM_NARROW, KBLA_TS_PRE_NONE)
