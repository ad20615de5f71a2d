#!/usr/bin/env python3
"""Runs a generator and compares its output with the committed file."""
import subprocess, sys
gen, committed = sys.argv[1], sys.argv[2]
out = subprocess.run([gen], check=True, capture_output=True, text=True).stdout
have = open(committed).read()
if out != have:
    print(f"{committed} is stale: regenerate it with {gen} > {committed}")
    sys.exit(1)
print(f"{committed}: current ({len(have)} bytes)")
