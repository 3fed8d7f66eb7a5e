#version 430
// method="compute", the float64 factor's trailing update: C -= A A^T on the tiles on or
// below the diagonal, A the panel's rows below it.  64 x 64 tiles, 4 x 4 doubles a thread:
// gemm.comp's float32 tiling (128 x 128, 8 x 8 a thread) holds 64 doubles a thread and ran
// at 1.3 TFLOP/s in float64.  Each entry's sum is gemm.comp's exactly: fma over k in
// order from zero, then subtracted from C.
layout(local_size_x = 16, local_size_y = 16) in;
// NVIDIA keeps run-time-indexed private doubles in float32 (real.glsl's PRIV): every loop
// with known bounds unrolled, the accumulators four named dvec4s
#pragma optionNV(unroll all)
#define T 64
#define BK 16
// One matrix: the panel's columns (read) lie left of the trailing block (written).
layout(std430, binding = 0) buffer ABuf { double a[]; };
uniform int u_n;        // the trailing block's order
uniform int u_k;        // the panel's width
uniform int u_ld;
uniform int u_aoff;     // the panel at the trailing block's first row
uniform int u_coff;     // the trailing block's corner
#ifdef LISTED
// only the pairs of the panel's tiles that may be nonzero (a tile pattern): workgroup w's
// (ti, tj) index the list tiles[u_list ...] of tile rows, counted from the block's first row
layout(std430, binding = 1) readonly buffer TBuf { int tiles[]; };
uniform int u_list;
#endif
shared double As[BK][T];
shared double Bs[BK][T];

void main() {
    int tx = int(gl_LocalInvocationID.x), ty = int(gl_LocalInvocationID.y);
    int tid = ty * 16 + tx;
    // workgroup w is lower tile (ti, tj), w = ti (ti + 1) / 2 + tj
    int w = int(gl_WorkGroupID.x);
    int ti = int((sqrt(8.0 * float(w) + 1.0) - 1.0) * 0.5);
    while (ti * (ti + 1) / 2 > w) --ti;
    while ((ti + 1) * (ti + 2) / 2 <= w) ++ti;
#ifdef LISTED
    int row0 = tiles[u_list + ti] * T, col0 = tiles[u_list + w - ti * (ti + 1) / 2] * T;
#else
    int row0 = ti * T, col0 = (w - ti * (ti + 1) / 2) * T;
#endif
    dvec4 acc0 = dvec4(0.0lf), acc1 = dvec4(0.0lf), acc2 = dvec4(0.0lf), acc3 = dvec4(0.0lf);
    for (int k0 = 0; k0 < u_k; k0 += BK) {
        for (int l = 0; l < 4; ++l) {                 // 16 threads read one row's 16 doubles
            int e = tid + l * 256;
            int r = e / BK, kk = e % BK, gk = k0 + kk;
            int ga = row0 + r, gb = col0 + r;
            As[kk][r] = (ga < u_n && gk < u_k) ? a[u_aoff + ga * u_ld + gk] : 0.0lf;
            Bs[kk][r] = (gb < u_n && gk < u_k) ? a[u_aoff + gb * u_ld + gk] : 0.0lf;
        }
        barrier();
        for (int kk = 0; kk < BK; ++kk) {
            dvec4 b = dvec4(Bs[kk][tx * 4], Bs[kk][tx * 4 + 1], Bs[kk][tx * 4 + 2], Bs[kk][tx * 4 + 3]);
            acc0 = fma(dvec4(As[kk][ty * 4]), b, acc0);
            acc1 = fma(dvec4(As[kk][ty * 4 + 1]), b, acc1);
            acc2 = fma(dvec4(As[kk][ty * 4 + 2]), b, acc2);
            acc3 = fma(dvec4(As[kk][ty * 4 + 3]), b, acc3);
        }
        barrier();
    }
    for (int r = 0; r < 4; ++r) {
        int i = row0 + ty * 4 + r;
        if (i >= u_n) continue;
        dvec4 s = r == 0 ? acc0 : r == 1 ? acc1 : r == 2 ? acc2 : acc3;
        for (int q = 0; q < 4; ++q) {
            int j = col0 + tx * 4 + q;
            if (j < u_n) {
                int at = u_coff + i * u_ld + j;
                a[at] = a[at] - s[q];
            }
        }
    }
}
