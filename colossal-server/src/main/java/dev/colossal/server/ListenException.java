package dev.colossal.server;

import java.net.BindException;

/**
 * The server could not listen on one of its ports: another process holds the port, or the bind
 * address is not one of this machine's. Names the setting, address and port, so that a front end
 * can say which flag to change; the cause is the JDK's exception.
 */
public final class ListenException extends BindException {

    private static final long serialVersionUID = 1L;

    /** The setting at fault: {@code port}, {@code http-port}, {@code bind} or {@code unixsocket}; the flags' and config file's names. */
    private final String setting;
    private final String address;
    private final int port;
    private final boolean inUse;

    ListenException(String setting, String address, int port, BindException cause) {
        super("cannot listen on " + address + ":" + port + " (" + setting + "): " + cause.getMessage());
        initCause(cause);
        this.setting = setting;
        this.address = address;
        this.port = port;
        // The JDK reports EADDRINUSE only through its message (strerror), the same on every Unix.
        this.inUse = String.valueOf(cause.getMessage()).contains("in use");
    }

    /** The Unix socket cannot be made at {@code path}: {@code setting} is {@code unixsocket}, {@link #port()} -1. */
    ListenException(java.nio.file.Path path, java.io.IOException cause) {
        super("cannot listen on Unix socket " + path + ": " + cause);
        initCause(cause);
        this.setting = "unixsocket";
        this.address = path.toString();
        this.port = -1;
        this.inUse = false;
    }

    /** The bind address names no host: {@code setting} is {@code bind}, {@link #port()} -1. */
    ListenException(String address, java.net.UnknownHostException cause) {
        super("cannot listen on " + address + ": no such host");
        initCause(cause);
        this.setting = "bind";
        this.address = address;
        this.port = -1;
        this.inUse = false;
    }

    /**
     * Returns the setting at fault.
     *
     * @return {@code port} (RESP) or {@code http-port} for a port, {@code bind} for an address that
     *     names no host, as the flags and the config file name them
     */
    public String setting() {
        return setting;
    }

    /**
     * Returns the address the server tried to listen on.
     *
     * @return the bind address
     */
    public String address() {
        return address;
    }

    /**
     * Returns the port the server tried to listen on.
     *
     * @return the port, -1 if the address named no host
     */
    public int port() {
        return port;
    }

    /**
     * Tells whether another socket holds the port, rather than the address being unusable.
     *
     * @return true if the port is in use
     */
    public boolean inUse() {
        return inUse;
    }
}
