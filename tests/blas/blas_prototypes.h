/* The BLAS entry points the tests call, declared here rather than through a system cblas.h so
   that the tests see exactly the interface libclgemm_blas exports: the Fortran SGEMM as gfortran
   calls it (the two character lengths last) and CBLAS's cblas_sgemm with its enumeration values. */
#ifndef CLGEMM_TESTS_BLAS_PROTOTYPES_H
#define CLGEMM_TESTS_BLAS_PROTOTYPES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { TestCblasRowMajor = 101, TestCblasColMajor = 102 };
enum { TestCblasNoTrans = 111, TestCblasTrans = 112, TestCblasConjTrans = 113 };

void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
            const float* beta, float* c, const int* ldc, size_t transa_length,
            size_t transb_length);
void cblas_sgemm(int order, int transa, int transb, int m, int n, int k, float alpha,
                 const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc);

#ifdef __cplusplus
}
#endif

#endif
