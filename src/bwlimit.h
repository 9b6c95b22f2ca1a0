#ifndef FSCP_bwlimit_H
#define FSCP_bwlimit_H
#endif
