#version 330
// method="blocked", packed=True: the blocked packed storage (Fig. 4 on the grid of
// B x B blocks: layouts/rgba.py expand_blocks does the same on the host) expanded on
// the GPU into the full RGBA layout, upper triangle zero.  Fragment (X, i) is texel
// X of row i; lower_texel, on the block grid (u_m = blocks per side, u_packed = 1),
// says where its block sits, and inside a block nothing moves.
#include "lower_texel.glsl"
uniform sampler2D P;
uniform int u_B;        // block order (a multiple of 4)
out vec4 result;

void main() {
    int X = int(gl_FragCoord.x), i = int(gl_FragCoord.y);
    int I = i / u_B, J = 4 * X / u_B;
    if (J > I) {
        result = vec4(0.0);
        return;
    }
    ivec2 blk = lower_texel(I, J);
    vec4 v = texelFetch(P, ivec2(blk.x * (u_B / 4) + X % (u_B / 4), blk.y * u_B + i % u_B), 0);
    ivec4 col = ivec4(4 * X) + ivec4(0, 1, 2, 3);
    result = mix(v, vec4(0.0), greaterThan(col, ivec4(i)));      // a diagonal block's upper part
}
