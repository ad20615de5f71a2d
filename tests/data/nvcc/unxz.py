#!/usr/bin/env python3
"""Decompresses a .xz file (the nvcc golden vectors are stored compressed)."""
import lzma
import sys

with open(sys.argv[1], 'rb') as src, open(sys.argv[2], 'wb') as dst:
    dst.write(lzma.decompress(src.read()))
