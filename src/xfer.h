#ifndef FSCP_xfer_H
#define FSCP_xfer_H
#endif
