#version 330
// Data movement only (issue 17): an R32F matrix (texel (j, i) = S(i, j)) into the
// blocked RGBA layout (texel (q, i) = S(i, 4q .. 4q+3)), e.g. the inverse of a
// diagonal tile that the triangular solves left in R32F.
uniform sampler2D S;
out vec4 result;

void main() {
    ivec2 at = ivec2(gl_FragCoord.xy);
    int j = 4 * at.x;
    result = vec4(texelFetch(S, ivec2(j, at.y), 0).r, texelFetch(S, ivec2(j + 1, at.y), 0).r,
                  texelFetch(S, ivec2(j + 2, at.y), 0).r, texelFetch(S, ivec2(j + 3, at.y), 0).r);
}
