// TSMM for double (configurations: KBLA_TSMM_D in tall_skinny_params.hpp).
#include "tall_skinny_dispatch.cuh"
KBLA_TS_DEFINE_TSMM(double, KBLA_TSMM_D, KBLA_TSMM_GEN_REAL, KBLA_TSMM_NARROW_8B)
