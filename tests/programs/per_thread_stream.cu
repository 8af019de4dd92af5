// A program built with `nvcc --default-stream per-thread` (tests/cli/programs.sh NVCC_FLAGS):
// every runtime call is then its `_ptds` / `_ptsz` form, and stream 0 is the calling thread's
// default stream: synchronous and asynchronous copies and memsets, symbols, pitched 2D and 3D
// memory (cudaMalloc3D, cudaMemset3D, cudaMemcpy3D), events and queries on stream 0, and a
// capture of stream 0 (which the per-thread stream allows, unlike the legacy stream) replayed.
#include "check.h"
#include <cuda_runtime.h>
#include <vector>

__constant__ int offset_table[4];

__global__ void add_table(int* v, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += offset_table[i % 4];
}

// Each element of the (x, y, z) box gets x + 10 y + 100 z added; bytes per row: pitch.
__global__ void fill_box(cudaPitchedPtr p, int w, int h, int d) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
  if (x >= w || y >= h || z >= d) return;
  int* row = (int*)((char*)p.ptr + (z * p.ysize + y) * p.pitch);
  row[x] += x + 10 * y + 100 * z;
}

int main() {
  int bad = 0;
  const int n = 1000;
  std::vector<int> h(n), got(n);
  for (int i = 0; i < n; ++i) h[i] = i;
  int* d;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMemset(d, 0, n * sizeof(int)));
  CHECK(cudaMemcpy(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  const int table[4] = {5, 6, 7, 8};
  CHECK(cudaMemcpyToSymbol(offset_table, table, sizeof table));
  CHECK(
      cudaMemcpyToSymbolAsync(offset_table, table + 1, sizeof(int), 0, cudaMemcpyHostToDevice, 0));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  CHECK(cudaEventRecord(a, 0));
  add_table<<<(n + 127) / 128, 128>>>(d, n);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(b, 0));
  CHECK(cudaStreamWaitEvent(0, b, 0));
  CHECK(cudaMemcpyAsync(got.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost, 0));
  CHECK(cudaStreamSynchronize(0));
  CHECK(cudaStreamQuery(0));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, a, b));
  const int want_table[4] = {6, 6, 7, 8};
  for (int i = 0; i < n; ++i)
    if (got[i] != i + want_table[i % 4] && bad++ < 5) std::printf("v[%d] = %d\n", i, got[i]);
  if (!(ms > 0) && bad++ < 5) std::printf("elapsed %g ms\n", ms);
  int back[4];
  CHECK(cudaMemcpyFromSymbol(back, offset_table, sizeof back));
  if (back[0] != 6 || back[3] != 8) bad++;
  unsigned flags = 99;
  CHECK(cudaStreamGetFlags(0, &flags));
  if (flags != 0 && bad++ < 5) std::printf("stream 0 flags %u\n", flags);

  // Pitched 3D memory.
  const int w = 40, hh = 6, dd = 5;
  cudaPitchedPtr p;
  CHECK(cudaMalloc3D(&p, make_cudaExtent(w * sizeof(int), hh, dd)));
  if (p.pitch < w * sizeof(int) || p.xsize != w * sizeof(int) || p.ysize != hh) bad++;
  CHECK(cudaMemset3D(p, 0, make_cudaExtent(w * sizeof(int), hh, dd)));
  CHECK(cudaMemset3DAsync(p, 1, make_cudaExtent(2 * sizeof(int), hh, dd), 0)); // 0x01010101
  fill_box<<<dim3((w + 31) / 32, hh, dd), 32>>>(p, w, hh, dd);
  std::vector<int> box(w * hh * dd);
  cudaMemcpy3DParms c = {};
  c.srcPtr = p;
  c.dstPtr = make_cudaPitchedPtr(box.data(), w * sizeof(int), w, hh);
  c.extent = make_cudaExtent(w * sizeof(int), hh, dd);
  c.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&c));
  for (int z = 0; z < dd; ++z)
    for (int y = 0; y < hh; ++y)
      for (int x = 0; x < w; ++x) {
        const int want = x + 10 * y + 100 * z + (x < 2 ? 0x01010101 : 0);
        if (box[(z * hh + y) * w + x] != want && bad++ < 5)
          std::printf("box (%d, %d, %d) = %d, expected %d\n", x, y, z, box[(z * hh + y) * w + x],
                      want);
      }

  // 2D copies of a pitched image.
  int* img;
  size_t pitch;
  CHECK(cudaMallocPitch(&img, &pitch, 30 * sizeof(int), 7));
  CHECK(cudaMemset2D(img, pitch, 0, 30 * sizeof(int), 7));
  std::vector<int> rows(30 * 7), rows_back(30 * 7);
  for (int i = 0; i < 30 * 7; ++i) rows[i] = 3 * i;
  CHECK(cudaMemcpy2DAsync(img, pitch, rows.data(), 30 * sizeof(int), 30 * sizeof(int), 7,
                          cudaMemcpyHostToDevice, 0));
  CHECK(cudaMemcpy2D(rows_back.data(), 30 * sizeof(int), img, pitch, 30 * sizeof(int), 7,
                     cudaMemcpyDeviceToHost));
  if (rows_back != rows && bad++ < 5) std::printf("2D copy differs\n");

  // A capture of stream 0 (the per-thread default stream), replayed three times.
  cudaGraph_t g;
  cudaGraphExec_t ge;
  CHECK(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus status;
  CHECK(cudaStreamIsCapturing(0, &status));
  if (status != cudaStreamCaptureStatusActive) bad++;
  CHECK(cudaMemsetAsync(d, 0, sizeof(int), 0));
  add_table<<<(n + 127) / 128, 128>>>(d, n);
  CHECK(cudaStreamEndCapture(0, &g));
  CHECK(cudaGraphInstantiate(&ge, g, 0));
  for (int r = 0; r < 3; ++r) CHECK(cudaGraphLaunch(ge, 0));
  CHECK(cudaStreamSynchronize(0));
  CHECK(cudaMemcpy(got.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    const int want = i == 0 ? want_table[0] : i + 4 * want_table[i % 4]; // d[0] reset each time
    if (got[i] != want && bad++ < 5)
      std::printf("after the graph v[%d] = %d, expected %d\n", i, got[i], want);
  }
  CHECK(cudaGraphExecDestroy(ge));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaFree(p.ptr));
  return finish(bad);
}
