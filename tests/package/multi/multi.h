#ifndef KF_MULTI_H
#define KF_MULTI_H
#ifndef KF_RDC
#define KF_RDC 0
#endif
void mf_chain(const float *x, const float *y, float *t, float *o, int n);
int mf_run(int n);
#endif
