// Blocked Householder QR (seed 004's tile algorithm) on RGBA32F storage:
// texel (X, i) holds row i, columns 4X .. 4X+3 (blocked_common.glsl's layout).
// V(i, l) of the panel starting at column u_kb: unit lower trapezoidal, read
// from the factored matrix (R above the diagonal is masked out).
float elem4(vec4 t, int j) { return t[j & 3]; }

vec4 v_texel(sampler2D V, int i, int lq, int kb, int bw) {
    // V(i, kb + 4 lq + c), c = 0..3, with the unit diagonal and zeros above it
    vec4 t = texelFetch(V, ivec2((kb >> 2) + lq, i), 0);
    for (int c = 0; c < 4; ++c) {
        int l = 4 * lq + c;
        if (l >= bw || i < kb + l) t[c] = 0.0;
        else if (i == kb + l) t[c] = 1.0;
    }
    return t;
}
