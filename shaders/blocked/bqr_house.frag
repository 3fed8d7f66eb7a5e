#version 430
// Blocked QR, Factorize, column k (draw 2 of 4): row k - kb of YZ, one fragment per
// panel column jl.  Each fragment finishes the reduction of its own column and of
// column k (summing the chunks of PART: no separate sum pass, one dependent draw
// fewer per column) and recomputes the reflector's scalars (LAPACK
// slarfg, as qr_householder.frag) -- cheaper than another dependent pass -- and
// its z(jl) = -tau (A(k, kb+jl) + s G(jl)) = -tau v_k^T A(k:m, kb+jl):
// w for the columns right of k, the column of T for the reflectors left of k.
// YZ(jl, k - kb) = (z, beta, tau, s).
uniform sampler2D A;
uniform sampler2D PART;       // bqr_dots' partial sums: chunk c in row c
uniform int u_k;
uniform int u_kb;
uniform int u_m;
uniform int u_chunk;
out vec4 result;

float dots(int jl) {
    float s = 0.0;
    for (int c = (u_k + 1) / u_chunk; c < (u_m + u_chunk - 1) / u_chunk; ++c)
        s += texelFetch(PART, ivec2(jl, c), 0).r;
    return s;
}

void main() {
    int jl = int(gl_FragCoord.x);
    float alpha = texelFetch(A, ivec2(u_k >> 2, u_k), 0)[u_k & 3];
    float sigma = dots(u_k - u_kb);
    if (sigma == 0.0) { result = vec4(0.0, alpha, 0.0, 0.0); return; }
    float beta = (alpha >= 0.0 ? -1.0 : 1.0) * sqrt(alpha * alpha + sigma);
    float tau = (beta - alpha) / beta, s = 1.0 / (alpha - beta);
    int j = u_kb + jl;
    float akj = texelFetch(A, ivec2(j >> 2, u_k), 0)[j & 3];
    result = vec4(-tau * (akj + s * dots(jl)), beta, tau, s);
}
