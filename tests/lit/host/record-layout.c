// The record offsets the host pass emits (checked in o0-pair.ll: fields at
// 0, 8, 20, 32, 40, 48, 56, 64, 68, 72, records 80 bytes apart; the site's
// fields at 0, 8, 16, 20, 24, 32, 40, 48, 56, its scratch table's entries 24 bytes
// and its field table's 16) are the C layout of include/kfuse/rt.h on x86-64.
// RUN: clang --target=x86_64-pc-linux-gnu -std=c11 -fsyntax-only -Xclang -verify -I %kfuse_src_root/include %s
// expected-no-diagnostics
#include <stddef.h>
#include "kfuse/rt.h"

_Static_assert(offsetof(kf_launch_t, func) == 0, "func");
_Static_assert(offsetof(kf_launch_t, grid) == 8, "grid");
_Static_assert(offsetof(kf_launch_t, block) == 20, "block");
_Static_assert(offsetof(kf_launch_t, shmem) == 32, "shmem");
_Static_assert(offsetof(kf_launch_t, stream) == 40, "stream");
_Static_assert(offsetof(kf_launch_t, args) == 48, "args");
_Static_assert(offsetof(kf_launch_t, arg_sizes) == 56, "arg_sizes");
_Static_assert(offsetof(kf_launch_t, nargs) == 64, "nargs");
_Static_assert(offsetof(kf_launch_t, rerun) == 68, "rerun");
_Static_assert(offsetof(kf_launch_t, dead) == 72, "dead");
_Static_assert(sizeof(kf_launch_t) == 80, "record stride");
_Static_assert(_Alignof(kf_launch_t) == 8, "record alignment");

_Static_assert(offsetof(kf_site_t, where) == 0, "where");
_Static_assert(offsetof(kf_site_t, cache) == 8, "cache");
_Static_assert(offsetof(kf_site_t, nlaunches) == 16, "nlaunches");
_Static_assert(offsetof(kf_site_t, nscratch) == 20, "nscratch");
_Static_assert(offsetof(kf_site_t, scratch) == 24, "scratch");
_Static_assert(offsetof(kf_site_t, manifest) == 32, "manifest");
_Static_assert(offsetof(kf_site_t, anchor) == 40, "anchor");
_Static_assert(offsetof(kf_site_t, nfields) == 48, "nfields");
_Static_assert(offsetof(kf_site_t, fields) == 56, "fields");
_Static_assert(sizeof(kf_site_t) == 64, "site size");
_Static_assert(offsetof(kf_scratch_decl_t, launch) == 0, "launch");
_Static_assert(offsetof(kf_scratch_decl_t, param) == 4, "param");
_Static_assert(offsetof(kf_scratch_decl_t, name) == 8, "name");
_Static_assert(offsetof(kf_scratch_decl_t, at) == 16, "at");
_Static_assert(sizeof(kf_scratch_decl_t) == 24, "scratch entry size");
_Static_assert(offsetof(kf_field_ptr_t, launch) == 0, "field launch");
_Static_assert(offsetof(kf_field_ptr_t, param) == 4, "field param");
_Static_assert(offsetof(kf_field_ptr_t, byte) == 8, "field byte");
_Static_assert(offsetof(kf_field_ptr_t, fate) == 12, "field fate");
_Static_assert(sizeof(kf_field_ptr_t) == 16, "field entry size");
