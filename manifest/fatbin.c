/* A bounded reader of the two containers the manifest travels in to the
 * host compilation: the fatbinary and the cubins (CUDA ELF) inside it. All
 * fields are read byte by byte in little-endian order, every offset and
 * length is checked against the bytes at hand before use, and nothing is
 * decompressed, so malformed input can only produce an error. */
#include "manifest/fatbin.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kfuse/error.h"
#include "manifest/manifest.h"

/* Fatbinary header: magic u32, version u16, header size u16, size of the
 * entries u64. Entry header: kind u16, version u16, header size u32,
 * payload size u64, compressed size u32, u32, minor u16, major u16, arch
 * u32, name offset u32, name size u32, flags u64, u64, uncompressed size
 * u64; the payload follows the entry header. */
#define KF__FATBIN_HEADER 16u
#define KF__FATBIN_ENTRY_MIN 48u /* up to and including the flags */
#define KF__FATBIN_ENTRY_FULL 64u

/* ELF64: the fields kf__cubin_symbols reads. */
#define KF__ELF_HEADER 64u
#define KF__ELF_SHDR 64u
#define KF__ELF_SYM 24u
#define KF__EM_CUDA 190u
#define KF__SHT_SYMTAB 2u
#define KF__SHT_NOBITS 8u
#define KF__SHN_UNDEF 0u
#define KF__SHN_LORESERVE 0xff00u
#define KF__SHN_XINDEX 0xffffu
#define KF__ET_REL 1u
/* Far above any cubin, low enough that a corrupt count is caught early. */
#define KF__ELF_MAX_SECTIONS (1u << 20)

static uint16_t kf__u16(const unsigned char *p)
{
  return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static uint32_t kf__u32(const unsigned char *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t kf__u64(const unsigned char *p)
{
  return (uint64_t)kf__u32(p) | (uint64_t)kf__u32(p + 4) << 32;
}

/* Nonzero when [off, off + size) lies within @p len bytes. */
static int kf__within(uint64_t off, uint64_t size, size_t len)
{
  return off <= len && size <= len - off;
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int kf__fail(int rc, char *why, size_t whylen, const char *fmt, ...)
{
  va_list ap;
  if (why != NULL && whylen > 0) {
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
  }
  return rc;
}

int kf__fatbin_next(const unsigned char *fb, size_t len, size_t *pos, kf__fatbin_entry_t *e, char *why,
                    size_t whylen)
{
  uint64_t end, hsize, psize;
  size_t at = *pos;
  const unsigned char *h;
  if (fb == NULL || len < KF__FATBIN_HEADER)
    return kf__fail(KF_EPARSE, why, whylen, "%zu bytes are too few for a fatbinary header", fb ? len : 0);
  if (kf__u32(fb) != KF__FATBIN_MAGIC)
    return kf__fail(KF_EPARSE, why, whylen, "not a fatbinary (magic 0x%08x)", (unsigned)kf__u32(fb));
  if (kf__u16(fb + 4) != 1)
    return kf__fail(KF_EVERSION, why, whylen, "fatbinary version %u (kfuse reads version 1)",
                    (unsigned)kf__u16(fb + 4));
  hsize = kf__u16(fb + 6);
  if (hsize < KF__FATBIN_HEADER || !kf__within(hsize, kf__u64(fb + 8), len))
    return kf__fail(KF_EPARSE, why, whylen, "truncated fatbinary: its header announces %llu bytes, %zu are there",
                    (unsigned long long)hsize + (unsigned long long)kf__u64(fb + 8), len);
  end = hsize + kf__u64(fb + 8);
  if (at == 0)
    at = (size_t)hsize;
  if (at >= end)
    return 0;
  if (!kf__within(at, KF__FATBIN_ENTRY_MIN, (size_t)end))
    return kf__fail(KF_EPARSE, why, whylen, "truncated fatbinary: entry header at byte %zu", at);
  h = fb + at;
  hsize = kf__u32(h + 4);
  psize = kf__u64(h + 8);
  if (hsize < KF__FATBIN_ENTRY_MIN || !kf__within(at, hsize, (size_t)end) ||
      !kf__within(at + hsize, psize, (size_t)end))
    return kf__fail(KF_EPARSE, why, whylen,
                    "truncated fatbinary: the entry at byte %zu announces %llu + %llu bytes, %llu are there", at,
                    (unsigned long long)hsize, (unsigned long long)psize, (unsigned long long)(end - at));
  e->kind = kf__u16(h);
  e->arch = kf__u32(h + 28);
  e->flags = kf__u64(h + 40);
  e->compressed = (e->flags & KF__FATBIN_COMPRESSED) != 0 ||
                  (hsize >= KF__FATBIN_ENTRY_FULL && kf__u64(h + 56) != 0);
  e->data = h + hsize;
  e->size = (size_t)psize;
  *pos = at + (size_t)hsize + (size_t)psize;
  return 1;
}

int kf__cubin_symbols(const unsigned char *elf, size_t len, kf__elf_symbol_fn fn, void *ctx, char *why,
                      size_t whylen)
{
  uint64_t shoff, symoff, symsize, stroff, strsize;
  uint32_t shnum, symtab = 0, strndx, nsyms;
  const unsigned char *sh;
  int rel;
  if (elf == NULL || len < KF__ELF_HEADER || memcmp(elf, "\177ELF", 4) != 0)
    return kf__fail(KF_EPARSE, why, whylen, "not an ELF file");
  if (elf[4] != 2 || elf[5] != 1 || kf__u16(elf + 18) != KF__EM_CUDA)
    return kf__fail(KF_ENOTSUP, why, whylen, "not a 64-bit little-endian CUDA ELF (class %u, data %u, machine %u)",
                    (unsigned)elf[4], (unsigned)elf[5], (unsigned)kf__u16(elf + 18));
  rel = kf__u16(elf + 16) == KF__ET_REL;
  shoff = kf__u64(elf + 40);
  shnum = kf__u16(elf + 60);
  if (kf__u16(elf + 58) != KF__ELF_SHDR)
    return kf__fail(KF_EPARSE, why, whylen, "ELF section headers of %u bytes", (unsigned)kf__u16(elf + 58));
  /* More than SHN_LORESERVE sections: the count is section 0's size. */
  if (shnum == 0 && shoff != 0 && kf__within(shoff, KF__ELF_SHDR, len))
    shnum = kf__u64(elf + shoff + 32) > KF__ELF_MAX_SECTIONS ? KF__ELF_MAX_SECTIONS + 1
                                                              : (uint32_t)kf__u64(elf + shoff + 32);
  if (shnum > KF__ELF_MAX_SECTIONS || !kf__within(shoff, (uint64_t)shnum * KF__ELF_SHDR, len))
    return kf__fail(KF_EPARSE, why, whylen, "ELF section headers (%u at byte %llu) outside the %zu bytes", shnum,
                    (unsigned long long)shoff, len);
  for (uint32_t i = 0; i < shnum && symtab == 0; i++)
    if (kf__u32(elf + shoff + (uint64_t)i * KF__ELF_SHDR + 4) == KF__SHT_SYMTAB)
      symtab = i;
  if (symtab == 0)
    return kf__fail(KF_EPARSE, why, whylen, "the ELF has no symbol table");
  sh = elf + shoff + (uint64_t)symtab * KF__ELF_SHDR;
  symoff = kf__u64(sh + 24);
  symsize = kf__u64(sh + 32);
  strndx = kf__u32(sh + 40);
  if (kf__u64(sh + 56) != KF__ELF_SYM || symsize % KF__ELF_SYM != 0 || !kf__within(symoff, symsize, len) ||
      strndx == 0 || strndx >= shnum)
    return kf__fail(KF_EPARSE, why, whylen, "malformed ELF symbol table");
  sh = elf + shoff + (uint64_t)strndx * KF__ELF_SHDR;
  stroff = kf__u64(sh + 24);
  strsize = kf__u64(sh + 32);
  if (!kf__within(stroff, strsize, len) || strsize == 0 || elf[stroff + strsize - 1] != '\0')
    return kf__fail(KF_EPARSE, why, whylen, "malformed ELF string table");
  nsyms = (uint32_t)(symsize / KF__ELF_SYM);
  for (uint32_t i = 0; i < nsyms; i++) {
    const unsigned char *s = elf + symoff + (uint64_t)i * KF__ELF_SYM;
    uint32_t name = kf__u32(s);
    uint32_t shndx = kf__u16(s + 6);
    uint64_t value = kf__u64(s + 8);
    kf__elf_symbol_t sym;
    int rc;
    if (name >= strsize)
      return kf__fail(KF_EPARSE, why, whylen, "ELF symbol %u: name outside the string table", i);
    sym.name = (const char *)elf + stroff + name;
    sym.type = s[4] & 0xfu;
    sym.defined = shndx != KF__SHN_UNDEF;
    sym.size = kf__u64(s + 16);
    sym.data = NULL;
    if (sym.defined && shndx < KF__SHN_LORESERVE) {
      uint64_t off, addr;
      if (shndx >= shnum)
        return kf__fail(KF_EPARSE, why, whylen, "ELF symbol '%s': section %u of %u", sym.name, shndx, shnum);
      sh = elf + shoff + (uint64_t)shndx * KF__ELF_SHDR;
      /* A relocatable file's symbol values are offsets into the section;
       * an executable's are addresses. */
      addr = rel ? 0 : kf__u64(sh + 16);
      off = value - addr;
      if (value < addr || off > kf__u64(sh + 32) || sym.size > kf__u64(sh + 32) - off)
        return kf__fail(KF_EPARSE, why, whylen, "ELF symbol '%s' lies outside its section", sym.name);
      if (kf__u32(sh + 4) != KF__SHT_NOBITS) {
        uint64_t start = kf__u64(sh + 24);
        if (start > len || !kf__within(off, sym.size, len - (size_t)start))
          return kf__fail(KF_EPARSE, why, whylen, "ELF symbol '%s': its bytes lie outside the file", sym.name);
        sym.data = elf + start + off;
      }
    } else if (shndx == KF__SHN_XINDEX) {
      sym.defined = 1; /* the index is in SHT_SYMTAB_SHNDX; cubins do not use it */
    }
    if ((rc = fn(ctx, &sym)) != 0)
      return rc;
  }
  return 0;
}

/* What kf__take_manifest found in one cubin. */
typedef struct kf__manifest_hit {
  kf__fatbin_image_t *img;
  const char *symbol;
  int empty; /* the symbol is there without bytes */
} kf__manifest_hit_t;

/* Records the manifest's bytes in the image of @p ctx (a kf__manifest_hit_t),
 * and the first other manifest symbol. */
static int kf__take_manifest(void *ctx, const kf__elf_symbol_t *sym)
{
  kf__manifest_hit_t *hit = ctx;
  if (!sym->defined)
    return 0;
  if (strcmp(sym->name, hit->symbol) != 0) {
    if (hit->img->other == NULL && strncmp(sym->name, KF__MANIFEST_PREFIX, strlen(KF__MANIFEST_PREFIX)) == 0)
      hit->img->other = sym->name;
    return 0;
  }
  if (sym->data == NULL || sym->size == 0)
    hit->empty = 1;
  hit->img->manifest = (const char *)sym->data;
  hit->img->manifest_len = (size_t)sym->size;
  return 0;
}

int kf__cubin_image(const unsigned char *elf, size_t len, uint32_t arch, const char *symbol,
                    kf__fatbin_image_t *img, char *why, size_t whylen)
{
  kf__manifest_hit_t hit;
  char elfwhy[160];
  int rc;
  memset(img, 0, sizeof *img);
  img->arch = arch;
  img->elf = elf;
  img->elf_size = len;
  hit.img = img;
  hit.symbol = symbol != NULL ? symbol : KF__MANIFEST_SYMBOL;
  hit.empty = 0;
  rc = kf__cubin_symbols(elf, len, kf__take_manifest, &hit, elfwhy, sizeof elfwhy);
  if (rc < 0)
    return kf__fail(rc, why, whylen, "the sm_%u cubin: %s", (unsigned)arch, elfwhy);
  if (hit.empty)
    return kf__fail(KF_EPARSE, why, whylen, "the sm_%u cubin's %s has no bytes", (unsigned)arch, hit.symbol);
  return 0;
}

int kf__fatbin_images(const unsigned char *fb, size_t len, const char *symbol, kf__fatbin_image_t *out,
                      unsigned max, unsigned *n, char *why, size_t whylen)
{
  kf__fatbin_entry_t e;
  size_t pos = 0;
  unsigned entries = 0, ptx = 0;
  int rc;
  *n = 0;
  while ((rc = kf__fatbin_next(fb, len, &pos, &e, why, whylen)) == 1) {
    kf__fatbin_image_t img;
    entries++;
    if (e.kind == KF__FATBIN_PTX) {
      ptx++;
      continue;
    }
    if (e.kind != KF__FATBIN_ELF)
      return kf__fail(KF_ENOTSUP, why, whylen, "fatbinary entry %u is of unknown kind %u", entries - 1,
                      (unsigned)e.kind);
    if (e.compressed)
      return kf__fail(KF_ENOTSUP, why, whylen, "the sm_%u cubin of the fatbinary is compressed", (unsigned)e.arch);
    if (*n == max)
      return kf__fail(KF_ERANGE, why, whylen, "the fatbinary holds more than %u cubins", max);
    if ((rc = kf__cubin_image(e.data, e.size, e.arch, symbol, &img, why, whylen)) < 0)
      return rc;
    out[(*n)++] = img;
  }
  if (rc < 0)
    return rc;
  if (*n == 0 && ptx == 0)
    return kf__fail(KF_ENOTSUP, why, whylen, "the fatbinary is empty");
  if (*n == 0)
    return kf__fail(KF_ENOTSUP, why, whylen, "the fatbinary holds no cubin, only PTX");
  return 0;
}
