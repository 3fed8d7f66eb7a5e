#version 430
#extension GL_ARB_gpu_shader_fp64 : require
// method="compute", the LS-SVM's float64 residuals: P[part, i, c] = sum_j k(x_i, x_j) Z[j, c]
// over chunk `part` of the columns j0 <= j < j1 (u_step columns a chunk), the kernel matrix
// never stored: each entry is made from X in float64 as it is used (squared distances summed
// directly for rbf, exp64 below), so H z - rhs is exact to float64 rounding while the float32
// factor only preconditions.  One thread a row, workgroup row y a chunk of columns: rows x
// chunks fill the chip where one thread a row over all columns left most of it idle; the
// chunks' slabs are then added in order (sum_slabs.comp).  The host keeps one invocation's
// loop within llvmpipe's 65,535 iterations (KernelProducts.TERMS).
layout(local_size_x = 64) in;
// NVIDIA keeps run-time-indexed private doubles in float32 (real.glsl): KCOLS is a
// compile-time constant and every loop over it unrolled, the accumulators named per column.
#pragma optionNV(unroll all)
#define FP64 1
#include "real.glsl"
layout(std430, binding = 0) readonly buffer XBuf { double x[]; };   // N x d, row stride u_ldx
layout(std430, binding = 1) readonly buffer ZBuf { double z[]; };   // N x KCOLS, row stride u_ldz
layout(std430, binding = 2) writeonly buffer PBuf { double y[]; };  // chunks x rows x KCOLS, row stride u_ldz
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
uniform int u_step;       // columns a chunk
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

#ifdef D
// D features (a compile-time constant, u_d == D): the row's point held in registers once
// (PRIV: NVIDIA keeps a run-time-indexed private array of doubles in float32)
PRIV xi[D];
#define NF D
#define XF(i, f) FROM_PRIV(xi[f])
#else
#define NF u_d
#define XF(i, f) XI(i, f)
#endif

double kern(int i, int j) {
    double s = 0.0lf;
    if (u_kind == 2) {
        for (int f = 0; f < NF; ++f) {
            double dv = XF(i, f) - x[j * u_ldx + f];
            s = fma(dv, dv, s);
        }
        double g = wide(u_gamma);
        return exp64(-g * s);
    }
    for (int f = 0; f < NF; ++f) s = fma(XF(i, f), x[j * u_ldx + f], s);
    if (u_kind == 0) return s;
    double base = fma(wide(u_gamma), s, wide(u_coef0));
    double pw = 1.0lf;
    for (int e = 0; e < u_degree; ++e) pw *= base;
    return pw;
}

void main() {
    int i = int(gl_GlobalInvocationID.x);
    if (i >= u_n) return;
    int part = int(gl_WorkGroupID.y);
    int j0 = u_j0 + part * u_step, j1 = min(u_j1, j0 + u_step);
#ifdef D
    for (int f = 0; f < D; ++f) xi[f] = TO_PRIV(XI(i, f));
#endif
    double acc[KCOLS];
    for (int c = 0; c < KCOLS; ++c) acc[c] = 0.0lf;
    for (int j = j0; j < j1; ++j) {                // columns: X's points
        double kij = kern(i, j);
        for (int c = 0; c < KCOLS; ++c) acc[c] = fma(kij, z[j * u_ldz + c], acc[c]);
    }
    for (int c = 0; c < KCOLS; ++c) y[(part * u_n + i) * u_ldz + c] = acc[c];
}
