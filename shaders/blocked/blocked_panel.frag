#version 430
// method="blocked": factor one panel of P columns (kb .. kb+P-1) in a single pass.
// Fragment y handles row i = y (rows kb .. mp-1 are drawn).  There is no way for fragments to share
// results within a pass, so every fragment factors the small P x P diagonal
// block itself (P^3/6 multiply-adds, cheap) and then solves for its own row of
// the panel, L(i, kb..) = A(i, kb..) L_diag^-T.  One dependent pass per P
// columns instead of five per column (Algorithm 5).  Pivots below u_floor
// (u_floor >= 0) are treated as sqrt_floor.frag does; u_floor < 0 keeps NaN.
#ifndef P
#define P 16
#endif
#include "blocked_common.glsl"
layout(rgba32f, binding = 0) uniform image2D A;     // the matrix, only read here
layout(rgba32f, binding = 1) uniform image2D PNL;   // P/4 x mp: row i's L(i, kb .. kb+P-1)
uniform int u_kb;
uniform float u_floor;
uniform int u_regularize;      // 1: a pivot below u_floor becomes u_floor (not dropped)

float a(int i, int j) {
    if (i >= u_m || j >= u_m) return (i == j) ? 1.0 : 0.0;
    return elem(imageLoad(A, ivec2(j >> 2, i)), j);
}

void main() {
    int i = int(gl_FragCoord.y);            // the rectangle covers rows kb .. mp-1
    float L[P][P];
    for (int j = 0; j < P; ++j) {
        float s = a(u_kb + j, u_kb + j);
        for (int l = 0; l < j; ++l) s -= L[j][l] * L[j][l];
        L[j][j] = (u_floor >= 0.0 && !(s > u_floor)) ? (u_regularize == 1 ? sqrt(u_floor) : 1e30) : sqrt(s);
        for (int r = j + 1; r < P; ++r) {
            float t = a(u_kb + r, u_kb + j);
            for (int l = 0; l < j; ++l) t -= L[r][l] * L[j][l];
            L[r][j] = t / L[j][j];
        }
    }
    float x[P];
    int own = i - u_kb;
    for (int j = 0; j < P; ++j) {
        if (own < P) {
            x[j] = (j <= own) ? L[own][j] : 0.0;
        } else {
            float t = a(i, u_kb + j);
            for (int l = 0; l < j; ++l) t -= x[l] * L[j][l];
            x[j] = t / L[j][j];
        }
    }
    for (int q = 0; q < P / 4; ++q)
        imageStore(PNL, ivec2(q, i), vec4(x[4 * q], x[4 * q + 1], x[4 * q + 2], x[4 * q + 3]));
}
