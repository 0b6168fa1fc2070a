"""The chat classifier's two C extensions: its n-gram scores (models/chat/_ngram.c) and its word
tokens (models/chat/_tokens.c); everything else about the package is in pyproject.toml. Both are
optional: without a compiler the install still succeeds, and features.py / tokens.py compute the
same results in numpy / with regexes."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("models.chat._ngram", ["models/chat/_ngram.c"], extra_compile_args=["-O3"], optional=True),
        Extension("models.chat._tokens", ["models/chat/_tokens.c"], extra_compile_args=["-O3"], optional=True),
    ]
)
