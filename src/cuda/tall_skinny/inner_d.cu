// TSMTTSM for double (configurations: KBLA_TSMTTSM_D, KBLA_TSMTTSM_DMMA_D_RR, _CC_ODD, _CC and KBLA_TSMTTSM_DMMA_D
// in tall_skinny_params.hpp).
#include "tall_skinny_dispatch.cuh"
KBLA_TS_DEFINE_TSMTTSM(double, KBLA_TSMTTSM_D, KBLA_TSMTTSM_GEN_REAL,
                       KBLA_TS_PRE_DMMA_D(KBLA_TSMTTSM_DMMA_D_RR, KBLA_TSMTTSM_DMMA_D_CC_ODD, KBLA_TSMTTSM_DMMA_D_CC,
                                          KBLA_TSMTTSM_DMMA_D), KBLA_TSMTTSM_NARROW,
                       KBLA_TS_NPRE_DMMA(KBLA_TSMTTSM_DMMA_NARROW_D))
