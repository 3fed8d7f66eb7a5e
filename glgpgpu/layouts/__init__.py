"""Storage layouts: where element (i, j) of a matrix sits in a texture.

triangle  full and rectangular packed formats (2008 paper, section 3.3, Fig. 3), pack/unpack
rgba      the blocked path's RGBA texels and blocked packed format
staircase the rows a QR panel reaches on a sparse front's staircase

Pure index arithmetic in numpy: no GL, no context (moving matrices between
numpy and textures in these layouts is gl/transfer.py).
"""
from .rgba import expand_blocks, packed_block_shape, padded, to_rgba, unpack_blocks
from .triangle import FullLayout, PackedLayout, layout_for, pack, packed_shape, unpack

__all__ = ["FullLayout", "PackedLayout", "layout_for", "pack", "packed_shape", "unpack",
           "expand_blocks", "packed_block_shape", "padded", "to_rgba", "unpack_blocks"]
