/* Plain C++: the program's entry, compiled by the C++ compiler. */
#include "multi.h"

int main() { return mf_run(1 << 10); }
