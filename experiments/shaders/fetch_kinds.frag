#version 430
// Benchmark only (benchmarks/fetch_kinds.py): bytes per second through the texture
// units and through the load/store path, by kind of fetch, the data in cache (a
// 64 x 64 texture or its 64 KiB copy in a storage buffer), u_iters fetches per
// fragment.  Default: one RGBA32F texel (16 bytes) by texelFetch, as fetch_loop.frag.
uniform sampler2D T;
uniform int u_iters;
layout(std430, binding = 1) readonly buffer B { vec4 buf[]; };
out float result;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec4 acc = vec4(0.0);
    for (int i = 0; i < u_iters; ++i) {
        ivec2 q = ivec2((p.x + i) & 63, (p.y + 7 * i) & 63);
#if defined(GATHER)
        acc += textureGather(T, (vec2(q) + 1.0) / 64.0);      // four R32F texels, 16 bytes
#elif defined(R32F_FETCH)
        acc.x += texelFetch(T, q, 0).r;                        // one R32F texel, 4 bytes
#elif defined(SSBO)
        acc += buf[q.y * 64 + q.x];                            // 16 bytes, neighbours adjacent
#elif defined(SSBO_ROW_SHARED)
        acc += buf[(p.y & 63) * 64 + (i & 63)];                // 16 bytes, one address per fragment row
#else
        acc += texelFetch(T, q, 0);                            // one RGBA32F texel, 16 bytes
#endif
    }
    result = dot(acc, vec4(1.0));
}
