#version 330
// Transposes a texture (a column vector into a row, e.g. D^2 for Kernel 1, which
// reads d along x): target texel (x, y) takes source texel (y, x).
uniform sampler2D S;
out float result;

void main() {
    result = texelFetch(S, ivec2(gl_FragCoord.yx), 0).r;
}
