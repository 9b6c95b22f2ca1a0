#ifndef FSCP_sshproc_H
#define FSCP_sshproc_H
#endif
