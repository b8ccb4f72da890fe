#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# nvcc behind libtool: libtool passes gcc's PIC flags, which nvcc rejects;
# hand them to the host compiler instead. Usage: nvcc-libtool.sh NVCC ARGS
nvcc=$1
shift
for a in "$@"; do
    shift
    case $a in
        -fPIC|-fpic|-fno-common) set -- "$@" "-Xcompiler=$a" ;;
        *) set -- "$@" "$a" ;;
    esac
done
exec "$nvcc" "$@"
