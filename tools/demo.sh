#!/bin/sh
# make demo: placeholder until the examples exist.
echo "kfuse demo: build dir $1"
