#version 430
// Blocked QR, Apply (2 of 3, second half): W2 = T^T W1 (applying Q^T) or T W1
// (applying Q), one fragment per texel column q of C and row l of W: a chain of at
// most NB fetches (bqr_w1sum summed the chunks before, in a draw of its own: one
// fragment summing NB x nch partials waited on thousands of dependent loads).
#ifndef NB
#define NB 32
#endif
uniform sampler2D TT;                                 // the panels' T, side by side
uniform sampler2D W1;                                 // W1 = V^T C, NB x nq
layout(rgba32f, binding = 2) uniform image2D W2;
uniform int u_kb;
uniform int u_bw;
uniform int u_trans;                                  // 1: T^T (Q^T C), 0: T (Q C)

void main() {
    int q = int(gl_FragCoord.x), l = int(gl_FragCoord.y);
    vec4 s = vec4(0.0);
    if (l < u_bw) {
        if (u_trans == 1)
            for (int p = 0; p <= l; ++p) s += texelFetch(TT, ivec2(u_kb + l, p), 0).r * texelFetch(W1, ivec2(q, p), 0);
        else
            for (int p = l; p < u_bw; ++p) s += texelFetch(TT, ivec2(u_kb + p, l), 0).r * texelFetch(W1, ivec2(q, p), 0);
    }
    imageStore(W2, ivec2(q, l), s);
}
