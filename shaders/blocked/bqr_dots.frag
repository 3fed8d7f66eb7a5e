#version 430
// Blocked QR, Factorize, column k of the panel kb .. kb+bw-1 (draw 1 of 4):
// PART(c, jl) = sum over rows i > k of chunk c of A(i, k) A(i, kb + jl), for every
// column of the panel: sigma (jl = k - kb), the dots for w (jl > k - kb) and, for
// the reflectors already in the panel (jl < k - kb), v_l^T v_k for T (seed 004's
// merged z = -tau v^T A(k:m, :), section 3.2.1).
uniform sampler2D A;
uniform int u_k;
uniform int u_kb;
uniform int u_m;
uniform int u_chunk;
out float result;

void main() {
    int jl = int(gl_FragCoord.x), c = int(gl_FragCoord.y);
    int j = u_kb + jl;
    int i1 = min(u_m, (c + 1) * u_chunk);
    float s = 0.0;
    for (int i = max(u_k + 1, c * u_chunk); i < i1; ++i)
        s += texelFetch(A, ivec2(u_k >> 2, i), 0)[u_k & 3] * texelFetch(A, ivec2(j >> 2, i), 0)[j & 3];
    result = s;
}
