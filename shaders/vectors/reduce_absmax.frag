#version 330
// Abs-max reduction (the infinity norm). Level-1 kernel of Jung 2006, section 4.2.
float identity() { return 0.0; }
float combine(float a, float b) { return max(a, abs(b)); }
#include "reduce_pass.glsl"
