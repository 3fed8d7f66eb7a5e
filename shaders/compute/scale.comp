#version 430
// method="compute": M *= u_s in place for an m x n float32 matrix at row stride u_ld, with
// u_s a power of two (exact, barring flushed subnormals): the QR's input brought to size
// about 1 on the GPU instead of in a pass over a host copy.  UPPER: only the upper
// trapezoid (j >= i: R of a QR in geqrf's layout, its reflectors below left as they are).
layout(local_size_x = 16, local_size_y = 16) in;
layout(std430, binding = 0) buffer MBuf { float a[]; };
uniform int u_rows;
uniform int u_cols;
uniform int u_ld;
uniform float u_s;

void main() {
    int j = int(gl_GlobalInvocationID.x), i = int(gl_GlobalInvocationID.y);
    if (i >= u_rows || j >= u_cols) return;
#ifdef UPPER
    if (j < i) return;
#endif
    a[i * u_ld + j] *= u_s;
}
