/* Messages and names for the codes of include/kfuse/error.h, shared by the
 * planning library and the runtime. */
#include "kfuse/error.h"

const char *kf_strerror(int err)
{
  switch (err) {
#define KF__ERRNO_MSG(name, code, msg) case KF_##name: return msg;
    KF_ERRNO_MAP(KF__ERRNO_MSG)
#undef KF__ERRNO_MSG
  default: return "unknown error";
  }
}

const char *kf_err_name(int err)
{
  switch (err) {
#define KF__ERRNO_NAME(name, code, msg) case KF_##name: return #name;
    KF_ERRNO_MAP(KF__ERRNO_NAME)
#undef KF__ERRNO_NAME
  default: return "UNKNOWN";
  }
}
