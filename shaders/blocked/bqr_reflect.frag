#version 430
// Blocked QR, Factorize, column k (draw 3 of 4): A(i, j) += v(i) z(j) for rows
// i >= k and the panel's columns k < j < kb + bw, in place; one fragment per
// texel (4 columns), so no two fragments write one texel.  v(k) = 1,
// v(i) = s A(i, k): column k itself is rescaled by the next draw, not here
// (other fragments of the row read it now).
layout(rgba32f, binding = 0) uniform image2D A;
uniform sampler2D YZ;
uniform int u_k;
uniform int u_kb;
uniform int u_bw;

void main() {
    int q = int(gl_FragCoord.x), i = int(gl_FragCoord.y);
    vec4 a = imageLoad(A, ivec2(q, i));
    vec4 h = texelFetch(YZ, ivec2(0, u_k - u_kb), 0);
    float v = (i == u_k) ? 1.0 : imageLoad(A, ivec2(u_k >> 2, i))[u_k & 3] * h.w;
    for (int c = 0; c < 4; ++c) {
        int j = 4 * q + c;
        if (j > u_k && j < u_kb + u_bw)
            a[c] += v * texelFetch(YZ, ivec2(j - u_kb, u_k - u_kb), 0).x;
    }
    imageStore(A, ivec2(q, i), a);
}
