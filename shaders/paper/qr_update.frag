#version 330
// Householder QR, step k, draw 4 of 4: the reflection of the trailing columns,
// A(i, j) -= tau v(i) w(j) for i >= k, j > k, with w(j) = v^T A(:, j) =
// A(k, j) + s G(j), v(i) = s A(i, k) (i > k), v(k) = 1, s = 1 / (alpha - beta);
// column k becomes (R's beta on the diagonal, v below it: LAPACK geqrf's layout).
// Rows above k and column k - 1 are copied (see figures/qr.py update_rect).
#include "qr_front.glsl"
uniform sampler2D A;
uniform sampler2D HH;         // (beta, tau, s, 0) per step
uniform sampler2D G;
uniform int u_k;
out float result;

void main() {
    ivec2 me = ivec2(gl_FragCoord.xy);
    int ox = front_ox();
    int j = me.x - ox, i = me.y;
    float a = texelFetch(A, me, 0).r;
    if (j < u_k || i < u_k) { result = a; return; }
    vec4 h = texelFetch(HH, ivec2(ox + u_k, 0), 0);
    if (j == u_k) { result = (i == u_k) ? h.x : a * h.z; return; }
    float v = (i == u_k) ? 1.0 : texelFetch(A, ivec2(ox + u_k, i), 0).r * h.z;
    float w = texelFetch(A, ivec2(me.x, u_k), 0).r + h.z * texelFetch(G, ivec2(me.x, 0), 0).r;
    result = a - h.y * v * w;
}
