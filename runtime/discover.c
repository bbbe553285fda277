/* First call of a site: host stub -> kernel -> library (or module) ->
 * manifest -> match -> fused kernel handles. Runs once per site (again
 * after a provisional answer during stream capture); the manifests are
 * cached per library/module and manifest symbol under one mutex, which only
 * first calls take. A module may hold several manifests, one per
 * translation unit (-fgpu-rdc links every file's device code into one):
 * each site reads the one its file's key names. */
#include "runtime/discover.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "manifest/match.h"
#include "runtime/capture.h"
#include "runtime/cuda_api.h"
#include "runtime/log.h"

/* A CUDA library (cudaGetKernel path) or module (cudaGetFuncBySymbol
 * path) and what one of its manifests said. */
typedef struct kf__module {
  void *handle;
  int is_library;
  char *symbol; /* the manifest's symbol */
  int status; /* 0, or why there is no usable manifest */
  kf__manifest_t *manifest;
  struct kf__module *next;
} kf__module_t;

static pthread_mutex_t kf__modules_lock = PTHREAD_MUTEX_INITIALIZER;
static kf__module_t *kf__modules;

/* The runtime records failures of its calls for cudaGetLastError(); the
 * discovery's own probing must not leak into what the program sees. Only
 * called when no error of the program's own was pending
 * (kf__error_pending()), so that it clears the probe's alone. */
static void kf__clear_runtime_error(void)
{
  __typeof__(&cudaGetLastError) get = KF__CU(cudaGetLastError);
  if (get != NULL)
    (void)get();
}

/* Whether the program has an error its next cudaGetLastError() would
 * return. A failed probe (cudaGetKernel, cudaGetFuncBySymbol) would replace
 * it, and clearing the probe's would clear it too: discovery waits until
 * no error is pending, and the launches run as written meanwhile. */
static int kf__error_pending(void)
{
  __typeof__(&cudaPeekAtLastError) peek = KF__CU(cudaPeekAtLastError);
  return peek != NULL && peek() != cudaSuccess;
}

/* Copies @p bytes of device memory at @p src to @p dst on a private
 * non-blocking stream and waits for that stream only. cuMemcpyDtoH would
 * run on the legacy stream, which synchronises with every blocking stream:
 * while one of them captures, that is an error that also invalidates the
 * capture. Legal in the relaxed capture mode discovery runs in. */
static CUresult kf__copy_to_host(void *dst, CUdeviceptr src, size_t bytes)
{
  __typeof__(&cuStreamCreate) create = KF__CU(cuStreamCreate);
  __typeof__(&cuStreamDestroy) destroy = KF__CU(cuStreamDestroy);
  __typeof__(&cuMemcpyDtoHAsync) copy = KF__CU(cuMemcpyDtoHAsync);
  __typeof__(&cuStreamSynchronize) sync = KF__CU(cuStreamSynchronize);
  CUstream s = NULL;
  CUresult res;
  if (create == NULL || destroy == NULL || copy == NULL || sync == NULL)
    return CUDA_ERROR_NOT_SUPPORTED;
  if ((res = create(&s, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
    return res;
  res = copy(dst, src, bytes, s);
  if (res == CUDA_SUCCESS)
    res = sync(s);
  (void)destroy(s);
  return res;
}

/* Reads @p mod's manifest. A failed CUDA call sets @p transient when the
 * failure may be the capture's doing (@p capturing, or a capture error code):
 * the caller must then not cache the answer. */
static int kf__read_manifest(kf__module_t *mod, int capturing, int *transient)
{
  __typeof__(&cuLibraryGetGlobal) lib_global = KF__CU(cuLibraryGetGlobal);
  __typeof__(&cuModuleGetGlobal) mod_global = KF__CU(cuModuleGetGlobal);
  CUdeviceptr dptr = 0;
  size_t bytes = 0;
  CUresult res;
  char *text;
  unsigned line = 0;
  int rc;
  *transient = 0;
  if (mod->is_library)
    res = lib_global != NULL ? lib_global(&dptr, &bytes, (CUlibrary)mod->handle, mod->symbol)
                             : CUDA_ERROR_NOT_FOUND;
  else
    res = mod_global != NULL ? mod_global(&dptr, &bytes, (CUmodule)mod->handle, mod->symbol)
                             : CUDA_ERROR_NOT_FOUND;
  if (res != CUDA_SUCCESS) {
    /* NOT_FOUND is an answer; anything else (a lazy load that failed) is
     * an answer only outside capture. */
    *transient = res != CUDA_ERROR_NOT_FOUND && (capturing || kf__capture_error(res));
    kf__log(KF__LOG_INFO, "module %p has no %s (CUresult %d)%s", mod->handle, mod->symbol, (int)res,
            *transient ? " during stream capture: asked again at the next call" : "");
    return KF_ENOENT;
  }
  if (bytes == 0 || bytes > KF__MANIFEST_MAX_BYTES) {
    kf__log(KF__LOG_WARN, "module %p: manifest of %zu bytes ignored", mod->handle, bytes);
    return KF_ERANGE;
  }
  if ((text = malloc(bytes)) == NULL)
    return KF_ENOMEM;
  res = kf__copy_to_host(text, dptr, bytes);
  if (res != CUDA_SUCCESS) {
    *transient = capturing || kf__capture_error(res);
    kf__log(KF__LOG_WARN, "module %p: reading the manifest failed (CUresult %d)%s", mod->handle, (int)res,
            *transient ? " during stream capture: read again at the next call" : "");
    free(text);
    return KF_ECUDA;
  }
  rc = kf__manifest_parse(text, bytes, &mod->manifest, &line);
  free(text);
  if (rc != 0)
    kf__log(KF__LOG_WARN, "module %p: manifest line %u: %s", mod->handle, line, kf_strerror(rc));
  else
    kf__log(KF__LOG_INFO, "module %p: manifest with %u fused kernels", mod->handle, mod->manifest->ngroups);
  return rc;
}

/* The cached manifest @p symbol of module @p handle, read on first sight;
 * NULL without memory or, with @p transient set, when the read failed in a
 * way that must not be cached (kf__read_manifest()). */
static kf__module_t *kf__module_get(void *handle, int is_library, const char *symbol, int capturing,
                                    int *transient)
{
  kf__module_t *mod;
  pthread_mutex_lock(&kf__modules_lock);
  for (mod = kf__modules; mod != NULL; mod = mod->next)
    if (mod->handle == handle && mod->is_library == is_library && strcmp(mod->symbol, symbol) == 0)
      break;
  if (mod == NULL && (mod = calloc(1, sizeof *mod)) != NULL) {
    mod->handle = handle;
    mod->is_library = is_library;
    if ((mod->symbol = kf__strdup(symbol)) == NULL) {
      free(mod);
      pthread_mutex_unlock(&kf__modules_lock);
      return NULL;
    }
    mod->status = kf__read_manifest(mod, capturing, transient);
    if (*transient) {
      kf__manifest_free(mod->manifest);
      free(mod->symbol);
      free(mod);
      mod = NULL;
    } else {
      mod->next = kf__modules;
      kf__modules = mod;
    }
  }
  pthread_mutex_unlock(&kf__modules_lock);
  return mod;
}

void kf__modules_reset(void)
{
  pthread_mutex_lock(&kf__modules_lock);
  while (kf__modules != NULL) {
    kf__module_t *next = kf__modules->next;
    kf__manifest_free(kf__modules->manifest);
    free(kf__modules->symbol);
    free(kf__modules);
    kf__modules = next;
  }
  pthread_mutex_unlock(&kf__modules_lock);
}

/* Finds the kernel name and module of host address @p stub (a launch's
 * stub, or a site's anchor). Primary path (the one checked on the H100,
 * independent of the current context): cudaGetKernel -> cuKernelGetLibrary;
 * fallback: cudaGetFuncBySymbol -> cuFuncGetModule. With @p mod NULL only
 * the name is asked for; else *mod is the module with its manifest
 * @p symbol (kf__module_get()), NULL without memory or, with @p transient
 * set, when its read must be asked again. @returns 0 when the address was
 * identified (*name set), -1 otherwise (*name NULL). */
static int kf__identify(const void *stub, const char *symbol, char **name, kf__module_t **mod,
                        int capturing, int *transient)
{
  __typeof__(&cudaGetKernel) get_kernel = KF__CU(cudaGetKernel);
  __typeof__(&cudaGetFuncBySymbol) get_func = KF__CU(cudaGetFuncBySymbol);
  cudaKernel_t kernel = NULL;
  cudaFunction_t func = NULL;
  const char *s = NULL;
  *name = NULL;
  if (mod != NULL)
    *mod = NULL;
  if (get_kernel != NULL && get_kernel(&kernel, stub) == cudaSuccess) {
    __typeof__(&cuKernelGetLibrary) get_lib = KF__CU(cuKernelGetLibrary);
    __typeof__(&cuKernelGetName) get_name = KF__CU(cuKernelGetName);
    CUlibrary lib = NULL;
    if (get_lib != NULL && get_name != NULL && get_lib(&lib, (CUkernel)kernel) == CUDA_SUCCESS &&
        get_name(&s, (CUkernel)kernel) == CUDA_SUCCESS && s != NULL) {
      if ((*name = kf__strdup(s)) != NULL && mod != NULL)
        *mod = kf__module_get(lib, 1, symbol, capturing, transient);
      return *name != NULL ? 0 : -1;
    }
  } else {
    kf__clear_runtime_error();
  }
  if (get_func != NULL && get_func(&func, stub) == cudaSuccess) {
    __typeof__(&cuFuncGetModule) get_mod = KF__CU(cuFuncGetModule);
    __typeof__(&cuFuncGetName) get_name = KF__CU(cuFuncGetName);
    CUmodule m = NULL;
    if (get_mod != NULL && get_name != NULL && get_mod(&m, (CUfunction)func) == CUDA_SUCCESS &&
        get_name(&s, (CUfunction)func) == CUDA_SUCCESS && s != NULL) {
      if ((*name = kf__strdup(s)) != NULL && mod != NULL)
        *mod = kf__module_get(m, 0, symbol, capturing, transient);
      return *name != NULL ? 0 : -1;
    }
  } else {
    kf__clear_runtime_error();
  }
  kf__log(KF__LOG_INFO, "cannot identify the kernel of host address %p", stub);
  return -1;
}

/* The module of @p site's anchor (kf_site_t.anchor) with the site's
 * manifest, or NULL: no anchor, an anchor the runtime does not know (the
 * launches' own modules are asked then), or a read to ask again
 * (@p transient). */
static kf__module_t *kf__anchor_module(const kf_site_t *site, const char *symbol, int capturing,
                                       int *transient)
{
  kf__module_t *mod = NULL;
  char *name = NULL;
  if (site->anchor == NULL)
    return NULL;
  if (kf__identify(site->anchor, symbol, &name, &mod, capturing, transient) == 0)
    kf__log(KF__LOG_DEBUG, "%s: anchored by %s", site->where ? site->where : "?", name);
  free(name);
  return mod;
}

/* Finishes loading @p f into the current context (CUDA_MODULE_LOADING=LAZY
 * defers it to the first launch), so that a first fused launch inside a
 * stream capture loads nothing. Best effort: a driver without cuFuncLoad
 * (before 12.4) loads at the launch, as for any kernel. */
static void kf__preload(CUfunction f, const char *name)
{
  __typeof__(&cuFuncLoad) load = KF__CU(cuFuncLoad);
  CUresult res;
  if (f != NULL && load != NULL && (res = load(f)) != CUDA_SUCCESS)
    kf__log(KF__LOG_DEBUG, "cuFuncLoad(%s) failed with CUresult %d", name, (int)res);
}

static CUfunction kf__fused_handle(const kf__module_t *mod, const char *name)
{
  if (mod->is_library) {
    __typeof__(&cuLibraryGetKernel) get = KF__CU(cuLibraryGetKernel);
    __typeof__(&cuKernelGetFunction) in_context = KF__CU(cuKernelGetFunction);
    CUkernel k = NULL;
    CUfunction f = NULL;
    if (get == NULL || get(&k, (CUlibrary)mod->handle, name) != CUDA_SUCCESS)
      return NULL;
    if (in_context != NULL && in_context(&f, k) == CUDA_SUCCESS)
      kf__preload(f, name);
    /* A CUkernel may be passed to cuLaunchKernel as a CUfunction; it then
     * runs in the current context, whichever device that is. */
    return (CUfunction)k;
  } else {
    __typeof__(&cuModuleGetFunction) get = KF__CU(cuModuleGetFunction);
    CUfunction f = NULL;
    if (get == NULL || get(&f, (CUmodule)mod->handle, name) != CUDA_SUCCESS)
      return NULL;
    kf__preload(f, name);
    return f;
  }
}

/* Matches @p ids and makes each cover one of @p st's segments. */
static int kf__site_segments(kf__site_state_t *st, const kf__launch_id_t *ids, uint32_t n, const char *where)
{
  kf__cover_t *covers;
  uint32_t ncovers;
  int rc = kf__match(ids, n, st->plan, where, &covers, &ncovers);
  if (rc != 0)
    return rc;
  st->segs = calloc(ncovers ? ncovers : 1, sizeof *st->segs);
  if (st->segs == NULL) {
    free(covers);
    return KF_ENOMEM;
  }
  int any = 0;
  for (uint32_t s = 0; s < ncovers; s++) {
    st->segs[s].first = covers[s].first;
    st->segs[s].count = covers[s].count;
    st->segs[s].group = covers[s].group;
    any |= covers[s].group != NULL;
  }
  st->nsegs = ncovers;
  /* A plan that fuses none of a planned sequence's launches (the last of
   * its k best, say) leaves them unfused by choice: not a `no-match`. */
  st->planned = !any && kf__site_planned(ids, n, st->plan, where);
  free(covers);
  return 0;
}

/* Discovery proper; kf__site_discover() wraps it in the relaxed window. */
static int kf__discover(const kf_site_t *site, const kf_launch_t *l, uint32_t n, uint32_t plan,
                        int capturing, kf__site_state_t **out)
{
  const char *where = site->where;
  const char *symbol = site->manifest != NULL ? site->manifest : KF__MANIFEST_SYMBOL;
  kf__site_state_t *st = calloc(1, sizeof *st);
  kf__launch_id_t *ids = NULL;
  kf__module_t **mods = NULL, *anchor = NULL;
  int any_manifest = 0, transient = 0, rc = KF_ENOMEM;
  *out = NULL;
  if (st == NULL)
    return KF_ENOMEM;
  st->where = where;
  st->n = n;
  st->plan = plan;
  st->whole = KF_FALLBACK_COUNT;
  if (kf__error_pending()) {
    st->retry = 1;
    st->whole = KF_FALLBACK_PENDING;
    kf__log(KF__LOG_INFO, "%s: an error the program has not read is pending: launches run "
                          "unfused, discovery runs again at the next call", where ? where : "?");
    *out = st;
    return 0;
  }
  if ((st->names = calloc(n ? n : 1, sizeof *st->names)) == NULL ||
      (ids = calloc(n ? n : 1, sizeof *ids)) == NULL || (mods = calloc(n ? n : 1, sizeof *mods)) == NULL)
    goto fail;
  /* The anchor's module is the site's file's: its manifest and fused
   * kernels serve every launch. Without one, each launch's own module. */
  anchor = kf__anchor_module(site, symbol, capturing, &transient);
  st->retry |= transient;
  for (uint32_t i = 0; i < n; i++) {
    int identified;
    transient = 0;
    identified = kf__identify(l[i].func, symbol, &st->names[i], anchor != NULL ? NULL : &mods[i], capturing,
                              &transient) == 0;
    if (anchor != NULL && identified)
      mods[i] = anchor;
    /* During a capture, a kernel that cannot be placed may be the capture's
     * doing too: ask again rather than settle for unfused. */
    st->retry |= transient || (capturing && mods[i] == NULL);
    ids[i].name = st->names[i];
    ids[i].nargs = l[i].nargs;
    ids[i].manifest = mods[i] != NULL && mods[i]->status == 0 ? mods[i]->manifest : NULL;
    any_manifest |= ids[i].manifest != NULL;
  }
  if (st->retry) {
    st->whole = KF_FALLBACK_CAPTURE;
    kf__log(KF__LOG_INFO, "%s: discovery incomplete during stream capture: launches run unfused, "
                          "discovery runs again at the next call", where ? where : "?");
  } else if (!any_manifest) {
    st->whole = KF_FALLBACK_NO_MANIFEST;
    kf__log(KF__LOG_INFO, "%s: no manifest: launches run unfused", where ? where : "?");
  } else {
    if ((rc = kf__site_segments(st, ids, n, where)) != 0)
      goto fail;
    for (uint32_t s = 0; s < st->nsegs; s++) {
      kf__segment_t *seg = &st->segs[s];
      if (seg->group == NULL)
        continue;
      seg->fused = kf__fused_handle(mods[seg->first], seg->group->name);
      uint32_t k = 0;
      for (const kf__group_t *p = seg->group->part_next; p != NULL && seg->fused != NULL; p = p->part_next, k++)
        if ((seg->fused_later[k] = kf__fused_handle(mods[seg->first + p->part_offset], p->name)) == NULL)
          seg->fused = NULL; /* a set runs whole or not at all */
      if (seg->fused == NULL && capturing) {
        st->retry = 1;
        st->whole = KF_FALLBACK_CAPTURE;
        kf__log(KF__LOG_INFO, "%s: fused kernel %s not found during stream capture: launches run unfused, "
                              "discovery runs again at the next call", where ? where : "?", seg->group->name);
        break;
      } else if (seg->fused == NULL) {
        kf__log(KF__LOG_WARN, "%s: fused kernel %s is in the manifest but not in the module",
                where ? where : "?", seg->group->name);
        seg->group = NULL;
      } else {
        kf__log(KF__LOG_INFO, "%s: launches %u..%u -> %s", where ? where : "?", seg->first,
                seg->first + seg->count - 1, seg->group->name);
      }
    }
  }
  free(ids);
  free(mods);
  *out = st;
  return 0;
fail:
  free(ids);
  free(mods);
  kf__site_state_free(st);
  return rc;
}

int kf__site_discover(const kf_site_t *site, const kf_launch_t *l, uint32_t n,
                      uint32_t plan, int capturing, kf__site_state_t **out)
{
  /* Relaxed: cudaGetKernel may initialise the runtime, a lazy library loads
   * into the context at cuLibraryGetGlobal, the manifest copy synchronises
   * (on a stream of its own); in global mode any of it would invalidate a
   * capture, even one of another thread. */
  int mode = kf__capture_relax();
  int rc = kf__discover(site, l, n, plan, capturing, out);
  kf__capture_restore(mode);
  return rc;
}
