#version 430
// Benchmark only: the compute stage's arithmetic ceiling -- fma_loop.frag's loop (16
// independent multiply-add chains per trip, 32 flops) in a compute shader, so the two
// stages are compared on the same arithmetic.
layout(local_size_x = 256) in;
layout(std430, binding = 0) writeonly buffer OBuf { float o[]; };
uniform int u_iters;

void main() {
    vec4 a = vec4(float(gl_GlobalInvocationID.x)) * 1e-8;
    vec4 b = a + 0.25, c = a + 0.5, d = a + 0.75;
    const vec4 s = vec4(0.9999, 0.9998, 0.9997, 0.9996);
    const vec4 t = vec4(1e-4);
    for (int i = 0; i < u_iters; ++i) {
        a = a * s + t; b = b * s + t; c = c * s + t; d = d * s + t;
    }
    o[gl_GlobalInvocationID.x] = dot(a + b + c + d, vec4(1.0));
}
