#version 330
// Beyond the papers: A D A^T by points (glgpgpu/figures/points.py).  Each point is
// one nonzero pair (i, k) of one column j of A, drawn on C(i, k)'s texel with
// additive blending, so the target accumulates s_i s_k d_j a_ij a_kj over j.
// T0 = (a_ij, a_kj, j); T1 = (i + .5, k + .5, RGBA component of C(i, k)).
// Formed as (a_ij r_j s_i)(a_kj r_j s_k), r = sqrt(d): with s scaling C's diagonal
// to one each factor is at most 1, so no partial product leaves float32's range.
uniform sampler2D r;     // sqrt(d_j), row-wrapped u_width to a row
uniform sampler2D s;     // 1 x m: the rows' scaling
uniform int u_width;
noperspective in vec3 t0;
noperspective in vec3 t1;
out vec4 result;

void main() {
    int j = int(t0.z);
    float rj = texelFetch(r, ivec2(j % u_width, j / u_width), 0).r;
    float u = t0.x * rj * texelFetch(s, ivec2(t1.x, 0), 0).r;
    float w = t0.y * rj * texelFetch(s, ivec2(t1.y, 0), 0).r;
    result = (u * w) * vec4(equal(vec4(t1.z), vec4(0.0, 1.0, 2.0, 3.0)));
}
