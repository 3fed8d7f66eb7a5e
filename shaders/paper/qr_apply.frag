#version 330
// Applying a stored reflector H_k = I - tau_k v_k v_k^T (from qr_update's layout:
// v_k(k) = 1, v_k(i > k) in F(i, k)) to the columns of B:
// B(i, j) -= tau_k v_k(i) (B(k, j) + G(j)) for i >= k, where G = qr_column_dots of
// F against B (rows below k).  Q^T B applies k = 0, 1, ...; Q B the reverse order.
#include "qr_front.glsl"
uniform sampler2D F;
uniform sampler2D HH;
uniform sampler2D G;
uniform sampler2D B;
uniform int u_k;
out float result;

void main() {
    ivec2 me = ivec2(gl_FragCoord.xy);
    float b = texelFetch(B, me, 0).r;
    if (me.y < u_k) { result = b; return; }
    float tau = texelFetch(HH, ivec2(u_k, 0), 0).y;
    float v = (me.y == u_k) ? 1.0 : texelFetch(F, ivec2(u_k, me.y), 0).r;
    result = b - tau * v * (texelFetch(B, ivec2(me.x, u_k), 0).r + texelFetch(G, ivec2(me.x, 0), 0).r);
}
