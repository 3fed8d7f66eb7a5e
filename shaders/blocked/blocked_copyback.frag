#version 430
// method="blocked": write the finished panel (rows kb .. mp-1, P columns) from
// the panel texture back into the matrix; fragment (q, i) moves one RGBA texel.
layout(rgba32f, binding = 0) uniform image2D A;
uniform sampler2D PNL;
uniform int u_kb;

void main() {
    ivec2 at = ivec2(gl_FragCoord.xy);
    imageStore(A, ivec2(u_kb / 4 + at.x, at.y), texelFetch(PNL, at, 0));
}
