#version 330
// Inner-product subtraction (Jung 2006, Algorithm 1 and Fig. 3(c)): column c = k+1
// is brought up to date in one pass, L(r, c) = L(r, c) - sum_{l < c} L(r, l) L(c, l),
// a dynamic loop of c multiply-adds per fragment.  T1 carries the matrix indices
// (c + .5, r + .5), so the same kernel runs on the full and the packed layout.
// All reads come from the other ping-pong texture (see cholesky.py).
#include "lower_texel.glsl"
uniform sampler2D L;
noperspective in vec3 t1;
out float result;

void main() {
    int c = int(t1.x);
    int r = int(t1.y);
    float acc = texelFetch(L, lower_texel(r, c), 0).r;
    for (int l = 0; l < c; ++l)
        acc -= texelFetch(L, lower_texel(r, l), 0).r * texelFetch(L, lower_texel(c, l), 0).r;
    result = acc;
}
