#version 330
// Data movement only (issue 17): a blocked RGBA tile S (t x t, texel (q, i) =
// S(i, 4q .. 4q+3)) into its transpose in R32F (texel (c, i) = S(c, i)^T = S(c, i)
// read as row i of S^T), so the rows of S become right-hand sides of the blocked
// substitutions (one column each): the tiled TRSM solves L_KK Y = A_IK^T.
uniform sampler2D S;
out float result;

void main() {
    ivec2 at = ivec2(gl_FragCoord.xy);      // x = c (a row of S), y = i (a column of S)
    result = texelFetch(S, ivec2(at.y >> 2, at.x), 0)[at.y & 3];
}
