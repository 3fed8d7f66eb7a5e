#version 330
// Kernel 4 (2008 paper, section 4.2): normalization of the column below the pivot,
// L(i, k) = L(i, k) / L(k, k).  The pivot's texel comes through the attached
// coordinate T0, constant over the rectangle.
uniform sampler2D L;
noperspective in vec3 t0;   // pivot texel centre
out float result;

void main() {
    result = texelFetch(L, ivec2(gl_FragCoord.xy), 0).r / texelFetch(L, ivec2(t0.xy), 0).r;
}
