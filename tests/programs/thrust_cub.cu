// Library code as programs use it: Thrust and CUB algorithms (scans, radix sorts by key and
// descending, reduce_by_key, copy_if, count_if, unique, transform_reduce, a histogram and a
// segmented reduction), 26 launches of kernels from one 50,000-line module of CUB templates.
// Every result is checked on the host against a loop written here.
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/transform_reduce.h>
#include <thrust/unique.h>

#include <vector>

#include "check.h"

struct is_even {
  __host__ __device__ bool operator()(int x) const { return x % 2 == 0; }
};
struct square {
  __host__ __device__ long long operator()(int x) const { return (long long)x * x; }
};

int main() {
  const int n = 3000, bins = 10;
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = (i * 7919 + 13) % 1000;
  thrust::device_vector<int> d(h.begin(), h.end());
  int bad = 0;
  auto expect = [&](bool ok, const char* what) {
    if (!ok) std::printf("wrong: %s\n", what);
    bad += !ok;
  };

  thrust::device_vector<int> s(n);
  thrust::inclusive_scan(d.begin(), d.end(), s.begin());
  thrust::host_vector<int> hs = s;
  long long acc = 0;
  bool ok = true;
  for (int i = 0; i < n; ++i) ok &= hs[i] == (acc += h[i]);
  expect(ok, "inclusive_scan");
  thrust::exclusive_scan(d.begin(), d.end(), s.begin());
  hs = s;
  acc = 0, ok = true;
  for (int i = 0; i < n; ++i) ok &= hs[i] == acc, acc += h[i];
  expect(ok, "exclusive_scan");

  std::vector<int> count(1000, 0);
  for (int x : h) ++count[x];
  int distinct = 0;
  for (int c : count) distinct += c > 0;
  thrust::device_vector<int> keys = d, ones(n, 1), out_keys(n), out_counts(n);
  thrust::sort_by_key(keys.begin(), keys.end(), ones.begin());
  auto end = thrust::reduce_by_key(keys.begin(), keys.end(), ones.begin(), out_keys.begin(),
                                   out_counts.begin());
  const int groups = int(end.first - out_keys.begin());
  thrust::host_vector<int> hk = out_keys, hc = out_counts;
  ok = groups == distinct;
  for (int g = 0; ok && g < groups; ++g) ok &= hc[g] == count[hk[g]] && (g == 0 || hk[g - 1] < hk[g]);
  expect(ok, "sort_by_key + reduce_by_key");

  int even = 0;
  for (int x : h) even += x % 2 == 0;
  thrust::device_vector<int> evens(n);
  expect(int(thrust::copy_if(d.begin(), d.end(), evens.begin(), is_even()) - evens.begin()) == even,
         "copy_if");
  expect(int(thrust::count_if(d.begin(), d.end(), is_even())) == even, "count_if");
  thrust::device_vector<int> u = keys;
  expect(int(thrust::unique(u.begin(), u.end()) - u.begin()) == distinct, "unique");
  long long sq = 0;
  for (int x : h) sq += (long long)x * x;
  expect(thrust::transform_reduce(d.begin(), d.end(), square(), 0ll, thrust::plus<long long>()) ==
             sq,
         "transform_reduce");

  thrust::device_vector<float> f(n);
  for (int i = 0; i < n; ++i) f[i] = float((i * 31) % 997) * 0.5f;
  thrust::sort(f.begin(), f.end(), thrust::greater<float>());
  thrust::host_vector<float> hf = f;
  ok = true;
  for (int i = 1; i < n; ++i) ok &= hf[i - 1] >= hf[i];
  expect(ok, "sort descending");

  int* dp = thrust::raw_pointer_cast(d.data());
  thrust::device_vector<int> hist(bins);
  void* tmp = nullptr;
  size_t bytes = 0;
  CHECK(cub::DeviceHistogram::HistogramEven(tmp, bytes, dp, thrust::raw_pointer_cast(hist.data()),
                                            bins + 1, 0, 1000, n));
  CHECK(cudaMalloc(&tmp, bytes));
  CHECK(cub::DeviceHistogram::HistogramEven(tmp, bytes, dp, thrust::raw_pointer_cast(hist.data()),
                                            bins + 1, 0, 1000, n));
  CHECK(cudaFree(tmp));
  thrust::host_vector<int> hh = hist;
  ok = true;
  for (int b = 0; b < bins; ++b) {
    int r = 0;
    for (int x : h) r += x / 100 == b;
    ok &= hh[b] == r;
  }
  expect(ok, "cub::DeviceHistogram::HistogramEven");

  thrust::device_vector<int> offsets(bins + 1), sums(bins);
  for (int i = 0; i <= bins; ++i) offsets[i] = i * n / bins;
  int* po = thrust::raw_pointer_cast(offsets.data());
  tmp = nullptr, bytes = 0;
  CHECK(cub::DeviceSegmentedReduce::Sum(tmp, bytes, dp, thrust::raw_pointer_cast(sums.data()), bins,
                                        po, po + 1));
  CHECK(cudaMalloc(&tmp, bytes));
  CHECK(cub::DeviceSegmentedReduce::Sum(tmp, bytes, dp, thrust::raw_pointer_cast(sums.data()), bins,
                                        po, po + 1));
  CHECK(cudaFree(tmp));
  thrust::host_vector<int> hsum = sums;
  ok = true;
  for (int g = 0; g < bins; ++g) {
    long long r = 0;
    for (int i = g * n / bins; i < (g + 1) * n / bins; ++i) r += h[i];
    ok &= hsum[g] == r;
  }
  expect(ok, "cub::DeviceSegmentedReduce::Sum");
  return finish(bad);
}
