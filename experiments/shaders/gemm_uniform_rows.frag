#version 430
// Benchmark (issue 17): a product whose row operand is the same for every fragment
// of a draw.  A draw computes BR rows of C (u_r0 ..) against every BC-wide column
// block, over KC k-texels: the row side is read from a uniform block (one address
// for the whole draw, so the constant cache broadcasts it, no texture or load/store
// issue per fragment), the column side through the texture units.  C (RGBA,
// texel (X, i) = C(i, 4X .. 4X+3)) accumulates through image load/store.
#ifndef BR
#define BR 32
#endif
#ifndef BC
#define BC 4
#endif
#ifndef KC
#define KC 128
#endif
layout(rgba32f, binding = 0) uniform image2D C;
uniform sampler2D B;          // column side: texel (k, j) = B(j, 4k .. 4k+3)
#ifdef ROWS_SSBO
layout(std430, binding = 3) readonly buffer RowsB { vec4 rowb[]; };
uniform int u_base;           // vec4 offset of this draw's rows and chunk
#define ROW(e) rowb[u_base + (e)]
#else
layout(std140, binding = 0) uniform RowChunk { vec4 rowv[BR * KC]; };
#define ROW(e) rowv[e]
#endif
uniform int u_r0;             // first row of C
uniform int u_k0;             // first k-texel of the chunk
uniform int u_kn;             // k-texels in the chunk (<= KC)
uniform int u_W;              // width of the fragment grid
uniform int u_first;          // 1: start from zero
uniform int u_ncols;          // columns of C (rows of B)
uniform int u_nrows;          // rows of C

void main() {
    int c0 = (int(gl_FragCoord.y) * u_W + int(gl_FragCoord.x)) * BC;
    if (c0 >= u_ncols) return;
    vec4 acc[BR][BC / 4];
    for (int r = 0; r < BR; ++r)
        for (int q = 0; q < BC / 4; ++q)
            acc[r][q] = (u_first == 1 || u_r0 + r >= u_nrows) ? vec4(0.0) : imageLoad(C, ivec2(c0 / 4 + q, u_r0 + r));
    int cols[BC];
    for (int c = 0; c < BC; ++c) cols[c] = min(c0 + c, u_ncols - 1);
    for (int kk = 0; kk < u_kn; ++kk) {
        int k = u_k0 + kk;
        vec4 b[BC];
        for (int c = 0; c < BC; ++c)
            b[c] = texelFetch(B, ivec2(k, cols[c]), 0);
        for (int r = 0; r < BR; ++r) {
            vec4 a = ROW(kk * BR + r);
            for (int c = 0; c < BC; ++c)
#ifdef FMA_CHAIN
                acc[r][c >> 2][c & 3] = fma(a.w, b[c].w, fma(a.z, b[c].z,
                                        fma(a.y, b[c].y, fma(a.x, b[c].x, acc[r][c >> 2][c & 3]))));
#else
                acc[r][c >> 2][c & 3] += dot(a, b[c]);
#endif
        }
    }
    for (int r = 0; r < BR; ++r) {
        if (u_r0 + r >= u_nrows) break;
        for (int q = 0; q < BC / 4; ++q)
            imageStore(C, ivec2(c0 / 4 + q, u_r0 + r), acc[r][q]);
    }
}
