/* CLGEMM_API marks what libclgemm exports: the library is compiled with hidden visibility, so
 * the public headers' declarations are its whole interface (C and C++ alike). */
#ifndef CLGEMM_EXPORT_H
#define CLGEMM_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define CLGEMM_API __attribute__((visibility("default")))
#else
#define CLGEMM_API
#endif

#endif /* CLGEMM_EXPORT_H */
