#version 430
// Blocked QR, Factorize, column k (draw 4 of 4): column k becomes (beta; v) in
// place -- R's diagonal entry and the reflector below it (geqrf's layout).
layout(rgba32f, binding = 0) uniform image2D A;
uniform sampler2D YZ;
uniform int u_k;
uniform int u_kb;

void main() {
    int i = int(gl_FragCoord.y);
    vec4 h = texelFetch(YZ, ivec2(0, u_k - u_kb), 0);
    vec4 a = imageLoad(A, ivec2(u_k >> 2, i));
    a[u_k & 3] = (i == u_k) ? h.y : a[u_k & 3] * h.w;
    imageStore(A, ivec2(u_k >> 2, i), a);
}
