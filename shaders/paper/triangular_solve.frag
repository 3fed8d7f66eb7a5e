#version 330
// One step of forward (L y = b) or backward (L^T x = y) substitution, a level-2
// kernel of Jung 2006 (section 4.2), multipass: pass k solves unknown k and
// eliminates it from the rows still open, for every right-hand side at once.
// B is m x nrhs (fragment (x, y) = (right-hand side, row)); L is lower triangular,
// full or packed.  Rows already solved pass through unchanged.
#include "lower_texel.glsl"
uniform sampler2D L;
uniform sampler2D B;
uniform int u_k;
uniform int u_backward;   // 0: L y = b, rows k+1.. open;  1: L^T x = y, rows ..k-1 open
out float result;

void main() {
    ivec2 me = ivec2(gl_FragCoord.xy);
    float b = texelFetch(B, me, 0).r;
    bool done = (u_backward == 0) ? (me.y < u_k) : (me.y > u_k);
    if (done) { result = b; return; }
    float xk = texelFetch(B, ivec2(me.x, u_k), 0).r / texelFetch(L, lower_texel(u_k, u_k), 0).r;
    if (me.y == u_k) { result = xk; return; }
    ivec2 at = (u_backward == 0) ? lower_texel(me.y, u_k) : lower_texel(u_k, me.y);
    result = b - texelFetch(L, at, 0).r * xk;
}
