#version 430
// method="blocked": zero the strict upper triangle of a blocked RGBA matrix in
// place (texel (X, i) holds row i, columns 4X .. 4X+3), so that the factor can be
// read back straight into the caller's array with no host pass over it.  Drawn
// over the grid of texels; texels wholly on or below the diagonal are left alone.
layout(rgba32f, binding = 0) uniform image2D A;

void main() {
    ivec2 at = ivec2(gl_FragCoord.xy);
    ivec4 col = ivec4(4 * at.x) + ivec4(0, 1, 2, 3);
    if (4 * at.x + 3 <= at.y) return;
    imageStore(A, at, mix(imageLoad(A, at), vec4(0.0), greaterThan(col, ivec4(at.y))));
}
