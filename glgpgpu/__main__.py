"""`python -m glgpgpu ...` is the `glgpgpu` command."""
import sys

from .cli import main

sys.exit(main())
