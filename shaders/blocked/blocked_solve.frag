#version 430
// method="blocked": triangular solves P unknowns per pass.  Forward (L y = b):
// every fragment re-solves the P x P diagonal system of the current panel from
// the right-hand side (P^2/2 multiply-adds), then rows below subtract the
// panel's contribution.  Backward (L^T x = y) runs the panels from the bottom.
// B is mp x nrhs (R32F, fragment (x, y) = (right-hand side, row)); L is blocked RGBA.
#ifndef P
#define P 16
#endif
#include "blocked_common.glsl"
uniform sampler2D L;
uniform sampler2D Bs;
uniform int u_kb;
uniform int u_backward;
out float result;

float l(int i, int j) {
    if (i >= u_m || j >= u_m) return (i == j) ? 1.0 : 0.0;
    return elem(texelFetch(L, ivec2(j >> 2, i), 0), j);
}

void main() {
    ivec2 me = ivec2(gl_FragCoord.xy);
    int i = me.y;
    float b = texelFetch(Bs, me, 0).r;
    bool before = (u_backward == 0) ? (i < u_kb) : (i >= u_kb + P);
    if (before) { result = b; return; }
    float x[P];
    if (u_backward == 0) {
        for (int j = 0; j < P; ++j) {
            float t = texelFetch(Bs, ivec2(me.x, u_kb + j), 0).r;
            for (int q = 0; q < j; ++q) t -= l(u_kb + j, u_kb + q) * x[q];
            x[j] = t / l(u_kb + j, u_kb + j);
        }
    } else {
        for (int j = P - 1; j >= 0; --j) {
            float t = texelFetch(Bs, ivec2(me.x, u_kb + j), 0).r;
            for (int q = j + 1; q < P; ++q) t -= l(u_kb + q, u_kb + j) * x[q];
            x[j] = t / l(u_kb + j, u_kb + j);
        }
    }
    int own = i - u_kb;
    if (own >= 0 && own < P) { result = x[own]; return; }
    float acc = b;
    for (int q = 0; q < P; ++q)
        acc -= ((u_backward == 0) ? l(i, u_kb + q) : l(u_kb + q, i)) * x[q];
    result = acc;
}
