package dev.colossal.server;

/**
 * The parameters CONFIG GET and CONFIG SET reach, for settings given at start (a redis.conf's
 * lines): {@link ColossalServer#start(ServerConfig, TlsConfig, java.nio.file.Path,
 * java.util.function.Consumer)} hands one over before the server takes its first connection, so no
 * client sees the defaults they replace.
 */
public interface ServerSettings {

    /**
     * @return what {@code CONFIG GET name} answers for a parameter of one value, or null if it
     *     knows none by that name
     */
    String get(String name);

    /**
     * Sets a parameter as {@code CONFIG SET name value} from a client would; also
     * {@code enable-debug-command}, which is set at start only (CONFIG SET refuses it, as Redis does).
     *
     * @return null if it was set, else the error CONFIG SET answers (without Redis's {@code ERR})
     */
    String set(String name, String value);

    /**
     * Follows the master at {@code host:port} from the start, as {@code REPLICAOF host port}
     * (serve's {@code --replicaof}, a config file's {@code replicaof}): no client writes before it.
     * If the data directory's last server stopped cleanly as a replica (or master) of that stream,
     * the link asks to resume where the data stands, else it syncs in full.
     *
     * @param user     the user to AUTH as (masteruser), or null for the default
     * @param password the password (masterauth), or null to send no AUTH
     */
    void replicaOf(String host, int port, String user, String password);

    /** Serves RESP on this Unix socket too, from the start ({@code unixsocket}, {@code unixsocketperm}). */
    void unixSocket(UnixSocket socket);

    /**
     * Defines the users of a config file's {@code user} lines, as redis-server does for a server
     * without an ACL file: after the file's other settings, so a {@code default} line wins over
     * {@code requirepass} wherever the two stand. CONFIG REWRITE then writes the users back as
     * {@code user} lines.
     *
     * @param lines each line's words after {@code user} (the name, then its rules), by where it is
     *              ({@code FILE:LINE}), in the file's order
     * @throws IllegalArgumentException naming the line of a rule refused or of a user defined twice;
     *     no user is defined then
     */
    void users(java.util.SequencedMap<String, java.util.List<String>> lines);

    /** The config file the settings came from: CONFIG REWRITE writes the running ones back into it. */
    void configFile(java.nio.file.Path file);
}
