#version 430
// method="compute": the general product C = beta C + alpha (A diag(d)) B^T -- A D A^T, SYRK
// and GEMM updates, the solves' block updates, the kernel matrix -- on the whole chip.
// Tiling: a workgroup of 16 x 16 threads owns a BM x BN = 128 x 128 tile of C, each
// thread an 8 x 8 register block (rows ty + 16 r, columns tx + 16 c); k runs in steps
// of BK = 16 through shared memory (A's and B's slices, padded against bank conflicts).
// Storage: row-major float32 storage buffers, element (i, j) at off + i * ld + j.
// Defines: TRANS_B (B held as k x n: element (j, k) at k * ldb + j), LOWER (only
// j <= i: tiles above the diagonal return at once), USE_D (A's columns scaled by d),
// DIST2 (sum (a - b)^2 instead of a b: squared distances, no cancellation), KERNEL
// (kernel_value.glsl applied as the tile is stored -- rbf from DIST2's distances --
// plus u_diag on the diagonal).
layout(local_size_x = 16, local_size_y = 16) in;
#define BM 128
#define BN 128
#define BK 16
#define TM 8
#define TN 8
layout(std430, binding = 0) readonly buffer ABuf { float a[]; };
layout(std430, binding = 1) readonly buffer BBuf { float b[]; };
layout(std430, binding = 2) buffer CBuf { float c[]; };
#ifdef USE_D
layout(std430, binding = 3) readonly buffer DBuf { float dv[]; };
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
shared float As[BK][BM + 4];
shared float Bs[BK][BN + 4];

void main() {
    int tx = int(gl_LocalInvocationID.x);
    int ty = int(gl_LocalInvocationID.y);
    int tid = ty * 16 + tx;
    int row0 = int(gl_WorkGroupID.y) * BM;
    int col0 = int(gl_WorkGroupID.x) * BN;
#ifdef LOWER
    if (col0 > row0 + BM - 1) return;      // the whole tile lies above the diagonal
#endif
    float acc[TM][TN];
    for (int r = 0; r < TM; ++r)
        for (int q = 0; q < TN; ++q)
            acc[r][q] = 0.0;
    for (int k0 = 0; k0 < u_k; k0 += BK) {
        for (int l = 0; l < (BM * BK) / 256; ++l) {
            int e = tid + l * 256;
            int r = e / BK, kk = e % BK;
            int gi = row0 + r, gk = k0 + kk;
            float v = 0.0;
            if (gi < u_m && gk < u_k) {
                v = a[u_aoff + gi * u_lda + gk];
#ifdef USE_D
                v *= dv[gk];
#endif
            }
            As[kk][r] = v;
        }
        for (int l = 0; l < (BN * BK) / 256; ++l) {
            int e = tid + l * 256;
#ifdef TRANS_B
            int kk = e / BN, q = e % BN;
            int gj = col0 + q, gk = k0 + kk;
            Bs[kk][q] = (gj < u_n && gk < u_k) ? b[u_boff + gk * u_ldb + gj] : 0.0;
#else
            int q = e / BK, kk = e % BK;
            int gj = col0 + q, gk = k0 + kk;
            Bs[kk][q] = (gj < u_n && gk < u_k) ? b[u_boff + gj * u_ldb + gk] : 0.0;
#endif
        }
        barrier();
        for (int kk = 0; kk < BK; ++kk) {
            float ar[TM];
            float br[TN];
            for (int r = 0; r < TM; ++r) ar[r] = As[kk][ty + 16 * r];
            for (int q = 0; q < TN; ++q) br[q] = Bs[kk][tx + 16 * q];
            for (int r = 0; r < TM; ++r)
                for (int q = 0; q < TN; ++q) {
#ifdef DIST2
                    float t = ar[r] - br[q];
                    acc[r][q] = fma(t, t, acc[r][q]);
#else
                    acc[r][q] = fma(ar[r], br[q], acc[r][q]);
#endif
                }
        }
        barrier();
    }
    for (int r = 0; r < TM; ++r) {
        int i = row0 + ty + 16 * r;
        if (i >= u_m) break;
        for (int q = 0; q < TN; ++q) {
            int j = col0 + tx + 16 * q;
            if (j >= u_n) break;
#ifdef LOWER
            if (j > i) break;
#endif
            int at = u_coff + i * u_ldc + j;
            float v = u_alpha * acc[r][q];
            if (u_beta != 0.0) v += u_beta * c[at];
#ifdef KERNEL
#ifdef DIST2
            v = kernel_value(-0.5 * v, 0.0, 0.0);    // rbf from the squared distance itself
#else
            v = kernel_value(v, 0.0, 0.0);
#endif
            if (i == j) v += u_diag;
#endif
            c[at] = v;
        }
    }
}
