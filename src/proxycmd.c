/* proxycmd: placeholder until the module lands. */
#include "config.h"
typedef int fscp_placeholder_proxycmd;
