#ifndef FSCP_proxycmd_H
#define FSCP_proxycmd_H
#endif
