#version 430
// method="blocked": gathers L(i, i) from blocked RGBA storage into a 1 x m row,
// so the host checks every pivot with one small readback.
#include "blocked_common.glsl"
uniform sampler2D L;
out float result;

void main() {
    int i = int(gl_FragCoord.x);
    result = elem(texelFetch(L, ivec2(i >> 2, i), 0), i);
}
