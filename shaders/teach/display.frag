#version 330
// Not a paper kernel: shows a matrix texture in the demo window.  Values map to
// a viridis-like colour ramp between u_lo and u_hi; texels that received a
// fragment in the pass shown (u_mask = 1) get an orange frame.
uniform sampler2D values;
uniform sampler2D mask;
uniform float u_lo;
uniform float u_hi;
noperspective in vec3 t0;   // texel coordinates
out vec4 colour;

vec3 ramp(float s) {
    vec3 a = vec3(0.267, 0.005, 0.329), b = vec3(0.128, 0.567, 0.551), c = vec3(0.993, 0.906, 0.144);
    return s < 0.5 ? mix(a, b, s * 2.0) : mix(b, c, s * 2.0 - 1.0);
}

void main() {
    ivec2 at = ivec2(t0.xy);
    float v = texelFetch(values, at, 0).r;
    float s = clamp((v - u_lo) / max(u_hi - u_lo, 1e-20), 0.0, 1.0);
    vec3 c = (v == v) ? ramp(s) : vec3(1.0, 0.0, 1.0);      // NaN shows magenta
    vec2 f = fract(t0.xy);
    bool edge = min(min(f.x, f.y), min(1.0 - f.x, 1.0 - f.y)) < 0.08;
    if (texelFetch(mask, at, 0).r > 0.5 && edge) c = vec3(1.0, 0.55, 0.0);
    else if (edge) c *= 0.6;                                  // texel grid
    colour = vec4(c, 1.0);
}
