// TSMTTSM for float (configurations: KBLA_TSMTTSM_S in tall_skinny_params.hpp).
#include "tall_skinny_dispatch.cuh"
KBLA_TS_DEFINE_TSMTTSM(float, KBLA_TSMTTSM_S, KBLA_TSMTTSM_GEN_REAL, KBLA_TS_PRE_NONE, KBLA_TSMTTSM_NARROW,
                       KBLA_TS_PRE_NONE)
