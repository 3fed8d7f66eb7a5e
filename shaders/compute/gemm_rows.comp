#version 430
// method="compute", the float32 product C = beta C + alpha (A diag(d)) B^T with A (m x k) and
// B (n x k) both row-major and every offset and stride a multiple of 4 (blas.gemm picks this
// kernel then; gemm.comp takes the rest: float64, B held k x n, unaligned slices).  Same
// tiling of C as gemm.comp -- a workgroup of 16 x 16 threads a 128 x 128 tile, each thread
// 8 x 8 entries: rows ty + 16 r, columns tx + 16 c -- but the slices of A and B are kept in
// shared memory as they lie in global memory, rows of BK = 16 floats (four vec4s and one of
// padding: the column reads are then free of bank conflicts), so a thread stores whole vec4s
// and reads four k at once.  Global loads are unmasked: rows past the matrix read its last
// row (their sums land where nothing is stored) and the sum's tail past the last full slice
// of 16 takes one masked slice at the end.  Measured against gemm.comp on the H100: masked
// loads inside the slice loop cost as much as the rest of the kernel (RESULTS.md).
// Defines as gemm.comp's: LOWER, USE_D, DIST2, KERNEL.
#pragma optionNV(unroll all)
layout(local_size_x = 16, local_size_y = 16) in;
#define BM 128
#define BN 128
#define BK 16
#define Q4 (BK / 4)
#define LDS (Q4 + 1)
layout(std430, binding = 0) readonly buffer ABuf { vec4 a4[]; };
layout(std430, binding = 1) readonly buffer BBuf { vec4 b4[]; };
layout(std430, binding = 2) buffer CBuf { float c_[]; };
#ifdef USE_D
// d four at a time in the full slices; one at a time in the tail (d may end at u_k)
layout(std430, binding = 3) readonly buffer DBuf { vec4 d4[]; };
layout(std430, binding = 3) readonly buffer DBufOne { float dv[]; };
#endif
uniform int u_m;
uniform int u_n;
uniform int u_k;
uniform int u_full;     // u_k less u_k % BK: the slices with no k past u_k (a uniform: the loop
                        // bounded by one computed here ran a quarter slower on the H100)
uniform int u_lda;
uniform int u_ldb;
uniform int u_ldc;
uniform int u_aoff;
uniform int u_boff;
uniform int u_coff;
uniform float u_alpha;
uniform float u_beta;
#ifdef KERNEL
#include "kernel_value.glsl"
#endif
shared vec4 As[BM * LDS];
shared vec4 Bs[BN * LDS];

// the slice's vec4 e (of BM x Q4) of A: row e / Q4 of the tile (clamped into the matrix),
// k = k0 + 4 (e % Q4); `masked`: the k past u_k read as zero (the tail slice only)
vec4 load_a(int row0, int e, int k0, bool masked) {
    int i = min(row0 + e / Q4, u_m - 1), gk = k0 + 4 * (e % Q4);
    if (masked && gk >= u_k) return vec4(0.0);
    vec4 v = a4[(u_aoff + i * u_lda + gk) >> 2];
    if (masked) {
        v = vec4(v.x, gk + 1 < u_k ? v.y : 0.0, gk + 2 < u_k ? v.z : 0.0, gk + 3 < u_k ? v.w : 0.0);
#ifdef USE_D
        v *= vec4(dv[gk], gk + 1 < u_k ? dv[gk + 1] : 0.0, gk + 2 < u_k ? dv[gk + 2] : 0.0,
                  gk + 3 < u_k ? dv[gk + 3] : 0.0);
#endif
        return v;
    }
#ifdef USE_D
    v *= d4[gk >> 2];
#endif
    return v;
}

vec4 load_b(int col0, int e, int k0, bool masked) {
    int j = min(col0 + e / Q4, u_n - 1), gk = k0 + 4 * (e % Q4);
    if (masked && gk >= u_k) return vec4(0.0);
    vec4 v = b4[(u_boff + j * u_ldb + gk) >> 2];
    if (masked)
        v = vec4(v.x, gk + 1 < u_k ? v.y : 0.0, gk + 2 < u_k ? v.z : 0.0, gk + 3 < u_k ? v.w : 0.0);
    return v;
}

float acc[64];                 // acc[8 r + c]: row ty + 16 r, column tx + 16 c

void multiply(int tx, int ty) {
    for (int q = 0; q < Q4; ++q) {
        vec4 a[8];
        for (int r = 0; r < 8; ++r) a[r] = As[(ty + 16 * r) * LDS + q];
        for (int c = 0; c < 8; ++c) {
            vec4 b = Bs[(tx + 16 * c) * LDS + q];
            for (int r = 0; r < 8; ++r) {
                float s = acc[r * 8 + c];
#ifdef DIST2
                vec4 t = a[r] - b;
                s = fma(t.x, t.x, s); s = fma(t.y, t.y, s); s = fma(t.z, t.z, s); s = fma(t.w, t.w, s);
#else
                s = fma(a[r].x, b.x, s); s = fma(a[r].y, b.y, s); s = fma(a[r].z, b.z, s); s = fma(a[r].w, b.w, s);
#endif
                acc[r * 8 + c] = s;
            }
        }
    }
}

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
    // C += alpha A B^T with alpha = +-1 (every update of a factor): the sums start from
    // alpha C, read here beside the first slice's loads; alpha (alpha C + sum) = C + alpha sum.
    // The reads are unmasked (rows and columns past the block read its last ones): a read
    // under a per-entry condition waits for the one before it
    bool start_at_c = u_beta == 1.0 && abs(u_alpha) == 1.0;
    if (start_at_c) {
        for (int r = 0; r < 8; ++r) {
            int i = min(row0 + ty + 16 * r, u_m - 1);
            for (int c = 0; c < 8; ++c)
                acc[r * 8 + c] = u_alpha * c_[u_coff + i * u_ldc + min(col0 + tx + 16 * c, u_n - 1)];
        }
    } else {
        for (int e = 0; e < 64; ++e) acc[e] = 0.0;
    }
    vec4 ra[2], rb[2];                          // a thread's two vec4s of each slice
    if (u_full > 0) {
        for (int l = 0; l < 2; ++l) {
            ra[l] = load_a(row0, tid + 256 * l, 0, false);
            rb[l] = load_b(col0, tid + 256 * l, 0, false);
        }
    }
    for (int k0 = 0; k0 < u_full; k0 += BK) {
        for (int l = 0; l < 2; ++l) {
            int e = tid + 256 * l;
            As[(e / Q4) * LDS + e % Q4] = ra[l];
            Bs[(e / Q4) * LDS + e % Q4] = rb[l];
        }
        barrier();
        if (k0 + BK < u_full) {                 // the next slice in flight while this one is used
            for (int l = 0; l < 2; ++l) {
                ra[l] = load_a(row0, tid + 256 * l, k0 + BK, false);
                rb[l] = load_b(col0, tid + 256 * l, k0 + BK, false);
            }
        }
        multiply(tx, ty);
        barrier();
    }
    if (u_full < u_k) {                           // the tail: one masked slice
        for (int l = 0; l < 2; ++l) {
            int e = tid + 256 * l;
            As[(e / Q4) * LDS + e % Q4] = load_a(row0, e, u_full, true);
            Bs[(e / Q4) * LDS + e % Q4] = load_b(col0, e, u_full, true);
        }
        barrier();
        multiply(tx, ty);
    }
    for (int r = 0; r < 8; ++r) {
        int i = row0 + ty + 16 * r;
        for (int c = 0; c < 8; ++c) {
            int j = col0 + tx + 16 * c;
            if (i < u_m && j < u_n) {
                int at = u_coff + i * u_ldc + j;
                float v = u_alpha * acc[r * 8 + c];
                if (u_beta != 0.0 && !start_at_c) v += u_beta * c_[at];
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
}
