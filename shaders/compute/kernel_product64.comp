#version 430
#extension GL_ARB_gpu_shader_fp64 : require
// method="compute", the LS-SVM's float64 residuals: Y[i, c] += sum_j k(x_i, x_j) Z[j, c]
// over the columns j0 <= j < j1, the kernel matrix never stored: each entry is made from X
// in float64 as it is used (squared distances summed directly for rbf, exp64 below), so
// H z - rhs is exact to float64 rounding while the float32 factor only preconditions.
// One thread a row; the host splits the columns so one invocation's loop stays within
// llvmpipe's 65,535 iterations (KernelProducts.TERMS) and adds the chunks in order.
layout(local_size_x = 64) in;
// NVIDIA keeps run-time-indexed private doubles in float32 (real.glsl): KCOLS is a
// compile-time constant and every loop over it unrolled, the accumulators named per column.
#pragma optionNV(unroll all)
layout(std430, binding = 0) readonly buffer XBuf { double x[]; };   // N x d, row stride u_ldx
layout(std430, binding = 1) readonly buffer ZBuf { double z[]; };   // N x KCOLS, row stride u_ldz
layout(std430, binding = 2) buffer YBuf { double y[]; };            // rows x KCOLS, row stride u_ldz
#ifdef ROWS
// prediction: the rows i are other points T (u_n x d, stride u_ldx), the columns j X's
layout(std430, binding = 3) readonly buffer TBuf { double tx[]; };
#define XI(i, f) tx[(i) * u_ldx + (f)]
#else
#define XI(i, f) x[(i) * u_ldx + (f)]
#endif
uniform int u_n;          // rows i
uniform int u_d;
uniform int u_ldx;
uniform int u_ldz;
uniform int u_j0;
uniform int u_j1;
uniform int u_kind;          // 0 linear, 1 poly, 2 rbf (compute/dense.py's KERNELS)
uniform int u_degree;
// gamma and coef0 as three floats each (hi + mid + lo, 72 bits): a float uniform would
// round them to float32
uniform vec3 u_gamma;
uniform vec3 u_coef0;
double wide(vec3 v) { return (double(v.x) + double(v.y)) + double(v.z); }

// e^t in float64 (GLSL's exp is float only, and its double division only float-accurate):
// t = k ln2 + r, |r| <= ln2 / 2, e^r by its Taylor series to r^14 / 14! (< 4e-18
// relative) in Horner's form with the reciprocals as constants, times 2^k.
double exp64(double t) {
    if (t < -745.0lf) return 0.0lf;
    double k = floor(t * 1.4426950408889634lf + 0.5lf);
    double r = fma(-k, 6.93147180369123816490e-01lf, t);      // ln2's high part: k ln2_hi exact
    r = fma(-k, 1.90821492927058770002e-10lf, r);
    double p = 1.0lf;
    p = fma(p * r, 0.07142857142857142lf, 1.0lf);
    p = fma(p * r, 0.07692307692307693lf, 1.0lf);
    p = fma(p * r, 0.08333333333333333lf, 1.0lf);
    p = fma(p * r, 0.09090909090909091lf, 1.0lf);
    p = fma(p * r, 0.1lf, 1.0lf);
    p = fma(p * r, 0.1111111111111111lf, 1.0lf);
    p = fma(p * r, 0.125lf, 1.0lf);
    p = fma(p * r, 0.14285714285714285lf, 1.0lf);
    p = fma(p * r, 0.16666666666666666lf, 1.0lf);
    p = fma(p * r, 0.2lf, 1.0lf);
    p = fma(p * r, 0.25lf, 1.0lf);
    p = fma(p * r, 0.3333333333333333lf, 1.0lf);
    p = fma(p * r, 0.5lf, 1.0lf);
    p = fma(p * r, 1.0lf, 1.0lf);
    return ldexp(p, int(k));
}

double kern(int i, int j) {
    double s = 0.0lf;
    if (u_kind == 2) {
        for (int f = 0; f < u_d; ++f) {
            double dv = XI(i, f) - x[j * u_ldx + f];
            s = fma(dv, dv, s);
        }
        double g = wide(u_gamma);
        return exp64(-g * s);
    }
    for (int f = 0; f < u_d; ++f) s = fma(XI(i, f), x[j * u_ldx + f], s);
    if (u_kind == 0) return s;
    double base = fma(wide(u_gamma), s, wide(u_coef0));
    double pw = 1.0lf;
    for (int e = 0; e < u_degree; ++e) pw *= base;
    return pw;
}

void main() {
    int i = int(gl_GlobalInvocationID.x);
    if (i >= u_n) return;
    double acc[KCOLS];
    for (int c = 0; c < KCOLS; ++c) acc[c] = 0.0lf;
    for (int j = u_j0; j < u_j1; ++j) {            // columns: X's points
        double kij = kern(i, j);
        for (int c = 0; c < KCOLS; ++c) acc[c] = fma(kij, z[j * u_ldz + c], acc[c]);
    }
    for (int c = 0; c < KCOLS; ++c) y[i * u_ldz + c] += acc[c];
}
