#!/usr/bin/env bash
# Negative control of tests/meson.build's "device scripts parse": an unclosed if, which bash -n must refuse.
if true; then
  echo never
