#version 330
// Sparse QR by drawing (Yeralan et al. 2015, section 3.3.1): a parent front's rows
// that come from one child's contribution block, gathered (every parent row has one
// source, so nothing is written twice).  COLMAP's row p says which block column feeds
// each of the parent's columns (-1: none, the entry stays zero); only the block's
// upper triangle is read (below it the child's reflectors are stored).
// COMPONENTS: matrix columns a texel, 4 (RGBA, blocked) or 1 (R32F, the paper's).
// T0 = (parent texel from the front's first, block row, p), interpolated;
// T1 = (the block's first column in B, its first row in B, log2 of the ratio of the
// two fronts' scales) -- constants, rounded; the power of two is built from its bits
// (exact, where GLSL 3.30 has no ldexp).
#ifndef COMPONENTS
#define COMPONENTS 4
#endif
uniform sampler2D B;
uniform sampler2D COLMAP;
noperspective in vec3 t0;
noperspective in vec3 t1;
out vec4 result;

float pow2(int e) {
    return intBitsToFloat((clamp(e, -126, 127) + 127) << 23);
}

void main() {
    int r = int(t0.y);
    vec4 j = texelFetch(COLMAP, ivec2(int(t0.x), int(floor(t0.z + 0.5))), 0);
    int c0 = int(floor(t1.x + 0.5));
    int y = int(floor(t1.y + 0.5)) + r;
    int e = int(floor(t1.z + 0.5));
    float s1 = pow2(e / 2), s2 = pow2(e - e / 2);   // two halves: exact for |e| up to 252
    vec4 v = vec4(0.0);
    for (int c = 0; c < COMPONENTS; ++c) {
        int jc = int(floor(j[c] + 0.5));
        if (jc >= r) {
            int s = c0 + jc;
            v[c] = texelFetch(B, ivec2(s / COMPONENTS, y), 0)[s % COMPONENTS] * s1 * s2;
        }
    }
    result = v;
}
