#version 430
// Blocked QR, Apply (2 of 3): W1 = sum of the chunks' partial sums, then
// W2 = T^T W1 (applying Q^T) or T W1 (applying Q).  One fragment per texel
// column q of C, all NB rows of W.
#ifndef NB
#define NB 32
#endif
uniform sampler2D TT;                                 // the panels' T, side by side
layout(rgba32f, binding = 1) uniform image2D W1PART;
layout(rgba32f, binding = 2) uniform image2D W2;
uniform int u_kb;
uniform int u_bw;
uniform int u_nch;
uniform int u_trans;                                  // 1: T^T (Q^T C), 0: T (Q C)

void main() {
    int q = int(gl_FragCoord.x);
    vec4 w1[NB];
    for (int l = 0; l < NB; ++l) {
        vec4 s = vec4(0.0);
        if (l < u_bw)
            for (int c = 0; c < u_nch; ++c) s += imageLoad(W1PART, ivec2(q, c * NB + l));
        w1[l] = s;
    }
    for (int l = 0; l < NB; ++l) {
        vec4 s = vec4(0.0);
        if (l < u_bw) {
            if (u_trans == 1)
                for (int p = 0; p <= l; ++p) s += texelFetch(TT, ivec2(u_kb + l, p), 0).r * w1[p];
            else
                for (int p = l; p < u_bw; ++p) s += texelFetch(TT, ivec2(u_kb + p, l), 0).r * w1[p];
        }
        imageStore(W2, ivec2(q, l), s);
    }
}
