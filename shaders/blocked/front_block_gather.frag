#version 430
// method="blocked", sparse QR (Yeralan et al. 2015, section 3.3.1): a parent front's
// rows that come from one child's contribution block, gathered (every parent row has
// one source, so nothing is written twice).  COLMAP's row p says which block column
// feeds each of the parent's columns (-1: none, the entry stays zero); only the
// block's upper triangle is read (below it the child's reflectors are stored).
// T0 = (parent texel from the front's first, block row, p), interpolated;
// T1 = (the block's first component in B, its first row in B, log2 of the ratio of
// the two fronts' scales) -- constants, rounded, and ldexp keeps the scaling exact.
uniform sampler2D B;
uniform sampler2D COLMAP;
noperspective in vec3 t0;
noperspective in vec3 t1;
out vec4 result;

void main() {
    int r = int(t0.y);
    vec4 j = texelFetch(COLMAP, ivec2(int(t0.x), int(floor(t0.z + 0.5))), 0);
    int c0 = int(floor(t1.x + 0.5));
    int y = int(floor(t1.y + 0.5)) + r;
    int e = int(floor(t1.z + 0.5));
    vec4 v = vec4(0.0);
    for (int c = 0; c < 4; ++c) {
        int jc = int(floor(j[c] + 0.5));
        if (jc >= r) {
            int s = c0 + jc;
            v[c] = ldexp(texelFetch(B, ivec2(s / 4, y), 0)[s % 4], e);
        }
    }
    result = v;
}
