// The body of blocked_adat.frag, shared with blocked_kernel_matrix.frag (see there).
#ifndef BR
#define BR 8
#endif
#ifndef BC
#define BC 8
#endif
layout(rgba32f, binding = 0) uniform image2D C;   // ceil(m/4) x m
uniform sampler2D A;    // ceil(n/4) x m (zero padded)
uniform sampler2D AD;   // A D^2 in the same layout (blocked_scale.frag)
uniform int u_k0;
uniform int u_k1;
uniform int u_m;
uniform int u_first;    // 1: start from zero instead of loading C
#ifdef PACKED
// The rectangular packed format at block granularity: the two triangles of
// Fig. 4 are drawn on the packed grid of BR x BC blocks, and their attached
// coordinates tell each fragment which block of C it computes (T0.y = block row,
// T1.x = block column), exactly as Kernel 2's fragments learn their element.
noperspective in vec3 t0;
noperspective in vec3 t1;
#endif
#if defined(BUFFER_LOADS) || defined(A_FROM_BUFFER) || defined(AD_FROM_BUFFER) || defined(ROWS_FROM_BUFFER)
// The same A and A D, read through storage buffers (the load/store path) instead
// of the texture units; BUFFER_LOADS reads both that way, A_FROM_BUFFER /
// AD_FROM_BUFFER one side each (texture and load/store pipes side by side).
uniform int u_n4;
layout(std430, binding = 1) readonly buffer ABuf { vec4 a_buf[]; };
layout(std430, binding = 2) readonly buffer ADBuf { vec4 ad_buf[]; };
#endif
#if defined(BUFFER_LOADS) || defined(A_FROM_BUFFER)
#define FETCH_A(k, i) a_buf[(i) * u_n4 + (k)]
#else
#define FETCH_A(k, i) texelFetch(A, ivec2(k, i), 0)
#endif
#if defined(BUFFER_LOADS) || defined(AD_FROM_BUFFER)
#define FETCH_AD(k, i) ad_buf[(i) * u_n4 + (k)]
#else
#define FETCH_AD(k, i) texelFetch(AD, ivec2(k, i), 0)
#endif
// Splitting one side between the two load pipes (an experiment, benchmarks/gemm_variants.py):
// the texture units deliver ~21 G RGBA texels/s on the H100, the load/store path ~16 G vec4/s
// (benchmarks/fetch_kinds.py), so 8 + 8 loads per step wait on the load/store path.
// ROWS_FROM_BUFFER = N: the first N row texels from the buffer; COLS_FROM_TEXTURE = N: the
// first N column texels through the texture units.  The same numbers: the same bits.
#ifdef ROWS_FROM_BUFFER
#define FETCH_ROW(k, r) ((r) < ROWS_FROM_BUFFER ? ad_buf[rows[r] * u_n4 + (k)] : FETCH_AD(k, rows[r]))
#else
#define FETCH_ROW(k, r) FETCH_AD(k, rows[r])
#endif
#ifdef COLS_FROM_TEXTURE
#define FETCH_COL(k, c) ((c) < COLS_FROM_TEXTURE ? texelFetch(A, ivec2(k, cols[c]), 0) : FETCH_A(k, cols[c]))
#else
#define FETCH_COL(k, c) FETCH_A(k, cols[c])
#endif

void main() {
#ifdef PACKED
    int r0 = int(t0.y) * BR;                      // the block of C this fragment computes
    int c0 = int(t1.x) * BC;
    int s0 = int(gl_FragCoord.y) * BR;            // where it is stored (packed)
    int sc = int(gl_FragCoord.x) * (BC / 4);
#else
    int r0 = int(gl_FragCoord.y) * BR;
    int c0 = int(gl_FragCoord.x) * BC;
    int s0 = r0;
    int sc = c0 / 4;
#endif
    vec4 acc[BR][BC / 4];
    for (int r = 0; r < BR; ++r)
        for (int q = 0; q < BC / 4; ++q)
            acc[r][q] = (u_first == 1 || r0 + r >= u_m) ? vec4(0.0) : imageLoad(C, ivec2(sc + q, s0 + r));
#ifndef KUNROLL
#define KUNROLL 1
#endif
#if defined(QUAD_ROWS) || defined(QUAD_COLS)
    // where this fragment sits in its 2 x 2 quad (not with PACKED: there storage
    // neighbours need not share rows or columns)
    int qx = int(gl_FragCoord.x) & 1;
    int qy = int(gl_FragCoord.y) & 1;
#endif
    int rows[BR];
    int cols[BC];
    for (int r = 0; r < BR; ++r) rows[r] = min(r0 + r, u_m - 1);
    for (int c = 0; c < BC; ++c) cols[c] = min(c0 + c, u_m - 1);
    for (int k0 = u_k0; k0 < u_k1; k0 += KUNROLL) {
      for (int u = 0; u < KUNROLL; ++u) {
        int k = k0 + u;
#ifdef HOLD_ROWS
        // variant: hold the BR row-side texels, stream the column side
        vec4 a[BR];
        for (int r = 0; r < BR; ++r)
            a[r] = FETCH_AD(k, rows[r]);
        for (int c = 0; c < BC; ++c) {
            vec4 b = FETCH_A(k, cols[c]);
            for (int r = 0; r < BR; ++r)
                acc[r][c >> 2][c & 3] += dot(a[r], b);
        }
#else
        // hold the BC column-side texels, stream the BR row-side ones: fewer
        // live registers, so taller tiles (more multiply-adds per fetch) fit
        vec4 b[BC];
#ifdef QUAD_COLS
        // the quad's vertical neighbour owns the same columns: each fetches half
        // and they swap (one fetch where two were), the same numbers in b
        for (int c = 0; c < BC / 2; ++c) {
            vec4 mine = FETCH_A(k, min(c0 + c + qy * (BC / 2), u_m - 1));
            vec4 other = subgroupQuadSwapVertical(mine);
            b[c] = qy == 0 ? mine : other;
            b[c + BC / 2] = qy == 0 ? other : mine;
        }
#else
        for (int c = 0; c < BC; ++c)
            b[c] = FETCH_COL(k, c);
#endif
#ifdef QUAD_ROWS
        // the horizontal neighbour owns the same rows: half the row fetches each,
        // swapped; every accumulator gets the same dot products in the same order
        for (int r = 0; r < BR / 2; ++r) {
            vec4 mine = FETCH_AD(k, min(r0 + r + qx * (BR / 2), u_m - 1));
            vec4 other = subgroupQuadSwapHorizontal(mine);
            vec4 lo = qx == 0 ? mine : other;
            vec4 hi = qx == 0 ? other : mine;
            for (int c = 0; c < BC; ++c)
                acc[r][c >> 2][c & 3] += dot(lo, b[c]);
            for (int c = 0; c < BC; ++c)
                acc[r + BR / 2][c >> 2][c & 3] += dot(hi, b[c]);
        }
#else
        for (int r = 0; r < BR; ++r) {
            vec4 a = FETCH_ROW(k, r);
            for (int c = 0; c < BC; ++c)
#ifdef FMA_CHAIN
                // variant: four fused multiply-adds into the accumulator, k in order
                // (other bits than dot's sum-then-add; an experiment, not the default)
                acc[r][c >> 2][c & 3] = fma(a.w, b[c].w, fma(a.z, b[c].z,
                                        fma(a.y, b[c].y, fma(a.x, b[c].x, acc[r][c >> 2][c & 3]))));
#else
                acc[r][c >> 2][c & 3] += dot(a, b[c]);
#endif
        }
#endif
#endif
      }
    }
    for (int r = 0; r < BR; ++r) {
        int i = r0 + r;
        if (i >= u_m) break;
        for (int q = 0; q < BC / 4; ++q) {
            ivec4 col = ivec4(c0 + 4 * q) + ivec4(0, 1, 2, 3);
            vec4 v = acc[r][q];
#ifdef KERNEL
            if (u_last == 1) v = kernel_texel(v, i, c0 + 4 * q);
#endif
#ifndef FULL
            v = mix(v, vec4(0.0), greaterThan(col, ivec4(i)));   // upper part stays zero
#endif
            imageStore(C, ivec2(sc + q, s0 + r), v);
        }
    }
}
