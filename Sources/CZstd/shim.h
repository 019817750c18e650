#ifndef PIPE_CZSTD_SHIM_H
#define PIPE_CZSTD_SHIM_H
#include <zstd.h>
#endif
