#version 330
// Writes one constant into every fragment a geometry generates.  Not a paper
// kernel: the tests and the demo use it to see exactly which texels a
// triangle covers on the real rasterizer.
uniform float u_value;
out float result;

void main() {
    result = u_value;
}
