#version 430
// method="compute": dst = diag(s) src for an m x n matrix (the LP's rows scaled on the
// GPU each iteration, A itself uploaded once).  LOW: src and s come as float32 pairs
// (hi + lo, the float64 values to ~2^-48) and the product is rounded once, as the host's
// float64 product rounded to float32 would be -- the LP's late iterations are that
// sensitive (finnis stalls on the twice-rounded product).  hi * hi is made exact by
// Dekker's product (Veltkamp's split; fma() may round twice: llvmpipe's does), and
// `precise` keeps the compiler from fusing or reordering it.
layout(local_size_x = 16, local_size_y = 16) in;
layout(std430, binding = 0) readonly buffer SBuf { float src[]; };
layout(std430, binding = 1) writeonly buffer DBuf { float dst[]; };
layout(std430, binding = 2) readonly buffer VBuf { float s[]; };     // s_hi (m), then s_lo (m) with LOW
#ifdef LOW
layout(std430, binding = 3) readonly buffer LBuf { float lo[]; };    // src's low parts, same layout
#endif
uniform int u_rows;
uniform int u_cols;
uniform int u_lds;
uniform int u_ldd;

void main() {
    int j = int(gl_GlobalInvocationID.x), i = int(gl_GlobalInvocationID.y);
    if (i >= u_rows || j >= u_cols) return;
    float a = src[i * u_lds + j];
#ifdef LOW
    float b = s[i];
    precise float ta = 4097.0 * a, ah = ta - (ta - a), al = a - ah;
    precise float tb = 4097.0 * b, bh = tb - (tb - b), bl = b - bh;
    precise float p = a * b;
    precise float e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;       // a b = p + e exactly
    precise float r = p + (e + (a * s[u_rows + i] + lo[i * u_lds + j] * b));
    dst[i * u_ldd + j] = r;
#else
    dst[i * u_ldd + j] = s[i] * a;
#endif
}
