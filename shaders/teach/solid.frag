#version 330
// Not a paper kernel: one flat colour, for the outline of the drawn triangles
// in the demo window.
uniform vec4 u_colour;
out vec4 colour;

void main() {
    colour = u_colour;
}
