// TSMM for float (configurations: KBLA_TSMM_S in tall_skinny_params.hpp).
#include "tall_skinny_dispatch.cuh"
KBLA_TS_DEFINE_TSMM(float, KBLA_TSMM_S, KBLA_TSMM_GEN_REAL, KBLA_TSMM_NARROW_8B)
