#version 330
// Gathers the diagonal of a lower-triangular matrix (full or packed) into a
// 1 x m texture: fragment x = i reads L(i, i).  Lets the host check all pivots
// of a factor with one small readback instead of reading the whole factor.
#include "lower_texel.glsl"
uniform sampler2D L;
out float result;

void main() {
    int i = int(gl_FragCoord.x);
    result = texelFetch(L, lower_texel(i, i), 0).r;
}
