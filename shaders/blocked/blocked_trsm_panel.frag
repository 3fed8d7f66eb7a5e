#version 430
// Tiled TRSM), the panel step of X = A L^-T: for the P columns
// kb .. kb+P-1, every row i of the tile A solves its own P unknowns
// x = a(i, kb..) L_diag^-T against the P x P diagonal block of the factored
// tile L (already final: read, not factored).  Fragment y = row i; the panel
// goes to PNL, as blocked_panel.frag's does, for the update and the copy back.
#ifndef P
#define P 16
#endif
#include "blocked_common.glsl"
layout(rgba32f, binding = 0) uniform image2D A;     // the tile being solved, only read here
layout(rgba32f, binding = 1) uniform image2D PNL;   // P/4 x t: row i's X(i, kb .. kb+P-1)
uniform sampler2D LT;                               // the factored diagonal tile
uniform int u_kb;

float l(int i, int j) {                             // L, the identity past its order u_m
    if (i >= u_m || j >= u_m) return (i == j) ? 1.0 : 0.0;
    return elem(texelFetch(LT, ivec2(j >> 2, i), 0), j);
}

void main() {
    int i = int(gl_FragCoord.y);
    vec4 a[P / 4];
    for (int q = 0; q < P / 4; ++q) a[q] = imageLoad(A, ivec2(u_kb / 4 + q, i));
    float x[P];
    for (int j = 0; j < P; ++j) {
        float t = a[j >> 2][j & 3];
        for (int q = 0; q < j; ++q) t -= x[q] * l(u_kb + j, u_kb + q);
        x[j] = t / l(u_kb + j, u_kb + j);
    }
    for (int q = 0; q < P / 4; ++q)
        imageStore(PNL, ivec2(q, i), vec4(x[4 * q], x[4 * q + 1], x[4 * q + 2], x[4 * q + 3]));
}
