"""The teaching tools: see, pass by pass, which fragments each triangle creates.

runs    small recorded runs of the papers' algorithms, and the trace printout
counts  fragment, byte and draw counts of every kernel (2006 paper, Table 1)
demo    a PNG per pass, GIFs and index.html (`glgpgpu demo`)
sparse  the sparse QR's pictures on that page: the tree of fronts, a staircase, one draw
        across a round of fronts
window  the same, interactively, in a glfw window (`glgpgpu demo --window`)
web     the runs replayed in WebGL2 in a browser (`glgpgpu demo --web`)
"""
