#version 330
// Householder QR, step k, draw 2 of 4: the second stage of the reduction,
// G(x) = sum over the chunks c of PART(c, x) (only chunks with rows below k).
#include "qr_front.glsl"
uniform sampler2D PART;
uniform int u_k;
uniform int u_chunk;
out float result;

void main() {
    int x = int(gl_FragCoord.x);
    int c1 = (front_m() + u_chunk - 1) / u_chunk;
    float s = 0.0;
    for (int c = (u_k + 1) / u_chunk; c < c1; ++c)
        s += texelFetch(PART, ivec2(x, c), 0).r;
    result = s;
}
