#ifndef FSCP_sftp_msg_H
#define FSCP_sftp_msg_H
#endif
