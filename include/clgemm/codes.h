/* The values clgemm's C and C++ interfaces share, defined once: the storage orders and
 * transposes (CBLAS's values, so CblasRowMajor, CblasTrans, ... pass as they are), the
 * precision modes, and the epilogue's bias and activation kinds. clgemm.h gives them to C;
 * the C++ enums (Layout, Transpose, Precision, Bias, Activation) are defined from them. */
#ifndef CLGEMM_CODES_H
#define CLGEMM_CODES_H

enum {
  CLGEMM_ROW_MAJOR = 101,
  CLGEMM_COL_MAJOR = 102,
  CLGEMM_NO_TRANS = 111,
  CLGEMM_TRANS = 112,
  CLGEMM_CONJ_TRANS = 113 /* the same as CLGEMM_TRANS for real data */
};

/* The arithmetic of the products (see clgemm.h and clgemm/precision.hpp). */
typedef enum clgemm_precision {
  CLGEMM_PRECISION_FP32 = 0,
  CLGEMM_PRECISION_TF32 = 1,
  CLGEMM_PRECISION_3XTF32 = 2
} clgemm_precision;

/* The epilogue's vector and activation (see clgemm_epilogue in clgemm.h). */
enum {
  CLGEMM_BIAS_NONE = 0,
  CLGEMM_BIAS_PER_ROW = 1,
  CLGEMM_BIAS_PER_COLUMN = 2,
  CLGEMM_ACTIVATION_NONE = 0,
  CLGEMM_ACTIVATION_RELU = 1,
  CLGEMM_ACTIVATION_GELU = 2,
  CLGEMM_ACTIVATION_CLAMP = 3 /* min(max(x, clamp_low), clamp_high) */
};

#endif /* CLGEMM_CODES_H */
