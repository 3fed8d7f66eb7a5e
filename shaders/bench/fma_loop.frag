#version 330
// Benchmark only: the fragment pipeline's arithmetic ceiling.  Sixteen
// independent multiply-add chains (four vec4) per loop trip, so a fragment does
// 16 * u_iters FMAs (32 * u_iters flops) and fetches nothing.
uniform int u_iters;
out float result;

void main() {
    vec4 a = vec4(gl_FragCoord.xyxy) * 1e-4;
    vec4 b = a + 0.25, c = a + 0.5, d = a + 0.75;
    const vec4 s = vec4(0.9999, 0.9998, 0.9997, 0.9996);
    const vec4 t = vec4(1e-4);
    for (int i = 0; i < u_iters; ++i) {
        a = a * s + t; b = b * s + t; c = c * s + t; d = d * s + t;
    }
    result = dot(a + b + c + d, vec4(1.0));
}
