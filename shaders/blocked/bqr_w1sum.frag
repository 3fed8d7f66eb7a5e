#version 430
// Blocked QR, Apply (2 of 3, first half): W1 = V^T C from bqr_vtc's per-chunk
// partial sums, one fragment per texel column q of C and row l of W (4 columns),
// four chunks a trip of independent fetches.
#ifndef NB
#define NB 32
#endif
uniform sampler2D W1PART;                             // W1PART(q, c * NB + l)
uniform int u_nch;
out vec4 result;

void main() {
    int q = int(gl_FragCoord.x), l = int(gl_FragCoord.y);
    vec4 a = vec4(0.0), b = vec4(0.0), c4 = vec4(0.0), d = vec4(0.0);
    int c = 0;
    for (; c + 3 < u_nch; c += 4) {
        a += texelFetch(W1PART, ivec2(q, c * NB + l), 0);
        b += texelFetch(W1PART, ivec2(q, (c + 1) * NB + l), 0);
        c4 += texelFetch(W1PART, ivec2(q, (c + 2) * NB + l), 0);
        d += texelFetch(W1PART, ivec2(q, (c + 3) * NB + l), 0);
    }
    for (; c < u_nch; ++c) a += texelFetch(W1PART, ivec2(q, c * NB + l), 0);
    result = (a + b) + (c4 + d);
}
