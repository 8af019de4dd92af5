// An interpreter-style kernel: each thread runs a small bytecode program (a switch over opcodes in
// a loop) on a local-memory operand stack indexed dynamically, with a __noinline__ device
// function per arithmetic opcode, a CALL opcode that recurses into a subroutine (own frame and
// locals array), 64-bit and double values in a union, and many small CTAs launched repeatedly.
// Checked against the same interpreter on the host.
#include "check.h"
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#ifdef __CUDACC__
#define HD __host__ __device__
#define NOINLINE __noinline__
#else
#define HD
#define NOINLINE
#endif

enum Op : uint8_t {
  PUSHI,
  PUSHX,
  ADD,
  SUB,
  MUL,
  DIVI,
  FMAD,
  DUP,
  SWAP,
  ROT,
  JNZ,
  DECJ,
  STO,
  LDO,
  CALL,
  RET,
  HASH,
  DCONV,
  DSQRT,
  MINMAX,
  HALT
};
struct Insn {
  uint8_t op;
  int8_t a;
  int16_t imm;
};
#define STACK 40
#define LOCALS 8
#define MAXDEPTH 6

union Val {
  long long i;
  double d;
};

HD NOINLINE long long op_add(long long a, long long b) { return a + b; }
HD NOINLINE long long op_sub(long long a, long long b) { return a - b; }
HD NOINLINE long long op_mul(long long a, long long b) { return (a * b) % 1000003; }
HD NOINLINE long long op_div(long long a, long long b) { return b == 0 ? a : a / b; }
HD NOINLINE long long op_fma(long long a, long long b, long long c, int shift) {
  return ((a * b) >> shift) + c;
}
HD NOINLINE long long op_hash(long long x, int rounds) {
  unsigned long long h = (unsigned long long)x ^ 0x9e3779b97f4a7c15ull;
  for (int r = 0; r < rounds; ++r) {
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
  }
  return (long long)(h & 0xffffff);
}
HD NOINLINE double op_dsqrt(double v) { return sqrt(fabs(v) + 1.0); }
HD NOINLINE void op_minmax(long long* st, int sp) {
  long long a = st[sp - 1], b = st[sp - 2];
  st[sp - 2] = a < b ? a : b;
  st[sp - 1] = a < b ? b : a;
}

// Runs code from pc with its own locals; returns the value on top at RET/HALT.
HD NOINLINE long long run(const Insn* code, int pc, long long x, int depth, long long* steps) {
  long long st[STACK];
  long long loc[LOCALS];
  for (int i = 0; i < LOCALS; ++i) loc[i] = x + i;
  int sp = 0;
  st[sp++] = x;
  for (;;) {
    Insn in = code[pc++];
    ++*steps;
    switch (in.op) {
    case PUSHI:
      st[sp++] = in.imm;
      break;
    case PUSHX:
      st[sp++] = x;
      break;
    case ADD:
      st[sp - 2] = op_add(st[sp - 2], st[sp - 1]);
      --sp;
      break;
    case SUB:
      st[sp - 2] = op_sub(st[sp - 2], st[sp - 1]);
      --sp;
      break;
    case MUL:
      st[sp - 2] = op_mul(st[sp - 2], st[sp - 1]);
      --sp;
      break;
    case DIVI:
      st[sp - 2] = op_div(st[sp - 2], st[sp - 1]);
      --sp;
      break;
    case FMAD:
      st[sp - 3] = op_fma(st[sp - 3], st[sp - 2], st[sp - 1], in.a);
      sp -= 2;
      break;
    case DUP:
      st[sp] = st[sp - 1 - in.a];
      ++sp;
      break;
    case SWAP: {
      long long t = st[sp - 1];
      st[sp - 1] = st[sp - 2];
      st[sp - 2] = t;
    } break;
    case ROT: {
      long long t = st[sp - 3];
      st[sp - 3] = st[sp - 2];
      st[sp - 2] = st[sp - 1];
      st[sp - 1] = t;
    } break;
    case JNZ:
      if (st[--sp] != 0) pc += in.imm;
      break;
    case DECJ:
      if (--loc[in.a] > 0) pc += in.imm;
      break;
    case STO:
      loc[in.a] = st[--sp];
      break;
    case LDO:
      st[sp++] = loc[in.a];
      break;
    case CALL:
      if (depth < MAXDEPTH)
        st[sp - 1] = run(code, in.imm, st[sp - 1], depth + 1, steps);
      else
        st[sp - 1] = op_hash(st[sp - 1], 1);
      break;
    case HASH:
      st[sp - 1] = op_hash(st[sp - 1], in.a);
      break;
    case DCONV: {
      Val v;
      v.d = (double)st[sp - 1] * 0.5;
      st[sp - 1] = v.i;
    } break;
    case DSQRT: {
      Val v;
      v.i = st[sp - 1];
      st[sp - 1] = (long long)(op_dsqrt(v.d) * 1000.0);
    } break;
    case MINMAX:
      op_minmax(st, sp);
      break;
    case RET:
    case HALT:
      return st[sp - 1];
    default:
      return -1;
    }
    if (sp < 1 || sp > STACK - 4) return -2;
  }
}

// Program: main at 0, subroutine at SUB0: loops, calls, hashing, doubles.
#define SUB0 24
static const Insn kProgram[] = {
    {PUSHI, 0, 5},
    {STO, 0, 0}, // loc0 = 5 (loop counter)
    {LDO, 1, 0},
    {CALL, 0, SUB0},
    {ADD, 0, 0}, // 2: acc += sub(loc1)
    {LDO, 0, 0},
    {PUSHI, 0, 3},
    {MUL, 0, 0},
    {ADD, 0, 0},
    {DUP, 0, 0},
    {HASH, 2, 0},
    {SWAP, 0, 0},
    {PUSHI, 0, 7},
    {DIVI, 0, 0},
    {ADD, 0, 0},
    {DECJ, 0, -14}, // 15: back to 2
    {DUP, 0, 0},
    {DCONV, 0, 0},
    {DSQRT, 0, 0},
    {ADD, 0, 0},
    {PUSHX, 0, 0},
    {MINMAX, 0, 0},
    {SUB, 0, 0},
    {HALT, 0, 0},
    // SUB0 (24): f(v) = v > 0 ? fma(v, 3, f(v/2)) : 1
    {DUP, 0, 0},
    {JNZ, 0, 2},
    {PUSHI, 0, 1},
    {RET, 0, 0},
    {DUP, 0, 0},
    {PUSHI, 0, 2},
    {DIVI, 0, 0},
    {CALL, 0, SUB0},
    {DUP, 1, 0},
    {PUSHI, 0, 3},
    {ROT, 0, 0},
    {FMAD, 1, 0},
    {ADD, 0, 0},
    {RET, 0, 0},
};

__global__ void interp(const Insn* code, const long long* in, long long* out, long long* steps,
                       int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  long long s = 0;
  out[t] = run(code, 0, in[t], 0, &s);
  steps[t] = s;
}

__global__ void mix(long long* in, const long long* out, int n, int round) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) in[t] = (out[t] ^ (round * 131 + t)) & 0x3f;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 512;
  int rounds = argc > 2 ? atoi(argv[2]) : 3;
  const int threads = 32;
  int blocks = (n + threads - 1) / threads;
  int ninsn = sizeof(kProgram) / sizeof(Insn);
  Insn* code;
  long long *in, *out, *steps;
  // Seven frames of run() (its stack and locals arrays) exceed CUDA's default 1 KiB a thread.
  CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 8192));
  CHECK(cudaMalloc(&code, sizeof(kProgram)));
  CHECK(cudaMalloc(&in, n * sizeof(long long)));
  CHECK(cudaMalloc(&out, n * sizeof(long long)));
  CHECK(cudaMalloc(&steps, n * sizeof(long long)));
  CHECK(cudaMemcpy(code, kProgram, sizeof(kProgram), cudaMemcpyHostToDevice));
  std::vector<long long> hin(n), hout(n), hsteps(n);
  for (int i = 0; i < n; ++i) hin[i] = (i * 37) % 50;
  CHECK(cudaMemcpy(in, hin.data(), n * sizeof(long long), cudaMemcpyHostToDevice));
  int bad = 0;
  for (int r = 0; r < rounds; ++r) {
    interp<<<blocks, threads>>>(code, in, out, steps, n);
    mix<<<blocks, threads>>>(in, out, n, r);
    CHECK(cudaMemcpy(hout.data(), out, n * sizeof(long long), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hsteps.data(), steps, n * sizeof(long long), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
      long long s = 0;
      long long want = run(kProgram, 0, hin[i], 0, &s);
      if (hout[i] != want || hsteps[i] != s) {
        if (bad < 5)
          printf("round %d thread %d: got %lld (%lld steps) want %lld (%lld steps)\n", r, i,
                 hout[i], hsteps[i], want, s);
        ++bad;
      }
      hin[i] = (want ^ (r * 131 + i)) & 0x3f;
    }
  }
  printf("%d threads, %d rounds, %d instructions, out[1] %lld\n", n, rounds, ninsn, hout[1]);
  return finish(bad);
}
