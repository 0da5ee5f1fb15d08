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
     * Sets a parameter as {@code CONFIG SET name value} from a client would.
     *
     * @return null if it was set, else the error CONFIG SET answers (without Redis's {@code ERR})
     */
    String set(String name, String value);
}
