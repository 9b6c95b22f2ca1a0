#ifndef FSCP_sshconn_H
#define FSCP_sshconn_H
#endif
