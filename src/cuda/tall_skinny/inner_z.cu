// TSMTTSM for complex double (configurations: KBLA_TSMTTSM_Z, KBLA_TSMTTSM_DMMA_Z3, KBLA_TSMTTSM_DMMA_Z_RR and
// KBLA_TSMTTSM_DMMA_Z in tall_skinny_params.hpp).
#include "tall_skinny_dispatch.cuh"
KBLA_TS_DEFINE_TSMTTSM(std::complex<double>, KBLA_TSMTTSM_Z, KBLA_TSMTTSM_GEN_CPLX,
                       KBLA_TS_PRE_DMMA_G3(KBLA_TSMTTSM_DMMA_Z3, KBLA_TSMTTSM_DMMA_Z_RR, KBLA_TSMTTSM_DMMA_Z),
                       KBLA_TSMTTSM_NARROW,
                       KBLA_TS_NPRE_DMMA(KBLA_TSMTTSM_DMMA_NARROW_Z))
