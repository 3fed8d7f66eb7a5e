// The kernels' number type: float32, or with FP64 defined float64 (GLSL 4.00's
// double; the compute method's float64 factor).  Uniforms and index arithmetic stay
// float and int; a float meeting a real is made real explicitly (real(0.0), 1.0lf) so
// no expression's type is left to the conversion rules (checked exact on NVIDIA and
// llvmpipe alike: experiments/gl_float64_checks.py, "mixed").
// SET4(v, c, x): v[c] = x for a component c known only at run time (NVIDIA's compiler
// has no such store into a dvec4: "can't find __setVectorIndex").
#ifdef FP64
#define real double
#define real4 dvec4
#define SET4(V_, C_, X_) switch (C_) { case 0: V_.x = (X_); break; case 1: V_.y = (X_); break; case 2: V_.z = (X_); break; default: V_.w = (X_); }
#else
#define real float
#define real4 vec4
#define SET4(V_, C_, X_) V_[C_] = (X_)
#endif
// An NB x NB lower triangle in shared memory, element (i, j <= i) as AT(name, i, j):
// rows padded by one against bank conflicts (float32), or packed by rows (float64:
// 64 x 65 doubles would pass llvmpipe's 32 KiB of shared memory).
#ifdef FP64
#define LOWER_SHARED(name) shared real name[NB * (NB + 1) / 2]
#define AT(name, i, j) name[(i) * ((i) + 1) / 2 + (j)]
#else
#define LOWER_SHARED(name) shared real name[NB][NB + 1]
#define AT(name, i, j) name[i][j]
#endif
// DIV(a, b), SQRT(s): GLSL asks of double division and sqrt only single precision
// (GLSL 4.60, section 4.7.1), and NVIDIA's double division and sqrt are long routines
// (the float64 factor's one-workgroup steps were most of their time).  So in float64 both
// start from float's reciprocal (square root) -- 22-23 bits -- and Newton steps in fma
// (`precise`) take them to double's; numbers beyond float's range take GLSL's operators.
// Float32 keeps its operators.
#ifdef FP64
double DIV(double a, double b) {
    float bf = float(b);
    precise double r = double(1.0 / bf);
    if (bf == 0.0 || isinf(bf) || r == 0.0lf || isinf(r) || isnan(r)) return a / b;
    r = fma(r, fma(-b, r, 1.0lf), r);
    r = fma(r, fma(-b, r, 1.0lf), r);
    precise double q = a * r;
    return fma(r, fma(-b, q, a), q);
}
double SQRT(double s) {
    float sf = float(s);
    if (!(s > 0.0lf) || isinf(s) || !(sf >= 1.17549435e-38) || isinf(sf)) {
        precise double y = sqrt(s);                    // 0, negative, NaN, inf, or beyond float's normal numbers
        if (!(y > 0.0lf) || isinf(y)) return y;
        y = fma(0.5lf * fma(-y, y, s), DIV(1.0lf, y), y);
        return fma(0.5lf * fma(-y, y, s), DIV(1.0lf, y), y);
    }
    precise double h = double(inversesqrt(sf));        // ~ 1 / sqrt(s)
    h = h * fma(-0.5lf * s * h, h, 1.5lf);
    h = h * fma(-0.5lf * s * h, h, 1.5lf);
    precise double y = s * h;                          // sqrt(s), then one step more
    return fma(0.5lf * h, fma(-y, y, s), y);
}
#else
#define DIV(a, b) ((a) / (b))
#define SQRT(s) sqrt(s)
#endif
// PRIV: the element type of a private array indexed at run time.  NVIDIA keeps such an
// array of doubles in float32 (measured: relative errors of 4e-8 to 2e-7), so in
// float64 it holds the doubles' bits (uvec2), moved in and out by TO_PRIV / FROM_PRIV.
#ifdef FP64
#define PRIV uvec2
#define TO_PRIV(x) unpackDouble2x32(x)
#define FROM_PRIV(x) packDouble2x32(x)
#else
#define PRIV real
#define TO_PRIV(x) (x)
#define FROM_PRIV(x) (x)
#endif
