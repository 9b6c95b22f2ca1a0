#ifndef FSCP_sftp_H
#define FSCP_sftp_H
#endif
