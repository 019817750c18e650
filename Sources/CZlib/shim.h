#ifndef PIPE_CZLIB_SHIM_H
#define PIPE_CZLIB_SHIM_H
#include <zlib.h>
#endif
