#version 330
// Sparse QR by drawing (Yeralan et al. 2015, section 3.3.1, S-assembly): one point
// per nonzero of A on its front's texel (glgpgpu/figures/fronts.py), added into the
// cleared atlas -- in an RGBA atlas a texel's four columns may come from four points.
// T0 = (the entry, already scaled by its front's power of two; its component).
noperspective in vec3 t0;
out vec4 result;

void main() {
    result = t0.x * vec4(equal(vec4(floor(t0.y + 0.5)), vec4(0.0, 1.0, 2.0, 3.0)));
}
