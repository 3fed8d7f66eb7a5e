#version 330
// Sparse QR by drawing: a front's contribution block copied out of its texture into
// the one where it waits for its parent (glgpgpu/figures/fronts.py, copy_rects),
// whole texels; T0 = the source texel, interpolated.
uniform sampler2D S;
noperspective in vec3 t0;
out vec4 result;

void main() {
    result = texelFetch(S, ivec2(t0.xy), 0);
}
