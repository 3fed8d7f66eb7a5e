#version 330
// Householder QR, step k, draw 1 of 4: the first stage of a multipass reduction.
// PART(c, x) = sum over the rows i > k of chunk c of V(i, k) * A(i, x), for the
// columns x >= k of every front.  With V = A this gives, at once, sigma =
// ||A(k+1:m, k)||^2 (x = k) and the dots that make w = v^T A (x > k); with V the
// stored reflectors and A a right-hand side it is the first half of applying Q.
#include "qr_front.glsl"
uniform sampler2D V;          // column ox + k holds A(:, k) (factoring) or v_k (applying)
uniform sampler2D A;
uniform int u_k;
uniform int u_chunk;          // rows per chunk
out float result;

void main() {
    int x = int(gl_FragCoord.x), c = int(gl_FragCoord.y);
    int col = front_ox() + u_k;
    int i1 = min(front_m(), (c + 1) * u_chunk);
    float s = 0.0;
    for (int i = max(u_k + 1, c * u_chunk); i < i1; ++i)
        s += texelFetch(V, ivec2(col, i), 0).r * texelFetch(A, ivec2(x, i), 0).r;
    result = s;
}
