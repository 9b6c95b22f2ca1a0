#ifndef FSCP_route_H
#define FSCP_route_H
#endif
