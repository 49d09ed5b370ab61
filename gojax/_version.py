"""The version of gojax (``gojax.__version__``), written into SGF files and GTP replies."""

__all__ = ["__version__"]

__version__ = "0.1.0"
