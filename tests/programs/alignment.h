// Shared by alignment.cu and alignment_lib.cu (built with -rdc=true: the scoring lives in the
// library unit, the kernels call it across units).
#pragma once
constexpr int ALPHABET = 24, GAP = 10, TILE = 16;
extern __constant__ int substitution[ALPHABET * ALPHABET];
__device__ int cell_score(int diagonal, int up, int left, int a, int b);
