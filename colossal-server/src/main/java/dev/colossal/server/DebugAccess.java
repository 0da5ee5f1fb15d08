package dev.colossal.server;

import java.util.Locale;

/**
 * {@code enable-debug-command}, as Redis 7.0 has it: who may run DEBUG. {@link #NO} (the default)
 * refuses everyone, {@link #YES} allows everyone, {@link #LOCAL} allows clients on this host only.
 * Given at start ({@code serve --enable-debug-command}, a config file's line); CONFIG SET refuses
 * to change it, as Redis does, so that a client that may run CONFIG cannot grant itself DEBUG.
 */
enum DebugAccess {
    /** DEBUG is refused. */
    NO,
    /** DEBUG runs for every client its ACL lets run it. */
    YES,
    /** DEBUG runs for clients connected from 127.0.0.1 or ::1 only. */
    LOCAL;

    /** Redis's error for a value the setting does not take, after {@code argument '...'}. */
    static final String VALUES = "argument(s) must be one of the following: no, yes, local";

    /** @return the mode {@code value} names (any case), or null if none */
    static DebugAccess parse(String value) {
        for (DebugAccess m : values()) {
            if (m.name().equalsIgnoreCase(value)) {
                return m;
            }
        }
        return null;
    }

    /** @return what CONFIG GET answers: {@code no}, {@code yes} or {@code local} */
    String text() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @return whether DEBUG runs for {@code c} */
    boolean allows(Client c) {
        return this == YES || (this == LOCAL && (c.unixSocket || isLocal(c.address)));
    }

    /**
     * Whether a TCP client is local as Redis 7.0 judges it: its address is exactly 127.0.0.1 or
     * ::1 (another 127.x address is not); a Unix socket's clients are local too. The server's own
     * clients (a script's, the master link's) have no port and are not local.
     */
    static boolean isLocal(String address) {
        int colon = address.lastIndexOf(':');
        if (colon <= 0) {
            return false;
        }
        String host = address.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return host.equals("127.0.0.1") || host.equals("::1") || host.equals("0:0:0:0:0:0:0:1");
    }
}
