#ifndef PIPE_CSSH2_SHIM_H
#define PIPE_CSSH2_SHIM_H
#include <libssh2.h>
#endif
