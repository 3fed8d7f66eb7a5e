#version 330
// Max reduction (smax). Level-1 kernel of Jung 2006, section 4.2.
float identity() { return -3.4e38; }
float combine(float a, float b) { return max(a, b); }
#include "reduce_pass.glsl"
