#version 430
// method="blocked": four consecutive entries of an n x 1 column vector into one
// RGBA texel of a ceil(n/4) x 1 row (e.g. D^2 for blocked_adat); past n, zero.
uniform sampler2D S;
uniform int u_len;
out vec4 result;

void main() {
    int k = 4 * int(gl_FragCoord.x);
    vec4 v = vec4(0.0);
    for (int c = 0; c < 4; ++c)
        if (k + c < u_len) v[c] = texelFetch(S, ivec2(0, k + c), 0).r;
    result = v;
}
