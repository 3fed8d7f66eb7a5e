#version 330
// Benchmark only: the texture-fetch ceiling of the fragment pipeline for RGBA32F
// texels that sit in cache (a 64 x 64 texture), u_iters fetches per fragment.
// Together with fma_loop.frag it says how many multiply-adds a blocked kernel
// must do per fetch to be arithmetic-bound.
uniform sampler2D T;
uniform int u_iters;
out float result;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec4 acc = vec4(0.0);
    for (int i = 0; i < u_iters; ++i)
        acc += texelFetch(T, ivec2((p.x + i) & 63, (p.y + 7 * i) & 63), 0);
    result = dot(acc, vec4(1.0));
}
