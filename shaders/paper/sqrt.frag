#version 330
// Kernel 3 (2008 paper, section 4.2): square rooting of the pivot, drawn as one
// texel square at the diagonal entry.  A non-positive pivot gives NaN here, which
// the host detects on the diagonal to name the first pivot that failed.
uniform sampler2D L;
out float result;

void main() {
    result = sqrt(texelFetch(L, ivec2(gl_FragCoord.xy), 0).r);
}
