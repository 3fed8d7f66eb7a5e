#version 330
// Not a paper kernel: writes the interpolated texture coordinates a fragment
// received (T0 to the first target, T1 to the second), so the web demo can show,
// for a texel under the pointer, where its kernel fetched from.
noperspective in vec3 t0;
noperspective in vec3 t1;
layout(location = 0) out vec4 coord0;
layout(location = 1) out vec4 coord1;

void main() {
    coord0 = vec4(t0, 1.0);
    coord1 = vec4(t1, 1.0);
}
