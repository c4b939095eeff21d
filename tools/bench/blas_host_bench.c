/* clgemm-blas-bench: times the BLAS symbol sgemm_ on host arrays, whichever library provides
   it. Linked to OpenBLAS alone, so that run plainly it measures OpenBLAS, and under LD_PRELOAD
   it measures the preloaded drop-in (libclgemm_blas, NVBLAS). For each shape: column-major
   arrays of random values in [-1, 1), warm-up calls, then timed calls (wall time of each call),
   and one line: the best and median times, GFLOP/s of the best, and the largest error of a
   sample of C's elements against a double-accumulated product. docs/PERFORMANCE.md shows it in
   use ("Drop-in BLAS"). Exit status: 0, 1 (--check failed), 2 (bad arguments, out of memory). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The Fortran SGEMM as gfortran calls it: the two character lengths last. */
void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
            const float* beta, float* c, const int* ldc, size_t transa_length,
            size_t transb_length);

enum { kSampledRows = 16, kSampledColumns = 16, kMaxTransposes = 4, kMaxShapes = 256 };

typedef struct {
  int m, n, k;
  float beta;
  char text[64]; /* as given on the command line */
} Shape;

typedef struct {
  int reps, warmup, check;
  double tolerance, time_limit_s;
  char transposes[kMaxTransposes][2];
  int transpose_count;
  Shape shapes[kMaxShapes];
  int shape_count;
} Options;

static void usage(FILE* out) {
  fprintf(out,
          "usage: clgemm-blas-bench [options] SHAPE...\n"
          "  SHAPE              MxNxK, or MxNxK:BETA for a beta other than 0 (e.g. "
          "2000x3000x1000:0.5)\n"
          "  --reps N           timed calls per shape, best and median of them (default 5)\n"
          "  --warmup N         untimed calls first (default 1)\n"
          "  --time-limit S     stop a shape's timed calls once its calls took S seconds in all\n"
          "                     (at least one timed call; default: no limit)\n"
          "  --transposes LIST  transpose pairs, e.g. NN,TN,NT,TT (default NN)\n"
          "  --check            exit 1 when an error is above the tolerance or not finite\n"
          "  --tolerance X      the bound --check applies (default 1e-4)\n"
          "Prints one line per shape and transpose pair:\n"
          "  shape,trans,beta,first_ms,best_ms,median_ms,gflops,max_error,calls\n"
          "first_ms: the first call (warm-up included: device start, kernel builds); gflops: of\n"
          "the best; max_error: over 256 sampled elements, |C - reference| / (|alpha| sqrt(sum\n"
          "of the squared products) + |beta C0|), the reference accumulated in double.\n");
}

static int parse_int(const char* text, int minimum, int* value) {
  char* end = NULL;
  const long parsed = strtol(text, &end, 10);
  if (end == text || *end != '\0' || parsed < minimum || parsed > 1000000000L) return 0;
  *value = (int)parsed;
  return 1;
}

static int parse_double(const char* text, double* value) {
  char* end = NULL;
  *value = strtod(text, &end);
  return end != text && *end == '\0' && isfinite(*value);
}

static int parse_shape(const char* text, Shape* shape) {
  char rest[64];
  if (strlen(text) >= sizeof(shape->text)) return 0;
  strcpy(shape->text, text);
  shape->beta = 0.0f;
  int used = 0;
  if (sscanf(text, "%dx%dx%d%n", &shape->m, &shape->n, &shape->k, &used) != 3) return 0;
  if (shape->m < 1 || shape->n < 1 || shape->k < 1) return 0;
  strcpy(rest, text + used);
  if (rest[0] == '\0') return 1;
  double beta = 0;
  if (rest[0] != ':' || !parse_double(rest + 1, &beta)) return 0;
  shape->beta = (float)beta;
  return 1;
}

static int parse_transposes(const char* text, Options* options) {
  options->transpose_count = 0;
  for (const char* p = text; *p;) {
    if (options->transpose_count == kMaxTransposes) return 0;
    const char a = p[0], b = a ? p[1] : '\0';
    if ((a != 'N' && a != 'T') || (b != 'N' && b != 'T')) return 0;
    options->transposes[options->transpose_count][0] = a;
    options->transposes[options->transpose_count][1] = b;
    ++options->transpose_count;
    p += 2;
    if (*p == ',')
      ++p;
    else if (*p)
      return 0;
  }
  return options->transpose_count > 0;
}

/* Returns 1 on success, 0 on a bad argument (said on stderr), -1 for --help. */
static int parse_options(int argc, char** argv, Options* options) {
  memset(options, 0, sizeof(*options));
  options->reps = 5;
  options->warmup = 1;
  options->tolerance = 1e-4;
  options->time_limit_s = INFINITY;
  parse_transposes("NN", options);
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) return -1;
    if (strcmp(arg, "--check") == 0) {
      options->check = 1;
      continue;
    }
    if (arg[0] != '-') {
      if (options->shape_count == kMaxShapes) {
        fprintf(stderr, "clgemm-blas-bench: more than %d shapes\n", kMaxShapes);
        return 0;
      }
      if (!parse_shape(arg, &options->shapes[options->shape_count++])) {
        fprintf(stderr, "clgemm-blas-bench: bad shape %s (MxNxK or MxNxK:BETA)\n", arg);
        return 0;
      }
      continue;
    }
    const char* value = i + 1 < argc ? argv[++i] : NULL;
    int ok = value != NULL;
    if (strcmp(arg, "--reps") == 0) {
      ok = ok && parse_int(value, 1, &options->reps);
    } else if (strcmp(arg, "--warmup") == 0) {
      ok = ok && parse_int(value, 0, &options->warmup);
    } else if (strcmp(arg, "--time-limit") == 0) {
      ok = ok && parse_double(value, &options->time_limit_s) && options->time_limit_s > 0;
    } else if (strcmp(arg, "--tolerance") == 0) {
      ok = ok && parse_double(value, &options->tolerance) && options->tolerance > 0;
    } else if (strcmp(arg, "--transposes") == 0) {
      ok = ok && parse_transposes(value, options);
    } else {
      fprintf(stderr, "clgemm-blas-bench: unknown option %s\n", arg);
      return 0;
    }
    if (!ok) {
      fprintf(stderr, "clgemm-blas-bench: bad value for %s: %s\n", arg, value ? value : "(none)");
      return 0;
    }
  }
  if (options->shape_count == 0) {
    fprintf(stderr, "clgemm-blas-bench: no shape given\n");
    return 0;
  }
  return 1;
}

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* xorshift64*: uniform floats in [-1, 1), the same sequence on every run. */
static float next_random(uint64_t* state) {
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  const uint64_t bits = *state * 0x2545F4914F6CDD1DULL;
  return (float)((double)(bits >> 40) / (double)(1 << 23) - 1.0);
}

static void fill_random(float* x, size_t count, uint64_t seed) {
  uint64_t state = seed * 0x9E3779B97F4A7C15ULL + 1;
  for (size_t i = 0; i < count; ++i) x[i] = next_random(&state);
}

static int compare_doubles(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* The sampled rows and columns: spread over the matrix, the first and last included. */
static int sample_index(int which, int count, int extent) {
  if (count <= 1 || extent <= 1) return 0;
  return (int)((long long)which * (extent - 1) / (count - 1));
}

/* The largest error over the sampled elements of C (see usage()), or NAN when one is not
   finite. Row i of op(A) and column j of op(B) are gathered once each, in double. */
static double sampled_error(const Shape* shape, char ta, char tb, float alpha, const float* a,
                            int lda, const float* b, int ldb, const float* c0, const float* c,
                            int ldc) {
  const int k = shape->k;
  double* rows = malloc(sizeof(double) * (size_t)k * kSampledRows);
  double* columns = malloc(sizeof(double) * (size_t)k * kSampledColumns);
  if (!rows || !columns) {
    free(rows);
    free(columns);
    return NAN;
  }
  for (int r = 0; r < kSampledRows; ++r) {
    const size_t i = (size_t)sample_index(r, kSampledRows, shape->m);
    for (size_t l = 0; l < (size_t)k; ++l)
      rows[(size_t)r * k + l] = ta == 'N' ? a[l * lda + i] : a[i * lda + l];
  }
  for (int s = 0; s < kSampledColumns; ++s) {
    const size_t j = (size_t)sample_index(s, kSampledColumns, shape->n);
    for (size_t l = 0; l < (size_t)k; ++l)
      columns[(size_t)s * k + l] = tb == 'N' ? b[j * ldb + l] : b[l * ldb + j];
  }
  double worst = 0;
  for (int r = 0; r < kSampledRows; ++r)
    for (int s = 0; s < kSampledColumns; ++s) {
      const size_t i = (size_t)sample_index(r, kSampledRows, shape->m);
      const size_t j = (size_t)sample_index(s, kSampledColumns, shape->n);
      double sum = 0, squares = 0;
      for (size_t l = 0; l < (size_t)k; ++l) {
        const double product = rows[(size_t)r * k + l] * columns[(size_t)s * k + l];
        sum += product;
        squares += product * product;
      }
      const double initial = shape->beta != 0.0f ? (double)c0[j * ldc + i] : 0.0;
      const double expected = alpha * sum + shape->beta * initial;
      const double scale = fabs(alpha) * sqrt(squares) + fabs(shape->beta * initial);
      const double got = c[j * ldc + i];
      if (!isfinite(got)) {
        worst = NAN;
        goto done;
      }
      const double error = fabs(got - expected) / (scale > 0 ? scale : 1.0);
      if (error > worst) worst = error;
    }
done:
  free(rows);
  free(columns);
  return worst;
}

/* Runs one shape with one transpose pair and prints its line. Returns 0, 1 (check failed) or 2
   (out of memory). */
static int run_shape(const Options* options, const Shape* shape, const char* trans) {
  const char ta = trans[0], tb = trans[1];
  const int m = shape->m, n = shape->n, k = shape->k;
  const int lda = ta == 'N' ? m : k, ldb = tb == 'N' ? k : n, ldc = m;
  const size_t a_count = (size_t)lda * (ta == 'N' ? k : m);
  const size_t b_count = (size_t)ldb * (tb == 'N' ? n : k);
  const size_t c_count = (size_t)ldc * n;
  const int keeps_c = shape->beta != 0.0f; /* beta != 0: each call starts from the same C */
  float* a = malloc(a_count * sizeof(float));
  float* b = malloc(b_count * sizeof(float));
  float* c = malloc(c_count * sizeof(float));
  float* c0 = keeps_c ? malloc(c_count * sizeof(float)) : NULL;
  double* times = malloc(sizeof(double) * (size_t)options->reps);
  int status = 0;
  if (!a || !b || !c || (keeps_c && !c0) || !times) {
    fprintf(stderr, "clgemm-blas-bench: out of memory for %s\n", shape->text);
    status = 2;
    goto done;
  }
  fill_random(a, a_count, 1);
  fill_random(b, b_count, 2);
  fill_random(c, c_count, 3);
  if (keeps_c) memcpy(c0, c, c_count * sizeof(float));
  const float alpha = 1.0f, beta = shape->beta;
  double first_ms = -1, spent_s = 0;
  int timed = 0;
  for (int call = 0; call < options->warmup + options->reps; ++call) {
    const int is_timed = call >= options->warmup;
    if (is_timed && timed > 0 && spent_s >= options->time_limit_s) break;
    if (keeps_c && call > 0) memcpy(c, c0, c_count * sizeof(float));
    const double start = now_seconds();
    sgemm_(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
    const double seconds = now_seconds() - start;
    if (call == 0) first_ms = 1e3 * seconds;
    if (is_timed) {
      times[timed++] = seconds;
      spent_s += seconds;
    }
  }
  qsort(times, (size_t)timed, sizeof(double), compare_doubles);
  const double best = times[0];
  const double median =
      timed % 2 ? times[timed / 2] : 0.5 * (times[timed / 2 - 1] + times[timed / 2]);
  const double flops = 2.0 * m * (double)n * k;
  const double error = sampled_error(shape, ta, tb, alpha, a, lda, b, ldb, c0, c, ldc);
  printf("%dx%dx%d,%c%c,%g,%.4f,%.4f,%.4f,%.2f,%.3g,%d\n", m, n, k, ta, tb, (double)beta, first_ms,
         1e3 * best, 1e3 * median, flops / best * 1e-9, error, options->warmup + timed);
  fflush(stdout);
  if (options->check && !(error <= options->tolerance)) {
    fprintf(stderr, "clgemm-blas-bench: %s %c%c: error %.3g above the tolerance %.3g\n",
            shape->text, ta, tb, error, options->tolerance);
    status = 1;
  }
done:
  free(a);
  free(b);
  free(c);
  free(c0);
  free(times);
  return status;
}

int main(int argc, char** argv) {
  static Options options;
  const int parsed = parse_options(argc, argv, &options);
  if (parsed <= 0) {
    usage(parsed < 0 ? stdout : stderr);
    return parsed < 0 ? 0 : 2;
  }
  /* The definition calls bind to: the first in the global scope (a preloaded library's). */
  Dl_info provider;
  void* bound = dlsym(RTLD_DEFAULT, "sgemm_");
  const char* library =
      bound && dladdr(bound, &provider) && provider.dli_fname ? provider.dli_fname : "(unknown)";
  printf("# clgemm-blas-bench: sgemm_ from %s; reps %d, warmup %d\n", library, options.reps,
         options.warmup);
  printf("shape,trans,beta,first_ms,best_ms,median_ms,gflops,max_error,calls\n");
  fflush(stdout);
  int status = 0;
  for (int s = 0; s < options.shape_count; ++s)
    for (int t = 0; t < options.transpose_count; ++t) {
      const int shape_status = run_shape(&options, &options.shapes[s], options.transposes[t]);
      if (shape_status == 2) return 2;
      if (shape_status > status) status = shape_status;
    }
  return status;
}
