package dev.colossal.cli;

import dev.colossal.server.ServerConfig;
import dev.colossal.server.ServerSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Takes the redis.conf settings of a config file that are not {@code serve}'s flags into a
 * starting server, by CONFIG SET, as redis-server takes them at its start: a setting whose value is
 * the server's already is left alone, one CONFIG SET takes is set, one whose value CONFIG SET
 * refuses as Redis would (a malformed number, an unknown event class) stops the start, and the rest
 * are passed over and named, with why for those CONFIG SET says why of and the few whose absence a
 * user would feel.
 */
final class RedisConfSettings {

    /** Why a setting that changes what users see has no effect here, for a line of its own. */
    private static final Map<String, String> WHY = Map.of(
            "daemonize", "this server stays in the foreground: start it under systemd, or with nohup ... &",
            "appendonly", "there is no append-only file: every acknowledged write is already in the map files (SAVE"
                    + " forces them to the device)",
            "dir", "the data directory is --data (the 'data' setting)",
            "logfile", "the log goes to standard error");

    private RedisConfSettings() {}

    /**
     * @param file the config file, for what is said
     * @return the lines to log: the settings passed over, and why where it matters
     * @throws IllegalArgumentException naming the file and line of a value CONFIG SET refuses
     */
    static List<String> apply(ServerSettings server, Path file, List<ServeConfigFile.RedisSetting> settings) {
        List<String> said = new ArrayList<>();
        Set<String> passedOver = new LinkedHashSet<>();
        for (ServeConfigFile.RedisSetting s : settings) {
            if (s.value().equals(server.get(s.key()))) {
                continue;
            }
            String error = server.set(s.key(), s.value());
            if (error == null) {
                continue;
            }
            // Redis takes its start-only settings (daemonize, logfile, dir, ...) from the file; here they
            // have flags of serve's, or no counterpart
            boolean startOnly = error.endsWith("can't set immutable config") || error.endsWith("can't set protected config");
            if (error.startsWith("CONFIG SET failed") && !startOnly) {
                throw new IllegalArgumentException(s.where() + ": " + s.key() + " " + s.value() + ": " + error);
            }
            boolean noEffect = error.contains(ServerConfig.NOT_SETTABLE) || startOnly;
            String why = WHY.getOrDefault(s.key(), noEffect ? null : error);
            if (why != null) {
                said.add(s.where() + ": " + s.key() + " " + s.value() + ": " + why);
            } else {
                passedOver.add(s.key());
            }
        }
        if (!passedOver.isEmpty()) {
            said.add(file + ": passed over, as they have no effect here: " + String.join(", ", passedOver));
        }
        return said;
    }
}
