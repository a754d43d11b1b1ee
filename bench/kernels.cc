/* SPDX-License-Identifier: MIT */
// Kernel microbenchmarks: the hardsoft kernel tables (one per ISA, reached
// only through include/hardsoft/kernels.h) against peers run on identical data in
// the same process. Google Benchmark has no C API, so this thin C++ file
// registers every (family, implementation, size) at start-up.
//
// Names: softmax/<impl>/<n>, softmax_spread/<impl>/<n>/<spread>,
// exp/<impl>/<n>, exp_spread/<impl>/<n>/<spread>, dot/<impl>/<d>,
// attn_row/<impl>/<n>/<d>, attn_hard/<isa>/<n>/<d>,
// attn_hard_f64/<isa>[_dot]/<n>/<d>,
// attn_2pass_f64/<isa>[_online|_f32]/<n>/<d>,
// attn_2pass_skip/<isa>[_bias]/<dk>, attn_2pass_skip_f64/<isa>/<dk>,
// attn_rows_2pass_skip/<isa>[_bias]/<dk>, attn_rows_2pass_skip_f64/<isa>/<dk>,
// read_bw/<isa>/<bytes>,
// fma_tp/<isa>/<fmas per iteration>,
// attn_past/<isa>_tile|<isa>_row/<n>/<dk>,
// attn_future/..., attn_past_bias/..., attn_future_bias/... (the same with
// the relative-position bias of mode rel),
// gemm/<impl>/<rows>/<m>/<k>, gemm_f64/<isa>[_gemv]/<rows>/<m>/<k>,
// bounds/<isa>/16/<dk>, bounds_test/<isa>/16/<bias>,
// gemm_pk[_f64]/<isa>/<rows>/<m>/<k>/<epilogue>. <impl> is scalar|avx2|avx512 (hardsoft tables;
// an ISA the CPU cannot run is registered and skipped with an error) or a
// peer: libm, sleef, onednn[_<isa>], xnnpack, loop, openblas. exp_spread
// runs exp on the softmax_spread data, so that "exp time does not depend
// on the input range" is measured, not assumed.
//
// Every implementation is called once on the benchmark's data before the
// timed loop and its output checked (softmax in [0, 1] summing to 1 within
// 0.5, with |sum - 1| published as counter sum_error; exp within 1e-5;
// dot within 1e-3 of sum |a_i b_i|; attention output a convex combination
// of the values); a wrong answer is reported as an error, not a time.
//
// oneDNN's maximum ISA can be set only once per process, before first use,
// so this binary runs oneDNN at whatever cap the environment sets: with
// DNNL_MAX_CPU_ISA (or ONEDNN_MAX_CPU_ISA) unset the peer is "onednn" (its
// default, the best ISA it finds); with it set to e.g. AVX2 the peer is
// named "onednn_avx2". bench/run-kernels.sh runs the binary a second time
// with DNNL_MAX_CPU_ISA=AVX2 and a filter, then merges the two JSON files.
//
// Everything is single-threaded: oneDNN (OpenMP build) gets
// omp_set_num_threads(1), OpenBLAS openblas_set_num_threads(1), XNNPACK
// no threadpool.
//
// Extra flags (handled before Google Benchmark sees argv):
//   --print-isa-table   print JSON: per ISA, supported or not and the C
//                       symbol of the kernel each op dispatches to; exit.
// Environment: HS_BENCH_MAX_N caps every size (for quick development runs).

#include <benchmark/benchmark.h>
#include <cblas.h>
#include <dlfcn.h>
#include <strings.h>
#include <immintrin.h>
#include <sys/personality.h>
#include <unistd.h>

#include <oneapi/dnnl/dnnl.hpp>

#include <alloca.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "hardsoft.h"
#include "hardsoft/kernels.h"

// Debian's libxnnpack-dev includes <pthreadpool.h> but does not depend on
// libpthreadpool-dev. Without that header, declare the five XNNPACK calls
// used here, as xnnpack.h (0.0~git20220216) declares them; the benchmark
// passes no threadpool anyway.
#if __has_include(<pthreadpool.h>)
#include <xnnpack.h>
#else
extern "C" {
typedef struct pthreadpool *pthreadpool_t;
typedef struct xnn_operator *xnn_operator_t;
enum xnn_status { xnn_status_success = 0 };
struct xnn_allocator;
enum xnn_status xnn_initialize(const struct xnn_allocator *allocator);
enum xnn_status xnn_create_softmax_nc_f32(size_t channels, size_t input_stride,
                                          size_t output_stride, uint32_t flags,
                                          xnn_operator_t *softmax_op_out);
enum xnn_status xnn_setup_softmax_nc_f32(xnn_operator_t softmax_op,
                                         size_t batch_size, const float *input,
                                         float *output,
                                         pthreadpool_t threadpool);
enum xnn_status xnn_run_operator(xnn_operator_t op, pthreadpool_t threadpool);
enum xnn_status xnn_delete_operator(xnn_operator_t op);
}
#endif

// sleef.h declares its AVX2 functions only when __AVX__ is defined, and
// in C++ a target pragma does not define it; this file is built for
// baseline x86-64, so declare the one Sleef function used, with the exact
// prototype of sleef.h 3.5.1, inside an AVX2+FMA target region. The Sleef
// peers run only when hardsoft says AVX2 is supported.
#pragma GCC push_options
#pragma GCC target("avx2,fma")
extern "C" __m256 Sleef_expf8_u10avx2(__m256);
#pragma GCC pop_options

namespace {

// ------------------------------------------------------------- sizes

const std::vector<int64_t> kSoftmaxN = {16,     64,      256,     1024,
                                        4096,   16384,   65536,   262144,
                                        1048576, 16777216};
const std::vector<int64_t> kVecN = {16,    64,    256,    1024,   4096,
                                    16384, 65536, 262144, 1048576};
const std::vector<int64_t> kSpreadN = {4096, 65536};
const std::vector<int64_t> kSpreads = {1, 100, 10000};
const std::vector<int64_t> kAttnN = {256, 1024, 4096, 16384, 65536};
const std::vector<int64_t> kAttnD = {1, 8, 16, 64};

const hs_isa kIsas[] = {HS_ISA_SCALAR, HS_ISA_AVX2, HS_ISA_AVX512};

// ------------------------------------------------------------- data
//
// Where a row's buffers sit moves its time: a 32-byte store straddling a
// cache line (std::vector and malloc give 16-byte alignment) made
// gemm_pk_f64/avx2/32/24/1/acc 1.3x slower, and the heap's history (how
// many rows were registered or ran before) decided which rows got such a
// buffer. So every buffer a kernel reads or writes is placed by one rule:
// a block starts at a page boundary plus 64 * (9 s mod 64) bytes for its
// slot s: line-aligned (no load or store of up to 64 bytes splits a line)
// and, for consecutive slots, 576 bytes apart in the page, so the small
// buffers of one row (up to 576 bytes each) never share an address mod
// 4096, where a load can wait on an unrelated store (4K aliasing). The data
// streams of uniform() take slot = stream, whichever row makes them first;
// a row's other buffers take slots kRowSlot0, kRowSlot0 + 1, ... in the
// order the row allocates them, counted afresh at the start of every row
// (register_row). Placement then depends on neither the rows registered
// nor the rows run before.

constexpr unsigned kScratchSlot = 15, kRowSlot0 = 16;
unsigned g_row_slot = kRowSlot0;

void *alloc_placed(size_t bytes, unsigned slot) {
  const size_t off = 64 * (9 * slot % 64);
  const size_t total = (off + std::max<size_t>(bytes, 1) + 4095) / 4096 * 4096;
  auto *p = static_cast<char *>(std::aligned_alloc(4096, total));
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, total);  // fault the pages in now, not in the loop
  return p + off;
}

void free_placed(void *p) {
  if (p) std::free(reinterpret_cast<void *>(reinterpret_cast<uintptr_t>(p) & ~uintptr_t{4095}));
}

// std::vector's allocator for a row's buffers: the row's next slot.
template <class T>
struct Placed {
  using value_type = T;
  Placed() = default;
  template <class U>
  Placed(const Placed<U> &) {}
  T *allocate(size_t n) { return static_cast<T *>(alloc_placed(n * sizeof(T), g_row_slot++)); }
  void deallocate(T *p, size_t) { free_placed(p); }
  bool operator==(const Placed &) const { return true; }
  bool operator!=(const Placed &) const { return false; }
};
template <class T>
using Vec = std::vector<T, Placed<T>>;

// Registers a row whose buffers are placed afresh each time it runs.
template <class F>
void register_row(const std::string &name, F f) {
  benchmark::RegisterBenchmark(name.c_str(), [f](benchmark::State &state) {
    g_row_slot = kRowSlot0;
    f(state);
  });
}

struct FreeDeleter {
  void operator()(float *p) const { free_placed(p); }
};
using Buf = std::unique_ptr<float[], FreeDeleter>;

Buf alloc_floats(size_t n, unsigned slot) {
  return Buf(static_cast<float *>(alloc_placed(n * sizeof(float), slot)));
}

// Uniform floats in [lo, hi], generated once per (n, lo, hi, stream) and
// shared by every implementation, so all of them see identical data.
const float *uniform(size_t n, float lo, float hi, int stream = 0) {
  static std::map<std::tuple<size_t, float, float, int>, Buf> cache;
  auto key = std::make_tuple(n, lo, hi, stream);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second.get();
  Buf b = alloc_floats(n, static_cast<unsigned>(stream));
  std::mt19937_64 gen(0x9e3779b97f4a7c15ull ^ (n * 31 + stream));
  std::uniform_real_distribution<float> dist(lo, hi);
  for (size_t i = 0; i < n; i++) b[i] = dist(gen);
  return cache.emplace(key, std::move(b)).first->second.get();
}

// One output buffer, grown as needed and kept (already faulted in).
float *scratch(size_t n) {
  static Buf buf;
  static size_t cap = 0;
  if (n > cap) {
    buf = alloc_floats(n, kScratchSlot);
    cap = n;
  }
  return buf.get();
}

// ------------------------------------------------------------- peers

// Plain loops over glibc expf, compiled for baseline x86-64.
void softmax_libm(size_t n, const float *x, float *y) {
  float m = -INFINITY;
  for (size_t i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
  float sum = 0.0f;
  for (size_t i = 0; i < n; i++) {
    y[i] = expf(x[i] - m);
    sum += y[i];
  }
  const float r = 1.0f / sum;
  for (size_t i = 0; i < n; i++) y[i] *= r;
}

void exp_libm(size_t n, const float *x, float *y) {
  for (size_t i = 0; i < n; i++) y[i] = expf(x[i]);
}

float dot_loop(size_t n, const float *a, const float *b) {
  float s = 0.0f;
  for (size_t i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

// The same loops, 8 lanes at a time with Sleef_expf8_u10avx2 (1.0 ULP);
// the tail goes through a padded block (exp(-inf) = 0 adds nothing).
__attribute__((target("avx2,fma"))) void exp_sleef(size_t n, const float *x,
                                                   float *y) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(y + i, Sleef_expf8_u10avx2(_mm256_loadu_ps(x + i)));
  if (i < n) {
    alignas(32) float t[8];
    for (size_t j = 0; j < 8; j++) t[j] = i + j < n ? x[i + j] : -INFINITY;
    _mm256_store_ps(t, Sleef_expf8_u10avx2(_mm256_load_ps(t)));
    for (size_t j = 0; i + j < n; j++) y[i + j] = t[j];
  }
}

__attribute__((target("avx2,fma"))) float hsum8(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

__attribute__((target("avx2,fma"))) float hmax8(__m256 v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  s = _mm_max_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// Three passes (max; exp and sum; scale), each 8 lanes wide.
__attribute__((target("avx2,fma"))) void softmax_sleef(size_t n,
                                                       const float *x,
                                                       float *y) {
  size_t i = 0;
  __m256 vm = _mm256_set1_ps(-INFINITY);
  for (; i + 8 <= n; i += 8) vm = _mm256_max_ps(vm, _mm256_loadu_ps(x + i));
  float m = hmax8(vm);
  for (; i < n; i++) m = x[i] > m ? x[i] : m;
  vm = _mm256_set1_ps(m);
  __m256 vs = _mm256_setzero_ps();
  for (i = 0; i + 8 <= n; i += 8) {
    __m256 e = Sleef_expf8_u10avx2(_mm256_sub_ps(_mm256_loadu_ps(x + i), vm));
    _mm256_storeu_ps(y + i, e);
    vs = _mm256_add_ps(vs, e);
  }
  if (i < n) {
    alignas(32) float t[8];
    for (size_t j = 0; j < 8; j++) t[j] = i + j < n ? x[i + j] : -INFINITY;
    __m256 e = Sleef_expf8_u10avx2(_mm256_sub_ps(_mm256_load_ps(t), vm));
    _mm256_store_ps(t, e);
    vs = _mm256_add_ps(vs, e);
    for (size_t j = 0; i + j < n; j++) y[i + j] = t[j];
  }
  const __m256 vr = _mm256_set1_ps(1.0f / hsum8(vs));
  for (i = 0; i + 8 <= n; i += 8)
    _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_loadu_ps(y + i), vr));
  const float r = 1.0f / hsum8(vs);
  for (; i < n; i++) y[i] *= r;
}

// oneDNN softmax_forward (inference) over a {1, n} row, axis 1.
std::string g_onednn_name = "onednn";

dnnl::engine &onednn_engine() {
  static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  return eng;
}

const char *onednn_isa_name(dnnl_cpu_isa_t isa) {
  switch (isa) {
    case dnnl_cpu_isa_all: return "all";
    case dnnl_cpu_isa_sse41: return "sse41";
    case dnnl_cpu_isa_avx: return "avx";
    case dnnl_cpu_isa_avx2: return "avx2";
    case dnnl_cpu_isa_avx2_vnni: return "avx2_vnni";
    case dnnl_cpu_isa_avx512_mic: return "avx512_mic";
    case dnnl_cpu_isa_avx512_mic_4ops: return "avx512_mic_4ops";
    case dnnl_cpu_isa_avx512_core: return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
    default: return "unknown";
  }
}

// A prepared operation: run() does the work once; label names what ran.
struct Prepared {
  std::function<void()> run;
  std::string label;
  std::string error;
};

Prepared prepare_onednn(size_t n, const float *x, float *y) {
  Prepared p;
  try {
    auto &eng = onednn_engine();
    using dt = dnnl::memory::data_type;
    using tag = dnnl::memory::format_tag;
    dnnl::memory::desc md({1, static_cast<dnnl::memory::dim>(n)}, dt::f32,
                          tag::nc);
    dnnl::softmax_forward::desc d(dnnl::prop_kind::forward_inference, md, 1);
    dnnl::softmax_forward::primitive_desc pd(d, eng);
    auto prim = std::make_shared<dnnl::softmax_forward>(pd);
    auto strm = std::make_shared<dnnl::stream>(eng);
    auto args = std::make_shared<std::unordered_map<int, dnnl::memory>>();
    (*args)[DNNL_ARG_SRC] = dnnl::memory(md, eng, const_cast<float *>(x));
    (*args)[DNNL_ARG_DST] = dnnl::memory(md, eng, y);
    p.label = pd.impl_info_str();
    p.run = [prim, strm, args] {
      prim->execute(*strm, *args);
      strm->wait();
    };
  } catch (const dnnl::error &e) {
    p.error = std::string("oneDNN: ") + e.what();
  }
  return p;
}

// XNNPACK softmax_nc_f32, batch 1, no threadpool.
Prepared prepare_xnnpack(size_t n, const float *x, float *y) {
  Prepared p;
  static const xnn_status init = xnn_initialize(nullptr);
  if (init != xnn_status_success) {
    p.error = "xnn_initialize failed";
    return p;
  }
  xnn_operator_t op = nullptr;
  if (xnn_create_softmax_nc_f32(n, n, n, 0, &op) != xnn_status_success ||
      xnn_setup_softmax_nc_f32(op, 1, x, y, nullptr) != xnn_status_success) {
    if (op) xnn_delete_operator(op);
    p.error = "XNNPACK softmax_nc_f32 create/setup failed";
    return p;
  }
  std::shared_ptr<xnn_operator> holder(op, xnn_delete_operator);
  p.label = "xnn_softmax_nc_f32";
  p.run = [holder] { xnn_run_operator(holder.get(), nullptr); };
  return p;
}

// ------------------------------------------------------------- families

// A softmax-like implementation: hardsoft ISA table or a peer.
using VecPrep = std::function<Prepared(size_t, const float *, float *)>;

struct Impl {
  std::string name;
  VecPrep prep;
};

Prepared from_fn(std::function<void(size_t, const float *, float *)> fn,
                 size_t n, const float *x, float *y, std::string label) {
  Prepared p;
  p.label = std::move(label);
  p.run = [fn, n, x, y] { fn(n, x, y); };
  return p;
}

Prepared hs_unsupported(hs_isa isa) {
  Prepared p;
  p.error = std::string("this CPU/OS cannot run ") + hs_isa_name(isa);
  return p;
}

Prepared need_avx2(Prepared p) {
  if (!hs_isa_supported(HS_ISA_AVX2)) {
    p.run = nullptr;
    p.error = "peer needs AVX2+FMA";
  }
  return p;
}

std::vector<Impl> softmax_impls() {
  std::vector<Impl> v;
  for (hs_isa isa : kIsas)
    v.push_back({hs_isa_name(isa), [isa](size_t n, const float *x, float *y) {
                   const hs_kernels *k = hs_kernels_for(isa);
                   if (!k) return hs_unsupported(isa);
                   auto fn = k->f32_softmax;
                   return from_fn([fn](size_t m, const float *a,
                                       float *b) { fn(m, a, b, 1.0f); },
                                  n, x, y, k->name[HS_OP_f32_softmax]);
                 }});
  v.push_back({"libm", [](size_t n, const float *x, float *y) {
                 return from_fn(softmax_libm, n, x, y, "3-pass expf");
               }});
  v.push_back({"sleef", [](size_t n, const float *x, float *y) {
                 return need_avx2(from_fn(softmax_sleef, n, x, y,
                                          "3-pass Sleef_expf8_u10avx2"));
               }});
  v.push_back({g_onednn_name, prepare_onednn});
  v.push_back({"xnnpack", prepare_xnnpack});
  return v;
}

std::vector<Impl> exp_impls() {
  std::vector<Impl> v;
  for (hs_isa isa : kIsas)
    v.push_back({hs_isa_name(isa), [isa](size_t n, const float *x, float *y) {
                   const hs_kernels *k = hs_kernels_for(isa);
                   if (!k) return hs_unsupported(isa);
                   return from_fn(k->f32_vexp, n, x, y,
                                  k->name[HS_OP_f32_vexp]);
                 }});
  v.push_back({"libm", [](size_t n, const float *x, float *y) {
                 return from_fn(exp_libm, n, x, y, "expf loop");
               }});
  v.push_back({"sleef", [](size_t n, const float *x, float *y) {
                 return need_avx2(
                     from_fn(exp_sleef, n, x, y, "Sleef_expf8_u10avx2 loop"));
               }});
  return v;
}

// A sanity check of one call's output, run once outside the timed loop:
// a gross error (empty string: fine) is reported as an error instead of a
// fast number; *metric gets an accuracy figure published as a counter.
// Float accumulation legitimately drifts at large n (a plain float sum of
// 16M terms is off by percents), so only gross errors are fatal.
using Check = std::string (*)(size_t n, const float *x, const float *y,
                              double *metric);

std::string check_softmax(size_t n, const float *, const float *y,
                          double *metric) {
  double sum = 0.0;
  for (size_t i = 0; i < n; i++) {
    if (!(y[i] >= 0.0f && y[i] <= 1.0f)) return "output outside [0, 1]";
    sum += y[i];
  }
  *metric = std::fabs(sum - 1.0);  // counter sum_error
  if (!(*metric <= 0.5)) return "output does not sum to 1";
  return "";
}

std::string check_exp(size_t n, const float *x, const float *y,
                      double *metric) {
  *metric = 0.0;  // largest relative error on the sample, counter sum_error
  for (size_t i = 0; i < n; i += 1 + n / 256) {
    double e = std::exp(static_cast<double>(x[i]));
    if (!(std::fabs(y[i] - e) <= 1e-5 * e + 1e-37)) return "exp is wrong";
    if (e > 1e-37) *metric = std::max(*metric, std::fabs(y[i] - e) / e);
  }
  return "";
}

// Shared body: one checked call, then the timed loop; items = elements.
void run_prepared(benchmark::State &state, const Prepared &p, size_t n,
                  const float *x, float *y, Check check) {
  if (!p.run) {
    state.SkipWithError(p.error.c_str());
    return;
  }
  p.run();
  double metric = 0.0;
  std::string bad = check(n, x, y, &metric);
  if (!bad.empty()) {
    state.SkipWithError((bad + " (" + p.label + ")").c_str());
    return;
  }
  state.SetLabel(p.label);
  state.counters[check == check_softmax ? "sum_error" : "max_rel_error"] =
      metric;
  for (auto _ : state) {
    p.run();
    benchmark::DoNotOptimize(y);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(n));
}

void register_vec(const std::string &family, const std::vector<Impl> &impls,
                  Check check, const std::vector<int64_t> &sizes, float lo,
                  float hi, int64_t max_n) {
  for (int64_t n : sizes) {
    if (n > max_n) continue;
    for (const Impl &im : impls) {
      std::string name = family + "/" + im.name + "/" + std::to_string(n);
      VecPrep prep = im.prep;
      register_row(
          name.c_str(), [prep, check, n, lo, hi](benchmark::State &state) {
            const float *x = uniform(n, lo, hi);
            float *y = scratch(n);
            run_prepared(state, prep(n, x, y), n, x, y, check);
          });
    }
  }
}

void register_spread(const std::string &family, const std::vector<Impl> &impls,
                     Check check, int64_t max_n) {
  for (int64_t n : kSpreadN) {
    if (n > max_n) continue;
    for (int64_t s : kSpreads)
      for (const Impl &im : impls) {
        std::string name = family + "/" + im.name + "/" + std::to_string(n) +
                           "/" + std::to_string(s);
        VecPrep prep = im.prep;
        register_row(
            name.c_str(), [prep, check, n, s](benchmark::State &state) {
              const float *x = uniform(n, -static_cast<float>(s), 0.0f);
              float *y = scratch(n);
              run_prepared(state, prep(n, x, y), n, x, y, check);
            });
      }
  }
}

using DotFn = std::function<float(size_t, const float *, const float *)>;

void register_dot(int64_t max_n) {
  std::vector<std::pair<std::string, std::function<DotFn(std::string *)>>>
      impls;
  for (hs_isa isa : kIsas)
    impls.push_back({hs_isa_name(isa), [isa](std::string *label) -> DotFn {
                       const hs_kernels *k = hs_kernels_for(isa);
                       if (!k) return nullptr;
                       *label = k->name[HS_OP_f32_dot];
                       return k->f32_dot;
                     }});
  impls.push_back({"loop", [](std::string *label) -> DotFn {
                     *label = "plain loop";
                     return dot_loop;
                   }});
  impls.push_back({"openblas", [](std::string *label) -> DotFn {
                     *label = "cblas_sdot";
                     return [](size_t n, const float *a, const float *b) {
                       return cblas_sdot(static_cast<blasint>(n), a, 1, b, 1);
                     };
                   }});
  for (int64_t n : kVecN) {
    if (n > max_n) continue;
    for (auto &im : impls) {
      std::string name = "dot/" + im.first + "/" + std::to_string(n);
      auto get = im.second;
      std::string isa_name = im.first;
      register_row(
          name.c_str(), [get, n, isa_name](benchmark::State &state) {
            std::string label;
            DotFn fn = get(&label);
            if (!fn) {
              state.SkipWithError(
                  ("this CPU/OS cannot run " + isa_name).c_str());
              return;
            }
            const float *a = uniform(n, -1.0f, 1.0f, 1);
            const float *b = uniform(n, -1.0f, 1.0f, 2);
            double exact = 0.0, mag = 0.0;
            for (int64_t i = 0; i < n; i++) {
              exact += static_cast<double>(a[i]) * b[i];
              mag += std::fabs(static_cast<double>(a[i]) * b[i]);
            }
            if (!(std::fabs(fn(n, a, b) - exact) <= 1e-3 * mag + 1e-30)) {
              state.SkipWithError(("dot is wrong (" + label + ")").c_str());
              return;
            }
            state.SetLabel(label);
            for (auto _ : state) {
              float r = fn(n, a, b);
              benchmark::DoNotOptimize(r);
              benchmark::ClobberMemory();
            }
            state.SetItemsProcessed(state.iterations() * n);
          });
    }
  }
}

// The float data of uniform() in double (the f64 kernels' inputs).
Vec<double> uniform_f64(size_t n, float lo, float hi, int stream) {
  const float *f = uniform(n, lo, hi, stream);
  return Vec<double>(f, f + n);
}

// The kernel table of isa, or NULL after marking the benchmark skipped.
const hs_kernels *table_or_skip(benchmark::State &state, hs_isa isa) {
  const hs_kernels *k = hs_kernels_for(isa);
  if (!k)
    state.SkipWithError(
        (std::string("this CPU/OS cannot run ") + hs_isa_name(isa)).c_str());
  return k;
}

// One query against n keys (dk = dv = d), temperature 1, one call of the
// online kernel, then out = acc / sum. Items = keys.
void register_attn(int64_t max_n) {
  for (int64_t n : kAttnN) {
    if (n > max_n) continue;
    for (int64_t d : kAttnD)
      for (hs_isa isa : kIsas) {
        std::string name = std::string("attn_row/") + hs_isa_name(isa) + "/" +
                           std::to_string(n) + "/" + std::to_string(d);
        register_row(
            name.c_str(), [isa, n, d](benchmark::State &state) {
              const hs_kernels *k = table_or_skip(state, isa);
              if (!k) return;
              const float *q = uniform(d, -1.0f, 1.0f, 3);
              const float *kk = uniform(n * d, -1.0f, 1.0f, 4);
              const float *v = uniform(n * d, -1.0f, 1.0f, 5);
              alignas(64) float acc[HS_ATTN_MAX_D];
              alignas(64) float out[HS_ATTN_MAX_D];
              auto fn = k->f32_attn_row;
              // Check once: out is a convex combination of the values.
              {
                hs_f32_online st = {-INFINITY, 0.0f};
                std::fill(acc, acc + d, 0.0f);
                fn(n, d, d, q, kk, d, v, d, 1.0f, &st, acc);
                bool ok = st.sum >= 1.0f;  // the max key contributes 1
                for (int64_t c = 0; c < d; c++)
                  ok = ok && std::fabs(acc[c] / st.sum) <= 1.0f;
                if (!ok) {
                  state.SkipWithError("attn_row output is wrong");
                  return;
                }
              }
              state.SetLabel(k->name[HS_OP_f32_attn_row]);
              for (auto _ : state) {
                hs_f32_online st = {-INFINITY, 0.0f};
                std::fill(acc, acc + d, 0.0f);
                fn(n, d, d, q, kk, d, v, d, 1.0f, &st, acc);
                const float r = st.sum > 0.0f ? 1.0f / st.sum : 0.0f;
                for (int64_t c = 0; c < d; c++) out[c] = acc[c] * r;
                benchmark::DoNotOptimize(out);
                benchmark::ClobberMemory();
              }
              state.SetItemsProcessed(state.iterations() * n);
            });
      }
  }
}

// One query against n keys, rightmost unique-hard (f32_attn_hard), dv = 1.
// d = 1: keys 0 or 1 (the compiled since/until heads: ties everywhere);
// d = 8: uniform in [-1, 1] (no ties). Items = keys.
void register_attn_hard(int64_t max_n) {
  for (int64_t n : kAttnN) {
    if (n > max_n) continue;
    for (int64_t d : {1, 8})
      for (hs_isa isa : kIsas) {
        std::string name = std::string("attn_hard/") + hs_isa_name(isa) + "/" +
                           std::to_string(n) + "/" + std::to_string(d);
        register_row(
            name.c_str(), [isa, n, d](benchmark::State &state) {
              const hs_kernels *k = table_or_skip(state, isa);
              if (!k) return;
              const float *q = uniform(d, 0.5f, 1.0f, 3);
              float *kk = const_cast<float *>(uniform(n * d, -1.0f, 1.0f, 4));
              if (d == 1)
                for (int64_t j = 0; j < n; j++) kk[j] = kk[j] > 0 ? 1.0f : 0.0f;
              const float *v = uniform(n, -1.0f, 1.0f, 5);
              float acc[1];
              hs_f32_hard st;
              auto run = [&] {
                st = {-INFINITY, -INFINITY, 0, 0};
                acc[0] = 0;
                k->f32_attn_hard(n, d, 1, q, kk, d, v, 1, 0, HS_HARD_RIGHT, &st, acc);
              };
              run();
              if (st.cnt == 0 || acc[0] != v[st.pick]) {
                state.SkipWithError("attn_hard output is wrong");
                return;
              }
              state.SetLabel(k->name[HS_OP_f32_attn_hard]);
              for (auto _ : state) {
                run();
                benchmark::DoNotOptimize(acc);
                benchmark::ClobberMemory();
              }
              state.SetItemsProcessed(state.iterations() * n);
            });
      }
  }
}

// The same in double (f64_attn_hard): attn_hard_f64/<isa>/<n>/<d>, the
// same data converted; impl <isa>_dot is the loop of one f64_dot per key
// that the f64 forward pass ran before, to set beside it.
void register_attn_hard_f64(int64_t max_n) {
  for (int64_t n : kAttnN) {
    if (n > max_n) continue;
    for (int64_t d : {1, 8})
      for (hs_isa isa : kIsas)
        for (int dot = 0; dot < 2; dot++) {
          std::string name = std::string("attn_hard_f64/") + hs_isa_name(isa) +
                             (dot ? "_dot/" : "/") + std::to_string(n) + "/" +
                             std::to_string(d);
          register_row(
              name.c_str(), [isa, n, d, dot](benchmark::State &state) {
                const hs_kernels *k = table_or_skip(state, isa);
                if (!k) return;
                const Vec<double> q = uniform_f64(d, 0.5f, 1.0f, 3);
                Vec<double> kk = uniform_f64(n * d, -1.0f, 1.0f, 4);
                if (d == 1)
                  for (int64_t j = 0; j < n; j++) kk[j] = kk[j] > 0 ? 1.0 : 0.0;
                const Vec<double> v = uniform_f64(n, -1.0f, 1.0f, 5);
                double acc[1];
                hs_f64_hard st;
                auto run = [&] {
                  st = {-INFINITY, -INFINITY, 0, 0};
                  acc[0] = 0;
                  if (!dot) {
                    k->f64_attn_hard(n, d, 1, q.data(), kk.data(), d, v.data(), 1, 0,
                                     HS_HARD_RIGHT, &st, acc);
                    return;
                  }
                  for (int64_t j = 0; j < n; j++) {  // the old per-key loop
                    double s = k->f64_dot(d, q.data(), kk.data() + j * d);
                    if (s > st.best || (s == st.best && st.cnt == 0)) {
                      if (st.best > st.second) st.second = st.best;
                      st.best = s, st.cnt = 1, st.pick = j;
                    } else if (s == st.best) {
                      st.cnt++, st.pick = j;
                    } else if (s > st.second) {
                      st.second = s;
                    }
                  }
                  acc[0] = v[st.pick];
                };
                run();
                if (st.cnt == 0 || acc[0] != v[st.pick]) {
                  state.SkipWithError("attn_hard_f64 output is wrong");
                  return;
                }
                state.SetLabel(k->name[dot ? HS_OP_f64_dot : HS_OP_f64_attn_hard]);
                for (auto _ : state) {
                  run();
                  benchmark::DoNotOptimize(acc);
                  benchmark::ClobberMemory();
                }
                state.SetItemsProcessed(state.iterations() * n);
              });
        }
  }
}

// The skipping tree's bounds of one group of 16 sibling nodes (f64_bounds)
// and the walk's keep test on them (f64_bound_test): bounds/<isa>/16/<dk>,
// bounds_test/<isa>/16/<bias 0|1>. Items = nodes. The same data as the
// forward pass's level arrays: 3 dk rows of 64 nodes, the group at node 16.
void register_bounds() {
  for (int64_t dk : {1, 4, 16})
    for (hs_isa isa : kIsas) {
      std::string name =
          std::string("bounds/") + hs_isa_name(isa) + "/16/" + std::to_string(dk);
      register_row(name.c_str(), [isa, dk](benchmark::State &state) {
        const hs_kernels *k = table_or_skip(state, isa);
        if (!k) return;
        const size_t ld = 64;
        Vec<double> lv = uniform_f64(3 * dk * ld, -1.0f, 1.0f, 6);
        for (int64_t c = 0; c < dk; c++)
          for (size_t j = 0; j < ld; j++) {
            double &mn = lv[c * ld + j], &mx = lv[(dk + c) * ld + j];
            if (mn > mx) std::swap(mn, mx);
            lv[(2 * dk + c) * ld + j] = std::max(std::fabs(mn), std::fabs(mx));
          }
        Vec<double> qd = uniform_f64(dk, -1.0f, 1.0f, 7), aq(dk);
        for (int64_t c = 0; c < dk; c++) aq[c] = std::fabs(qd[c]);
        double u[16], ref[16];
        auto run = [&](const hs_kernels *t, double *out) {
          t->f64_bounds(16, dk, lv.data() + 16, ld, qd.data(), aq.data(), 1e-5, 1e-30,
                        INFINITY, out);
        };
        run(k, u);
        run(hs_kernels_for(HS_ISA_SCALAR), ref);
        if (std::memcmp(u, ref, sizeof u) != 0) {
          state.SkipWithError("bounds differ from the scalar kernel's");
          return;
        }
        state.SetLabel(k->name[HS_OP_f64_bounds]);
        for (auto _ : state) {
          run(k, u);
          benchmark::DoNotOptimize(u);
          benchmark::ClobberMemory();
        }
        state.SetItemsProcessed(state.iterations() * 16);
      });
    }
  for (int bias = 0; bias < 2; bias++)
    for (hs_isa isa : kIsas) {
      std::string name =
          std::string("bounds_test/") + hs_isa_name(isa) + "/16/" + std::to_string(bias);
      register_row(name.c_str(), [isa, bias](benchmark::State &state) {
        const hs_kernels *k = table_or_skip(state, isa);
        if (!k) return;
        Vec<double> u = uniform_f64(16, -100.0f, 100.0f, 8);
        const hs_bt_bias b = {0.01, 20000, 1e-6, 700, 16 * 1024 + 300};
        const hs_bt_bias *bp = bias ? &b : nullptr;
        auto run = [&](const hs_kernels *t) {
          return t->f64_bound_test(16, u.data(), HS_BT_KEEP, 10.0, 88.0001, bp, 0, 1024,
                                   nullptr);
        };
        if (run(k) != run(hs_kernels_for(HS_ISA_SCALAR))) {
          state.SkipWithError("bound_test differs from the scalar kernel's");
          return;
        }
        state.SetLabel(k->name[HS_OP_f64_bound_test]);
        for (auto _ : state) {
          unsigned m = run(k);
          benchmark::DoNotOptimize(m);
        }
        state.SetItemsProcessed(state.iterations() * 16);
      });
    }
}


// The data of the skipping rows (attn_2pass_skip, attn_rows_2pass_skip
// and their f64 twins), made by one constructor so that every one of them
// times the same work: 1024 rows, each a segment list over keys
// 0 .. 16385 of the forward pass's shape (a ragged first tile, whole
// 64-key tiles, some left out, sometimes the 2-key BOS copy; about 48 keys
// a row, as the depth-4 formula's heads at n = 16384 run), one query of dk
// entries, contiguous keys and one value column (uniform streams 3, 4, 5,
// in T), each row's segments sg[i] and first-key offset d0[i], and the
// number of keys listed.
template <class T>
struct SkipData {
  static constexpr size_t kN = 16384 + 2, kRows = 1024;
  Vec<T> q, k, v;
  Vec<size_t> seg, nseg;
  Vec<const size_t *> sg;
  Vec<int64_t> d0;
  uint64_t keys = 0;

  explicit SkipData(int64_t dk) {
    const float *qf = uniform(dk, -1.0f, 1.0f, 3), *kf = uniform(kN * dk, -1.0f, 1.0f, 4),
                *vf = uniform(kN, -1.0f, 1.0f, 5);
    q.assign(qf, qf + dk), k.assign(kf, kf + kN * dk), v.assign(vf, vf + kN);
    uint64_t r = 12345;
    auto next = [&r](uint64_t m) {
      r = r * 6364136223846793005u + 1442695040888963407u;
      return (r >> 33) % m;
    };
    for (size_t i = 0; i < kRows; i++) {
      size_t t0 = next(255), ns = 0;
      size_t a = t0 * 64 + (next(2) ? next(64) : 0);
      size_t tiles = 1 + next(3) * next(2);
      for (size_t t = 0; t < tiles; t++, ns++) {
        size_t end = (a / 64 + 1) * 64;
        if (t + 1 == tiles && next(2)) end = a + 1 + next(end - a);
        seg.push_back(a), seg.push_back(end - a), keys += end - a;
        a = end + 64 * next(2);
      }
      if (next(4) == 0) seg.push_back(16384), seg.push_back(2), keys += 2, ns++;
      nseg.push_back(ns);
    }
    sg.resize(kRows), d0.resize(kRows);
    for (size_t i = 0, o = 0; i < kRows; o += 2 * nseg[i], i++)
      sg[i] = seg.data() + o, d0[i] = -(int64_t)seg[o];
  }
};

// Times the rows of d one by one, row(i) running row i and returning
// {sum, acc}; checked once per row first (the output a convex combination
// of the values). Items = keys.
template <class T, class Row>
void time_skip_rows(benchmark::State &state, const SkipData<T> &d, Row row, const char *what,
                    const char *label) {
  double out = 0;
  auto run = [&](bool check) {
    for (size_t i = 0; i < d.kRows; i++) {
      const std::pair<double, double> r = row(i);
      if (check && !(r.first >= 1 && std::fabs(r.second / r.first) <= 1)) return false;
      out += r.second;
    }
    return true;
  };
  if (!run(true)) {
    state.SkipWithError((std::string(what) + " output is wrong").c_str());
    return;
  }
  state.SetLabel(label);
  for (auto _ : state) {
    run(false);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * (int64_t)d.keys);
}

// Times run(), which takes every row of d four per call into st and acc,
// checked once first as time_skip_rows does. Items = keys.
template <class T, class Online, class Run>
void time_rows_calls(benchmark::State &state, const SkipData<T> &d, const Vec<Online> &st,
                     const Vec<T> &acc, Run run, const char *what, const char *label) {
  run();
  for (size_t i = 0; i < st.size(); i++)
    if (!(st[i].sum >= 1 && std::fabs(acc[i] / st[i].sum) <= 1)) {
      state.SkipWithError((std::string(what) + " output is wrong").c_str());
      return;
    }
  state.SetLabel(label);
  for (auto _ : state) {
    run();
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * (int64_t)d.keys);
}

// The skipping path's usual row: one query against a few kept tiles
// (SkipData, dk in {1, 2, 4}), 1024 rows per iteration.
// attn_2pass_skip/<isa>/<dk> is f32_attn_row_2pass, <isa>_bias its
// relative-bias variant (slope -0.01). Items = keys.
void register_attn_2pass_skip() {
  for (int64_t dk : {1, 2, 4})
    for (hs_isa isa : kIsas)
      for (int bias = 0; bias < 2; bias++) {
        std::string name = std::string("attn_2pass_skip/") + hs_isa_name(isa) +
                           (bias ? "_bias/" : "/") + std::to_string(dk);
        register_row(name.c_str(), [isa, dk, bias](benchmark::State &state) {
          const hs_kernels *k = table_or_skip(state, isa);
          if (!k) return;
          const SkipData<float> d(dk);
          auto row = [&](size_t i) {
            hs_f32_online st;
            float acc;
            if (bias)
              k->f32_attn_row_2pass_bias(d.nseg[i], d.sg[i], dk, 1, d.q.data(), d.k.data(), dk,
                                         d.v.data(), 1, 1.0f, -0.01f, d.d0[i], &st, &acc);
            else
              k->f32_attn_row_2pass(d.nseg[i], d.sg[i], dk, 1, d.q.data(), d.k.data(), dk,
                                    d.v.data(), 1, 1.0f, &st, &acc);
            return std::pair<double, double>(st.sum, acc);
          };
          time_skip_rows(state, d, row, "attn_2pass_skip",
                         k->name[bias ? HS_OP_f32_attn_row_2pass_bias : HS_OP_f32_attn_row_2pass]);
        });
      }
}

// attn_2pass_skip's rows four per call, as the forward pass makes them:
// attn_rows_2pass_skip/<isa>[_bias]/<dk> is f32_attn_rows_2pass on the
// same data, checked once per row the same way. Items = keys.
void register_attn_rows_2pass_skip() {
  for (int64_t dk : {1, 2, 4})
    for (hs_isa isa : kIsas)
      for (int bias = 0; bias < 2; bias++) {
        std::string name = std::string("attn_rows_2pass_skip/") + hs_isa_name(isa) +
                           (bias ? "_bias/" : "/") + std::to_string(dk);
        register_row(name.c_str(), [isa, dk, bias](benchmark::State &state) {
          const hs_kernels *k = table_or_skip(state, isa);
          if (!k) return;
          const SkipData<float> d(dk);
          const size_t R = 4;
          Vec<hs_f32_online> st(d.kRows);
          Vec<float> acc(d.kRows);
          auto run = [&]() {
            for (size_t i = 0; i < d.kRows; i += R)
              k->f32_attn_rows_2pass(R, d.nseg.data() + i, d.sg.data() + i, dk, 1, d.q.data(), 0,
                                     d.k.data(), dk, d.v.data(), 1, 1.0f, bias ? -0.01f : 0.0f,
                                     d.d0.data() + i, st.data() + i, acc.data() + i, 1);
          };
          time_rows_calls(state, d, st, acc, run, "attn_rows_2pass_skip",
                          k->name[HS_OP_f32_attn_rows_2pass]);
        });
      }
}

// One query against n keys given as segments of 64 (the tiles of exact
// skipping, none left out), dk = dv = d, temperature 1:
// attn_2pass_f64/<isa>/<n>/<d> is f64_attn_row_2pass; <isa>_online the
// f64 online row kernel over the same keys (one call), <isa>_f32 the f32
// two-pass kernel on the same data in float, to set the f64 cost beside
// both, and <isa>_f32bias its relative-bias variant
// (f32_attn_row_2pass_bias, slope 0: the bias FMA's cost on the same
// scores). Checked once: the two f64 kernels agree within 1e-9 relative, and
// the output is a convex combination of the values. Items = keys.
void register_attn_2pass_f64(int64_t max_n) {
  for (int64_t n : kAttnN) {
    if (n > max_n) continue;
    for (int64_t d : {1, 2, 8})
      for (hs_isa isa : kIsas)
        for (int impl = 0; impl < 4; impl++) {
          static const char *const sfx[] = {"/", "_online/", "_f32/", "_f32bias/"};
          std::string name = std::string("attn_2pass_f64/") + hs_isa_name(isa) +
                             sfx[impl] + std::to_string(n) + "/" + std::to_string(d);
          register_row(
              name.c_str(), [isa, n, d, impl](benchmark::State &state) {
                const hs_kernels *k = table_or_skip(state, isa);
                if (!k) return;
                const float *qf = uniform(d, -1.0f, 1.0f, 3);
                const float *kf = uniform(n * d, -1.0f, 1.0f, 4);
                const float *vf = uniform(n * d, -1.0f, 1.0f, 5);
                const Vec<double> q(qf, qf + d), kk(kf, kf + n * d), v(vf, vf + n * d);
                Vec<size_t> seg;
                for (int64_t j = 0; j < n; j += 64)
                  seg.push_back((size_t)j), seg.push_back((size_t)std::min<int64_t>(64, n - j));
                const size_t ns = seg.size() / 2;
                alignas(64) double acc[HS_ATTN_MAX_D];
                alignas(64) float accf[HS_ATTN_MAX_D];
                hs_f64_online st;
                hs_f32_online stf;
                auto run = [&] {
                  if (impl == 0) {
                    k->f64_attn_row_2pass(ns, seg.data(), d, d, q.data(), kk.data(), d,
                                          v.data(), d, 1.0, &st, acc);
                  } else if (impl == 1) {
                    st = {-INFINITY, 0.0};
                    std::fill(acc, acc + d, 0.0);
                    k->f64_attn_row(n, d, d, q.data(), kk.data(), d, v.data(), d, 1.0,
                                    &st, acc);
                  } else if (impl == 2) {
                    k->f32_attn_row_2pass(ns, seg.data(), d, d, qf, kf, d, vf, d, 1.0f,
                                          &stf, accf);
                  } else {
                    k->f32_attn_row_2pass_bias(ns, seg.data(), d, d, qf, kf, d, vf, d,
                                               1.0f, 0.0f, -n, &stf, accf);
                  }
                };
                {
                  hs_f64_online s2 = {-INFINITY, 0.0};
                  double a2[HS_ATTN_MAX_D] = {0};
                  k->f64_attn_row(n, d, d, q.data(), kk.data(), d, v.data(), d, 1.0, &s2, a2);
                  run();
                  bool ok = true;
                  for (int64_t c = 0; c < d; c++) {
                    double got = impl >= 2 ? (double)accf[c] / stf.sum : acc[c] / st.sum;
                    double tol = impl >= 2 ? 1e-4 : 1e-9;
                    ok = ok && std::fabs(got) <= 1.0 &&
                         std::fabs(got - a2[c] / s2.sum) <= tol;
                  }
                  if (!ok) {
                    state.SkipWithError("attn_2pass_f64 output is wrong");
                    return;
                  }
                }
                state.SetLabel(k->name[impl == 0   ? HS_OP_f64_attn_row_2pass
                                       : impl == 1 ? HS_OP_f64_attn_row
                                       : impl == 2 ? HS_OP_f32_attn_row_2pass
                                                   : HS_OP_f32_attn_row_2pass_bias]);
                for (auto _ : state) {
                  run();
                  benchmark::DoNotOptimize(acc);
                  benchmark::DoNotOptimize(accf);
                  benchmark::ClobberMemory();
                }
                state.SetItemsProcessed(state.iterations() * n);
              });
        }
  }
}

// The forward pass's past-mask heads (attn_past): n query rows, row i
// against keys 0..i, or its future-mask heads (attn_future): row i against
// keys i..n-1, blocks anchored at key n-1 (dk as given, dv = 1,
// contiguous), all rows either by f32_attn_tile 4 rows per call (impl
// <isa>_tile; future: end = 1) or by f32_attn_row one row per call
// (<isa>_row; future: two calls, hs_attn_end_head); the same bits (checked
// once). Items = keys, n(n+1)/2; the report's ns are per row.
// bias: the relative-position (mode rel) kernels f32_attn_tile_bias and
// f32_attn_row_bias instead, slope 4, query i's key j at j - i
// (attn_past_bias / attn_future_bias), to set beside the plain ones.
void register_attn_mask(int64_t max_n, bool future, bool bias) {
  for (int64_t n : {int64_t{1024}, int64_t{4096}}) {
    if (n > max_n) continue;
    for (int64_t dk : {int64_t{2}, int64_t{4}})
      for (hs_isa isa : kIsas)
        for (int tile = 1; tile >= 0; tile--) {
          std::string name = std::string(future ? "attn_future" : "attn_past") +
                             (bias ? "_bias/" : "/") +
                             hs_isa_name(isa) +
                             (tile ? "_tile/" : "_row/") + std::to_string(n) +
                             "/" + std::to_string(dk);
          register_row(
              name.c_str(), [isa, n, dk, tile, future, bias](benchmark::State &state) {
                const hs_kernels *k = table_or_skip(state, isa);
                if (!k) return;
                const float *q = uniform(n * dk, -4.0f, 4.0f, 6);
                const float *kk = uniform(n * dk, -1.0f, 1.0f, 7);
                const float *v = uniform(n, -1.0f, 1.0f, 8);
                Vec<float> acc(n), acc2(n);
                Vec<hs_f32_online> st(n), st2(n);
                Vec<size_t> nk(n);
                for (int64_t i = 0; i < n; i++)
                  nk[i] = future ? (size_t)(n - i) : (size_t)i + 1;
                auto run = [&](bool t, hs_f32_online *s, float *a) {
                  for (int64_t i = 0; i < n; i++) s[i] = {-INFINITY, 0.0f}, a[i] = 0;
                  if (t)
                    for (int64_t i = 0; i < n; i += 4) {
                      const int64_t j0 = future ? i : 0;  // the longest row's first key
                      const size_t cnt = n - i < 4 ? n - i : 4;
                      int64_t d0[4];
                      for (size_t r = 0; r < cnt; r++) d0[r] = j0 - (i + (int64_t)r);
                      if (bias)
                        k->f32_attn_tile_bias(cnt, &nk[i], dk, 1, q + i * dk, dk,
                                              kk + j0 * dk, dk, v + j0, 1, 1.0f,
                                              future ? -4.0f : 4.0f, d0, s + i,
                                              a + i, 1, future);
                      else
                        k->f32_attn_tile(cnt, &nk[i], dk, 1, q + i * dk, dk,
                                         kk + j0 * dk, dk, v + j0, 1, 1.0f, s + i,
                                         a + i, 1, future);
                    }
                  else
                    for (int64_t i = 0; i < n; i++) {
                      const int64_t j0 = future ? i : 0;
                      const size_t h = future ? hs_attn_end_head(nk[i]) : 0;
                      const float sl = future ? -4.0f : 4.0f;
                      if (h && bias)
                        k->f32_attn_row_bias(h, dk, 1, q + i * dk, kk + j0 * dk, dk,
                                             v + j0, 1, 1.0f, sl, j0 - i, s + i, a + i);
                      else if (h)
                        k->f32_attn_row(h, dk, 1, q + i * dk, kk + j0 * dk, dk,
                                        v + j0, 1, 1.0f, s + i, a + i);
                      if (bias)
                        k->f32_attn_row_bias(nk[i] - h, dk, 1, q + i * dk,
                                             kk + (j0 + h) * dk, dk, v + j0 + h, 1,
                                             1.0f, sl, j0 + (int64_t)h - i, s + i,
                                             a + i);
                      else
                        k->f32_attn_row(nk[i] - h, dk, 1, q + i * dk,
                                        kk + (j0 + h) * dk, dk, v + j0 + h, 1, 1.0f,
                                        s + i, a + i);
                    }
                };
                // Check once: the tile gives the row kernel's bits.
                run(true, st.data(), acc.data());
                run(false, st2.data(), acc2.data());
                if (std::memcmp(st.data(), st2.data(), n * sizeof st[0]) ||
                    std::memcmp(acc.data(), acc2.data(), n * sizeof(float))) {
                  state.SkipWithError("attn_tile bits differ from attn_row");
                  return;
                }
                state.SetLabel(k->name[bias ? (tile ? HS_OP_f32_attn_tile_bias
                                                    : HS_OP_f32_attn_row_bias)
                                             : (tile ? HS_OP_f32_attn_tile
                                                     : HS_OP_f32_attn_row)]);
                for (auto _ : state) {
                  run(tile != 0, st.data(), acc.data());
                  benchmark::DoNotOptimize(acc.data());
                  benchmark::ClobberMemory();
                }
                state.SetItemsProcessed(state.iterations() * n * (n + 1) / 2);
              });
        }
  }
}

// The forward pass's projections: rows of X (width k) times A^T (m
// outputs), one f32_gemm call over 4096 rows, shapes of compiled models
// (m x k = 2 x 9: a head's keys; 9 x 2: a feed-forward's second matrix;
// 16 x 32 a wider model; 3 x 24 and 24 x 2: the depth-4 formula's model,
// width 24, in pe at mu = 8: queries/keys and a feed-forward's matrices). Checked once against a double loop within
// 1e-4 of sum |x a|. Items = rows.
// The rooflines of the attn_row target (kernels-report.py).
//
// Read bandwidth: sum a buffer of `bytes` (in cache after the first pass)
// with 256-bit (avx2) or 512-bit (avx512) loads into 8 named accumulators,
// so that loads, not adds, bound it. attn_row at n = 4096, d = 8 reads
// 4096 * (8 + 8) floats = 256 KiB per call (K and V rows), more than L1,
// inside L2: read_bw at 262144 bytes divided by 64 bytes per key is the
// most keys/s any kernel that reads each key's row once can reach there.
// The accumulators must be named variables: an array of 8 __m256 was kept
// on the stack by g++ -O2 (a store-to-load round trip per add), which
// measured a third of the real bandwidth and was no upper bound (the
// kernel beat it by 1.2x). Items = bytes (items/s = bytes/s).
//
// FMA throughput: 12 independent 256-bit FMA chains (more than latency x
// pipes), items = FMA instructions: attn_row/avx2 at d = 8 needs at least
// 2 of them per key (the 8 + 8 multiply-adds of q . k_j and e_j v_j, 8
// lanes each) plus the FMA-pipe operations of its exp, so
// fma_tp / (FMA-pipe operations per key) bounds its keys/s from above.
__attribute__((target("avx2"))) float read_sum_avx2(const float *x, size_t n) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0,
         a5 = a0, a6 = a0, a7 = a0;
  for (size_t j = 0; j + 64 <= n; j += 64) {
    a0 = _mm256_add_ps(a0, _mm256_load_ps(x + j));
    a1 = _mm256_add_ps(a1, _mm256_load_ps(x + j + 8));
    a2 = _mm256_add_ps(a2, _mm256_load_ps(x + j + 16));
    a3 = _mm256_add_ps(a3, _mm256_load_ps(x + j + 24));
    a4 = _mm256_add_ps(a4, _mm256_load_ps(x + j + 32));
    a5 = _mm256_add_ps(a5, _mm256_load_ps(x + j + 40));
    a6 = _mm256_add_ps(a6, _mm256_load_ps(x + j + 48));
    a7 = _mm256_add_ps(a7, _mm256_load_ps(x + j + 56));
  }
  a0 = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                     _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
  alignas(32) float t[8];
  _mm256_store_ps(t, a0);
  return t[0] + t[1] + t[2] + t[3] + t[4] + t[5] + t[6] + t[7];
}

__attribute__((target("avx512f"))) float read_sum_avx512(const float *x, size_t n) {
  __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0,
         a5 = a0, a6 = a0, a7 = a0;
  for (size_t j = 0; j + 128 <= n; j += 128) {
    a0 = _mm512_add_ps(a0, _mm512_load_ps(x + j));
    a1 = _mm512_add_ps(a1, _mm512_load_ps(x + j + 16));
    a2 = _mm512_add_ps(a2, _mm512_load_ps(x + j + 32));
    a3 = _mm512_add_ps(a3, _mm512_load_ps(x + j + 48));
    a4 = _mm512_add_ps(a4, _mm512_load_ps(x + j + 64));
    a5 = _mm512_add_ps(a5, _mm512_load_ps(x + j + 80));
    a6 = _mm512_add_ps(a6, _mm512_load_ps(x + j + 96));
    a7 = _mm512_add_ps(a7, _mm512_load_ps(x + j + 112));
  }
  a0 = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                     _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
  alignas(64) float t[16];
  _mm512_store_ps(t, a0);
  float r = 0;
  for (float f : t) r += f;
  return r;
}

// 12 chains x `reps` FMAs; x stays finite (0.5 * x + 0.25 -> 0.5).
__attribute__((target("avx2,fma"))) float fma_chains_avx2(float x, int64_t reps) {
  const __m256 b = _mm256_set1_ps(0.5f), c = _mm256_set1_ps(0.25f);
  // distinct starts and an empty asm per step: the chains cannot be
  // merged, hoisted or folded, only run
  __m256 a0 = _mm256_set1_ps(x), a1 = _mm256_set1_ps(x + 1), a2 = _mm256_set1_ps(x + 2),
         a3 = _mm256_set1_ps(x + 3), a4 = _mm256_set1_ps(x + 4), a5 = _mm256_set1_ps(x + 5),
         a6 = _mm256_set1_ps(x + 6), a7 = _mm256_set1_ps(x + 7), a8 = _mm256_set1_ps(x + 8),
         a9 = _mm256_set1_ps(x + 9), a10 = _mm256_set1_ps(x + 10), a11 = _mm256_set1_ps(x + 11);
  for (int64_t i = 0; i < reps; i++) {
    __asm__("" : "+x"(a0), "+x"(a1), "+x"(a2), "+x"(a3), "+x"(a4), "+x"(a5),
            "+x"(a6), "+x"(a7), "+x"(a8), "+x"(a9), "+x"(a10), "+x"(a11));
    a0 = _mm256_fmadd_ps(a0, b, c); a1 = _mm256_fmadd_ps(a1, b, c);
    a2 = _mm256_fmadd_ps(a2, b, c); a3 = _mm256_fmadd_ps(a3, b, c);
    a4 = _mm256_fmadd_ps(a4, b, c); a5 = _mm256_fmadd_ps(a5, b, c);
    a6 = _mm256_fmadd_ps(a6, b, c); a7 = _mm256_fmadd_ps(a7, b, c);
    a8 = _mm256_fmadd_ps(a8, b, c); a9 = _mm256_fmadd_ps(a9, b, c);
    a10 = _mm256_fmadd_ps(a10, b, c); a11 = _mm256_fmadd_ps(a11, b, c);
  }
  a0 = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                     _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
  a0 = _mm256_add_ps(a0, _mm256_add_ps(_mm256_add_ps(a8, a9), _mm256_add_ps(a10, a11)));
  alignas(32) float t[8];
  _mm256_store_ps(t, a0);
  return t[0];
}

// The same 12 chains on 512-bit vectors, and on scalars as the scalar
// kernels are built (no -mfma: a multiply, then an add, per step): the
// compute ceilings of the attention phase's roofline (REPORT.md), one per
// ISA.
__attribute__((target("avx512f"))) float fma_chains_avx512(float x, int64_t reps) {
  const __m512 b = _mm512_set1_ps(0.5f), c = _mm512_set1_ps(0.25f);
  __m512 a0 = _mm512_set1_ps(x), a1 = _mm512_set1_ps(x + 1), a2 = _mm512_set1_ps(x + 2),
         a3 = _mm512_set1_ps(x + 3), a4 = _mm512_set1_ps(x + 4), a5 = _mm512_set1_ps(x + 5),
         a6 = _mm512_set1_ps(x + 6), a7 = _mm512_set1_ps(x + 7), a8 = _mm512_set1_ps(x + 8),
         a9 = _mm512_set1_ps(x + 9), a10 = _mm512_set1_ps(x + 10), a11 = _mm512_set1_ps(x + 11);
  for (int64_t i = 0; i < reps; i++) {
    __asm__("" : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4), "+v"(a5),
            "+v"(a6), "+v"(a7), "+v"(a8), "+v"(a9), "+v"(a10), "+v"(a11));
    a0 = _mm512_fmadd_ps(a0, b, c); a1 = _mm512_fmadd_ps(a1, b, c);
    a2 = _mm512_fmadd_ps(a2, b, c); a3 = _mm512_fmadd_ps(a3, b, c);
    a4 = _mm512_fmadd_ps(a4, b, c); a5 = _mm512_fmadd_ps(a5, b, c);
    a6 = _mm512_fmadd_ps(a6, b, c); a7 = _mm512_fmadd_ps(a7, b, c);
    a8 = _mm512_fmadd_ps(a8, b, c); a9 = _mm512_fmadd_ps(a9, b, c);
    a10 = _mm512_fmadd_ps(a10, b, c); a11 = _mm512_fmadd_ps(a11, b, c);
  }
  a0 = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                     _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
  a0 = _mm512_add_ps(a0, _mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)));
  alignas(64) float t[16];
  _mm512_store_ps(t, a0);
  return t[0];
}

float fma_chains_scalar(float x, int64_t reps) {
  float a0 = x, a1 = x + 1, a2 = x + 2, a3 = x + 3, a4 = x + 4, a5 = x + 5, a6 = x + 6,
        a7 = x + 7, a8 = x + 8, a9 = x + 9, a10 = x + 10, a11 = x + 11;
  for (int64_t i = 0; i < reps; i++) {
    __asm__("" : "+x"(a0), "+x"(a1), "+x"(a2), "+x"(a3), "+x"(a4), "+x"(a5),
            "+x"(a6), "+x"(a7), "+x"(a8), "+x"(a9), "+x"(a10), "+x"(a11));
    a0 = a0 * 0.5f + 0.25f; a1 = a1 * 0.5f + 0.25f; a2 = a2 * 0.5f + 0.25f;
    a3 = a3 * 0.5f + 0.25f; a4 = a4 * 0.5f + 0.25f; a5 = a5 * 0.5f + 0.25f;
    a6 = a6 * 0.5f + 0.25f; a7 = a7 * 0.5f + 0.25f; a8 = a8 * 0.5f + 0.25f;
    a9 = a9 * 0.5f + 0.25f; a10 = a10 * 0.5f + 0.25f; a11 = a11 * 0.5f + 0.25f;
  }
  return ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)) + ((a8 + a9) + (a10 + a11));
}

void register_read_bw(int64_t max_n) {
  for (hs_isa isa : {HS_ISA_AVX2, HS_ISA_AVX512})
    for (int64_t bytes : {int64_t(32) << 10, int64_t(256) << 10, int64_t(1) << 20}) {
      if (bytes / 64 > std::max<int64_t>(max_n, 64)) continue;
      std::string name = std::string("read_bw/") + hs_isa_name(isa) + "/" +
                         std::to_string(bytes);
      register_row(name.c_str(), [isa, bytes](benchmark::State &state) {
        if (!hs_isa_supported(isa)) {
          state.SkipWithError(
              (std::string("this CPU/OS cannot run ") + hs_isa_name(isa)).c_str());
          return;
        }
        const size_t n = static_cast<size_t>(bytes) / sizeof(float);
        // 64-byte aligned: no load splits a cache line
        float *x = static_cast<float *>(alloc_placed(static_cast<size_t>(bytes), kRowSlot0));
        std::memcpy(x, uniform(n, 0.0f, 1.0f, 6), static_cast<size_t>(bytes));
        auto fn = isa == HS_ISA_AVX2 ? read_sum_avx2 : read_sum_avx512;
        // the sum checked once: loads that were optimised away would not add up
        double ref = 0;
        for (size_t i = 0; i < n; i++) ref += x[i];
        if (std::fabs(fn(x, n) - ref) > 1e-3 * ref) {
          state.SkipWithError("read_bw sum is wrong");
          free_placed(x);
          return;
        }
        state.SetLabel(isa == HS_ISA_AVX2 ? "8 x 256-bit load+add chains"
                                          : "8 x 512-bit load+add chains");
        for (auto _ : state) {
          float r = fn(x, n);
          benchmark::DoNotOptimize(r);
        }
        state.SetItemsProcessed(state.iterations() * bytes);
        free_placed(x);
      });
    }
  // items = FMA instructions (scalar: multiply-add pairs), 12 chains x 4096
  struct fma_case { hs_isa isa; float (*fn)(float, int64_t); const char *label; };
  for (fma_case fc : {fma_case{HS_ISA_SCALAR, fma_chains_scalar,
                               "12 independent scalar multiply-add chains"},
                      fma_case{HS_ISA_AVX2, fma_chains_avx2,
                               "12 independent 256-bit FMA chains"},
                      fma_case{HS_ISA_AVX512, fma_chains_avx512,
                               "12 independent 512-bit FMA chains"}}) {
    std::string name = std::string("fma_tp/") + hs_isa_name(fc.isa) + "/49152";
    register_row(name.c_str(), [fc](benchmark::State &state) {
      if (!hs_isa_supported(fc.isa)) {
        state.SkipWithError(
            (std::string("this CPU/OS cannot run ") + hs_isa_name(fc.isa)).c_str());
        return;
      }
      const int64_t reps = 4096;  // x 12 chains = 49152, the name's size
      float x = 1.0f;
      benchmark::DoNotOptimize(x);
      // every chain tends to 0.5; the sum (or lane 0 of it) to 12 * 0.5
      if (!(std::fabs(fc.fn(x, reps) - 12 * 0.5f) < 1e-3f)) {
        state.SkipWithError("fma_tp result is wrong");
        return;
      }
      state.SetLabel(fc.label);
      for (auto _ : state) {
        benchmark::DoNotOptimize(x);  // a new call each time, not one hoisted
        float r = fc.fn(x, reps);
        benchmark::DoNotOptimize(r);
      }
      state.SetItemsProcessed(state.iterations() * reps * 12);
    });
  }
}

void register_gemm() {
  static const int64_t kShapes[][2] = {{2, 9}, {9, 2}, {16, 32}, {3, 24}, {24, 2}};
  const int64_t rows = 4096;
  for (const auto &sh : kShapes)
    for (hs_isa isa : kIsas) {
      const int64_t m = sh[0], kk = sh[1];
      std::string name = std::string("gemm/") + hs_isa_name(isa) + "/" +
                         std::to_string(rows) + "/" + std::to_string(m) + "/" +
                         std::to_string(kk);
      register_row(
          name.c_str(), [isa, m, kk, rows](benchmark::State &state) {
            const hs_kernels *k = table_or_skip(state, isa);
            if (!k) return;
            const float *a = uniform(m * kk, -1.0f, 1.0f, 6);
            const float *x = uniform(rows * kk, -1.0f, 1.0f, 7);
            Vec<float> y((size_t)(rows * m));
            k->f32_gemm(rows, m, kk, a, kk, x, kk, y.data(), m);
            for (int64_t i = 0; i < rows; i++)
              for (int64_t r = 0; r < m; r++) {
                double want = 0, abs = 0;
                for (int64_t c = 0; c < kk; c++) {
                  want += (double)x[i * kk + c] * a[r * kk + c];
                  abs += std::fabs((double)x[i * kk + c] * a[r * kk + c]);
                }
                if (!(std::fabs(y[i * m + r] - want) <= 1e-4 * abs + 1e-30)) {
                  state.SkipWithError("gemm output is wrong");
                  return;
                }
              }
            state.SetLabel(k->name[HS_OP_f32_gemm]);
            for (auto _ : state) {
              k->f32_gemm(rows, m, kk, a, kk, x, kk, y.data(), m);
              benchmark::DoNotOptimize(y.data());
              benchmark::ClobberMemory();
            }
            state.SetItemsProcessed(state.iterations() * rows);
          });
    }
}

// The same products in double (f64_gemm; the f64 forward pass's
// projections), shapes as for gemm; impl <isa>_gemv is the loop of one
// f64_gemv per row that the forward pass ran before, to set beside it.
// Checked once against a long double loop within 1e-12 of sum |x a|.
void register_gemm_f64() {
  static const int64_t kShapes[][2] = {{2, 9}, {9, 2}, {16, 32}, {3, 24}, {24, 2}};
  const int64_t rows = 4096;
  for (const auto &sh : kShapes)
    for (hs_isa isa : kIsas)
      for (int gemv = 0; gemv < 2; gemv++) {
        const int64_t m = sh[0], kk = sh[1];
        std::string name = std::string("gemm_f64/") + hs_isa_name(isa) +
                           (gemv ? "_gemv/" : "/") + std::to_string(rows) + "/" +
                           std::to_string(m) + "/" + std::to_string(kk);
        register_row(
            name.c_str(), [isa, m, kk, rows, gemv](benchmark::State &state) {
              const hs_kernels *k = table_or_skip(state, isa);
              if (!k) return;
              const Vec<double> a = uniform_f64(m * kk, -1.0f, 1.0f, 6);
              const Vec<double> x = uniform_f64(rows * kk, -1.0f, 1.0f, 7);
              Vec<double> y((size_t)(rows * m));
              auto run = [&] {
                if (gemv)
                  for (int64_t i = 0; i < rows; i++)
                    k->f64_gemv(m, kk, a.data(), kk, x.data() + i * kk, y.data() + i * m);
                else
                  k->f64_gemm(rows, m, kk, a.data(), kk, x.data(), kk, y.data(), m);
              };
              run();
              for (int64_t i = 0; i < rows; i++)
                for (int64_t r = 0; r < m; r++) {
                  long double want = 0, abs = 0;
                  for (int64_t c = 0; c < kk; c++) {
                    long double p = (long double)x[i * kk + c] * a[r * kk + c];
                    want += p;
                    abs += std::fabs(p);
                  }
                  if (!(std::fabs(y[i * m + r] - want) <= 1e-12L * abs + 1e-300L)) {
                    state.SkipWithError("gemm_f64 output is wrong");
                    return;
                  }
                }
              state.SetLabel(k->name[gemv ? HS_OP_f64_gemv : HS_OP_f64_gemm]);
              for (auto _ : state) {
                run();
                benchmark::DoNotOptimize(y.data());
                benchmark::ClobberMemory();
              }
              state.SetItemsProcessed(state.iterations() * rows);
            });
      }
}

// The products of the forward pass on packed weights with their fused
// epilogue (f32_gemm_pk, f64_gemm_pk), at the calls' own row counts: a
// layer's projections fused over its heads, 64 rows per call (m x k =
// 14 x 24, 9 x 24, 3 x 24: the depth-4 formula's layers in pe at mu = 8,
// width 24; 5 x 9: a S b's, width 9), and a chunk of 32 rows' finishing
// (W_o of a head, 24 x 1, added to the stream: acc; the feed-forward's
// first matrix with bias and ReLU, 4 x 24, bias_relu; its second with
// bias, added: 24 x 4, bias_acc; a S b's finishing at width 9: 9 x 1,
// 2 x 9, 9 x 2). Checked once against a long double
// loop within 1e-4 (f32) / 1e-12 (f64) of sum |x a| + |b| + |y|.
// Items = rows.
template <typename T>
void register_gemm_pk_t(const char *prefix) {
  struct Shape { int64_t rows, m, k; unsigned flags; bool bias; const char *epi; };
  static const Shape kShapes[] = {
      {64, 14, 24, 0, false, "none"},      {64, 9, 24, 0, false, "none"},
      {64, 3, 24, 0, false, "none"},       {64, 5, 9, 0, false, "none"},
      {32, 24, 1, HS_GEMM_ACC, false, "acc"},
      {32, 4, 24, HS_GEMM_RELU, true, "bias_relu"},
      {32, 24, 4, HS_GEMM_ACC, true, "bias_acc"},
      {32, 9, 1, HS_GEMM_ACC, false, "acc"},
      {32, 2, 9, HS_GEMM_RELU, true, "bias_relu"},
      {32, 9, 2, HS_GEMM_ACC, true, "bias_acc"}};
  for (const Shape &sh : kShapes)
    for (hs_isa isa : kIsas) {
      std::string name = std::string(prefix) + "/" + hs_isa_name(isa) + "/" +
                         std::to_string(sh.rows) + "/" + std::to_string(sh.m) + "/" +
                         std::to_string(sh.k) + "/" + sh.epi;
      register_row(name.c_str(), [isa, sh](benchmark::State &state) {
        const hs_kernels *k = table_or_skip(state, isa);
        if (!k) return;
        const int64_t rows = sh.rows, m = sh.m, kk = sh.k;
        const float *af = uniform(m * kk, -1.0f, 1.0f, 6);
        const float *xf = uniform(rows * kk, -1.0f, 1.0f, 7);
        const float *bf = uniform(m, -1.0f, 1.0f, 8);
        const float *yf = uniform(rows * m, -1.0f, 1.0f, 9);
        Vec<T> a(af, af + m * kk), x(xf, xf + rows * kk), b(bf, bf + m);
        Vec<T> y0(yf, yf + rows * m), y(y0);
        Vec<T> pk(hs_gemm_pack_size((size_t)m, (size_t)kk) + 1);
        const bool f32 = sizeof(T) == sizeof(float);
        auto call = [&] {
          if constexpr (sizeof(T) == sizeof(float))
            k->f32_gemm_pk(rows, m, kk, pk.data(), sh.bias ? b.data() : nullptr,
                           x.data(), kk, y.data(), m, sh.flags);
          else
            k->f64_gemm_pk(rows, m, kk, pk.data(), sh.bias ? b.data() : nullptr,
                           x.data(), kk, y.data(), m, sh.flags);
        };
        if constexpr (sizeof(T) == sizeof(float))
          hs_f32_gemm_pack(m, kk, a.data(), kk, pk.data());
        else
          hs_f64_gemm_pack(m, kk, a.data(), kk, pk.data());
        call();
        for (int64_t i = 0; i < rows; i++)
          for (int64_t r = 0; r < m; r++) {
            long double want = sh.bias ? (long double)b[r] : 0, abs = std::fabs(want);
            for (int64_t c = 0; c < kk; c++) {
              long double p = (long double)x[i * kk + c] * a[r * kk + c];
              want += p;
              abs += std::fabs(p);
            }
            if (sh.flags & HS_GEMM_ACC) want += y0[i * m + r], abs += std::fabs(y0[i * m + r]);
            if ((sh.flags & HS_GEMM_RELU) && !(want > 0)) want = 0;
            if (!(std::fabs(y[i * m + r] - want) <= (f32 ? 1e-4L : 1e-12L) * abs + 1e-30L)) {
              state.SkipWithError("gemm_pk output is wrong");
              return;
            }
          }
        state.SetLabel(k->name[f32 ? HS_OP_f32_gemm_pk : HS_OP_f64_gemm_pk]);
        for (auto _ : state) {
          call();
          benchmark::DoNotOptimize(y.data());
          benchmark::ClobberMemory();
        }
        state.SetItemsProcessed(state.iterations() * rows);
      });
    }
}

void register_gemm_pk() {
  register_gemm_pk_t<float>("gemm_pk");
  register_gemm_pk_t<double>("gemm_pk_f64");
}

// ------------------------------------------------------------- ISA table

void json_str(const char *s) {
  std::putchar('"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') std::putchar('\\');
    std::putchar(*s);
  }
  std::putchar('"');
}

// The catalogue, for ISAs this CPU cannot run (hs_kernels_for gives NULL):
// the row for (op, isa) if there is one, else the scalar row, as dispatch
// does.
struct Row {
  const char *op, *isa, *fn;
};
const Row kCatalogue[] = {
#define HS_KERNEL(op, isa, fn) {#op, #isa, #fn},
#include "kernels.inc"
#undef HS_KERNEL
};

// A row's ISA is HS_ISA_<ID>'s ID, hs_isa_name's name in capitals.
const char *catalogue_symbol(const char *op, hs_isa isa) {
  const char *scalar = "";
  for (const Row &r : kCatalogue) {
    if (std::strcmp(r.op, op) != 0) continue;
    if (strcasecmp(r.isa, hs_isa_name(isa)) == 0) return r.fn;
    if (std::strcmp(r.isa, "SCALAR") == 0) scalar = r.fn;
  }
  return scalar;
}

void print_isa_table() {
  char brand[64];
  hs_cpu_brand(brand, sizeof brand);
  std::printf("{\"cpu_model\": ");
  json_str(brand);
  std::printf(", \"best_isa\": \"%s\", \"ftz\": %d, \"daz\": %d, \"isas\": [",
              hs_isa_name(hs_isa_best()), hs_ftz_enabled(), hs_daz_enabled());
  for (int i = 0; i < HS_ISA_COUNT; i++) {
    hs_isa isa = static_cast<hs_isa>(i);
    const hs_kernels *k = hs_kernels_for(isa);
    std::printf("%s\n  {\"isa\": \"%s\", \"supported\": %s, \"kernels\": {",
                i ? "," : "", hs_isa_name(isa), k ? "true" : "false");
    for (int op = 0; op < HS_OP_COUNT; op++) {
      std::printf("%s", op ? ", " : "");
      json_str(hs_op_names[op]);
      std::printf(": ");
      json_str(k ? k->name[op] : catalogue_symbol(hs_op_names[op], isa));
    }
    std::printf("}}");
  }
  std::printf("\n]}\n");
}

// ------------------------------------------------------------- set-up

void single_thread_peers() {
  // libdnnl is linked against libgomp; OMP_NUM_THREADS is read when libgomp
  // loads, so set the count explicitly (run-kernels.sh also exports it).
  using omp_set_fn = void (*)(int);
  if (auto f = reinterpret_cast<omp_set_fn>(
          dlsym(RTLD_DEFAULT, "omp_set_num_threads")))
    f(1);
  openblas_set_num_threads(1);
}

std::string lower(std::string s) {
  for (char &c : s) c = static_cast<char>(std::tolower((unsigned char)c));
  return s;
}

void add_context() {
  char brand[64];
  hs_cpu_brand(brand, sizeof brand);
  benchmark::AddCustomContext("cpu_model", brand);
  benchmark::AddCustomContext("compiler", "g++ " __VERSION__);
  benchmark::AddCustomContext("hardsoft_best_isa", hs_isa_name(hs_isa_best()));
  const dnnl_version_t *dv = dnnl_version();
  char buf[128];
  std::snprintf(buf, sizeof buf, "%d.%d.%d", dv->major, dv->minor, dv->patch);
  benchmark::AddCustomContext("onednn_version", buf);
  benchmark::AddCustomContext("onednn_name", g_onednn_name);
  benchmark::AddCustomContext(
      "onednn_effective_isa", onednn_isa_name(dnnl_get_effective_cpu_isa()));
  benchmark::AddCustomContext("openblas_config", openblas_get_config());
  benchmark::AddCustomContext("threads", "1 (omp_set_num_threads(1), "
                                         "openblas_set_num_threads(1), "
                                         "XNNPACK without threadpool)");
}

// The same rows in double: attn_2pass_skip_f64/<isa>/<dk> is
// f64_attn_row_2pass on SkipData in double, checked once per row as
// attn_2pass_skip; attn_rows_2pass_skip_f64/<isa>/<dk> the same rows four
// per f64_attn_rows_2pass call, as the f64 forward pass makes them.
// Items = keys.
void register_attn_2pass_skip_f64() {
  for (int multi = 0; multi < 2; multi++)
    for (int64_t dk : {1, 2, 4})
      for (hs_isa isa : kIsas) {
        const char *fam = multi ? "attn_rows_2pass_skip_f64" : "attn_2pass_skip_f64";
        std::string name = std::string(fam) + "/" + hs_isa_name(isa) + "/" + std::to_string(dk);
        register_row(name.c_str(), [isa, dk, multi, fam](benchmark::State &state) {
          const hs_kernels *k = table_or_skip(state, isa);
          if (!k) return;
          const SkipData<double> d(dk);
          if (!multi) {
            auto row = [&](size_t i) {
              hs_f64_online st;
              double acc;
              k->f64_attn_row_2pass(d.nseg[i], d.sg[i], dk, 1, d.q.data(), d.k.data(), dk,
                                    d.v.data(), 1, 1.0, &st, &acc);
              return std::pair<double, double>(st.sum, acc);
            };
            time_skip_rows(state, d, row, fam, k->name[HS_OP_f64_attn_row_2pass]);
            return;
          }
          const size_t R = 4;
          Vec<hs_f64_online> st(d.kRows);
          Vec<double> acc(d.kRows);
          auto run = [&]() {
            for (size_t i = 0; i < d.kRows; i += R)
              k->f64_attn_rows_2pass(R, d.nseg.data() + i, d.sg.data() + i, dk, 1, d.q.data(), 0,
                                     d.k.data(), dk, d.v.data(), 1, 1.0, st.data() + i,
                                     acc.data() + i, 1);
          };
          time_rows_calls(state, d, st, acc, run, fam, k->name[HS_OP_f64_attn_rows_2pass]);
        });
      }
}

// Code placement moves small rows as much as data placement: the same
// binary ran dot/scalar/64 in 7.3 ns or 9.3 ns depending only on where
// address-space randomization put its code (bits 12-13 of the kernel's
// address), a lottery per run. So the binary runs itself once more with
// randomization off (what `setarch -R` does): a binary's times then depend
// on its own layout, the same every run. Where that is refused (a
// container's seccomp policy), it runs as it is.
void no_aslr(char **argv) {
  const int pers = personality(0xffffffff);
  if (pers == -1 || (pers & ADDR_NO_RANDOMIZE)) return;
  if (personality(static_cast<unsigned long>(pers) | ADDR_NO_RANDOMIZE) == -1) return;
  char self[4096];
  const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len > 0) {
    self[len] = '\0';
    execv(self, argv);
  }
  personality(static_cast<unsigned long>(pers));
}

int run(int argc, char **argv);

}  // namespace

int main(int argc, char **argv) {
  no_aslr(argv);
  // The stack's offset in its page moves with the size of the environment;
  // every row's frames start at the same page offset whatever it is.
  char here;
  const size_t pad = (reinterpret_cast<uintptr_t>(&here) - 0x800) & 4095;
  char *p = static_cast<char *>(alloca(pad + 1));
  __asm__ volatile("" : : "r"(p) : "memory");
  return run(argc, argv);
}

namespace {

__attribute__((noinline)) int run(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (std::strcmp(argv[i], "--print-isa-table") == 0) {
      print_isa_table();
      return 0;
    }
  const char *cap = std::getenv("ONEDNN_MAX_CPU_ISA");
  if (!cap || !*cap) cap = std::getenv("DNNL_MAX_CPU_ISA");
  if (cap && *cap && lower(cap) != "all") g_onednn_name = "onednn_" + lower(cap);

  int64_t max_n = INT64_MAX;
  if (const char *m = std::getenv("HS_BENCH_MAX_N"))
    if (*m) max_n = std::strtoll(m, nullptr, 10);

  single_thread_peers();
  register_vec("softmax", softmax_impls(), check_softmax, kSoftmaxN, -10.0f,
               10.0f, max_n);
  register_spread("softmax_spread", softmax_impls(), check_softmax, max_n);
  register_vec("exp", exp_impls(), check_exp, kVecN, -10.0f, 10.0f, max_n);
  register_spread("exp_spread", exp_impls(), check_exp, max_n);
  register_dot(max_n);
  register_attn(max_n);
  register_attn_hard(max_n);
  register_attn_hard_f64(max_n);
  register_attn_2pass_f64(max_n);
  register_attn_2pass_skip();
  register_attn_rows_2pass_skip();
  register_read_bw(max_n);
  for (bool bias : {false, true}) {
    register_attn_mask(max_n, false, bias);
    register_attn_mask(max_n, true, bias);
  }
  register_gemm();
  register_gemm_f64();
  register_bounds();
  register_attn_2pass_skip_f64();
  register_gemm_pk();

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  add_context();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace
