#version 330
// Data movement only (issue 17): the inverse of rgba_transpose_rows.frag -- an
// R32F t x t matrix Y back into blocked RGBA as Y^T: texel (q, c) = Y(4q .. 4q+3, c).
uniform sampler2D S;
out vec4 result;

void main() {
    ivec2 at = ivec2(gl_FragCoord.xy);      // x = q, y = c
    int i = 4 * at.x;
    result = vec4(texelFetch(S, ivec2(at.y, i), 0).r, texelFetch(S, ivec2(at.y, i + 1), 0).r,
                  texelFetch(S, ivec2(at.y, i + 2), 0).r, texelFetch(S, ivec2(at.y, i + 3), 0).r);
}
