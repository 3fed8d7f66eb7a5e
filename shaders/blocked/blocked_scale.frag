#version 330
// method="blocked": A D in blocked RGBA storage, texel (K, i) = A(i, 4K..4K+3) * d(4K..4K+3),
// once before blocked_adat, so its inner loop fetches one texel fewer per step.
uniform sampler2D A;
uniform sampler2D d;
out vec4 result;

void main() {
    ivec2 at = ivec2(gl_FragCoord.xy);
    result = texelFetch(A, at, 0) * texelFetch(d, ivec2(at.x, 0), 0);
}
