"""`python -m glgpgpu.cli ...` is the `glgpgpu` command."""
import sys

from . import main

sys.exit(main())
