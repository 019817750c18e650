#ifndef PIPE_CMICROHTTPD_SHIM_H
#define PIPE_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <microhttpd.h>

/// `MHD_start_daemon` is variadic and so not callable from Swift: this starts the one kind of daemon Pipe uses.
/// A polling thread inside libmicrohttpd plus a thread per connection (so a handler may wait for its answer), bound
/// to `address` (or, when `listen_fd` is not -1, accepting on that already listening socket: a Unix socket), with
/// the limits Pipe enforces: memory per connection (bounds the request header), connections at once, connections
/// from one IP address (0: no limit), and idle seconds. The three callbacks share `context`.
static inline struct MHD_Daemon *pipe_mhd_start(
    const struct sockaddr *address, int listen_fd, uint16_t port, size_t memory_limit, unsigned int connection_limit,
    unsigned int per_ip_limit, unsigned int idle_timeout, MHD_AccessHandlerCallback handler,
    MHD_RequestCompletedCallback completed, MHD_NotifyConnectionCallback notify, void *context) {
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL;
    if (listen_fd >= 0) {
        return MHD_start_daemon(
            flags, 0, NULL, NULL, handler, context,
            MHD_OPTION_LISTEN_SOCKET, listen_fd,
            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
            MHD_OPTION_CONNECTION_TIMEOUT, idle_timeout,
            MHD_OPTION_NOTIFY_COMPLETED, completed, context,
            MHD_OPTION_NOTIFY_CONNECTION, notify, context,
            MHD_OPTION_END);
    }
    return MHD_start_daemon(
        flags, port, NULL, NULL, handler, context,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, idle_timeout,
        MHD_OPTION_NOTIFY_COMPLETED, completed, context,
        MHD_OPTION_NOTIFY_CONNECTION, notify, context,
        MHD_OPTION_END);
}

/// The port the daemon listens on (the one the system chose when it was started with port 0).
static inline uint16_t pipe_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// The connection's socket, or -1.
static inline int pipe_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// The peer's address, or NULL.
static inline const struct sockaddr *pipe_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/// Sets the connection's idle timeout (seconds); 0 is "none".
static inline enum MHD_Result pipe_mhd_set_idle_timeout(struct MHD_Connection *connection, unsigned int seconds) {
    return MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, seconds);
}
#endif
