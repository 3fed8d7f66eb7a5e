#version 430
// Blocked QR, Apply (2 of 3, first half): W1 = V^T C from bqr_vtc's per-chunk
// partial sums, one fragment per texel column x of C and row l of W (4 columns),
// four chunks a trip of independent fetches.
#include "bqr_common.glsl"
uniform sampler2D W1PART;                             // W1PART(x, c * NB + l)
out vec4 result;

void main() {
    int x = int(gl_FragCoord.x), l = int(gl_FragCoord.y);
    int nch = (fr_m() + fr_chunk() - 1) / fr_chunk();
    vec4 a = vec4(0.0), b = vec4(0.0), c4 = vec4(0.0), d = vec4(0.0);
    int c = 0;
    for (; c + 3 < nch; c += 4) {
        a += texelFetch(W1PART, ivec2(x, c * NB + l), 0);
        b += texelFetch(W1PART, ivec2(x, (c + 1) * NB + l), 0);
        c4 += texelFetch(W1PART, ivec2(x, (c + 2) * NB + l), 0);
        d += texelFetch(W1PART, ivec2(x, (c + 3) * NB + l), 0);
    }
    for (; c < nch; ++c) a += texelFetch(W1PART, ivec2(x, c * NB + l), 0);
    result = (a + b) + (c4 + d);
}
