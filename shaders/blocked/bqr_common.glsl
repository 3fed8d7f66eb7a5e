// Blocked Householder QR (Yeralan et al.'s tile algorithm) on RGBA32F storage:
// texel (X, i) holds row i, columns 4X .. 4X+3 (blocked_common.glsl's layout).
// Many matrices ("fronts") lie side by side in one atlas and every draw covers all
// of them: each rectangle carries its front's parameters (figures/qr.py,
// BlockedFront), constant over it -- T0 = (ox: its first texel column, m: its rows,
// its row chunk), T1 = (f: its slot in the scratch textures, bw: the width of the
// current panel, 0).  A single matrix is the one-front atlas.  Interpolated
// constants may be off by an ulp: round.
#ifndef NB
#define NB 32
#endif
#define NBQ (NB / 4)
noperspective in vec3 t0;
noperspective in vec3 t1;
int fr_ox()    { return int(t0.x + 0.5); }
int fr_m()     { return int(t0.y + 0.5); }
int fr_chunk() { return int(t0.z + 0.5); }
int fr_f()     { return int(t1.x + 0.5); }
int fr_bw()    { return int(t1.y + 0.5); }

float elem4(vec4 t, int j) { return t[j & 3]; }

// V(i, kb + 4 lq + c), c = 0..3, of the panel at kb whose first texel is vq0: unit
// lower trapezoidal, read from the factored matrix (R above the diagonal masked out)
vec4 v_texel(sampler2D V, int vq0, int i, int lq, int kb, int bw) {
    vec4 t = texelFetch(V, ivec2(vq0 + lq, i), 0);
    for (int c = 0; c < 4; ++c) {
        int l = 4 * lq + c;
        if (l >= bw || i < kb + l) t[c] = 0.0;
        else if (i == kb + l) t[c] = 1.0;
    }
    return t;
}
