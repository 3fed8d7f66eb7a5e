"""The teaching tools: see, pass by pass, which fragments each triangle creates.

runs    small recorded runs of the papers' algorithms, and the trace printout
counts  fragment, byte and draw counts of every kernel (2006 paper, Table 1)
demo    a PNG per pass, GIFs and index.html (`glgpgpu demo`)
window  the same, interactively, in a glfw window (`glgpgpu demo --window`)
"""
