#version 330
// Unpacking by drawing: the full m x m lower triangle (upper part zero) from a
// texture in the full or packed format, through lower_texel -- one pass on the
// GPU instead of a gather on the host.
#include "lower_texel.glsl"
uniform sampler2D P;
out float result;

void main() {
    int j = int(gl_FragCoord.x), i = int(gl_FragCoord.y);
    result = (i >= j) ? texelFetch(P, lower_texel(i, j), 0).r : 0.0;
}
