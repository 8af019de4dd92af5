// Texture and surface objects as nvcc -arch=sm_75 -ptx -O3 compiles them (ptx_texture.ptx):
// the forms gpurf supports (tests/unit/ptx_texture_test.cpp).
extern "C" __global__ void fetch1d(cudaTextureObject_t t, float* o, int lo) {
  int i = threadIdx.x;
  o[i] = tex1Dfetch<float>(t, i + lo);
}
extern "C" __global__ void sample2d(cudaTextureObject_t t, const float* x, const float* y, float4* o) {
  int i = threadIdx.x;
  o[i] = tex2D<float4>(t, x[i], y[i]);
}
extern "C" __global__ void sample2d_int(cudaTextureObject_t t, const float* x, const float* y, int* o,
                             unsigned* u) {
  int i = threadIdx.x;
  o[i] = tex2D<int>(t, x[i], y[i]);
  u[i] = tex2D<unsigned>(t, x[i], y[i]);
}
extern "C" __global__ void sample1d(cudaTextureObject_t t, const float* x, float* o) {
  int i = threadIdx.x;
  o[i] = tex1D<float>(t, x[i]);
}
extern "C" __global__ void sample3d(cudaTextureObject_t t, const float* x, const float* y, const float* z,
                         float* o) {
  int i = threadIdx.x;
  o[i] = tex3D<float>(t, x[i], y[i], z[i]);
}
extern "C" __global__ void gather(cudaTextureObject_t t, const float* x, const float* y, float4* o) {
  int i = threadIdx.x;
  o[2 * i] = tex2Dgather<float4>(t, x[i], y[i], 0);
  o[2 * i + 1] = tex2Dgather<float4>(t, x[i], y[i], 2);
}
extern "C" __global__ void surfaces(cudaSurfaceObject_t s, cudaSurfaceObject_t d, int dx) {
  int i = threadIdx.x;
  float v;
  surf2Dread(&v, s, i * 4, 1);
  surf2Dwrite(v * 2, d, (i + dx) * 4, 1);
}
extern "C" __global__ void surfaces_modes(cudaSurfaceObject_t s, cudaSurfaceObject_t d, int dx) {
  int i = threadIdx.x;
  uchar4 c;
  surf2Dread(&c, s, (i + dx) * 4, 0, cudaBoundaryModeClamp);
  surf2Dwrite(c, d, i * 4, 0);
  float4 f;
  surf2Dread(&f, s, (i + dx) * 16, 1, cudaBoundaryModeZero);
  surf2Dwrite(f, d, i * 16, 1);
}
extern "C" __global__ void surfaces_1d3d(cudaSurfaceObject_t s, cudaSurfaceObject_t d) {
  int i = threadIdx.x;
  short q;
  surf1Dread(&q, s, i * 2);
  surf1Dwrite(short(q + 1), d, i * 2);
  float z;
  surf3Dread(&z, s, i * 4, 1, 1);
  surf3Dwrite(z + 1, d, i * 4, 0, 1);
}
