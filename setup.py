"""The one C extension, the chat classifier's n-gram scores (models/chat/_ngram.c); everything else
about the package is in pyproject.toml. Optional: without a compiler the install still succeeds
and models/chat/features.py computes the same numbers in numpy."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("models.chat._ngram", ["models/chat/_ngram.c"], extra_compile_args=["-O3"], optional=True)
    ]
)
