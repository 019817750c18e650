#ifndef PIPE_CYAML_SHIM_H
#define PIPE_CYAML_SHIM_H
#include <yaml.h>
#endif
