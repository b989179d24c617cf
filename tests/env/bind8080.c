/* LD_PRELOAD shim for Strimzi's cluster operator: its health server binds the hard-coded port 8080, and a taken
 * port makes the operator exit (Main.startHealthServer fails the start-up chain -> System.exit(1)). Two test
 * environments on one machine each run an operator, so a bind() to port 8080 is moved to the port in
 * $KO_BIND_8080_TO (an IPv4 bind also to 127.0.0.1: nothing outside the machine needs it). Every other bind() is untouched.
 * Built by tests/provision.sh (piece strimzi-operator). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

typedef int (*bind_fn)(int, const struct sockaddr *, socklen_t);

int bind(int fd, const struct sockaddr *addr, socklen_t len) {
    static bind_fn real_bind;
    if (!real_bind)
        real_bind = (bind_fn)dlsym(RTLD_NEXT, "bind");
    const char *to = getenv("KO_BIND_8080_TO");
    int port = to ? atoi(to) : 0;
    if (port > 0 && port < 65536 && addr) {
        if (addr->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)
                && ntohs(((const struct sockaddr_in *)addr)->sin_port) == 8080) {
            struct sockaddr_in moved;
            memcpy(&moved, addr, sizeof moved);
            moved.sin_port = htons((unsigned short)port);
            moved.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            return real_bind(fd, (const struct sockaddr *)&moved, sizeof moved);
        }
        if (addr->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)
                && ntohs(((const struct sockaddr_in6 *)addr)->sin6_port) == 8080) {
            struct sockaddr_in6 moved;
            memcpy(&moved, addr, sizeof moved);
            moved.sin6_port = htons((unsigned short)port);
            return real_bind(fd, (const struct sockaddr *)&moved, sizeof moved);
        }
    }
    return real_bind(fd, addr, len);
}
