#version 430
// Blocked QR, Apply (2 of 3, second half): W2 = T^T W1 (applying Q^T) or T W1
// (applying Q), one fragment per texel column x of C and row l of W: a chain of at
// most NB fetches (bqr_w1sum summed the chunks before, in a draw of its own: one
// fragment summing NB x nch partials waited on thousands of dependent loads).
#include "bqr_common.glsl"
uniform sampler2D TT;                                 // every front's T factors: panel kb at (f NB + col, kb + row)
uniform sampler2D W1;                                 // W1 = V^T C, NB x texels
layout(rgba32f, binding = 2) uniform image2D W2;
uniform int u_kb;
uniform int u_trans;                                  // 1: T^T (Q^T C), 0: T (Q C)

void main() {
    int bw = fr_bw(), tc = fr_f() * NB;
    int x = int(gl_FragCoord.x), l = int(gl_FragCoord.y);
    vec4 s = vec4(0.0);
    if (l < bw) {
        if (u_trans == 1)
            for (int p = 0; p <= l; ++p) s += texelFetch(TT, ivec2(tc + l, u_kb + p), 0).r * texelFetch(W1, ivec2(x, p), 0);
        else
            for (int p = l; p < bw; ++p) s += texelFetch(TT, ivec2(tc + p, u_kb + l), 0).r * texelFetch(W1, ivec2(x, p), 0);
    }
    imageStore(W2, ivec2(x, l), s);
}
