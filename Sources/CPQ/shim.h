#ifndef PIPE_CPQ_SHIM_H
#define PIPE_CPQ_SHIM_H
#include <libpq-fe.h>
#endif
