package dev.colossal.server;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * Redis's protected mode: while it is on (the default) and the default user has no password, only
 * clients on the loopback interface are served, so a server bound to every interface by mistake
 * is not open to the network. A refused RESP client reads {@link #DENIED} and is disconnected, an
 * HTTP one gets 403 with the same text (the health check stays open). CONFIG SET protected-mode,
 * {@code --protected-mode} and a config file's {@code protected-mode} turn it off.
 */
final class ProtectedMode {

    static final String DENIED = "DENIED Colossal is running in protected mode: protected mode is on and the default user"
            + " has no password, so only clients on the loopback interface are served. To serve other hosts, do one of"
            + " these: set a password (--requirepass, or from this host ACL SETUSER default on >PASSWORD); or, only"
            + " where the network keeps strangers out, turn protected mode off from this host with CONFIG SET"
            + " protected-mode no, or start the server with --protected-mode no.";

    private ProtectedMode() {}

    /** @return whether a client from {@code remote} is refused now */
    static boolean refuses(ServerContext ctx, SocketAddress remote) {
        if (!ctx.protectedMode || !ctx.acl.defaultUser().rules.nopass) {
            return false;
        }
        InetAddress a = remote instanceof InetSocketAddress i ? i.getAddress() : null;
        return a != null && !a.isLoopbackAddress();
    }

    /** @return whether the HTTP port refuses {@code remote} now: as RESP, for a server without requirepass */
    static boolean refusesHttp(ServerContext ctx, SocketAddress remote) {
        return ctx.requirePass == null && refuses(ctx, remote);
    }
}
