#version 330
// Data movement only): the transpose of a square blocked RGBA tile,
// texel (q, i) of S^T = S(4q .. 4q+3, i) = component i & 3 of S's texels (i >> 2, 4q + c)
// -- the backward substitution's off-diagonal products need L_JK^T.
uniform sampler2D S;
out vec4 result;

void main() {
    ivec2 at = ivec2(gl_FragCoord.xy);
    int i = at.y, j = 4 * at.x;
    for (int c = 0; c < 4; ++c) result[c] = texelFetch(S, ivec2(i >> 2, j + c), 0)[i & 3];
}
