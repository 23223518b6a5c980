// GNU readline for Swift: its headers. What Swift 6 will not touch directly
// (readline's mutable globals), and the prompt's loop and signal handling,
// are C code of their own, in CHandsh.
#ifndef HANDSH_CREADLINE_SHIM_H
#define HANDSH_CREADLINE_SHIM_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <readline/readline.h>
#include <readline/history.h>

#endif
