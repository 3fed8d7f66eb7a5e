#version 430
// method="blocked", the INTERLEAVED variant of blocked_adat.frag: copies an RGBA
// operand (texel (K, i) = A(i, 4K..4K+3), times d(4K..4K+3) when u_scale = 1) into a
// storage buffer in block-interleaved order: element (K, i) goes to
//     ((K * u_blk + i % u_blk) * u_nblk + i / u_blk),
// so the u_blk rows one fragment of blocked_adat reads at step K lie u_nblk apart and
// the same row of neighbouring fragments (i / u_blk = 0, 1, 2, ...) lies side by side:
// one warp's load at one step touches one or two cache lines instead of one per fragment.
uniform sampler2D A;
uniform sampler2D d;
uniform int u_scale;
uniform int u_blk;
uniform int u_nblk;
layout(std430, binding = 3) writeonly buffer OutBuf { vec4 out_buf[]; };

void main() {
    ivec2 at = ivec2(gl_FragCoord.xy);
    vec4 v = texelFetch(A, at, 0);
    if (u_scale == 1) v *= texelFetch(d, ivec2(at.x, 0), 0);
    int i = at.y;
    out_buf[(at.x * u_blk + i % u_blk) * u_nblk + i / u_blk] = v;
}
