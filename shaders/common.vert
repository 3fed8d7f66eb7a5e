#version 330
// The one vertex shader every kernel shares.  Positions are in pixel units and
// u_proj (an orthographic projection built with pyrr) maps the viewport
// [0, width] x [0, height] exactly onto clip space, so texel (x, y) of the target
// has its centre at (x + .5, y + .5).  The attached texture coordinates T0 and T1
// (or one coordinate triad in T0) pass through unchanged; `noperspective` makes
// the rasterizer interpolate them linearly in screen space, as the papers assume.
uniform mat4 u_proj;
in vec2 in_pos;
in vec3 in_t0;
in vec3 in_t1;
noperspective out vec3 t0;
noperspective out vec3 t1;

void main() {
    t0 = in_t0;
    t1 = in_t1;
    gl_Position = u_proj * vec4(in_pos, 0.0, 1.0);
    gl_PointSize = 1.0;   // a point draw (figures/points.py) covers one texel; WebGL needs it said
}
