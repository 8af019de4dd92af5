// heat2d: one explicit time step of the 2D heat equation (5-point Laplacian) on an nx x ny grid
// with insulated (clamped) borders:
//   out[y][x] = c + alpha * (N + S + W + E - 4c)
// Exercises: a shared-memory tile with a one-cell halo (34 x 34 for a 32 x 32 output tile),
// divergent halo loads, bar.sync, and a loop of 4 output rows per thread.
// Launch: grid (ceil(nx/32), ceil(ny/32)), block (32, 8).
#define BX 32
#define BY 8
#define TILE_H 32

extern "C" __global__ void heat2d(const float* __restrict__ tin, float* __restrict__ tout, int nx,
                                  int ny, float alpha) {
  __shared__ float s[TILE_H + 2][BX + 2];
  const int x0 = blockIdx.x * BX, y0 = blockIdx.y * TILE_H;
  for (int r = threadIdx.y; r < TILE_H + 2; r += BY) {
    for (int c = threadIdx.x; c < BX + 2; c += BX) {
      const int gx = min(max(x0 + c - 1, 0), nx - 1);
      const int gy = min(max(y0 + r - 1, 0), ny - 1);
      s[r][c] = tin[gy * nx + gx];
    }
  }
  __syncthreads();
  const int c = threadIdx.x + 1;
  const int gx = x0 + c - 1;
  for (int r = threadIdx.y + 1; r <= TILE_H; r += BY) {
    const int gy = y0 + r - 1;
    if (gx < nx && gy < ny) {
      const float center = s[r][c];
      const float lap = s[r - 1][c] + s[r + 1][c] + s[r][c - 1] + s[r][c + 1] - 4.0f * center;
      tout[gy * nx + gx] = center + alpha * lap;
    }
  }
}
