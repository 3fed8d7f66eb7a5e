#version 430
// method="blocked": the trailing update of a right-looking blocked Cholesky,
// A(i, j) -= sum_l L(i, l) L(j, l) over the panel's P columns, register-blocked:
// one fragment owns a B x B block (B + B RGBA fetches per 4 l, 4 B^2 multiply-adds).
// Drawn as Fig. 5's oversized triangle on the block grid: only lower blocks.
#ifndef B
#define B 8
#endif
#ifndef P
#define P 16
#endif
layout(rgba32f, binding = 0) uniform image2D A;   // updated in place, block by block
uniform sampler2D PNL;                            // P/4 x mp, the panel's L rows
#ifdef TRSM
// the tiled TRSM's update inside a slab (tiled.trsm): A(i, j) -= sum_l X(i, l) L(j, l),
// the column side from the factored diagonal tile, its panel columns at texels u_lq ..;
// drawn as a rectangle (every row of the tile, the slab's columns after the panel)
uniform sampler2D LT;
uniform int u_lq;
#define FETCH_COL(q, j) texelFetch(LT, ivec2(u_lq + (q), j), 0)
#else
// the column side read through a storage buffer copy of PNL (the load/store
// pipe), the row side through the texture units, as blocked_adat does
layout(std430, binding = 1) readonly buffer PBuf { vec4 p_buf[]; };
#define FETCH_COL(q, j) p_buf[(j) * (P / 4) + (q)]
#endif

void main() {
    int r0 = int(gl_FragCoord.y) * B;
    int c0 = int(gl_FragCoord.x) * B;
    vec4 acc[B][B / 4];
    for (int r = 0; r < B; ++r)
        for (int q = 0; q < B / 4; ++q)
            acc[r][q] = imageLoad(A, ivec2(c0 / 4 + q, r0 + r));
    for (int q4 = 0; q4 < P / 4; ++q4) {
        vec4 rows[B];
        for (int r = 0; r < B; ++r) rows[r] = texelFetch(PNL, ivec2(q4, r0 + r), 0);
        for (int c = 0; c < B; ++c) {
            vec4 col = FETCH_COL(q4, c0 + c);
            for (int r = 0; r < B; ++r)
                acc[r][c >> 2][c & 3] -= dot(rows[r], col);
        }
    }
    for (int r = 0; r < B; ++r)
        for (int q = 0; q < B / 4; ++q)
            imageStore(A, ivec2(c0 / 4 + q, r0 + r), acc[r][q]);
}
