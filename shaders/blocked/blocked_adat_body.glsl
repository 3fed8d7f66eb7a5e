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
#ifdef A_FROM_BUFFER
// The column side through a storage buffer holding the same numbers as A (the
// load/store path), the row side through the texture units: two load pipes side
// by side (benchmarks/RESULTS.md).  Off for an operand larger than one storage
// block, which would be read short: then both sides come through the texture units.
uniform int u_n4;
layout(std430, binding = 1) readonly buffer ABuf { vec4 a_buf[]; };
#define FETCH_A(k, i) a_buf[(i) * u_n4 + (k)]
#else
#define FETCH_A(k, i) texelFetch(A, ivec2(k, i), 0)
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
    int rows[BR];
    int cols[BC];
    for (int r = 0; r < BR; ++r) rows[r] = min(r0 + r, u_m - 1);
    for (int c = 0; c < BC; ++c) cols[c] = min(c0 + c, u_m - 1);
    for (int k = u_k0; k < u_k1; ++k) {
        // hold the BC column-side texels, stream the BR row-side ones: fewer live
        // registers, so taller blocks (more multiply-adds per fetch) fit
        vec4 b[BC];
        for (int c = 0; c < BC; ++c)
            b[c] = FETCH_A(k, cols[c]);
        for (int r = 0; r < BR; ++r) {
            vec4 a = texelFetch(AD, ivec2(k, rows[r]), 0);
            for (int c = 0; c < BC; ++c)
                acc[r][c >> 2][c & 3] += dot(a, b[c]);
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
