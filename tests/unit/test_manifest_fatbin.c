/* The fatbinary and cubin reader (manifest/fatbin.c) on fatbinaries built
 * here byte by byte: well-formed ones with one or several cubins, PTX
 * entries and manifests, then compressed, foreign, truncated, corrupted and
 * randomly mutated ones, which must give an error and never read outside
 * the bytes (run under KFUSE_SANITIZE to check the latter). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kfuse/error.h"
#include "manifest/fatbin.h"
#include "manifest/manifest.h"

#define MANIFEST "kfuse-manifest 1\ngroup f 2\nkernel 0 _Z1av 0\nkernel 1 _Z1bv 0\nlaunch 0 0 0\nend\n"

typedef struct buf {
  unsigned char b[8192];
  size_t n;
} buf_t;

static void put(buf_t *o, size_t at, uint64_t v, int bytes)
{
  for (int i = 0; i < bytes; i++)
    o->b[at + (size_t)i] = (unsigned char)(v >> (8 * i));
}

static size_t append(buf_t *o, const void *p, size_t n)
{
  size_t at = o->n;
  assert_true(o->n + n <= sizeof o->b);
  if (p != NULL)
    memcpy(o->b + o->n, p, n);
  else
    memset(o->b + o->n, 0, n);
  o->n += n;
  return at;
}

/* What a test cubin holds. */
typedef struct cubin_spec {
  const char *manifest;  /* NULL: no SYMBOL */
  int manifest_nobits;   /* the manifest in a NOBITS section */
  uint64_t sh_addr;      /* address of .nv.global.init (an executable's) */
  int rel;               /* ET_REL instead of ET_EXEC */
} cubin_spec_t;

/* Offsets a corruption test pokes at. */
typedef struct cubin_layout {
  size_t shoff, symtab_sh, strtab_sh, data_sh, symoff, manifest_sym;
} cubin_layout_t;

/* The manifest symbol of the test cubins: a translation unit's. */
#define SYMBOL "__kfuse_manifest_0123456789abcdef"

/* A CUDA ELF: sections null, .strtab, .symtab, .nv.global.init, .text._Z1av;
 * symbols null, _Z1av (function), _Z1bv (undefined), SYMBOL. */
static void make_cubin(buf_t *o, const cubin_spec_t *spec, cubin_layout_t *lay)
{
  static const char strtab[] = "\0.strtab\0.symtab\0.nv.global.init\0.text._Z1av\0_Z1av\0_Z1bv\0" SYMBOL;
  const size_t n_strtab = sizeof strtab, name_a = 45, name_b = 51, name_m = 57;
  size_t str_at, sym_at, data_at, text_at, sh_at, at, mlen = spec->manifest ? strlen(spec->manifest) + 1 : 0;
  cubin_layout_t l;
  o->n = 0;
  append(o, NULL, 64);
  memcpy(o->b, "\177ELF", 4);
  o->b[4] = 2;
  o->b[5] = 1;
  o->b[6] = 1;
  put(o, 16, spec->rel ? 1 : 2, 2);
  put(o, 18, 190, 2);
  str_at = append(o, strtab, n_strtab);
  while (o->n % 8)
    append(o, NULL, 1);
  sym_at = append(o, NULL, 24); /* the null symbol */
  at = append(o, NULL, 24);
  put(o, at, name_a, 4);
  o->b[at + 4] = 0x12; /* global function */
  put(o, at + 6, 4, 2);
  put(o, at + 16, 16, 8);
  at = append(o, NULL, 24);
  put(o, at, name_b, 4);
  o->b[at + 4] = 0x12; /* undefined */
  l.manifest_sym = 0;
  if (spec->manifest) {
    at = append(o, NULL, 24);
    l.manifest_sym = at;
    put(o, at, name_m, 4);
    o->b[at + 4] = 0x11; /* global object */
    put(o, at + 6, 3, 2);
    put(o, at + 8, spec->sh_addr + 8, 8); /* 8 bytes into its section */
    put(o, at + 16, mlen, 8);
  }
  data_at = append(o, NULL, 8);
  if (spec->manifest)
    append(o, spec->manifest, mlen);
  text_at = append(o, NULL, 16);
  while (o->n % 8)
    append(o, NULL, 1);
  sh_at = append(o, NULL, 5 * 64);
  /* .strtab */
  put(o, sh_at + 64 + 0, 1, 4);
  put(o, sh_at + 64 + 4, 3, 4);
  put(o, sh_at + 64 + 24, str_at, 8);
  put(o, sh_at + 64 + 32, n_strtab, 8);
  /* .symtab */
  put(o, sh_at + 128 + 0, 9, 4);
  put(o, sh_at + 128 + 4, 2, 4);
  put(o, sh_at + 128 + 24, sym_at, 8);
  put(o, sh_at + 128 + 32, data_at - sym_at, 8);
  put(o, sh_at + 128 + 40, 1, 4);
  put(o, sh_at + 128 + 56, 24, 8);
  /* .nv.global.init */
  put(o, sh_at + 192 + 0, 17, 4);
  put(o, sh_at + 192 + 4, spec->manifest_nobits ? 8 : 1, 4);
  put(o, sh_at + 192 + 16, spec->sh_addr, 8);
  put(o, sh_at + 192 + 24, data_at, 8);
  put(o, sh_at + 192 + 32, text_at - data_at, 8);
  /* .text._Z1av */
  put(o, sh_at + 256 + 0, 33, 4);
  put(o, sh_at + 256 + 4, 1, 4);
  put(o, sh_at + 256 + 24, text_at, 8);
  put(o, sh_at + 256 + 32, 16, 8);
  put(o, 40, sh_at, 8);
  put(o, 58, 64, 2);
  put(o, 60, 5, 2);
  put(o, 62, 1, 2);
  l.shoff = sh_at;
  l.strtab_sh = sh_at + 64;
  l.symtab_sh = sh_at + 128;
  l.data_sh = sh_at + 192;
  l.symoff = sym_at;
  if (lay != NULL)
    *lay = l;
}

/* One fatbinary entry. */
typedef struct entry_spec {
  unsigned kind, arch;
  uint64_t flags, uncompressed;
  const buf_t *payload;
  unsigned header; /* entry header size; 0: 64 */
} entry_spec_t;

static void make_fatbin(buf_t *o, const entry_spec_t *e, int n)
{
  o->n = 0;
  append(o, NULL, 16);
  put(o, 0, KF__FATBIN_MAGIC, 4);
  put(o, 4, 1, 2);
  put(o, 6, 16, 2);
  for (int i = 0; i < n; i++) {
    unsigned hs = e[i].header ? e[i].header : 64;
    size_t pad = (e[i].payload->n + 7) / 8 * 8;
    size_t at = append(o, NULL, hs);
    put(o, at, e[i].kind, 2);
    put(o, at + 2, 0x101, 2);
    put(o, at + 4, hs, 4);
    put(o, at + 8, pad, 8);
    put(o, at + 28, e[i].arch, 4);
    put(o, at + 40, e[i].flags ? e[i].flags : 0x11, 8);
    if (hs >= 64)
      put(o, at + 56, e[i].uncompressed, 8);
    append(o, e[i].payload->b, e[i].payload->n);
    append(o, NULL, pad - e[i].payload->n);
  }
  put(o, 8, o->n - 16, 8);
}

static buf_t cubin, ptx, fb;
static char why[256];

static void one_cubin(const char *manifest)
{
  cubin_spec_t spec = {manifest, 0, 0, 0};
  entry_spec_t e = {KF__FATBIN_ELF, 90, 0, 0, &cubin, 0};
  make_cubin(&cubin, &spec, NULL);
  make_fatbin(&fb, &e, 1);
}

static int images(kf__fatbin_image_t *img, unsigned max, unsigned *n)
{
  why[0] = '\0';
  return kf__fatbin_images(fb.b, fb.n, SYMBOL, img, max, n, why, sizeof why);
}

static void test_one_cubin(void **state)
{
  kf__fatbin_image_t img[4];
  kf__manifest_t *m = NULL;
  unsigned n;
  (void)state;
  one_cubin(MANIFEST);
  assert_int_equal(images(img, 4, &n), 0);
  assert_int_equal(n, 1);
  assert_int_equal(img[0].arch, 90);
  assert_non_null(img[0].manifest);
  assert_int_equal(img[0].manifest_len, strlen(MANIFEST) + 1);
  assert_memory_equal(img[0].manifest, MANIFEST, strlen(MANIFEST) + 1);
  assert_int_equal(kf__manifest_parse(img[0].manifest, img[0].manifest_len, &m, NULL), 0);
  assert_int_equal(m->ngroups, 1);
  kf__manifest_free(m);
}

static void test_no_manifest(void **state)
{
  kf__fatbin_image_t img[4];
  unsigned n;
  (void)state;
  one_cubin(NULL);
  assert_int_equal(images(img, 4, &n), 0);
  assert_int_equal(n, 1);
  assert_null(img[0].manifest);
}

/* Another translation unit's key: its manifest is not this one's, and the
 * reader names it (the host pass's diagnosis of keys that differ); a
 * relocatable cubin read alone, as the new offload driver embeds it. */
static void test_other_key(void **state)
{
  cubin_spec_t rel = {MANIFEST, 0, 0, 1};
  kf__fatbin_image_t img[1];
  unsigned n;
  (void)state;
  make_cubin(&cubin, &rel, NULL);
  entry_spec_t e = {KF__FATBIN_ELF, 90, 0, 0, &cubin, 0};
  make_fatbin(&fb, &e, 1);
  assert_int_equal(kf__fatbin_images(fb.b, fb.n, "__kfuse_manifest_fedcba9876543210", img, 1, &n, why, sizeof why), 0);
  assert_int_equal(n, 1);
  assert_null(img[0].manifest);
  assert_string_equal(img[0].other, SYMBOL);
  assert_int_equal(kf__cubin_image(cubin.b, cubin.n, 80, SYMBOL, &img[0], why, sizeof why), 0);
  assert_int_equal(img[0].arch, 80);
  assert_null(img[0].other);
  assert_memory_equal(img[0].manifest, MANIFEST, strlen(MANIFEST) + 1);
  /* The name without a key is not the keyed one. */
  assert_int_equal(kf__cubin_image(cubin.b, cubin.n, 90, NULL, &img[0], why, sizeof why), 0);
  assert_null(img[0].manifest);
  assert_string_equal(img[0].other, SYMBOL);
  assert_true(kf__cubin_image(fb.b, fb.n, 90, SYMBOL, &img[0], why, sizeof why) < 0);
}

/* An executable's symbol values are addresses, a relocatable file's offsets. */
static void test_addresses_and_offsets(void **state)
{
  cubin_spec_t exe = {MANIFEST, 0, 0x1000, 0}, rel = {MANIFEST, 0, 0, 1};
  entry_spec_t e = {KF__FATBIN_ELF, 90, 0, 0, &cubin, 0};
  kf__fatbin_image_t img[1];
  unsigned n;
  (void)state;
  make_cubin(&cubin, &exe, NULL);
  make_fatbin(&fb, &e, 1);
  assert_int_equal(images(img, 1, &n), 0);
  assert_memory_equal(img[0].manifest, MANIFEST, strlen(MANIFEST));
  make_cubin(&cubin, &rel, NULL);
  make_fatbin(&fb, &e, 1);
  assert_int_equal(images(img, 1, &n), 0);
  assert_memory_equal(img[0].manifest, MANIFEST, strlen(MANIFEST));
}

static void test_several_entries(void **state)
{
  static buf_t cubin80;
  cubin_spec_t s90 = {MANIFEST, 0, 0, 0}, s80 = {NULL, 0, 0, 0};
  entry_spec_t e[3] = {{KF__FATBIN_PTX, 90, 0x8011, 4000, &ptx, 80},
                       {KF__FATBIN_ELF, 80, 0, 0, &cubin80, 0},
                       {KF__FATBIN_ELF, 90, 0, 0, &cubin, 0}};
  kf__fatbin_image_t img[4];
  kf__fatbin_entry_t entry;
  size_t pos = 0;
  unsigned n, kinds = 0;
  (void)state;
  ptx.n = 0;
  append(&ptx, ".version 8.8\n", 13);
  make_cubin(&cubin, &s90, NULL);
  make_cubin(&cubin80, &s80, NULL);
  make_fatbin(&fb, e, 3);
  while (kf__fatbin_next(fb.b, fb.n, &pos, &entry, why, sizeof why) == 1)
    kinds = kinds * 10 + entry.kind;
  assert_int_equal(kinds, 122);
  assert_int_equal(images(img, 4, &n), 0);
  assert_int_equal(n, 2);
  assert_int_equal(img[0].arch, 80);
  assert_null(img[0].manifest);
  assert_int_equal(img[1].arch, 90);
  assert_non_null(img[1].manifest);
  /* More cubins than the caller has room for. */
  assert_int_equal(images(img, 1, &n), KF_ERANGE);
}

static void test_ptx_only_and_empty(void **state)
{
  entry_spec_t e = {KF__FATBIN_PTX, 90, 0x11, 0, &ptx, 0};
  kf__fatbin_image_t img[1];
  unsigned n;
  (void)state;
  ptx.n = 0;
  append(&ptx, ".version 8.8\n", 13);
  make_fatbin(&fb, &e, 1);
  assert_int_equal(images(img, 1, &n), KF_ENOTSUP);
  assert_non_null(strstr(why, "no cubin"));
  make_fatbin(&fb, &e, 0);
  assert_int_equal(images(img, 1, &n), KF_ENOTSUP);
  assert_non_null(strstr(why, "empty"));
}

static void test_compressed(void **state)
{
  static const struct {
    uint64_t flags, uncompressed;
  } cases[] = {{0x8011, 11360}, {0x2011, 11360}, {0x11, 11360}, {0x8011, 0}};
  kf__fatbin_image_t img[1];
  unsigned n;
  (void)state;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cubin_spec_t spec = {MANIFEST, 0, 0, 0};
    entry_spec_t e = {KF__FATBIN_ELF, 90, cases[i].flags, cases[i].uncompressed, &cubin, 0};
    make_cubin(&cubin, &spec, NULL);
    make_fatbin(&fb, &e, 1);
    assert_int_equal(images(img, 1, &n), KF_ENOTSUP);
    assert_string_equal(why, "the sm_90 cubin of the fatbinary is compressed");
  }
}

static void test_bad_headers(void **state)
{
  kf__fatbin_image_t img[1];
  unsigned n;
  (void)state;
  one_cubin(MANIFEST);
  fb.b[0] ^= 1;
  assert_int_equal(images(img, 1, &n), KF_EPARSE);
  assert_non_null(strstr(why, "not a fatbinary"));
  one_cubin(MANIFEST);
  put(&fb, 4, 2, 2);
  assert_int_equal(images(img, 1, &n), KF_EVERSION);
  /* Sizes that wrap around or run past the bytes. */
  one_cubin(MANIFEST);
  put(&fb, 8, UINT64_MAX, 8);
  assert_int_equal(images(img, 1, &n), KF_EPARSE);
  one_cubin(MANIFEST);
  put(&fb, 16 + 8, UINT64_MAX - 8, 8);
  assert_int_equal(images(img, 1, &n), KF_EPARSE);
  assert_non_null(strstr(why, "truncated"));
  one_cubin(MANIFEST);
  put(&fb, 16 + 4, 8, 4); /* an entry header too short to hold its flags */
  assert_int_equal(images(img, 1, &n), KF_EPARSE);
  one_cubin(MANIFEST);
  put(&fb, 16, 7, 2); /* an entry of unknown kind */
  assert_int_equal(images(img, 1, &n), KF_ENOTSUP);
  assert_int_equal(kf__fatbin_images(NULL, 0, SYMBOL, img, 1, &n, NULL, 0), KF_EPARSE);
}

/* Writes @p v of @p bytes at @p off of the cubin, rebuilds the fatbinary and
 * returns what the reader says. */
static int poke(size_t off, uint64_t v, int bytes)
{
  cubin_spec_t spec = {MANIFEST, 0, 0, 0};
  entry_spec_t e = {KF__FATBIN_ELF, 90, 0, 0, &cubin, 0};
  kf__fatbin_image_t img[1];
  cubin_layout_t l;
  unsigned n;
  make_cubin(&cubin, &spec, &l);
  put(&cubin, off, v, bytes);
  make_fatbin(&fb, &e, 1);
  return images(img, 1, &n);
}

static void test_bad_cubins(void **state)
{
  cubin_spec_t spec = {MANIFEST, 0, 0, 0};
  cubin_layout_t l;
  (void)state;
  make_cubin(&cubin, &spec, &l);
  assert_int_equal(poke(0, 0, 1), KF_EPARSE);                 /* ELF magic */
  assert_int_equal(poke(4, 1, 1), KF_ENOTSUP);                /* 32-bit */
  assert_int_equal(poke(5, 2, 1), KF_ENOTSUP);                /* big-endian */
  assert_int_equal(poke(18, 62, 2), KF_ENOTSUP);              /* x86-64 */
  assert_non_null(strstr(why, "machine 62"));
  assert_int_equal(poke(58, 40, 2), KF_EPARSE);               /* section header size */
  assert_int_equal(poke(40, UINT64_MAX - 100, 8), KF_EPARSE); /* section headers far away */
  assert_int_equal(poke(60, 0xffff, 2), KF_EPARSE);           /* too many sections */
  assert_int_equal(poke(60, 0, 2), KF_EPARSE);                /* no sections: no symbol table */
  assert_int_equal(poke(l.symtab_sh + 4, 1, 4), KF_EPARSE);   /* no symbol table */
  assert_non_null(strstr(why, "no symbol table"));
  assert_int_equal(poke(l.symtab_sh + 56, 16, 8), KF_EPARSE); /* symbol size */
  assert_int_equal(poke(l.symtab_sh + 32, 1 << 20, 8), KF_EPARSE);
  assert_int_equal(poke(l.symtab_sh + 40, 0, 4), KF_EPARSE);  /* string table index */
  assert_int_equal(poke(l.symtab_sh + 40, 99, 4), KF_EPARSE);
  assert_int_equal(poke(l.strtab_sh + 32, 10, 8), KF_EPARSE); /* names lose their NUL */
  assert_int_equal(poke(l.strtab_sh + 24, UINT64_MAX, 8), KF_EPARSE);
  assert_int_equal(poke(l.manifest_sym, 5000, 4), KF_EPARSE); /* name offset */
  assert_int_equal(poke(l.manifest_sym + 6, 77, 2), KF_EPARSE);            /* section index */
  assert_int_equal(poke(l.manifest_sym + 8, UINT64_MAX, 8), KF_EPARSE);    /* value */
  assert_int_equal(poke(l.manifest_sym + 16, UINT64_MAX, 8), KF_EPARSE);   /* size */
  assert_int_equal(poke(l.manifest_sym + 16, 1 << 16, 8), KF_EPARSE);
  assert_non_null(strstr(why, "outside its section"));
  assert_int_equal(poke(l.data_sh + 24, UINT64_MAX - 4, 8), KF_EPARSE);    /* section bytes */
  assert_int_equal(poke(l.data_sh + 24, cubin.n - 4, 8), KF_EPARSE);
  assert_int_equal(poke(l.manifest_sym + 16, 0, 8), KF_EPARSE);            /* no bytes */
  assert_non_null(strstr(why, "has no bytes"));
  /* The manifest in a section without bits. */
  {
    cubin_spec_t nobits = {MANIFEST, 1, 0, 0};
    entry_spec_t e = {KF__FATBIN_ELF, 90, 0, 0, &cubin, 0};
    kf__fatbin_image_t img[1];
    unsigned n;
    make_cubin(&cubin, &nobits, NULL);
    make_fatbin(&fb, &e, 1);
    assert_int_equal(images(img, 1, &n), KF_EPARSE);
  }
}

/* Every proper prefix of a well-formed fatbinary is an error. */
static void test_truncated(void **state)
{
  kf__fatbin_image_t img[1];
  unsigned n;
  size_t full;
  unsigned char *copy;
  (void)state;
  one_cubin(MANIFEST);
  full = fb.n;
  for (size_t len = 0; len < full; len++) {
    copy = malloc(len ? len : 1); /* exactly len bytes, for the sanitizers */
    assert_non_null(copy);
    memcpy(copy, fb.b, len);
    assert_true(kf__fatbin_images(copy, len, SYMBOL, img, 1, &n, why, sizeof why) < 0);
    free(copy);
  }
}

/* Random bytes changed: the reader answers, within the bytes. */
static void test_mutations(void **state)
{
  buf_t good;
  uint64_t x = 0x9E3779B97F4A7C15u;
  kf__fatbin_image_t img[4];
  unsigned n, ok = 0;
  (void)state;
  one_cubin(MANIFEST);
  good = fb;
  for (int iter = 0; iter < 20000; iter++) {
    unsigned char *copy = malloc(good.n);
    int flips = 1 + iter % 4;
    assert_non_null(copy);
    memcpy(copy, good.b, good.n);
    for (int f = 0; f < flips; f++) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      copy[x % good.n] = (unsigned char)(x >> 32);
    }
    if (kf__fatbin_images(copy, good.n, SYMBOL, img, 4, &n, why, sizeof why) == 0) {
      ok++;
      for (unsigned i = 0; i < n; i++)
        if (img[i].manifest != NULL)
          assert_true((const unsigned char *)img[i].manifest >= copy &&
                      (const unsigned char *)img[i].manifest + img[i].manifest_len <= copy + good.n);
    }
    free(copy);
  }
  assert_true(ok > 0); /* most flips land in bytes no reader looks at */
}

typedef struct walk {
  char names[256];
  unsigned functions;
} walk_t;

static int walk_one(void *ctx, const kf__elf_symbol_t *sym)
{
  walk_t *w = ctx;
  size_t len = strlen(w->names);
  snprintf(w->names + len, sizeof w->names - len, "%s%s%s", len ? "," : "", sym->name, sym->defined ? "" : "?");
  w->functions += sym->type == 2 && sym->defined;
  return strcmp(sym->name, "_Z1bv") == 0 ? 7 : 0;
}

static void test_symbol_walk(void **state)
{
  cubin_spec_t spec = {MANIFEST, 0, 0, 0};
  walk_t w;
  (void)state;
  make_cubin(&cubin, &spec, NULL);
  memset(&w, 0, sizeof w);
  /* The walk stops where the callback says so, with its answer. */
  assert_int_equal(kf__cubin_symbols(cubin.b, cubin.n, walk_one, &w, why, sizeof why), 7);
  assert_string_equal(w.names, "?,_Z1av,_Z1bv?");
  assert_int_equal(w.functions, 1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_one_cubin),
    cmocka_unit_test(test_no_manifest),
    cmocka_unit_test(test_addresses_and_offsets),
    cmocka_unit_test(test_other_key),
    cmocka_unit_test(test_several_entries),
    cmocka_unit_test(test_ptx_only_and_empty),
    cmocka_unit_test(test_compressed),
    cmocka_unit_test(test_bad_headers),
    cmocka_unit_test(test_bad_cubins),
    cmocka_unit_test(test_truncated),
    cmocka_unit_test(test_mutations),
    cmocka_unit_test(test_symbol_walk),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
