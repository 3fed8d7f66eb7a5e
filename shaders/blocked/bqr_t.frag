#version 430
// Blocked QR, end of a panel: the triangular factor T of H_kb ... H_kb+bw-1 =
// I - V T V^T (Yeralan et al.'s T(1:k-1, k) = T(1:k-1, 1:k-1) z(1:k-1)^T, LAPACK
// larft).  Row r of T depends only on row r: T(r, r) = tau_r,
// T(r, l) = sum_{p = r}^{l-1} T(r, p) z_l(p), z_l = YZ's row l.  One fragment per
// entry, recomputing its row up to its column (at most bw^2 / 2 multiply-adds).
// TT holds every front's T of every panel: front f's panel kb at columns
// f NB .. f NB + bw - 1, rows kb .. kb + bw - 1.
#include "bqr_common.glsl"
uniform sampler2D YZ;
uniform int u_kb;
out float result;

void main() {
    int f = fr_f();
    int c = int(gl_FragCoord.x) - f * NB, r = int(gl_FragCoord.y) - u_kb;
    if (r > c) { result = 0.0; return; }
    float t[NB];
    t[r] = texelFetch(YZ, ivec2(f * NB, r), 0).z;
    for (int l = r + 1; l <= c; ++l) {
        float s = 0.0;
        for (int p = r; p < l; ++p) s += t[p] * texelFetch(YZ, ivec2(f * NB + p, l), 0).x;
        t[l] = s;
    }
    result = t[c];
}
