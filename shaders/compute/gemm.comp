#version 430
// method="compute": the general product C = beta C + alpha (A diag(d)) B^T -- A D A^T, SYRK
// and GEMM updates, the solves' block updates, the kernel matrix -- on the whole chip.
// Tiling: a workgroup of 16 x 16 threads owns a BM x BN = 128 x 128 tile of C, each
// thread an 8 x 8 register block (rows ty*4.. and 64 + ty*4.., columns likewise by tx,
// so the shared-memory reads are vec4s without bank conflicts); k runs in steps of
// BK = 16 through shared memory.
// Storage: row-major storage buffers of float32 (FP64: float64, real.glsl), element
// (i, j) at off + i * ld + j.
// Defines: TRANS_B (B held as k x n: element (j, k) at k * ldb + j), LOWER (only the
// tiles on or below the diagonal are dispatched; the diagonal tiles' upper parts are
// written too -- every caller zeroes or ignores them: a branch that skipped them made
// the kernel 9x slower on the H100), USE_D (A's columns scaled by d),
// VEC4 (global loads four floats wide: the host sets it where offsets and strides
// allow), DIST2 (sum (a - b)^2 instead of a b: squared distances, no cancellation), KERNEL
// (kernel_value.glsl applied as the tile is stored -- rbf from DIST2's distances --
// plus u_diag on the diagonal).
layout(local_size_x = 16, local_size_y = 16) in;
#include "real.glsl"
#ifdef FP64
// NVIDIA keeps a private array of doubles that a loop indexes without being unrolled (the
// accumulators) in float32 (real.glsl's PRIV): every loop with known bounds unrolled
#pragma optionNV(unroll all)
#endif
#define BM 128
#define BN 128
#define BK 16
#ifdef VEC4
// the same buffers read four floats at a time (offsets and row strides multiples of 4)
layout(std430, binding = 0) readonly buffer ABuf { real4 a4[]; };
layout(std430, binding = 1) readonly buffer BBuf { real4 b4[]; };
#else
layout(std430, binding = 0) readonly buffer ABuf { real a[]; };
layout(std430, binding = 1) readonly buffer BBuf { real b[]; };
#endif
layout(std430, binding = 2) buffer CBuf { real c_[]; };
#ifdef USE_D
layout(std430, binding = 3) readonly buffer DBuf { real dv[]; };
#endif
uniform int u_m;        // rows of C
uniform int u_n;        // columns of C
uniform int u_k;        // the sum's length
uniform int u_lda;
uniform int u_ldb;
uniform int u_ldc;
uniform int u_aoff;
uniform int u_boff;
uniform int u_coff;
uniform float u_alpha;
uniform float u_beta;   // 0: C is not read
#ifdef KERNEL
#include "kernel_value.glsl"
#endif
// A's and B's slices, k-major: thread (tx, ty) reads rows ty*4 .. +3 and 64 + ty*4 .. +3,
// columns tx*4 .. +3 and 64 + tx*4 .. +3 as four vec4 loads per k (16 multiply-adds each)
shared real4 As[BK][BM / 4];
shared real4 Bs[BK][BN / 4];

#ifdef VEC4
// one k-slice of A and B: two vec4 of each per thread, loaded from global memory into
// registers while the previous slice is multiplied (then stored to shared memory)
real4 masked(real4 v, int first, int limit) {
    return real4(first < limit ? v.x : real(0.0), first + 1 < limit ? v.y : real(0.0),
                first + 2 < limit ? v.z : real(0.0), first + 3 < limit ? v.w : real(0.0));
}

void load_slice(int k0, int tid, int row0, int col0, out real4 ra[2], out real4 rb[2]) {
    for (int l = 0; l < 2; ++l) {
        int e = tid + l * 256;
        int r = e >> 2, gk = k0 + 4 * (e & 3);
        int gi = row0 + r;
        real4 v = real4(0.0);
        if (gi < u_m && gk < u_k) {
            v = masked(a4[(u_aoff + gi * u_lda + gk) >> 2], gk, u_k);
#ifdef USE_D
            v *= real4(dv[gk], gk + 1 < u_k ? dv[gk + 1] : real(0.0), gk + 2 < u_k ? dv[gk + 2] : real(0.0),
                      gk + 3 < u_k ? dv[gk + 3] : real(0.0));
#endif
        }
        ra[l] = v;
#ifdef TRANS_B
        int kk = e >> 5, gj = col0 + 4 * (e & 31), gk2 = k0 + kk;
        rb[l] = (gj < u_n && gk2 < u_k) ? masked(b4[(u_boff + gk2 * u_ldb + gj) >> 2], gj, u_n) : real4(0.0);
#else
        int gj = col0 + r;
        rb[l] = (gj < u_n && gk < u_k) ? masked(b4[(u_boff + gj * u_ldb + gk) >> 2], gk, u_k) : real4(0.0);
#endif
    }
}

void store_slice(int tid, real4 ra[2], real4 rb[2]) {
    for (int l = 0; l < 2; ++l) {
        int e = tid + l * 256;
        int r = e >> 2, kk = 4 * (e & 3);
        for (int c = 0; c < 4; ++c) SET4(As[kk + c][r >> 2], r & 3, ra[l][c]);
#ifdef TRANS_B
        Bs[e >> 5][e & 31] = rb[l];
#else
        for (int c = 0; c < 4; ++c) SET4(Bs[kk + c][r >> 2], r & 3, rb[l][c]);
#endif
    }
}
#define SLICE real4 ra[2], rb[2]
#else
// one k-slice of A and B: 8 entries of each per thread, loaded from global memory into
// registers while the previous slice is multiplied (then stored to shared memory)
void load_slice(int k0, int tid, int row0, int col0, out real ra[8], out real rb[8]) {
    for (int l = 0; l < 8; ++l) {
        int e = tid + l * 256;
        int r = e / BK, kk = e % BK;
        int gi = row0 + r, gk = k0 + kk;
        real v = 0.0;
        if (gi < u_m && gk < u_k) {
            v = a[u_aoff + gi * u_lda + gk];
#ifdef USE_D
            v *= dv[gk];
#endif
        }
        ra[l] = v;
#ifdef TRANS_B
        int kk2 = e / BN, q = e % BN;
        int gj = col0 + q, gk2 = k0 + kk2;
        rb[l] = (gj < u_n && gk2 < u_k) ? b[u_boff + gk2 * u_ldb + gj] : real(0.0);
#else
        int gj = col0 + r;
        rb[l] = (gj < u_n && gk < u_k) ? b[u_boff + gj * u_ldb + gk] : real(0.0);
#endif
    }
}

void store_slice(int tid, real ra[8], real rb[8]) {
    for (int l = 0; l < 8; ++l) {
        int e = tid + l * 256;
        int r = e / BK, kk = e % BK;
        SET4(As[kk][r >> 2], r & 3, ra[l]);
#ifdef TRANS_B
        int kk2 = e / BN, q = e % BN;
        SET4(Bs[kk2][q >> 2], q & 3, rb[l]);
#else
        SET4(Bs[kk][r >> 2], r & 3, rb[l]);
#endif
    }
}

#define SLICE real ra[8], rb[8]
#endif

void main() {
    int tx = int(gl_LocalInvocationID.x);
    int ty = int(gl_LocalInvocationID.y);
    int tid = ty * 16 + tx;
#ifdef LOWER
    // only the tiles on or below the diagonal are dispatched: workgroup w is lower tile
    // (ti, tj), w = ti (ti + 1) / 2 + tj
    int w = int(gl_WorkGroupID.x);
    int ti = int((sqrt(8.0 * float(w) + 1.0) - 1.0) * 0.5);
    while (ti * (ti + 1) / 2 > w) --ti;
    while ((ti + 1) * (ti + 2) / 2 <= w) ++ti;
    int row0 = ti * BM;
    int col0 = (w - ti * (ti + 1) / 2) * BN;
#else
    int row0 = int(gl_WorkGroupID.y) * BM;
    int col0 = int(gl_WorkGroupID.x) * BN;
#endif
    real4 acc[16];                          // acc[2 * r + h]: row r of the thread's 8, columns h*64 + tx*4 ..
    // C += alpha A B^T with alpha = +-1: the sums start from alpha C (gemm_rows.comp's reason);
    // float64 keeps sums from zero, as syrk64.comp's (the float64 factor's bits)
#ifdef FP64
    bool start_at_c = false;
#else
    bool start_at_c = u_beta == 1.0 && abs(u_alpha) == 1.0;
#endif
    for (int q = 0; q < 16; ++q) acc[q] = real4(0.0);
    if (start_at_c) {
        for (int r = 0; r < 8; ++r) {
            int i = min(row0 + (r < 4 ? ty * 4 + r : 64 + ty * 4 + r - 4), u_m - 1);
            for (int h = 0; h < 2; ++h)
                for (int c = 0; c < 4; ++c)
                    acc[2 * r + h][c] = real(u_alpha) * c_[u_coff + i * u_ldc + min(col0 + h * 64 + tx * 4 + c, u_n - 1)];
        }
    }
    SLICE;
    load_slice(0, tid, row0, col0, ra, rb);
    for (int k0 = 0; k0 < u_k; k0 += BK) {
        store_slice(tid, ra, rb);
        barrier();
        if (k0 + BK < u_k) load_slice(k0 + BK, tid, row0, col0, ra, rb);
        for (int kk = 0; kk < BK; ++kk) {
            real4 a0 = As[kk][ty], a1 = As[kk][16 + ty];
            real4 b0 = Bs[kk][tx], b1 = Bs[kk][16 + tx];
            real ar[8] = real[8](a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w);
            for (int r = 0; r < 8; ++r) {
#ifdef DIST2
                real4 d0 = real4(ar[r]) - b0, d1 = real4(ar[r]) - b1;
                acc[2 * r] = fma(d0, d0, acc[2 * r]);
                acc[2 * r + 1] = fma(d1, d1, acc[2 * r + 1]);
#else
                acc[2 * r] = fma(real4(ar[r]), b0, acc[2 * r]);
                acc[2 * r + 1] = fma(real4(ar[r]), b1, acc[2 * r + 1]);
#endif
            }
        }
        barrier();
    }
    for (int r = 0; r < 8; ++r) {
        int i = row0 + (r < 4 ? ty * 4 + r : 64 + ty * 4 + r - 4);
        if (i >= u_m) continue;
        for (int h = 0; h < 2; ++h)
            for (int c = 0; c < 4; ++c) {
                int j = col0 + h * 64 + tx * 4 + c;
                if (j >= u_n) continue;
                int at = u_coff + i * u_ldc + j;
                real s = acc[2 * r + h][c];
                real v = real(u_alpha) * s;
                if (u_beta != 0.0 && !start_at_c) v += real(u_beta) * c_[at];
#ifdef KERNEL
#ifdef DIST2
                v = kernel_value(-0.5 * v, 0.0, 0.0);    // rbf from the squared distance itself
#else
                v = kernel_value(v, 0.0, 0.0);
#endif
                if (i == j) v += u_diag;
#endif
                c_[at] = v;
            }
    }
}
