/* Reading the manifest out of a CUDA fatbinary: fatbinary -> cubin (a CUDA
 * ELF, executable or, under -fgpu-rdc, relocatable) -> symbol table -> the
 * bytes of the manifest symbol (__kfuse_manifest_<key>). The host pass does
 * this with the fatbinary or cubin clang embeds in the host module; every
 * length and offset is checked against the bytes given, nothing is
 * decompressed. */
#ifndef KFUSE_MANIFEST_FATBIN_H
#define KFUSE_MANIFEST_FATBIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Magic of a fatbinary's header (the data, not the wrapper clang puts
 * around it). */
#define KF__FATBIN_MAGIC 0xBA55ED50u
/** Entry kinds. */
#define KF__FATBIN_PTX 1u
#define KF__FATBIN_ELF 2u
/** Entry flags that mark a compressed payload (fatbinary --compress-mode
 * speed and the zstd modes). */
#define KF__FATBIN_COMPRESSED 0xA000u
/** The most cubins kf__fatbin_images() reads from one fatbinary. */
#define KF__FATBIN_MAX_IMAGES 64u

/** One entry of a fatbinary. */
typedef struct kf__fatbin_entry {
  uint16_t kind;    /**< KF__FATBIN_PTX, KF__FATBIN_ELF or another kind */
  uint32_t arch;    /**< 90 for sm_90 */
  uint64_t flags;
  int compressed;   /**< nonzero: the payload is compressed */
  const unsigned char *data; /**< the payload as stored, inside the fatbinary */
  size_t size;      /**< its bytes (the entry's padded payload size) */
} kf__fatbin_entry_t;

/**
 * Reads the fatbinary entry at @p *pos of the @p len bytes at @p fb.
 * @param pos 0 for the first entry; advanced past the entry read.
 * @param why receives a one-line reason on error (@p whylen bytes, may be 0).
 * @returns 1 and the entry in @p e; 0 after the last entry; KF_EPARSE when
 * the bytes are not a fatbinary or an entry runs past them; KF_EVERSION for
 * a header of another version.
 */
int kf__fatbin_next(const unsigned char *fb, size_t len, size_t *pos, kf__fatbin_entry_t *e, char *why,
                    size_t whylen);

/** One symbol of a cubin. */
typedef struct kf__elf_symbol {
  const char *name;            /**< NUL terminated, inside the cubin */
  unsigned type;               /**< STT_*: 1 object, 2 function */
  int defined;                 /**< nonzero unless undefined (SHN_UNDEF) */
  const unsigned char *data;   /**< its bytes in the cubin; NULL when none (no bits, absolute) */
  uint64_t size;               /**< st_size */
} kf__elf_symbol_t;

/** Called for each symbol; nonzero stops the walk and is returned. */
typedef int (*kf__elf_symbol_fn)(void *ctx, const kf__elf_symbol_t *sym);

/**
 * Calls @p fn for every symbol of the symbol table of the CUDA ELF (64-bit,
 * little-endian, EM_CUDA) of @p len bytes at @p elf, in table order.
 * @returns 0; what @p fn returned when nonzero; KF_EPARSE (with @p why) for
 * anything malformed: a header, section or symbol that lies outside the
 * bytes, a name without its NUL, no symbol table; KF_ENOTSUP for an ELF of
 * another class, byte order or machine.
 */
int kf__cubin_symbols(const unsigned char *elf, size_t len, kf__elf_symbol_fn fn, void *ctx, char *why,
                      size_t whylen);

/** One cubin of a fatbinary. */
typedef struct kf__fatbin_image {
  uint32_t arch;
  const unsigned char *elf;
  size_t elf_size;
  /** The bytes of the manifest symbol asked for (text, NUL terminated or
   * not); NULL when the cubin defines none, which means it has no fused
   * kernel of that translation unit. */
  const char *manifest;
  size_t manifest_len;
  /** The first other symbol the cubin defines whose name starts with
   * KF__MANIFEST_PREFIX (another translation unit's manifest, or this one's
   * under another key); NULL when none. */
  const char *other;
} kf__fatbin_image_t;

/**
 * Reads one cubin (@p len bytes at @p elf) as kf__fatbin_images() reads
 * each: its manifest symbol @p symbol and the first other manifest.
 * @returns 0 and @p img (arch @p arch); KF_EPARSE or KF_ENOTSUP (with
 * @p why) as kf__cubin_symbols(), or KF_EPARSE when the symbol has no bytes.
 */
int kf__cubin_image(const unsigned char *elf, size_t len, uint32_t arch, const char *symbol,
                    kf__fatbin_image_t *img, char *why, size_t whylen);

/**
 * Finds every cubin of a fatbinary and the manifest @p symbol in each (see
 * kf__cubin_image()). PTX entries
 * are passed over (the runtime reads the manifest of the module the driver
 * loaded, which is a cubin wherever one fits the device).
 * @param out receives up to @p max images, in fatbinary order.
 * @returns 0 and their count in @p n; KF_ENOTSUP (with @p why) for a
 * compressed cubin, a cubin the reader does not know, or a fatbinary
 * without any cubin; KF_EPARSE for malformed or truncated bytes; KF_ERANGE
 * for more than @p max cubins.
 */
int kf__fatbin_images(const unsigned char *fb, size_t len, const char *symbol, kf__fatbin_image_t *out,
                      unsigned max, unsigned *n, char *why, size_t whylen);

#ifdef __cplusplus
}
#endif
#endif
