"""The optional C extension of gojax: the native CPU kernels of the rules and the feature planes (gojax/_native).

Everything else is in pyproject.toml. ``rules.c`` and ``kernels.c`` (the kernels) and ``ffi.c``
(their XLA FFI handlers) are plain C11, compiled against the header of XLA's C
FFI API that jaxlib ships (``jaxlib/include``; jaxlib is a build requirement).
The extension is optional: without a C compiler, or without jaxlib's headers,
the install goes on and the features run their XLA code.
"""

import importlib.util
import os

from setuptools import Extension, setup


def _jaxlib_include() -> list[str]:
    """jaxlib's include directory (found without importing jaxlib), or none."""
    spec = importlib.util.find_spec("jaxlib")
    for root in (spec.submodule_search_locations or []) if spec else []:
        include = os.path.join(root, "include")
        if os.path.isfile(os.path.join(include, "xla", "ffi", "api", "c_api.h")):
            return [include]
    return []


setup(
    ext_modules=[
        Extension(
            "gojax._native._kernels",
            sources=[
                "gojax/_native/kernels.c",
                "gojax/_native/rules.c",
                "gojax/_native/playouts.c",
                "gojax/_native/ffi.c",
            ],
            depends=["gojax/_native/kernels.h"],
            include_dirs=_jaxlib_include(),
            extra_compile_args=["-O3", "-std=c11", "-pthread"],
            extra_link_args=["-pthread"],
            optional=True,
        )
    ]
)
