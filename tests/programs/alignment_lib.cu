// The scoring of alignment.cu, in a separate unit: a substitution table in constant memory and the
// cell recurrence, called from the other unit's kernels.
#include "alignment.h"

__constant__ int substitution[ALPHABET * ALPHABET];

__device__ int cell_score(int diagonal, int up, int left, int a, int b) {
  int match = diagonal + substitution[a * ALPHABET + b];
  return max(match, max(up - GAP, left - GAP));
}
